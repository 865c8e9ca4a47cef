/**
 * order/list/ with 200 new orders of 3 lines each linked to stock, against the same rows written
 * directly with Knex (counter, order, lines, stock lock and update, movement, outbox) in one
 * transaction.
 */
import type { BenchCase } from './cases';
import { db } from '../lib/db/knex';
import { benchBase, benchCall, benchDone, benchSeller, median, report, time } from './order-support';

const runs = 5;
const items = 30;

function orderList(skus: string[]) {
  return Array.from({ length: 200 }, (_, i) => ({
    customer: { email: `buyer${i % 50}@bench.example`, username: `buyer${i % 50}` },
    payment_method_id: 'COD',
    shipping: { fee: '4.90' },
    line: [0, 1, 2].map((j) => ({ id: j + 1, name: `item ${j}`, quantity: 1 + j, price: '9.99', stock_align_id: skus[(i * 3 + j) % skus.length] })),
  }));
}

/** The same rows the API writes, with no validation, customer, rules or envelope. */
async function knexBaseline(accountId: number, stockIds: number[]): Promise<void> {
  await db().transaction(async (trx) => {
    for (let i = 0; i < 200; i++) {
      const counter = await trx.raw(`INSERT INTO order_counter (account_id, kind, last_value) VALUES (?, 'order', 1)
        ON CONFLICT (account_id, kind) DO UPDATE SET last_value = order_counter.last_value + 1 RETURNING last_value`, [accountId]);
      const number = Number(counter.rows[0].last_value);
      const id = `${number}_2026_11`;
      const [order] = await trx('sales_order').insert({ account_id: accountId, number, id, customer_email: 'x@bench.example', invoice_amount: '64.84' }).returning('internal_id');
      const lines = [0, 1, 2].map((j) => ({ order_internal_id: order.internal_id, position: j + 1, quantity: 1 + j, price: '9.99', stock_id: stockIds[(i * 3 + j) % stockIds.length], stock_taken: 1 + j }));
      await trx('sales_order_line').insert(lines);
      for (const line of lines) {
        const [item] = await trx('stock').select('id', 'quantity').where({ account_id: accountId, id: line.stock_id }).forUpdate();
        await trx('stock').where({ id: item.id }).update({ quantity: item.quantity - line.quantity });
        await trx('stock_history').insert({ account_id: accountId, stock_id: item.id, quantity_old: item.quantity, quantity_difference: -line.quantity, quantity_new: item.quantity - line.quantity, order_id: id, title: 'order' });
        await trx('outbox').insert({ account_id: accountId, queue: 'cia', job_name: 'cia.adjust', payload: JSON.stringify({ accountId, stockId: item.id, reason: 'order' }) });
      }
      await trx('outbox').insert({ account_id: accountId, queue: 'events', job_name: 'event.emit', payload: JSON.stringify({ accountId, section: 'order', type: 'created', recordId: id }) });
    }
  });
}

export const orderListBench: BenchCase = {
  name: 'order-list',
  description: 'POST order/list/ with 200 new orders of 3 lines each linked to stock, against the same rows written with Knex',
  async run() {
    await benchBase();
    const seller = await benchSeller();
    const rows = await db()('stock')
      .insert(Array.from({ length: items }, (_, i) => ({ account_id: seller.id, name: `bench ${i}`, sku: `BENCH-${i}`, quantity: 1e8, quantity_available: 1e8 })))
      .returning('id') as { id: number }[];
    const skus = Array.from({ length: items }, (_, i) => `BENCH-${i}`);
    const body = { order: orderList(skus) };
    await benchCall('order/list/', seller.token, body, 207);
    const api: number[] = [];
    for (let i = 0; i < runs; i++) api.push(await time(() => benchCall('order/list/', seller.token, body, 207)));
    const knex: number[] = [];
    for (let i = 0; i < runs; i++) knex.push(await time(() => knexBaseline(seller.id, rows.map((r) => r.id))));
    report('order/list/ 200 orders x 3 stock lines (median of 5)', median(api), median(knex));
    // The order side alone: the same list without stock links, to show where the time goes.
    const unlinked = { order: body.order.map((o) => ({ ...o, line: o.line.map(({ stock_align_id: _ref, ...line }) => line) })) };
    const plain: number[] = [];
    for (let i = 0; i < runs; i++) plain.push(await time(() => benchCall('order/list/', seller.token, unlinked, 207)));
    report('order/list/ 200 orders x 3 lines without stock link', median(plain), median(knex));
    await benchDone();
  },
};
