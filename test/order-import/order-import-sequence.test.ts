/**
 * Issue 30's channel speed aim: a fetch imports the new orders of a page (stock taken, every other
 * channel told) before it applies the changes of known ones, which move no stock.
 */
import { expect } from 'chai';
import { db } from '../../lib/db/knex';
import { newSeller } from '../support/api';
import { createStock } from '../order/helpers';
import { change, channelOrder, importNow, jsonAuctionAccount, withImportWorkerAndChannel } from './support';

describe('order import: new orders before the changes of known ones', () => {
  const channel = withImportWorkerAndChannel(2);

  it('when a page holds a known order paid meanwhile and a new sale, then the sale is created before the payment is applied, and both are in', async () => {
    const seller = await newSeller();
    await createStock(seller, 'SKU-MUG', 10);
    const portalAccountId = await jsonAuctionAccount(seller, channel);
    const known = channelOrder({ paid_amount: '0.00', status: { is_paid: false, is_shipped: false, is_cancelled: false } });
    channel.orders.push(known);
    const first = await importNow(seller, portalAccountId);
    expect(first.state, first.error).to.equal('completed');

    // One page: the known order (first, as the channel lists it) paid, and a new one.
    change(known, { paid_amount: '29.90', status: { is_paid: true, is_shipped: false, is_cancelled: false } });
    const sale = channelOrder({ modified_at: new Date(Date.now() + 2000).toISOString() });
    channel.orders.push(sale);
    const second = await importNow(seller, portalAccountId);
    expect(second.state, second.error).to.equal('completed');
    expect((second.result as { pages: number; orders: Record<string, number> }).orders).to.include({ created: 1, updated: 1 });

    const rows = (await db()('sales_order')
      .select('external_order_id', 'created_at', 'updated_at', 'paid_amount')
      .where({ account_id: seller.id })
      .whereIn('external_order_id', [known.external_order_id, sale.external_order_id])) as {
      external_order_id: string;
      created_at: Date;
      updated_at: Date;
      paid_amount: string;
    }[];
    const byId = new Map(rows.map((r) => [r.external_order_id, r]));
    expect(Number(byId.get(known.external_order_id)!.paid_amount)).to.equal(29.9);
    // Each time is its transaction's start: the new order's came first.
    expect(byId.get(sale.external_order_id)!.created_at.getTime()).to.be.below(byId.get(known.external_order_id)!.updated_at.getTime());
  });
});
