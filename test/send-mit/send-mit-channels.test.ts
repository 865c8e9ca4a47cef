/**
 * send_mit at Amazon and eBay beyond one first confirmation: the same send_mit again (a client's
 * retry, the seller repeating it), several tracking codes at eBay, and orders the channel ships
 * from its own warehouse (Amazon FBA, eBay's fulfilment program, fulfilled by Kaufland). Through
 * POST order/{order_id}/send_mit/ and the sandbox playing the channels' contracts
 * (orders_2026-01-01.json and ordersV0.json confirmShipment; sell_fulfillment_v1_oas3.json
 * createShippingFulfillment).
 */
import { expect } from 'chai';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { importOrders } from '../../lib/order-import/order-import.service';
import { amazonOf } from '../../sandbox/amazon.sandbox';
import { kauflandOf } from '../../sandbox/kaufland.sandbox';
import type { EbayOrder } from '../../sandbox/ebay-state.sandbox';
import { channelLoopForSuite, Sandbox } from '../fleet/support';
import { createStock, readOrder } from '../order/helpers';
import { call, newSeller, Seller } from '../support/api';
import { sendMitCompleted } from './support';
import { amazonSandboxOrder, kontorOrder, sandboxPost } from '../portals/channel-support';
import { kauflandItem } from '../portals/kaufland-support';

const DE = 'A1PA6795UKMFR9';

describe('send_mit at Amazon and eBay: repeated, several tracking codes, orders the channel ships itself', function () {
  this.timeout(60000);
  let sandbox: Sandbox;
  channelLoopForSuite((loop) => ({ sandbox } = loop));
  const post = (path: string, body: unknown) => sandboxPost(sandbox, path, body);

  const idOf = async (seller: Seller, externalOrderId: string) => (await kontorOrder(seller, externalOrderId))!.id;

  /** A seller's Amazon account against the sandbox, an order placed there (UNSHIPPED at once) and imported. */
  async function amazonOrder(sku: string, body: Record<string, unknown>) {
    const seller = await newSeller();
    await createStock(seller, sku, 10);
    const { amazonId, orderId: external } = await amazonSandboxOrder(sandbox, seller, DE, { currency: 'EUR', ...body });
    await importOrders({ accountId: seller.id, portalAccountId: Number(amazonId) }, `sm-${amazonId}`);
    const atAmazon = () => amazonOf(sandbox.state).orders.get(external)!;
    const confirmations = () =>
      sandbox.state.requests.filter((r) => r.portal === 'market_d' && r.path === `/orders/v0/orders/${external}/shipmentConfirmation`).map((r) => r.status);
    return { seller, orderId: await idOf(seller, external), atAmazon, confirmations };
  }

  /** A seller's eBay account, an order of `lines` placed there and imported. */
  async function ebayOrder(lines: { sku: string; quantity: number }[], extra: Record<string, unknown> = {}) {
    const seller = await newSeller();
    const { id: channelId } = await createPortalAccount(seller.id, { name: 'eBay', platform: 'auction_a' });
    for (const l of lines) await createStock(seller, l.sku, 10);
    const { order_id: external } = (await post('/_sandbox/ebay/orders', {
      portal_account: channelId,
      lines: lines.map((l) => ({ ...l, price: '10.00' })),
      ...extra,
    })) as { order_id: string };
    await importOrders({ accountId: seller.id, portalAccountId: Number(channelId) }, `sm-ebay-${channelId}`);
    const atEbay = () => sandbox.state.ebay.orders.get(external)!;
    const posts = () =>
      sandbox.state.requests
        .filter((r) => r.portal === 'auction_a' && r.method === 'POST' && r.path === `/sell/fulfillment/v1/order/${external}/shipping_fulfillment`)
        .map((r) => r.status);
    return { seller, orderId: await idOf(seller, external), atEbay, posts };
  }
  /** Units of each line item across the order's fulfillments at eBay. */
  const unitsShipped = (f: { lineItems: { lineItemId: string; quantity: number }[] }[]) => {
    const out: Record<string, number> = {};
    for (const l of f.flatMap((x) => x.lineItems)) out[l.lineItemId] = (out[l.lineItemId] ?? 0) + l.quantity;
    return out;
  };

  it('Amazon: the same send_mit again (a retry, the seller repeating it) finds the package Amazon holds and stays ok, not error for "package 1 already confirmed"', async () => {
    const { seller, orderId, atAmazon, confirmations } = await amazonOrder('SM-AMZ-1', { lines: [{ sku: 'SM-AMZ-1', quantity: 2, price: '20.00' }] });
    const shipped = { deliverer: 'DHL', code: ['00340434161094042557'], date: '2026-11-25' };
    expect(await sendMitCompleted(seller, orderId, shipped)).to.deep.include({ platform_status: 'ok' });
    expect(atAmazon().packages.map((k) => k.trackingNumber)).to.deep.equal(['00340434161094042557']);

    const again = await sendMitCompleted(seller, orderId, shipped);
    expect(again, JSON.stringify(again)).to.deep.include({ platform_status: 'ok', shipment: [{ code: '00340434161094042557', ok: true }] });
    expect((await readOrder(seller, orderId)).shipping).to.deep.include({ platform_status: 'ok' });
    // Amazon was not asked a second time: one package, one confirmation.
    expect(atAmazon().packages).to.have.length(1);
    expect(confirmations()).to.deep.equal([204]);

    // Another code later, every unit confirmed already: the part's error says nothing is left to ship, and Amazon is not asked (send-mit-left tests).
    const later = await sendMitCompleted(seller, orderId, { ...shipped, code: ['00340434161094042558'] });
    expect(later.platform_status).to.equal('error');
    expect(later.shipment[0]!.error)
      .to.match(/left to ship/)
      .and.not.match(/already confirmed/);
    expect(confirmations()).to.deep.equal([204]);
  });

  it('eBay: send_mit with two tracking codes for a line of 3 and a line of 1: two fulfillments sharing the units (each line fulfilled once in all), ok; again, nothing added', async () => {
    const { seller, orderId, atEbay, posts } = await ebayOrder([
      { sku: 'SM-EB-A', quantity: 3 },
      { sku: 'SM-EB-B', quantity: 1 },
    ]);
    const [a, b] = ((atEbay().order as EbayOrder).lineItems ?? []).map((l) => l.lineItemId!);
    const shipped = { deliverer: 'DHL', code: ['00340434161094042557', '00340434161094042558'] };
    const result = await sendMitCompleted(seller, orderId, shipped);
    expect(result, JSON.stringify(result)).to.deep.include({ platform_status: 'ok' });
    const fulfillments = atEbay().fulfillments;
    expect(fulfillments.map((f) => f.shipmentTrackingNumber)).to.deep.equal(['00340434161094042557', '00340434161094042558']);
    // Units in order, split evenly: 2 of A in the first parcel, 1 of A and B in the second.
    expect(fulfillments.map((f) => f.lineItems)).to.deep.equal([
      [{ lineItemId: a, quantity: 2 }],
      [
        { lineItemId: a, quantity: 1 },
        { lineItemId: b, quantity: 1 },
      ],
    ]);
    expect(unitsShipped(fulfillments)).to.deep.equal({ [a!]: 3, [b!]: 1 });
    expect((atEbay().order as EbayOrder).orderFulfillmentStatus).to.equal('FULFILLED');

    expect(await sendMitCompleted(seller, orderId, shipped)).to.deep.include({ platform_status: 'ok' });
    expect(atEbay().fulfillments).to.have.length(2);
    expect(posts()).to.deep.equal([201, 201]);
  });

  it('eBay: a tracking code sent after every unit is fulfilled is not posted again for the lines (eBay fulfils a line at most its quantity): the part says why, the order error', async () => {
    const { seller, orderId, atEbay, posts } = await ebayOrder([{ sku: 'SM-EB-C', quantity: 2 }]);
    expect(await sendMitCompleted(seller, orderId, { deliverer: 'DHL', code: ['00340434161094042557'] })).to.deep.include({ platform_status: 'ok' });
    const later = await sendMitCompleted(seller, orderId, { deliverer: 'DHL', code: ['00340434161094042559'] });
    expect(later.platform_status).to.equal('error');
    expect(later.shipment[0]!.error)
      .to.match(/00340434161094042559/)
      .and.match(/fulfilled/);
    expect(atEbay().fulfillments.map((f) => f.shipmentTrackingNumber)).to.deep.equal(['00340434161094042557']);
    expect(unitsShipped(atEbay().fulfillments)).to.deep.equal({ [(atEbay().order as EbayOrder).lineItems![0]!.lineItemId!]: 2 });
    expect(posts()).to.deep.equal([201]);
  });

  it('eBay sandbox: a line fulfilled beyond its quantity across fulfillments is refused with the contract’s 32600, a bad tracking number with 32300', async () => {
    const { atEbay } = await ebayOrder([{ sku: 'SM-EB-D', quantity: 2 }]);
    const { orderId: external } = atEbay().order as EbayOrder;
    const lineItemId = (atEbay().order as EbayOrder).lineItems![0]!.lineItemId!;
    const account = atEbay().account;
    const create = async (body: unknown) => {
      const res = await fetch(`${sandbox.url}/sell/fulfillment/v1/order/${external}/shipping_fulfillment`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer sandbox-account-${account}` },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as { errors?: { errorId: number; message: string }[] } };
    };
    const badNumber = await create({ lineItems: [{ lineItemId, quantity: 1 }], shippingCarrierCode: 'DHL', trackingNumber: 'A-3' });
    expect(badNumber.status).to.equal(400);
    expect(badNumber.body.errors![0]).to.deep.include({ errorId: 32300, message: 'Invalid shipment tracking number or carrier' });
    const badCarrier = await create({ lineItems: [{ lineItemId, quantity: 1 }], shippingCarrierCode: 'dhl', trackingNumber: 'A3' });
    expect(badCarrier.body.errors![0]).to.deep.include({ errorId: 32300 });
    const tooMany = await create({ lineItems: [{ lineItemId, quantity: 3 }], shippingCarrierCode: 'DHL', trackingNumber: 'A4' });
    expect(tooMany.body.errors![0]).to.deep.include({ errorId: 32600, message: 'Invalid input data' });
    expect((await create({ lineItems: [{ lineItemId, quantity: 1 }], shippingCarrierCode: 'DHL', trackingNumber: 'A1' })).status).to.equal(201);
    expect((await create({ lineItems: [{ lineItemId, quantity: 1 }], shippingCarrierCode: 'DHL', trackingNumber: 'A2' })).status).to.equal(201);
    // Both units are fulfilled: a third package naming the line is refused, across fulfillments.
    const beyond = await create({ lineItems: [{ lineItemId, quantity: 1 }], shippingCarrierCode: 'DHL', trackingNumber: 'A5' });
    expect(beyond.status).to.equal(400);
    expect(beyond.body.errors![0]).to.deep.include({ errorId: 32600, message: 'Invalid input data' });
    expect(atEbay().fulfillments.map((f) => f.shipmentTrackingNumber)).to.deep.equal(['A1', 'A2']);
  });

  describe('orders the channel ships from its own warehouse', () => {
    it('Amazon FBA: send_mit is refused (400 status_conflict naming order_id), nothing is sent to Amazon, the order stays unshipped', async () => {
      const { seller, orderId, atAmazon, confirmations } = await amazonOrder('SM-FBA-1', {
        fulfilled_by: 'AMAZON',
        lines: [{ sku: 'SM-FBA-1', quantity: 1, price: '20.00' }],
      });
      const refused = await call(`order/${orderId}/send_mit/`, { token: seller.token, body: { send_mit: { deliverer: 'DHL', code: ['0034043416109404'] } } });
      expect(refused.status, refused.text).to.equal(400);
      expect(refused.body.error![0]).to.deep.include({ error: 'status_conflict', field: 'order_id' });
      expect(JSON.stringify(refused.body)).to.contain('ships this order from its own warehouse');
      const order = await readOrder(seller, orderId);
      expect(order.status).to.deep.include({ is_shipped: false });
      expect(order.shipping.platform_status ?? null).to.equal(null);
      expect(confirmations()).to.deep.equal([]);
      expect(atAmazon().packages).to.have.length(0);
    });

    it('eBay fulfilment program: send_mit is refused, nothing is posted to eBay', async () => {
      const { seller, orderId, atEbay, posts } = await ebayOrder([{ sku: 'SM-FBE-1', quantity: 1 }], { fulfilled_by: 'EBAY' });
      const refused = await call(`order/${orderId}/send_mit/`, { token: seller.token, body: { send_mit: { deliverer: 'DHL', code: ['0034043416109404'] } } });
      expect(refused.status, refused.text).to.equal(400);
      expect(refused.body.error![0]).to.deep.include({ error: 'status_conflict', field: 'order_id' });
      expect((await readOrder(seller, orderId)).status).to.deep.include({ is_shipped: false });
      expect(posts()).to.deep.equal([]);
      expect(atEbay().fulfillments).to.have.length(0);
    });

    it('fulfilled by Kaufland: send_mit is refused, no order unit is marked sent', async () => {
      const { seller, portalAccountId, list } = await kauflandItem('SM-FBK-1');
      expect((await list()).state).to.equal('completed');
      const sold = (await post('/_sandbox/kaufland/orders', {
        portal_account: portalAccountId,
        fulfillment_type: 'fulfilled_by_kaufland',
        lines: [{ id_offer: 'SM-FBK-1', quantity: 1 }],
      })) as { id_order: string; id_order_units: number[] };
      await importOrders({ accountId: seller.id, portalAccountId }, 'sm-fbk');
      const orderId = await idOf(seller, sold.id_order);
      const refused = await call(`order/${orderId}/send_mit/`, { token: seller.token, body: { send_mit: { deliverer: 'DHL', code: ['0034043416109404'] } } });
      expect(refused.status, refused.text).to.equal(400);
      expect(refused.body.error![0]).to.deep.include({ error: 'status_conflict', field: 'order_id' });
      expect(sold.id_order_units.map((id) => kauflandOf(sandbox.state).orderUnits.get(id)!.status)).to.not.include('sent');
    });
  });
});
