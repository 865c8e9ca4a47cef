/**
 * send_mit against what the channel already holds: units of an Amazon order confirmed shipped
 * before (another tool, Seller Central). Through POST order/{order_id}/send_mit/ and the sandbox
 * playing the channel's contract (ordersV0.json confirmShipment, orders_2026-01-01.json ItemFulfillment).
 */
import { expect } from 'chai';
import { importOrders } from '../../lib/order-import/order-import.service';
import { amazonOf } from '../../sandbox/amazon.sandbox';
import { channelLoopForSuite, jobEnd, Sandbox } from '../fleet/support';
import { createStock, readOrder } from '../order/helpers';
import { call, newSeller, Seller } from '../support/api';
import { amazonSandboxOrder, kontorOrder } from '../portals/channel-support';

const DE = 'A1PA6795UKMFR9';

describe('send_mit against what the channel holds already: units shipped before, tracking URLs, an order the channel took over', function () {
  this.timeout(60000);
  let sandbox: Sandbox;
  channelLoopForSuite((loop) => ({ sandbox } = loop));

  type SendMitResult = { platform_status: string | null; shipment: { code: string | null; ok: boolean; error?: string }[] };
  const sendMit = async (seller: Seller, orderId: string, sendMit: Record<string, unknown>): Promise<SendMitResult> => {
    const posted = await call(`order/${orderId}/send_mit/`, { token: seller.token, body: { send_mit: { is_mail: false, ...sendMit } } });
    expect(posted.status, posted.text).to.equal(202);
    const end = await jobEnd(seller.token, posted.body.job_id as string);
    expect(end.state, end.error).to.equal('completed');
    return end.result as SendMitResult;
  };

  describe('Amazon: a confirmation claims only what is left to ship', () => {
    /** A seller's Amazon order of `lines` placed at the sandbox and imported. */
    async function amazonOrder(lines: { sku: string; quantity: number }[]) {
      const seller = await newSeller();
      for (const l of lines) await createStock(seller, l.sku, 10);
      const { amazonId, orderId: external } = await amazonSandboxOrder(sandbox, seller, DE, {
        currency: 'EUR',
        lines: lines.map((l) => ({ ...l, price: '20.00' })),
      });
      await importOrders({ accountId: seller.id, portalAccountId: amazonId }, `left-${amazonId}`);
      const atAmazon = () => amazonOf(sandbox.state).orders.get(external)!;
      const confirmations = () =>
        sandbox.state.requests.filter((r) => r.portal === 'market_d' && r.path === `/orders/v0/orders/${external}/shipmentConfirmation`);
      return { seller, amazonId, external, orderId: (await kontorOrder(seller, external))!.id, atAmazon, confirmations };
    }

    /** Another tool of the seller (a shipping app, as Seller Central would) confirms units through SP-API's confirmShipment. */
    async function confirmElsewhere(amazonId: number, external: string, trackingNumber: string, orderItems: { orderItemId: string; quantity: number }[]) {
      const lwa = await fetch(`${sandbox.url}/auth/o2/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: `Atzr|sandbox-${amazonId}`, client_id: 'c', client_secret: 's' }).toString(),
      });
      const token = ((await lwa.json()) as { access_token: string }).access_token;
      const res = await fetch(`${sandbox.url}/orders/v0/orders/${external}/shipmentConfirmation`, {
        method: 'POST',
        headers: { 'x-amz-access-token': token, 'Content-Type': 'application/json' },
        body: JSON.stringify({
          marketplaceId: DE,
          packageDetail: { packageReferenceId: '1', carrierCode: 'DHL', trackingNumber, shipDate: '2026-11-24T10:00:00Z', orderItems },
        }),
      });
      expect(res.status, await res.text()).to.equal(204);
    }

    it('one of three units confirmed elsewhere, then send_mit with a code: the package claims the two left and is ok (it claimed three, which Amazon refuses, and the two went unconfirmed)', async () => {
      const { seller, amazonId, external, orderId, atAmazon, confirmations } = await amazonOrder([{ sku: 'LEFT-AMZ-1', quantity: 3 }]);
      const item = atAmazon().lines[0]!.orderItemId;
      await confirmElsewhere(amazonId, external, '00340434161094042500', [{ orderItemId: item, quantity: 1 }]);

      const result = await sendMit(seller, orderId, { deliverer: 'DHL', code: ['00340434161094042557'], date: '2026-11-25' });
      expect(result, JSON.stringify(result)).to.deep.include({ platform_status: 'ok', shipment: [{ code: '00340434161094042557', ok: true }] });
      const sent = confirmations().at(-1)!.body as { packageDetail: { packageReferenceId: string; orderItems: { orderItemId: string; quantity: number }[] } };
      expect(sent.packageDetail).to.deep.include({ packageReferenceId: '2', orderItems: [{ orderItemId: item, quantity: 2 }] });
      expect(atAmazon().status).to.equal('SHIPPED');
      expect(atAmazon().lines[0]!.quantityShipped).to.equal(3);
      expect(atAmazon().packages.map((k) => [k.trackingNumber, k.packageItems[0]!.quantity])).to.deep.equal([
        ['00340434161094042500', 1],
        ['00340434161094042557', 2],
      ]);
      const order = await readOrder(seller, orderId);
      expect(order.status).to.deep.include({ is_shipped: true });
      expect(order.shipping).to.deep.include({ platform_status: 'ok', code: '00340434161094042557' });
    });

    it('a line shipped elsewhere whole, then send_mit with two codes: the package of the other line is confirmed, the one with nothing left is refused naming it without a call (partially_ok)', async () => {
      const { seller, amazonId, external, orderId, atAmazon, confirmations } = await amazonOrder([
        { sku: 'LEFT-AMZ-A', quantity: 1 },
        { sku: 'LEFT-AMZ-B', quantity: 2 },
      ]);
      const [a, b] = atAmazon().lines.map((l) => l.orderItemId);
      await confirmElsewhere(amazonId, external, '00340434161094042500', [{ orderItemId: a!, quantity: 1 }]);

      const result = await sendMit(seller, orderId, { deliverer: 'DHL', code: ['00340434161094042557', '00340434161094042558'] });
      expect(result.platform_status, JSON.stringify(result)).to.equal('partially_ok');
      expect(result.shipment[0]).to.deep.include({ code: '00340434161094042557', ok: false });
      expect(result.shipment[0]!.error).to.match(/nothing left to ship/);
      expect(result.shipment[1]).to.deep.equal({ code: '00340434161094042558', ok: true });
      // One confirmation by the other tool, one by send_mit (B's two units); none refused.
      expect(confirmations().map((r) => r.status)).to.deep.equal([204, 204]);
      expect(atAmazon().lines.map((l) => l.quantityShipped)).to.deep.equal([1, 2]);
      expect(atAmazon().packages.at(-1)!.packageItems).to.deep.equal([{ orderItemId: b, quantity: 2 }]);
      expect((await readOrder(seller, orderId)).shipping).to.deep.include({ platform_status: 'partially_ok' });
    });
  });
});
