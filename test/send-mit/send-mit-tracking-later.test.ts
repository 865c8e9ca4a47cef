/**
 * send_mit's tracking numbers that come after the order was marked shipped at the channel: a
 * second send_mit naming the code (marked shipped first without one, the label printed later) and
 * a send_mit of several codes (document 2: shipping.link is a list of tracking links since
 * v1.1.18). Each must reach the channel, or the job must say it did not; the sandbox plays the
 * channels' contracts (Kaufland's POST /shipments, Shopify's fulfillmentTrackingInfoUpdate).
 */
import { expect } from 'chai';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { db } from '../../lib/db/knex';
import { importOrders } from '../../lib/order-import/order-import.service';
import { kauflandOf } from '../../sandbox/kaufland.sandbox';
import { shopifyOf } from '../../sandbox/shopify.sandbox';
import { channelLoopForSuite, Sandbox } from '../fleet/support';
import { call, newSeller } from '../support/api';
import { sendMitCompleted } from './support';
import { readOrder } from '../order/helpers';
import { kauflandItem } from '../portals/kaufland-support';

describe('send_mit: tracking numbers given after the order was marked shipped at the channel, and several of them', function () {
  this.timeout(60000);
  let sandbox: Sandbox;
  channelLoopForSuite((loop) => ({ sandbox } = loop));

  const sandboxPost = async (path: string, body: unknown) => {
    const res = await fetch(`${sandbox.url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    expect(res.status, path).to.equal(201);
    return (await res.json()) as Record<string, unknown>;
  };
  const orderOf = async (accountId: number, externalOrderId: string) =>
    ((await db()('sales_order').first('id').where({ account_id: accountId, external_order_id: externalOrderId })) as { id: string }).id;

  it('Kaufland: marked sent without a tracking number, then send_mit with the code: the code is added to each sent order unit (POST /shipments), not dropped while the job says ok', async () => {
    const { seller, portalAccountId, list } = await kauflandItem('KL-LATER-1');
    expect((await list()).state).to.equal('completed');
    const sold = (await sandboxPost('/_sandbox/kaufland/orders', { portal_account: portalAccountId, lines: [{ id_offer: 'KL-LATER-1', quantity: 2 }] })) as {
      id_order: string;
      id_order_units: number[];
    };
    expect((await importOrders({ accountId: seller.id, portalAccountId }, 'later-kl')).orders).to.deep.include({ created: 1 });
    const orderId = await orderOf(seller.id, sold.id_order);
    const units = () => sold.id_order_units.map((id) => kauflandOf(sandbox.state).orderUnits.get(id)!);

    // Shipped at once, the label not printed yet: Kaufland asks for carrier Other without a tracking number.
    expect(await sendMitCompleted(seller, orderId, { deliverer: 'DHL', code: [] })).to.deep.include({ platform_status: 'ok' });
    expect(units().map((u) => u.status)).to.deep.equal(['sent', 'sent']);

    const later = await sendMitCompleted(seller, orderId, { deliverer: 'DHL', code: ['00340434161094042557'] });
    expect(later).to.deep.include({ platform_status: 'ok', shipment: [{ code: '00340434161094042557', ok: true }] });
    for (const u of units()) expect(u.shipments).to.deep.include({ carrier_code: 'DHL', tracking_number: '00340434161094042557' });
    const order = await readOrder(seller, orderId);
    expect(order.shipping).to.deep.include({ code: '00340434161094042557', platform_status: 'ok' });

    // The same send_mit again (a client's retry): nothing is added twice.
    expect(await sendMitCompleted(seller, orderId, { deliverer: 'DHL', code: ['00340434161094042557'] })).to.deep.include({ platform_status: 'ok' });
    for (const u of units()) expect(u.shipments.filter((s) => s.tracking_number === '00340434161094042557')).to.have.length(1);
  });

  /** A seller's imported Shopify order of one line (two pieces); its Kontor id and the store's order. */
  async function shopifyOrder(sku: string) {
    const seller = await newSeller();
    const { id: portalAccountId } = await createPortalAccount(seller.id, { name: 'Shopify store', platform: 'webshop' });
    const created = await call('stock/', { token: seller.token, body: { stock: { name: sku, sku, quantity: 10, price: '9.90' } } });
    expect(created.status, created.text).to.equal(201);
    const placed = (await sandboxPost('/_sandbox/shopify/orders', { portal_account: portalAccountId, lines: [{ sku, quantity: 2 }] })) as { id: string };
    expect((await importOrders({ accountId: seller.id, portalAccountId }, `later-${sku}`)).orders).to.deep.include({ created: 1 });
    const store = shopifyOf(sandbox.state).orders.get(placed.id)!;
    return { seller, orderId: await orderOf(seller.id, placed.id.split('/').pop()!), store };
  }
  const numbersOf = (f: { tracking: { number: string | null; numbers?: string[] } }) => f.tracking.numbers ?? (f.tracking.number ? [f.tracking.number] : []);

  it('Shopify: send_mit with two tracking codes: the fulfilment carries both numbers (the second was dropped while its part said ok)', async () => {
    const { seller, orderId, store } = await shopifyOrder('SH-TWO-CODES');
    const result = await sendMitCompleted(seller, orderId, { deliverer: 'DHL', code: ['00340434161094042557', '00340434161094042558'] });
    expect(result, JSON.stringify(result)).to.deep.include({ platform_status: 'ok' });
    expect(store.fulfillments).to.have.length(1);
    expect(numbersOf(store.fulfillments[0]!)).to.deep.equal(['00340434161094042557', '00340434161094042558']);
    expect(store.fulfillments[0]!.tracking.company).to.equal('DHL');
    expect(store.lines.map((l) => l.fulfilled)).to.deep.equal([2]);
  });

  it('Shopify: fulfilled without a tracking number, then send_mit with the code: the fulfilment gets it; again, nothing changes; another carrier is refused, not put under the first one', async () => {
    const { seller, orderId, store } = await shopifyOrder('SH-LATER-1');
    expect(await sendMitCompleted(seller, orderId, { code: [] })).to.deep.include({ platform_status: 'ok' });
    expect(store.fulfillments.map(numbersOf)).to.deep.equal([[]]);

    expect(await sendMitCompleted(seller, orderId, { deliverer: 'DHL', code: ['00340434161094042557'] })).to.deep.include({ platform_status: 'ok' });
    expect(store.fulfillments.map(numbersOf)).to.deep.equal([['00340434161094042557']]);
    expect(store.fulfillments[0]!.tracking.company).to.equal('DHL');
    expect(await sendMitCompleted(seller, orderId, { deliverer: 'DHL', code: ['00340434161094042557'] })).to.deep.include({ platform_status: 'ok' });
    expect(store.fulfillments.map(numbersOf)).to.deep.equal([['00340434161094042557']]);

    // Shopify keeps one company per fulfilment: a UPS number added there would read as DHL's.
    const ups = await sendMitCompleted(seller, orderId, { deliverer: 'UPS', code: ['1Z999AA10123456784'] });
    expect(ups.platform_status).to.equal('error');
    expect(ups.shipment[0]!.error).to.match(/DHL/).and.match(/UPS/);
    expect(store.fulfillments.map(numbersOf)).to.deep.equal([['00340434161094042557']]);
    expect((await readOrder(seller, orderId)).shipping).to.deep.include({ platform_status: 'error' });
  });
});
