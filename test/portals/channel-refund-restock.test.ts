/**
 * What a channel says happened to the goods reaches Kontor's lines and stock through the order
 * import, as the vendors' contracts define it (sandbox played from the contracts):
 * - Shopify (admin_schema_2025-01.json, Refund.refundLineItems): units refunded with restockType
 *   CANCEL (unfulfilled, never left) or RETURN (returned and restocked) leave the Kontor line and
 *   come back to stock; NO_RESTOCK units stay; a return of an order shipped here is told, not applied;
 * - eBay (sell_fulfillment_v1_oas3.json, CancelStatus): getOrders' cancelRequests "is always
 *   empty", getOrder names them: a buyer's open request is read with getOrder and told once.
 * Each time: GET order/ lines, GET stock/{id}/ quantity, the stock history row, the quantity CIA
 * pushes to eBay, and a second import that changes nothing.
 */
import { expect } from 'chai';
import { importOrders } from '../../lib/order-import/order-import.service';
import { channelLoopForSuite, Sandbox, waitFor } from '../fleet/support';
import { channelChangeHelpers } from './channel-changes-support';
import type { Seller } from '../support/api';
import { movements, stockQuantity } from '../order/helpers';

describe('channel refunds and cancel requests: what happened to the goods reaches the lines and the stock', function () {
  this.timeout(60000);
  let sandbox: Sandbox;
  channelLoopForSuite((loop) => ({ sandbox } = loop));

  const { post, sellerWith, kontorOrder, quantities, lastMove } = channelChangeHelpers(() => sandbox);
  const violations = async (vendor: string) => (await (await fetch(`${sandbox.url}/_sandbox/violations?vendor=${vendor}`)).json()) as unknown[];
  const importer = (seller: Seller, channelId: number) => (name: string) => importOrders({ accountId: seller.id, portalAccountId: channelId }, name);

  describe('Shopify: refunds and their restockType', () => {
    /** A Shopify order at the sandbox store: its number and its lines' numbers. */
    async function place(channelId: number, lines: { sku: string; quantity: number; price: string }[]) {
      const placed = await post('/_sandbox/shopify/orders', { portal_account: channelId, lines });
      return { id: String(placed.id).split('/').pop()!, lines: (placed.lines as { id: string }[]).map((l) => Number(l.id.split('/').pop())) };
    }

    /** The store fulfils units of a line itself (its admin: fulfillmentCreate through the Admin API). */
    async function storeFulfils(channelId: number, orderId: string, line: number, quantity: number) {
      const order = (await (await fetch(`${sandbox.url}/_sandbox/shopify/orders/${orderId}`)).json()) as {
        fulfillmentOrders: { id: string; lines: { id: string; lineId: string }[] }[];
      };
      const fo = order.fulfillmentOrders[0]!;
      const fl = fo.lines.find((l) => l.lineId === `gid://shopify/LineItem/${line}`)!;
      const res = await fetch(`${sandbox.url}/admin/api/2025-01/graphql.json`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Shopify-Access-Token': `shpat_sandbox_${channelId}` },
        body: JSON.stringify({
          query: `mutation F($f: FulfillmentInput!) { fulfillmentCreate(fulfillment: $f) { fulfillment { id } userErrors { message } } }`,
          variables: { f: { lineItemsByFulfillmentOrder: [{ fulfillmentOrderId: fo.id, fulfillmentOrderLineItems: [{ id: fl.id, quantity }] }] } },
        }),
      });
      const body = (await res.json()) as { data?: { fulfillmentCreate: { userErrors: unknown[] } } };
      expect(body.data?.fulfillmentCreate.userErrors, JSON.stringify(body)).to.deep.equal([]);
    }

    it('when the store refunds 2 of 3 unfulfilled units with CANCEL, then the next import takes them out of the line, puts them back to stock and CIA offers them on eBay; a NO_RESTOCK unit stays; a second import changes nothing', async () => {
      const { seller, channelId, stock, atEbay } = await sellerWith('webshop', { 'RS-SHOP-A': 10, 'RS-SHOP-B': 5 });
      const run = importer(seller, channelId);
      const sold = await place(channelId, [
        { sku: 'RS-SHOP-A', quantity: 3, price: '10.00' },
        { sku: 'RS-SHOP-B', quantity: 2, price: '20.00' },
      ]);
      expect((await run('rs-shop-1')).orders).to.deep.include({ created: 1 });
      expect(await stockQuantity(seller, stock['RS-SHOP-A']!)).to.equal(7);
      await waitFor('7 at eBay', () => atEbay('RS-SHOP-A') === 7, 20000);

      await post(`/_sandbox/shopify/orders/${sold.id}/refund`, { line: sold.lines[0], quantity: 2, restock_type: 'CANCEL', amount: '20.00' });
      await post(`/_sandbox/shopify/orders/${sold.id}/refund`, { line: sold.lines[1], quantity: 1, restock_type: 'NO_RESTOCK', amount: '20.00' });
      expect((await run('rs-shop-2')).orders).to.deep.include({ updated: 1 });
      const order = await kontorOrder(seller, sold.id);
      expect(quantities(order)).to.deep.equal([
        ['RS-SHOP-A', '1'],
        ['RS-SHOP-B', '2'],
      ]);
      expect(order.invoice_amount).to.equal('54.90');
      expect(order.paid_amount).to.equal('34.90');
      expect(order.history.at(-1)).to.match(/webshop order \d+ \(portal account \d+\): paid 34\.90, line 1 quantity 3 -> 1$/);
      expect(await stockQuantity(seller, stock['RS-SHOP-A']!)).to.equal(9);
      expect(await stockQuantity(seller, stock['RS-SHOP-B']!)).to.equal(3);
      expect(await lastMove(seller, stock['RS-SHOP-A']!)).to.deep.equal({ old: 7, difference: 2, new: 9 });
      await waitFor('9 at eBay', () => atEbay('RS-SHOP-A') === 9, 20000);

      const moves = (await movements(seller, stock['RS-SHOP-A']!)).length;
      expect((await run('rs-shop-3')).orders.updated ?? 0).to.equal(0);
      expect((await kontorOrder(seller, sold.id)).history).to.have.length(order.history.length);
      expect(await movements(seller, stock['RS-SHOP-A']!)).to.have.length(moves);
      expect(await violations('shopify')).to.deep.equal([]);
    });

    it('when the store takes back a unit it had fulfilled (RETURN) while the order is not shipped here, then the unit leaves the line and comes back to stock', async () => {
      const { seller, channelId, stock } = await sellerWith('webshop', { 'RS-SHOP-C': 10, 'RS-SHOP-D': 10 });
      const run = importer(seller, channelId);
      const sold = await place(channelId, [
        { sku: 'RS-SHOP-C', quantity: 2, price: '10.00' },
        { sku: 'RS-SHOP-D', quantity: 1, price: '10.00' },
      ]);
      await run('rs-shop-c1');
      await storeFulfils(channelId, sold.id, sold.lines[0]!, 2);
      await run('rs-shop-c2');
      expect((await kontorOrder(seller, sold.id)).status.is_shipped).to.equal(false);

      await post(`/_sandbox/shopify/orders/${sold.id}/refund`, { line: sold.lines[0], quantity: 1, restock_type: 'RETURN', amount: '10.00' });
      await run('rs-shop-c3');
      const order = await kontorOrder(seller, sold.id);
      expect(quantities(order)).to.deep.equal([
        ['RS-SHOP-C', '1'],
        ['RS-SHOP-D', '1'],
      ]);
      expect(await stockQuantity(seller, stock['RS-SHOP-C']!)).to.equal(9);
      expect(await lastMove(seller, stock['RS-SHOP-C']!)).to.deep.equal({ old: 8, difference: 1, new: 9 });
    });

    it('when a buyer returns a unit of an order shipped here and the store restocks it, then line and stock stay and the history tells the seller to book it in, once', async () => {
      const { seller, channelId, stock } = await sellerWith('webshop', { 'RS-SHOP-S': 10 });
      const run = importer(seller, channelId);
      const sold = await place(channelId, [{ sku: 'RS-SHOP-S', quantity: 2, price: '10.00' }]);
      await run('rs-shop-s1');
      await storeFulfils(channelId, sold.id, sold.lines[0]!, 2);
      await run('rs-shop-s2');
      expect((await kontorOrder(seller, sold.id)).status.is_shipped).to.equal(true);

      await post(`/_sandbox/shopify/orders/${sold.id}/refund`, { line: sold.lines[0], quantity: 1, restock_type: 'RETURN', amount: '10.00' });
      await run('rs-shop-s3');
      await run('rs-shop-s4');
      const order = await kontorOrder(seller, sold.id);
      expect(quantities(order)).to.deep.equal([['RS-SHOP-S', '2']]);
      expect(order.paid_amount).to.equal('14.90');
      const told = order.history.filter((h) => /line 1: 1 returned and restocked at the channel in all; book them in here if sellable/.test(h));
      expect(told).to.have.length(1);
      expect(told[0]).to.match(/line 1 quantity 2 -> 1 at the channel, but the order is shipped here: not applied/);
      expect(await stockQuantity(seller, stock['RS-SHOP-S']!)).to.equal(8);
    });

    it('when a refund names a restock the goods do not allow, then the sandbox store refuses it (422) and records nothing', async () => {
      const { channelId } = await sellerWith('webshop', {});
      const sold = await place(channelId, [{ sku: 'RS-SHOP-X', quantity: 2, price: '10.00' }]);
      await post(`/_sandbox/shopify/orders/${sold.id}/refund`, { line: sold.lines[0], quantity: 1, restock_type: 'RETURN', amount: '10.00' }, [422]);
      await post(`/_sandbox/shopify/orders/${sold.id}/refund`, { line: sold.lines[0], quantity: 3, restock_type: 'CANCEL', amount: '10.00' }, [422]);
      await post(`/_sandbox/shopify/orders/${sold.id}/refund`, { line: sold.lines[0], quantity: 1, restock_type: 'LEGACY_RESTOCK', amount: '10.00' }, [422]);
      const order = (await (await fetch(`${sandbox.url}/_sandbox/shopify/orders/${sold.id}`)).json()) as { refunds: unknown[]; refunded: string };
      expect(order.refunds).to.deep.equal([]);
      expect(order.refunded).to.equal('0.00');
    });
  });

  describe('eBay: a buyer’s cancellation request', () => {
    it('when the buyer asks to cancel an eBay order, then getOrders shows no request, the import reads the order once with getOrder, the history says so once and no stock moves', async () => {
      const { seller, channelId, stock } = await sellerWith('auction_a', { 'RS-EBAY-A': 10 });
      const run = importer(seller, channelId);
      const { order_id: orderId } = (await post('/_sandbox/ebay/orders', {
        portal_account: channelId,
        lines: [{ sku: 'RS-EBAY-A', quantity: 2, price: '15.00' }],
      })) as { order_id: string };
      expect((await run('rs-ebay-1')).orders).to.deep.include({ created: 1 });
      expect(await stockQuantity(seller, stock['RS-EBAY-A']!)).to.equal(8);

      await post(`/_sandbox/ebay/orders/${orderId}/cancel_request`, { reason: 'order placed by mistake' });
      const auth = { Authorization: `Bearer sandbox-account-${channelId}` };
      const listed = (await (await fetch(`${sandbox.url}/sell/fulfillment/v1/order?limit=50`, { headers: auth })).json()) as {
        orders: { orderId: string; cancelStatus: { cancelState: string; cancelRequests: unknown[] } }[];
      };
      expect(listed.orders.find((o) => o.orderId === orderId)!.cancelStatus).to.deep.equal({ cancelState: 'IN_PROGRESS', cancelRequests: [] });
      const single = (await (await fetch(`${sandbox.url}/sell/fulfillment/v1/order/${orderId}`, { headers: auth })).json()) as {
        cancelStatus: { cancelRequests: { cancelRequestState: string; cancelReason: string }[] };
      };
      expect(single.cancelStatus.cancelRequests).to.have.length(1);
      expect(single.cancelStatus.cancelRequests[0]).to.include({ cancelRequestState: 'REQUESTED', cancelReason: 'order placed by mistake' });

      const getOrders = () =>
        sandbox.state.requests.filter(
          (r) => r.portal === 'auction_a' && r.portalAccount === String(channelId) && r.path === `/sell/fulfillment/v1/order/${orderId}`,
        ).length;
      const before = getOrders();
      expect((await run('rs-ebay-2')).orders).to.deep.include({ updated: 1 });
      expect((await run('rs-ebay-3')).orders.updated ?? 0).to.equal(0);
      expect(getOrders() - before, 'one getOrder for the order with a request, not one per fetch').to.equal(1);
      const order = await kontorOrder(seller, orderId);
      const told = order.history.filter((h) =>
        /auction_a order .+: the buyer asks to cancel the order \(order placed by mistake\); do not ship it before the channel decides$/.test(h),
      );
      expect(told).to.have.length(1);
      expect(quantities(order)).to.deep.equal([['RS-EBAY-A', '2']]);
      expect(order.status.is_cancelled).to.equal(false);
      expect(await stockQuantity(seller, stock['RS-EBAY-A']!)).to.equal(8);
      expect(await violations('ebay')).to.deep.equal([]);
    });
  });
});
