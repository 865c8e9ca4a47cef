/**
 * market_e at the sandbox's Kaufland, the whole loop through Kontor's API and workers: the item
 * listed as a unit (portal_upload), its quantity pushed as the unit's amount (CIA), a sale there
 * imported exactly once (twice fetched, and by two fetchers at once) with its lines, buyer,
 * addresses and payment, the sale's quantity at eBay, Amazon and back at Kaufland, and the order
 * shipped (send_mit).
 */
import { expect } from 'chai';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { db } from '../../lib/db/knex';
import { importOrders } from '../../lib/order-import/order-import.service';
import { sellerCentralListing } from '../../sandbox/amazon.sandbox';
import { kauflandOf } from '../../sandbox/kaufland.sandbox';
import { channelLoopForSuite, jobEnd, Sandbox, waitFor } from '../fleet/support';
import { call, newSeller } from '../support/api';
import { readOrder, stockQuantity } from '../order/helpers';
import { answeredAddress } from '../support/order-address';

describe('market_e at Kaufland: list, CIA, an order imported once, shipped (the sandbox played from the Seller API contract)', function () {
  this.timeout(60000);
  let sandbox: Sandbox;
  channelLoopForSuite((loop) => ({ sandbox } = loop));

  it('when an item is listed at Kaufland and sold there, then the order comes in once with its lines, buyer, addresses and payment, the quantity reaches eBay, Amazon and Kaufland, and send_mit marks its order units sent', async () => {
    const seller = await newSeller();
    const { id: portalAccountId } = await createPortalAccount(seller.id, { name: 'Kaufland.de', platform: 'market_e' });
    const connector = (await db()('portal_account').where({ id: portalAccountId }).first('connector')) as { connector: string };
    expect(connector.connector).to.equal('kaufland');
    // eBay and Amazon accounts of the same seller (development identities at the sandbox).
    const { id: ebayId } = await createPortalAccount(seller.id, { name: 'eBay shop', platform: 'auction_a' });
    const { id: amazonId } = await createPortalAccount(seller.id, { name: 'Amazon DE', platform: 'market_d' });
    // The SKU is listed at Amazon in Seller Central (Amazon.de): CIA sets the quantity of a listing
    // Amazon holds, and refuses one it holds none of (3c34cbc: a quantity alone makes no offer).
    sellerCentralListing(sandbox.state, String(amazonId), 'KL-POT-1', ['A1PA6795UKMFR9']);
    const created = await call('stock/', {
      token: seller.token,
      body: {
        stock: {
          name: 'Teekanne Kobalt',
          sku: 'KL-POT-1',
          quantity: 10,
          market_e: { ean: '4006381333931', price: '24.90', price_min: '19.90', delivery_time: '1-2', comment: 'Neu, OVP', shipping_group_id: 'Standard' },
          cia: { market_e: { is_active: true }, auction_a: { is_active: true }, market_d: { is_active: true, portal_account_id: [amazonId] } },
        },
      },
    });
    expect(created.status, created.text).to.equal(201);
    const stockId = Number(created.body.stock_id);

    // portal_upload list: POST /units with the mapping, the unit's amount the item's quantity.
    const upload = await call(`stock/${stockId}/portal_upload/`, {
      token: seller.token,
      body: { portal_upload: { market_e: [{ action: 'list', portal_account_id: portalAccountId }] } },
    });
    expect(upload.status, upload.text).to.be.oneOf([202, 207]);
    const listed = await jobEnd(seller.token, (upload.body.response as { job_id: string }[])[0]!.job_id);
    expect(listed.state, listed.error).to.equal('completed');
    const k = kauflandOf(sandbox.state);
    const unit = () => [...k.units.values()].find((u) => u.account === String(portalAccountId) && u.id_offer === 'KL-POT-1');
    expect(unit()).to.deep.include({
      ean: '4006381333931',
      listing_price: 2490,
      minimum_price: 1990,
      handling_time: 1,
      note: 'Neu, OVP',
      id_shipping_group: 1,
      amount: 10,
    });

    // A sale at Kaufland: two pieces, one order with two order units.
    const sale = await fetch(`${sandbox.url}/_sandbox/sell`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        portal: 'market_e',
        portal_account: portalAccountId,
        sku: 'KL-POT-1',
        quantity: 2,
        buyer: { name: 'Erika Muster', email: 'erika@example.de', street: 'Lindenweg 3', zip: '10115', city: 'Berlin', country_iso2: 'DE', phone: '+49 30 1' },
      }),
    });
    expect(sale.status).to.equal(201);
    const idOrder = ((await sale.json()) as { order_id: string }).order_id;
    // Meanwhile the unit shows something else at Kaufland: CIA's push after the sale sets it right.
    unit()!.amount = 99;

    // Fetched twice, and by two fetchers at once: one Kontor order.
    const first = await importOrders({ accountId: seller.id, portalAccountId }, 'kl-1');
    expect(first.orders).to.deep.include({ created: 1 });
    const [a, b] = await Promise.all([
      importOrders({ accountId: seller.id, portalAccountId }, 'kl-2'),
      importOrders({ accountId: seller.id, portalAccountId }, 'kl-3'),
    ]);
    expect((a.orders.created ?? 0) + (b.orders.created ?? 0)).to.equal(0);
    const rows = await db()('sales_order').select('id').where({ account_id: seller.id, external_order_id: idOrder });
    expect(rows).to.have.length(1);
    const order = await readOrder(seller, rows[0]!.id);
    const units = k.orders.get(idOrder)!.units;
    expect(order.line.map((l) => [l.transaction_id, l.sku, l.quantity, l.price])).to.deep.equal(units.map((id) => [String(id), 'KL-POT-1', '1', '24.90']));
    expect(order.status).to.deep.include({ is_paid: true, is_shipped: false });
    expect(order).to.deep.include({ platform: 'market_e', external_order_id: idOrder, currency_id: 'EUR' });
    expect(order.customer).to.deep.include({ email: 'erika@example.de' });
    const address = answeredAddress({ name: 'Erika Muster', street: 'Lindenweg 3', zip: '10115', city: 'Berlin', country_iso2: 'DE' });
    expect(order.customer).to.deep.include({ email: 'erika@example.de', phone_1: '+49 30 1', username: String(k.orders.get(idOrder)!.buyer!.id_buyer) });
    expect(order.customer.address).to.deep.equal(address);
    expect((order as unknown as { shipping: { address: Record<string, unknown> } }).shipping.address).to.deep.equal(address);
    expect(order).to.deep.include({ invoice_amount: '49.80', paid_amount: '49.80' });
    expect(order.line.map((l) => (l as { tax?: string }).tax)).to.deep.equal(['19.00', '19.00']);
    expect(await stockQuantity(seller, stockId)).to.equal(8);

    // The sale reaches eBay and Amazon (CIA), and Kaufland as the unit's amount (POST /units/bulk).
    const shown = (id: number, portal: string) => sandbox.state.quantities(String(id))[portal]?.['KL-POT-1'];
    await waitFor('8 at eBay and Amazon', async () => (shown(ebayId, 'auction_a') === 8 && shown(amazonId, 'market_d') === 8 ? true : undefined), 20000);
    await waitFor('the unit amount 8 at Kaufland', async () => (unit()!.amount === 8 ? true : undefined), 20000);
    const bulk = sandbox.state.requests.filter((r) => r.portal === 'market_e' && r.portalAccount === String(portalAccountId) && r.path === '/v2/units/bulk');
    expect(bulk.at(-1)!.body).to.deep.equal([{ id_unit: unit()!.id_unit, unit_data: { amount: 8 } }]);

    // send_mit: each order unit marked sent with DHL and the tracking number.
    const shipped = await call(`order/${rows[0]!.id}/send_mit/`, {
      token: seller.token,
      body: { send_mit: { deliverer: 'DHL', code: ['00340434161094042557'], date: '2026-11-25' } },
    });
    expect(shipped.status, shipped.text).to.equal(202);
    const sent = await jobEnd(seller.token, shipped.body.job_id as string);
    expect(sent.state, sent.error).to.equal('completed');
    for (const id of units)
      expect(k.orderUnits.get(id)).to.deep.include({ status: 'sent', shipments: [{ carrier_code: 'DHL', tracking_number: '00340434161094042557' }] });
  });
});
