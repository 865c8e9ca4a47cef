/**
 * Units a channel takes out of an order after the sale come back to Kontor's stock through the
 * order import, as the vendors' contracts define them (sandbox played from the contracts):
 * - Shopify (admin_schema_2025-01.json, LineItem): `quantity` "including refunded and removed
 *   units", `currentQuantity` "excluding refunded and removed units", `refundableQuantity`
 *   "excluding refunded units": units an order edit removed leave the Kontor line, refunded ones stay;
 * - Amazon (orders_2026-01-01.json, OrderItem `cancellation`): an item whose cancellation was
 *   executed while the order stays open leaves the line; a buyer's cancellationRequest is told
 *   once in the order's history and moves no stock.
 * Each time: GET order/ lines, GET stock/{id}/ quantity, the stock history row, the quantity CIA
 * pushes to eBay, and a second import that changes nothing.
 */
import { expect } from 'chai';
import { importOrders } from '../../lib/order-import/order-import.service';
import { unitsSold } from '../../lib/portals/shopify/order-mapping';
import { channelLoopForSuite, Sandbox, waitFor } from '../fleet/support';
import { channelChangeHelpers } from './channel-changes-support';
import { call } from '../support/api';
import { movements, stockQuantity } from '../order/helpers';

describe('channel line changes: units a channel takes out of an order after the sale come back to stock', function () {
  this.timeout(60000);
  let sandbox: Sandbox;
  channelLoopForSuite((loop) => ({ sandbox } = loop));

  const { post, sellerWith, kontorOrder, quantities, lastMove } = channelChangeHelpers(() => sandbox);

  describe('Shopify: an order edit removing units', () => {
    it('when the store removes 2 of 3 units of one line and the other line whole, then the next import shrinks both lines, puts 2 and 1 back to stock and CIA offers them on eBay; a second import changes nothing', async () => {
      const { seller, channelId, stock, atEbay } = await sellerWith('webshop', { 'CL-SHOP-A': 10, 'CL-SHOP-B': 5 });
      const placed = await post('/_sandbox/shopify/orders', {
        portal_account: channelId,
        lines: [
          { sku: 'CL-SHOP-A', quantity: 3, price: '10.00' },
          { sku: 'CL-SHOP-B', quantity: 1, price: '20.00' },
        ],
      });
      const id = String(placed.id).split('/').pop()!;
      const lineIds = (placed.lines as { id: string }[]).map((l) => Number(l.id.split('/').pop()));
      expect((await importOrders({ accountId: seller.id, portalAccountId: channelId }, 'cl-shop-1')).orders).to.deep.include({ created: 1 });
      expect(await stockQuantity(seller, stock['CL-SHOP-A']!)).to.equal(7);
      expect(await stockQuantity(seller, stock['CL-SHOP-B']!)).to.equal(4);
      await waitFor('7 and 4 at eBay', () => atEbay('CL-SHOP-A') === 7 && atEbay('CL-SHOP-B') === 4, 20000);

      await post(`/_sandbox/shopify/orders/${id}/edit`, { line: lineIds[0], remove: 2 });
      await post(`/_sandbox/shopify/orders/${id}/edit`, { line: lineIds[1], remove: 1 });
      const second = await importOrders({ accountId: seller.id, portalAccountId: channelId }, 'cl-shop-2');
      expect(second.orders).to.deep.include({ updated: 1 });
      const order = await kontorOrder(seller, id);
      expect(quantities(order)).to.deep.equal([
        ['CL-SHOP-A', '1'],
        ['CL-SHOP-B', '0'],
      ]);
      expect(order.invoice_amount).to.equal('14.90');
      expect(order.history.at(-1)).to.match(/webshop order \d+ \(portal account \d+\): line 1 quantity 3 -> 1, line 2 quantity 1 -> 0$/);
      expect(await stockQuantity(seller, stock['CL-SHOP-A']!)).to.equal(9);
      expect(await stockQuantity(seller, stock['CL-SHOP-B']!)).to.equal(5);
      expect(await lastMove(seller, stock['CL-SHOP-A']!)).to.deep.equal({ old: 7, difference: 2, new: 9 });
      expect(await lastMove(seller, stock['CL-SHOP-B']!)).to.deep.equal({ old: 4, difference: 1, new: 5 });
      await waitFor('9 and 5 at eBay', () => atEbay('CL-SHOP-A') === 9 && atEbay('CL-SHOP-B') === 5, 20000);

      // The same state fetched again: nothing moves, nothing is written.
      const moves = (await movements(seller, stock['CL-SHOP-A']!)).length;
      const third = await importOrders({ accountId: seller.id, portalAccountId: channelId }, 'cl-shop-3');
      expect(third.orders.updated ?? 0).to.equal(0);
      expect((await kontorOrder(seller, id)).history).to.have.length(order.history.length);
      expect(await movements(seller, stock['CL-SHOP-A']!)).to.have.length(moves);
      expect(await stockQuantity(seller, stock['CL-SHOP-A']!)).to.equal(9);
    });

    it('when the store refunds a unit without removing it, then the line keeps it (a refund is money, not goods back) and only the paid amount falls', async () => {
      const { seller, channelId, stock } = await sellerWith('webshop', { 'CL-SHOP-R': 10 });
      const placed = await post('/_sandbox/shopify/orders', { portal_account: channelId, lines: [{ sku: 'CL-SHOP-R', quantity: 2, price: '10.00' }] });
      const id = String(placed.id).split('/').pop()!;
      const lineId = Number((placed.lines as { id: string }[])[0]!.id.split('/').pop());
      await importOrders({ accountId: seller.id, portalAccountId: channelId }, 'cl-shop-r1');
      await post(`/_sandbox/shopify/orders/${id}/refund`, { line: lineId, quantity: 1, amount: '10.00' });
      await importOrders({ accountId: seller.id, portalAccountId: channelId }, 'cl-shop-r2');
      const order = await kontorOrder(seller, id);
      expect(quantities(order)).to.deep.equal([['CL-SHOP-R', '2']]);
      expect(order.paid_amount).to.equal('14.90');
      expect(await stockQuantity(seller, stock['CL-SHOP-R']!)).to.equal(8);
    });

    it('when the order is shipped in Kontor and the store then removes a unit, then the line and the stock stay (the goods left) and the history says so, once', async () => {
      const { seller, channelId, stock } = await sellerWith('webshop', { 'CL-SHOP-S': 10 });
      const placed = await post('/_sandbox/shopify/orders', { portal_account: channelId, lines: [{ sku: 'CL-SHOP-S', quantity: 2, price: '10.00' }] });
      const id = String(placed.id).split('/').pop()!;
      const lineId = Number((placed.lines as { id: string }[])[0]!.id.split('/').pop());
      await importOrders({ accountId: seller.id, portalAccountId: channelId }, 'cl-shop-s1');
      const before = await kontorOrder(seller, id);
      const shipped = await call(`order/${before.id}/`, { token: seller.token, body: { order: { status: { is_shipped: true } } } });
      expect(shipped.status, shipped.text).to.equal(200);

      await post(`/_sandbox/shopify/orders/${id}/edit`, { line: lineId, remove: 1 });
      await importOrders({ accountId: seller.id, portalAccountId: channelId }, 'cl-shop-s2');
      await importOrders({ accountId: seller.id, portalAccountId: channelId }, 'cl-shop-s3');
      const order = await kontorOrder(seller, id);
      expect(quantities(order)).to.deep.equal([['CL-SHOP-S', '2']]);
      expect(order.history.filter((h) => /line 1 quantity 2 -> 1 at the channel, but the order is shipped here: not applied/.test(h))).to.have.length(1);
      expect(await stockQuantity(seller, stock['CL-SHOP-S']!)).to.equal(8);
    });

    it('when the store refuses an edit of more units than are left, then the sandbox answers 422', async () => {
      const { channelId } = await sellerWith('webshop', {});
      const placed = await post('/_sandbox/shopify/orders', { portal_account: channelId, lines: [{ sku: 'CL-SHOP-X', quantity: 1 }] });
      const id = String(placed.id).split('/').pop()!;
      const lineId = Number((placed.lines as { id: string }[])[0]!.id.split('/').pop());
      await post(`/_sandbox/shopify/orders/${id}/edit`, { line: lineId, remove: 2 }, [422]);
    });

    it('reads removed units by difference of the schema’s counts: refunded units stay, removed ones leave', () => {
      expect(unitsSold({ quantity: 3, currentQuantity: 3, refundableQuantity: 3 })).to.equal(3);
      expect(unitsSold({ quantity: 3, currentQuantity: 1, refundableQuantity: 3 })).to.equal(1);
      expect(unitsSold({ quantity: 3, currentQuantity: 1, refundableQuantity: 2 })).to.equal(2);
      expect(unitsSold({ quantity: 3, currentQuantity: 0, refundableQuantity: 0 })).to.equal(3);
      expect(unitsSold({ quantity: 2, currentQuantity: 0, refundableQuantity: 2 })).to.equal(0);
    });
  });

  describe('Amazon: an item cancelled while the order stays open', () => {
    /** Places an Amazon order at the sandbox (UNSHIPPED at once); its id and item ids. */
    const place = async (channelId: number, lines: { sku: string; quantity: number; price: string }[]) =>
      (await post('/_sandbox/amazon/orders', { portal_account: channelId, pending_ms: 0, lines })) as { order_id: string; order_item_ids: string[] };

    it('when Amazon cancels one item of a two-item order, then the next import takes its units out of the line, puts them back to stock and CIA offers them on eBay; the paid amount follows; a second import changes nothing', async () => {
      const { seller, channelId, stock, atEbay } = await sellerWith('market_d', { 'CL-AMZ-A': 10, 'CL-AMZ-B': 5 });
      const sold = await place(channelId, [
        { sku: 'CL-AMZ-A', quantity: 2, price: '12.00' },
        { sku: 'CL-AMZ-B', quantity: 3, price: '5.00' },
      ]);
      expect((await importOrders({ accountId: seller.id, portalAccountId: channelId }, 'cl-amz-1')).orders).to.deep.include({ created: 1 });
      expect((await kontorOrder(seller, sold.order_id)).paid_amount).to.equal('39.00');
      expect(await stockQuantity(seller, stock['CL-AMZ-B']!)).to.equal(2);
      await waitFor('2 at eBay', () => atEbay('CL-AMZ-B') === 2, 20000);

      const cancelled = await post(`/_sandbox/amazon/orders/${sold.order_id}/items/${sold.order_item_ids[1]}/cancel`, {
        by: 'MERCHANT',
        reason: 'Out of stock',
      });
      expect(cancelled.status).to.equal('UNSHIPPED');
      const second = await importOrders({ accountId: seller.id, portalAccountId: channelId }, 'cl-amz-2');
      expect(second.orders).to.deep.include({ updated: 1 });
      const order = await kontorOrder(seller, sold.order_id);
      expect(order.status.is_cancelled).to.equal(false);
      expect(quantities(order)).to.deep.equal([
        ['CL-AMZ-A', '2'],
        ['CL-AMZ-B', '0'],
      ]);
      expect(order.invoice_amount).to.equal('24.00');
      expect(order.paid_amount).to.equal('24.00');
      expect(order.history.at(-1)).to.match(/: paid 24\.00, line 2 quantity 3 -> 0$/);
      expect(await stockQuantity(seller, stock['CL-AMZ-A']!)).to.equal(8);
      expect(await stockQuantity(seller, stock['CL-AMZ-B']!)).to.equal(5);
      expect(await lastMove(seller, stock['CL-AMZ-B']!)).to.deep.equal({ old: 2, difference: 3, new: 5 });
      await waitFor('5 at eBay', () => atEbay('CL-AMZ-B') === 5, 20000);

      const moves = (await movements(seller, stock['CL-AMZ-B']!)).length;
      const third = await importOrders({ accountId: seller.id, portalAccountId: channelId }, 'cl-amz-3');
      expect(third.orders.updated ?? 0).to.equal(0);
      expect(await movements(seller, stock['CL-AMZ-B']!)).to.have.length(moves);
      expect((await kontorOrder(seller, sold.order_id)).history).to.have.length(order.history.length);
    });

    it('when the buyer asks to cancel an item, then the history says so once and no stock moves; once Amazon cancels it, its units come back', async () => {
      const { seller, channelId, stock } = await sellerWith('market_d', { 'CL-AMZ-Q': 10, 'CL-AMZ-P': 10 });
      const sold = await place(channelId, [
        { sku: 'CL-AMZ-Q', quantity: 1, price: '8.00' },
        { sku: 'CL-AMZ-P', quantity: 2, price: '4.00' },
      ]);
      await importOrders({ accountId: seller.id, portalAccountId: channelId }, 'cl-amz-q1');
      await post(`/_sandbox/amazon/orders/${sold.order_id}/items/${sold.order_item_ids[1]}/cancel_request`, { reason: 'Ordered by mistake' });
      const asked = await importOrders({ accountId: seller.id, portalAccountId: channelId }, 'cl-amz-q2');
      expect(asked.orders).to.deep.include({ updated: 1 });
      await importOrders({ accountId: seller.id, portalAccountId: channelId }, 'cl-amz-q3');
      let order = await kontorOrder(seller, sold.order_id);
      const told = order.history.filter((h) =>
        /the buyer asks to cancel line 2 \(CL-AMZ-P: Ordered by mistake\); do not ship it before the channel decides/.test(h),
      );
      expect(told).to.have.length(1);
      expect(quantities(order)).to.deep.equal([
        ['CL-AMZ-Q', '1'],
        ['CL-AMZ-P', '2'],
      ]);
      expect(await stockQuantity(seller, stock['CL-AMZ-P']!)).to.equal(8);

      await post(`/_sandbox/amazon/orders/${sold.order_id}/items/${sold.order_item_ids[1]}/cancel`, { by: 'BUYER', reason: 'Ordered by mistake' });
      await importOrders({ accountId: seller.id, portalAccountId: channelId }, 'cl-amz-q4');
      order = await kontorOrder(seller, sold.order_id);
      expect(quantities(order)).to.deep.equal([
        ['CL-AMZ-Q', '1'],
        ['CL-AMZ-P', '0'],
      ]);
      expect(await stockQuantity(seller, stock['CL-AMZ-P']!)).to.equal(10);
    });

    it('when the order is cancelled in Kontor and Amazon then cancels an item, then the line shrinks without moving stock twice, and undoing the cancellation takes only what is left', async () => {
      const { seller, channelId, stock } = await sellerWith('market_d', { 'CL-AMZ-C': 10, 'CL-AMZ-D': 10 });
      const sold = await place(channelId, [
        { sku: 'CL-AMZ-C', quantity: 1, price: '8.00' },
        { sku: 'CL-AMZ-D', quantity: 4, price: '4.00' },
      ]);
      await importOrders({ accountId: seller.id, portalAccountId: channelId }, 'cl-amz-c1');
      const { id: orderId } = await kontorOrder(seller, sold.order_id);
      const cancel = await call(`order/${orderId}/`, { token: seller.token, body: { order: { status: { is_cancelled: true } } } });
      expect(cancel.status, cancel.text).to.equal(200);
      expect(await stockQuantity(seller, stock['CL-AMZ-D']!)).to.equal(10);

      await post(`/_sandbox/amazon/orders/${sold.order_id}/items/${sold.order_item_ids[1]}/cancel`, {});
      await importOrders({ accountId: seller.id, portalAccountId: channelId }, 'cl-amz-c2');
      expect(quantities(await kontorOrder(seller, sold.order_id))).to.deep.equal([
        ['CL-AMZ-C', '1'],
        ['CL-AMZ-D', '0'],
      ]);
      expect(await stockQuantity(seller, stock['CL-AMZ-D']!)).to.equal(10);

      const undo = await call(`order/${orderId}/`, { token: seller.token, body: { order: { status: { is_cancelled: false } } } });
      expect(undo.status, undo.text).to.equal(200);
      expect(await stockQuantity(seller, stock['CL-AMZ-C']!)).to.equal(9);
      expect(await stockQuantity(seller, stock['CL-AMZ-D']!)).to.equal(10);
    });

    it('when an order is first fetched with an item already cancelled, then that line is imported with quantity 0 and takes no stock', async () => {
      const { seller, channelId, stock } = await sellerWith('market_d', { 'CL-AMZ-E': 10, 'CL-AMZ-F': 10 });
      const sold = await place(channelId, [
        { sku: 'CL-AMZ-E', quantity: 1, price: '8.00' },
        { sku: 'CL-AMZ-F', quantity: 2, price: '4.00' },
      ]);
      await post(`/_sandbox/amazon/orders/${sold.order_id}/items/${sold.order_item_ids[1]}/cancel`, {});
      expect((await importOrders({ accountId: seller.id, portalAccountId: channelId }, 'cl-amz-e1')).orders).to.deep.include({ created: 1 });
      expect(quantities(await kontorOrder(seller, sold.order_id))).to.deep.equal([
        ['CL-AMZ-E', '1'],
        ['CL-AMZ-F', '0'],
      ]);
      expect(await stockQuantity(seller, stock['CL-AMZ-E']!)).to.equal(9);
      expect(await stockQuantity(seller, stock['CL-AMZ-F']!)).to.equal(10);
    });
  });
});
