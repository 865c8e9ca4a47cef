/**
 * webshop at the sandbox's Shopify store, the whole loop through Kontor's API and workers: a
 * sale in the store imported exactly once (twice fetched, and by two fetchers at once) with its
 * lines, buyer and payment, the sale's quantity at eBay and back at the store
 * (inventorySetQuantities), and the order shipped (send_mit as fulfillmentCreate with tracking).
 */
import { expect } from 'chai';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { db } from '../../lib/db/knex';
import { importOrders } from '../../lib/order-import/order-import.service';
import { WebshopAdapter } from '../../lib/portals/webshop.adapter';
import { shopifyOf } from '../../sandbox/shopify.sandbox';
import { channelLoopForSuite, jobEnd, Sandbox, waitFor } from '../fleet/support';
import { call, newSeller } from '../support/api';
import { readOrder, stockQuantity } from '../order/helpers';
import type { AdjustResult } from '../../lib/cia/cia.service';

describe('webshop at Shopify: a sale imported once, its quantity at eBay and the store, shipped (the sandbox built from the Admin GraphQL schema)', function () {
  this.timeout(60000);
  let sandbox: Sandbox;
  channelLoopForSuite((loop) => ({ sandbox } = loop));

  it('when an item sells in the Shopify store, the order comes in once, the quantity reaches eBay and the store, and send_mit fulfils it with tracking', async () => {
    const seller = await newSeller();
    const { id: portalAccountId } = await createPortalAccount(seller.id, { name: 'Shopify store', platform: 'webshop' });
    const connector = (await db()('portal_account').where({ id: portalAccountId }).first('connector')) as { connector: string };
    expect(connector.connector).to.equal('shopify');
    const { id: ebayId } = await createPortalAccount(seller.id, { name: 'eBay shop', platform: 'auction_a' });
    const created = await call('stock/', {
      token: seller.token,
      body: {
        stock: {
          name: 'Teekanne Kobalt',
          sku: 'SH-POT-1',
          quantity: 10,
          price: '24.90',
          webshop: [{ shop_id: 'main', name: 'Teekanne Kobalt 1,5 l', ean: '4006381333931', weight: '0.85' }],
          cia: { webshop: { is_active: true }, auction_a: { is_active: true } },
        },
      },
    });
    expect(created.status, created.text).to.equal(201);
    const stockId = Number(created.body.stock_id);
    // Document 2 has no portal_upload entry for the web shop: the product is made through the adapter, as the seller's shop would hold it.
    const target = { portalAccountId, connector: 'shopify' as const, baseUrl: sandbox.url, credentials: {} };
    await new WebshopAdapter().list(
      target,
      {
        stockId,
        name: 'Teekanne Kobalt',
        sku: 'SH-POT-1',
        ean: '4006381333931',
        price: '24.90',
        quantityAvailable: 10,
        group: { shop_id: 'main', weight: '0.85' },
      },
      'list',
    );
    const s = shopifyOf(sandbox.state);
    const variant = () => s.variantBySku(String(portalAccountId), 'SH-POT-1')!;
    const available = () => s.available.get(variant().inventoryItemId);

    const sale = await fetch(`${sandbox.url}/_sandbox/sell`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        portal: 'webshop',
        portal_account: portalAccountId,
        sku: 'SH-POT-1',
        quantity: 2,
        buyer: { name: 'Erika Muster', email: 'erika@example.de', street: 'Lindenweg 3', zip: '10115', city: 'Berlin', country_iso2: 'DE' },
      }),
    });
    expect(sale.status).to.equal(201);
    const gid = ((await sale.json()) as { order_id: string }).order_id;
    const orderId = gid.split('/').pop()!;
    // Meanwhile the store shows something else: CIA's push after the sale sets it right.
    s.available.set(variant().inventoryItemId, 99);

    // Calls of one operation (the workers' CIA pushes and order fetches run meanwhile).
    const shopifyCalls = (operation: string) =>
      sandbox.state.requests.filter(
        (r) => r.portal === 'webshop' && r.portalAccount === String(portalAccountId) && String((r.body as { query?: string }).query).includes(operation),
      ).length;
    const first = await importOrders({ accountId: seller.id, portalAccountId }, 'sh-1');
    expect(first.orders).to.deep.include({ created: 1 });
    const [a, b] = await Promise.all([
      importOrders({ accountId: seller.id, portalAccountId }, 'sh-2'),
      importOrders({ accountId: seller.id, portalAccountId }, 'sh-3'),
    ]);
    expect((a.orders.created ?? 0) + (b.orders.created ?? 0)).to.equal(0);
    const rows = await db()('sales_order').select('id').where({ account_id: seller.id, external_order_id: orderId });
    expect(rows).to.have.length(1);
    const order = await readOrder(seller, rows[0]!.id);
    expect(order.line.map((l) => [l.sku, l.quantity, l.price])).to.deep.equal([['SH-POT-1', '2', '24.90']]);
    expect(order).to.deep.include({ platform: 'webshop', external_order_id: orderId, currency_id: 'EUR' });
    expect(order.status).to.deep.include({ is_paid: true, is_shipped: false });
    expect(order.customer).to.deep.include({ email: 'erika@example.de' });
    expect(order.customer.address).to.deep.equal({ name: 'Erika Muster', street: 'Lindenweg 3', zip: '10115', city: 'Berlin', country_iso2: 'DE' });
    expect(await stockQuantity(seller, stockId)).to.equal(8);

    const shown = (id: number, portal: string) => sandbox.state.quantities(String(id))[portal]?.['SH-POT-1'];
    await waitFor('8 at eBay', async () => (shown(ebayId, 'auction_a') === 8 ? true : undefined), 20000);
    await waitFor('8 available in the store', async () => (available() === 8 ? true : undefined), 20000);

    const beforeShipping = shopifyCalls('mutation KontorFulfillment(');
    const shipped = await call(`order/${rows[0]!.id}/send_mit/`, {
      token: seller.token,
      body: { send_mit: { deliverer: 'DHL', code: ['00340434161094042557'], date: '2026-11-25' } },
    });
    expect(shipped.status, shipped.text).to.equal(202);
    const sent = await jobEnd(seller.token, shipped.body.job_id as string);
    expect(sent.state, sent.error).to.equal('completed');
    // send_mit: one fulfillmentCreate (after reading the order's fulfillment orders).
    expect(shopifyCalls('mutation KontorFulfillment(') - beforeShipping).to.equal(1);
    const fulfilled = s.orders.get(gid)!;
    // With Kontor's tracking page of the number (shipping.link), so the buyer's mail links it whatever Shopify knows of the carrier.
    expect(fulfilled.fulfillments.map((f) => f.tracking)).to.deep.equal([
      {
        number: '00340434161094042557',
        company: 'DHL',
        urls: ['https://www.dhl.de/de/privatkunden/pakete-empfangen/verfolgen.html?piececode=00340434161094042557'],
      },
    ]);
    expect(fulfilled.lines.map((l) => l.fulfilled)).to.deep.equal([2]);
  });

  it('when the store keeps selling the variant when out of stock, then CIA sets its quantity but does not count it done: the CIA state names the setting to switch', async () => {
    const seller = await newSeller();
    const { id: portalAccountId } = await createPortalAccount(seller.id, { name: 'Shopify store', platform: 'webshop' });
    const created = await call('stock/', {
      token: seller.token,
      body: {
        stock: { name: 'Milchkanne', sku: 'SH-CONT-1', quantity: 3, price: '9.90', webshop: [{ shop_id: 'main' }], cia: { webshop: { is_active: true } } },
      },
    });
    expect(created.status, created.text).to.equal(201);
    const stockId = Number(created.body.stock_id);
    const target = { portalAccountId, connector: 'shopify' as const, baseUrl: sandbox.url, credentials: {} };
    await new WebshopAdapter().list(
      target,
      { stockId, name: 'Milchkanne', sku: 'SH-CONT-1', ean: null, price: '9.90', quantityAvailable: 3, group: { shop_id: 'main' } },
      'list',
    );
    // The merchant switches "Continue selling when out of stock" on in Shopify's admin.
    const set = await fetch(`${sandbox.url}/_sandbox/shopify/variant`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ portal_account: portalAccountId, sku: 'SH-CONT-1', inventory_policy: 'CONTINUE' }),
    });
    expect(set.status).to.equal(200);
    const s = shopifyOf(sandbox.state);
    const available = () => s.available.get(s.variantBySku(String(portalAccountId), 'SH-CONT-1')!.inventoryItemId);

    // The last units are sold elsewhere: Kontor's count is 0, and the push sets 0 at the store.
    const changed = await call(`stock/${stockId}/`, { token: seller.token, body: { stock: { quantity: 0 } } });
    expect(changed.status, changed.text).to.equal(200);
    await waitFor('0 available in the store', async () => (available() === 0 ? true : undefined), 20000);
    const state = async () => {
      const res = await call(`stock/${stockId}/cia/`, { token: seller.token, method: 'POST' });
      expect(res.status, res.text).to.equal(202);
      const job = await jobEnd(seller.token, res.body.job_id as string);
      expect(job.state, job.error).to.equal('completed');
      return (job.result as AdjustResult).portals.find((p) => p.portal === 'webshop');
    };
    const shown = await waitFor(
      'the refusal in the CIA state',
      async () => {
        const p = await state();
        return p?.message ? p : undefined;
      },
      20000,
      200,
    );
    expect(shown).to.deep.include({ portal_account_id: portalAccountId, quantity: 0, push: true });
    expect(shown.message).to.contain('SKU SH-CONT-1').and.contain('inventory policy CONTINUE');
  });
});
