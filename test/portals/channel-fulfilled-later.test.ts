/**
 * A channel that says only on a later read that it ships the order itself, as eBay's contract
 * allows (sell_fulfillment_v1_oas3.json): `Order.program.fulfillmentProgram` is "only returned for
 * paid orders being fulfilled by eBay or an eBay fulfillment partner", and pending orders are
 * imported at once, so an order eBay ships, first fetched unpaid, comes in as the seller's; once
 * paid it says eBay ships it, and its lines give their stock back as if imported so. Read through
 * the API (GET order/{id}/, GET stock/{id}/ and its history, the quantity CIA pushes to eBay).
 */
import { expect } from 'chai';
import { db } from '../../lib/db/knex';
import { importOrders } from '../../lib/order-import/order-import.service';
import type { EbayOrder } from '../../sandbox/ebay-state.sandbox';
import { channelLoopForSuite, Sandbox, waitFor } from '../fleet/support';
import { movements, stockQuantity } from '../order/helpers';
import { call } from '../support/api';
import { channelChangeHelpers } from './channel-changes-support';

const fulfilledByChannel = 'the channel ships this order from its own warehouse; its lines take no stock here, do not ship it';

describe('an order the channel says it ships only on a later read', function () {
  this.timeout(60000);
  let sandbox: Sandbox;
  channelLoopForSuite((loop) => ({ sandbox } = loop));

  const { post, sellerWith, kontorOrder, lastMove } = channelChangeHelpers(() => sandbox);
  const ebayOrder = (id: string) => sandbox.state.ebay.orders.get(id)!.order as EbayOrder;

  describe('eBay: an order eBay ships, first fetched unpaid', () => {
    async function pendingEbayFulfilled(sku: string) {
      const { seller, channelId, stock, atEbay } = await sellerWith('auction_a', { [sku]: 10 });
      const { order_id: id } = (await post('/_sandbox/ebay/orders', {
        portal_account: channelId,
        lines: [{ sku, quantity: 2, price: '12.50' }],
        payment_status: 'PENDING',
        fulfilled_by: 'EBAY',
      })) as { order_id: string };
      // The contract: the program only for paid orders.
      expect(ebayOrder(id).program).to.equal(undefined);
      const first = await importOrders({ accountId: seller.id, portalAccountId: channelId }, `${sku}-1`);
      expect(first.orders).to.deep.include({ created: 1 });
      return { seller, channelId, stockId: stock[sku]!, atEbay, id };
    }

    it('when eBay shows its fulfilment program once the order is paid, then the next import gives the lines’ stock back, CIA offers it again and the history says eBay ships it; later imports change nothing', async () => {
      const { seller, channelId, stockId, atEbay, id } = await pendingEbayFulfilled('LR-EBAY-FBE');
      const unpaid = await kontorOrder(seller, id);
      expect(unpaid.line[0]).to.deep.include({ sku: 'LR-EBAY-FBE', quantity: '2', stock_align_id: `ID_${stockId}` });
      expect(unpaid.history.join('\n')).not.to.contain(fulfilledByChannel);
      expect(await stockQuantity(seller, stockId)).to.equal(8);
      await waitFor('8 at eBay', () => atEbay('LR-EBAY-FBE') === 8, 20000);

      await post(`/_sandbox/ebay/orders/${id}/pay`, {});
      expect(ebayOrder(id).program).to.deep.equal({ fulfillmentProgram: { fulfilledBy: 'EBAY' } });
      const second = await importOrders({ accountId: seller.id, portalAccountId: channelId }, 'lr-ebay-fbe-2');
      expect(second.orders).to.deep.include({ updated: 1 });
      const order = await kontorOrder(seller, id);
      expect(order.line[0]).to.deep.include({ sku: 'LR-EBAY-FBE', quantity: '2', price: '12.50' });
      expect(order.line[0]!.stock_align_id ?? null).to.equal(null);
      expect(order.paid_amount).to.equal('25.00');
      expect(order.status).to.deep.include({ is_paid: true, is_shipped: false });
      expect(order.history.at(-1)).to.match(new RegExp(`auction_a order ${id} \\(portal account \\d+\\): paid 25\\.00, ${fulfilledByChannel}$`));
      // eBay-fulfilled orders do not fill Amazon's market_d_fba.
      expect(order.shipping).to.deep.include({ market_d_fba: { country_iso2: null, center_id: null } });
      expect(await stockQuantity(seller, stockId)).to.equal(10);
      const moved = (await movements(seller, stockId)).at(-1)!;
      expect(moved.quantity).to.deep.equal({ old: 8, difference: 2, new: 10 });
      expect(moved.order_id).to.equal(order.id);
      await waitFor('10 at eBay', () => atEbay('LR-EBAY-FBE') === 10, 20000);

      // Fetched again (the overlap, a refund later): nothing moves twice, nothing is told twice.
      const moves = (await movements(seller, stockId)).length;
      const third = await importOrders({ accountId: seller.id, portalAccountId: channelId }, 'lr-ebay-fbe-3');
      expect(third.orders.updated ?? 0).to.equal(0);
      await post(`/_sandbox/ebay/orders/${id}/refund`, { amount: '5.00' });
      const fourth = await importOrders({ accountId: seller.id, portalAccountId: channelId }, 'lr-ebay-fbe-4');
      expect(fourth.orders).to.deep.include({ updated: 1 });
      const after = await kontorOrder(seller, id);
      expect(after.paid_amount).to.equal('20.00');
      expect(after.history.filter((h) => h.includes(fulfilledByChannel))).to.have.length(1);
      expect(await movements(seller, stockId)).to.have.length(moves);
      expect(await stockQuantity(seller, stockId)).to.equal(10);
    });

    it('when the seller has shipped the order here before eBay shows its program, then the lines keep their stock (the goods left) and the history says so, once', async () => {
      const { seller, channelId, stockId, id } = await pendingEbayFulfilled('LR-EBAY-SHIP');
      const before = await kontorOrder(seller, id);
      const shipped = await call(`order/${before.id}/`, { token: seller.token, body: { order: { status: { is_shipped: true } } } });
      expect(shipped.status, shipped.text).to.equal(200);

      await post(`/_sandbox/ebay/orders/${id}/pay`, {});
      await importOrders({ accountId: seller.id, portalAccountId: channelId }, 'lr-ebay-ship-2');
      await importOrders({ accountId: seller.id, portalAccountId: channelId }, 'lr-ebay-ship-3');
      const order = await kontorOrder(seller, id);
      expect(order.line[0]).to.deep.include({ stock_align_id: `ID_${stockId}` });
      expect(order.paid_amount).to.equal('25.00');
      expect(order.history.filter((h) => h.includes('the channel ships this order from its own warehouse, but the order is shipped here'))).to.have.length(1);
      expect(await stockQuantity(seller, stockId)).to.equal(8);
    });

    it('when the channel state was kept before it recorded who ships the order, then an order still taking stock gives it back once, and one imported as the channel’s is told nothing again', async () => {
      // A channel_order row as kept before this rule: no fulfilled_by_channel, no prices.
      const asKeptBefore = (seller: { id: number }, id: string) =>
        db()('channel_order')
          .where({ account_id: seller.id, external_order_id: id })
          .update({ channel_state: db().raw(`channel_state - 'fulfilled_by_channel' - 'prices'`) as unknown as string });
      const { seller, channelId, stockId, id } = await pendingEbayFulfilled('LR-EBAY-OLD');
      expect(await asKeptBefore(seller, id)).to.equal(1);
      await post(`/_sandbox/ebay/orders/${id}/pay`, {});
      await importOrders({ accountId: seller.id, portalAccountId: channelId }, 'lr-ebay-old-2');
      expect(await stockQuantity(seller, stockId)).to.equal(10);
      expect((await kontorOrder(seller, id)).history.filter((h) => h.includes(fulfilledByChannel))).to.have.length(1);

      const { order_id: fbe } = (await post('/_sandbox/ebay/orders', {
        portal_account: channelId,
        lines: [{ sku: 'LR-EBAY-OLD', quantity: 1, price: '12.50' }],
        fulfilled_by: 'EBAY',
      })) as { order_id: string };
      await importOrders({ accountId: seller.id, portalAccountId: channelId }, 'lr-ebay-old-3');
      expect(await asKeptBefore(seller, fbe)).to.equal(1);
      await post(`/_sandbox/ebay/orders/${fbe}/refund`, { amount: '2.50' });
      await importOrders({ accountId: seller.id, portalAccountId: channelId }, 'lr-ebay-old-4');
      const told = await kontorOrder(seller, fbe);
      expect(told.paid_amount).to.equal('10.00');
      expect(told.history.filter((h) => h.includes(fulfilledByChannel))).to.have.length(1);
      expect(await stockQuantity(seller, stockId)).to.equal(10);
    });

    it('when the buyer pays an order eBay does not fulfil, then it only becomes paid: its lines keep their stock', async () => {
      const { seller, channelId, stock } = await sellerWith('auction_a', { 'LR-EBAY-OWN': 10 });
      const { order_id: id } = (await post('/_sandbox/ebay/orders', {
        portal_account: channelId,
        lines: [{ sku: 'LR-EBAY-OWN', quantity: 1, price: '9.00' }],
        payment_status: 'PENDING',
      })) as { order_id: string };
      await importOrders({ accountId: seller.id, portalAccountId: channelId }, 'lr-ebay-own-1');
      await post(`/_sandbox/ebay/orders/${id}/pay`, {});
      expect(ebayOrder(id).program).to.equal(undefined);
      await importOrders({ accountId: seller.id, portalAccountId: channelId }, 'lr-ebay-own-2');
      const order = await kontorOrder(seller, id);
      expect(order.paid_amount).to.equal('9.00');
      expect(order.line[0]).to.deep.include({ stock_align_id: `ID_${stock['LR-EBAY-OWN']}` });
      expect(order.history.join('\n')).not.to.contain(fulfilledByChannel);
      expect(await stockQuantity(seller, stock['LR-EBAY-OWN']!)).to.equal(9);
      expect(await lastMove(seller, stock['LR-EBAY-OWN']!)).to.deep.equal({ old: 10, difference: -1, new: 9 });
    });
  });
});
