/**
 * order/list/ with 200 new orders of 3 lines each linked to stock, against the same rows written
 * in one bare transaction with multi-row statements (issue 17: the aim is within 5x of it).
 */
import type { BenchCase } from './cases';
import { db } from '../lib/db/knex';
import { benchBase, benchCall, benchDone, benchSeller, median, report, time, warmUpCalls } from './order-support';

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

/**
 * The bare baseline: one transaction writing the rows the API writes with multi-row statements
 * (numbers reserved in one statement, customers, orders, lines, stock rows locked in id order
 * and decremented with one UPDATE ... FROM (VALUES ...), movements and outbox rows in one INSERT
 * each), with no validation, rules or envelope. The floor a set-based order/list/ can reach.
 */
async function bareBaseline(accountId: number, stockIds: number[], round: number): Promise<void> {
  await db().transaction(async (trx) => {
    const counter = await trx.raw(
      `INSERT INTO order_counter (account_id, kind, last_value) VALUES (?, 'order', 200)
      ON CONFLICT (account_id, kind) DO UPDATE SET last_value = order_counter.last_value + 200 RETURNING last_value`,
      [accountId],
    );
    const first = Number(counter.rows[0].last_value) - 199;
    const buyers = Array.from({ length: 50 }, (_, b) => ({
      account_id: accountId,
      number: `bare-${round}-${b}`,
      email: `buyer${b}@bench.example`,
      username: `buyer${b}`,
      shop_username: [`buyer${b}`],
    }));
    const customers = (await trx('customer')
      .insert(buyers)
      .onConflict(['account_id', 'number'])
      .merge(['email', 'username'])
      .returning(['internal_id', 'number'])) as { internal_id: string; number: string }[];
    const customerOf = new Map(customers.map((c) => [c.number, c]));
    const orders = (await trx('sales_order')
      .insert(
        Array.from({ length: 200 }, (_, i) => {
          const customer = customerOf.get(`bare-${round}-${i % 50}`)!;
          return {
            account_id: accountId,
            number: first + i,
            id: `${first + i}_2026_11`,
            customer_internal_id: customer.internal_id,
            customer_number: customer.number,
            customer_email: `buyer${i % 50}@bench.example`,
            payment_method_id: 'COD',
            shipping_fee: '4.90',
            invoice_amount: '64.84',
          };
        }),
      )
      .returning(['internal_id', 'id', 'number'])) as { internal_id: string; id: string; number: string }[];
    orders.sort((a, b) => Number(a.number) - Number(b.number));
    const lines = orders.flatMap((order, i) =>
      [0, 1, 2].map((j) => ({
        order_internal_id: order.internal_id,
        position: j + 1,
        name: `item ${j}`,
        quantity: 1 + j,
        price: '9.99',
        stock_align_id: `ID_${stockIds[(i * 3 + j) % stockIds.length]}`,
        stock_id: stockIds[(i * 3 + j) % stockIds.length]!,
        stock_taken: 1 + j,
        orderId: order.id,
      })),
    );
    await trx('sales_order_line').insert(lines.map(({ orderId: _o, ...line }) => line));
    const taken = new Map<number, number>();
    for (const line of lines) taken.set(line.stock_id, (taken.get(line.stock_id) ?? 0) + line.quantity);
    const locked = await trx.raw('SELECT id, quantity FROM stock WHERE account_id = ? AND id = ANY(?) ORDER BY id FOR UPDATE', [accountId, [...taken.keys()]]);
    const quantity = new Map((locked.rows as { id: number; quantity: number }[]).map((r) => [r.id, r.quantity]));
    const values = [...taken].map(() => '(?::int, ?::int)').join(', ');
    await trx.raw(
      `UPDATE stock SET quantity = stock.quantity - v.taken, quantity_available = stock.quantity_available - v.taken
      FROM (VALUES ${values}) AS v(id, taken) WHERE stock.account_id = ? AND stock.id = v.id`,
      [...[...taken].flat(), accountId],
    );
    await trx('stock_history').insert(
      lines.map((line) => {
        const old = quantity.get(line.stock_id)!;
        quantity.set(line.stock_id, old - line.quantity);
        return {
          account_id: accountId,
          stock_id: line.stock_id,
          quantity_old: old,
          quantity_difference: -line.quantity,
          quantity_new: old - line.quantity,
          order_id: line.orderId,
          title: 'order',
        };
      }),
    );
    await trx('outbox').insert([
      ...[...taken.keys()].map((stockId) => ({
        account_id: accountId,
        queue: 'cia',
        job_name: 'cia.adjust',
        payload: JSON.stringify({ accountId, stockId, reason: 'order' }),
      })),
      ...orders.map((o) => ({
        account_id: accountId,
        queue: 'events',
        job_name: 'event.emit',
        payload: JSON.stringify({ accountId, section: 'order', type: 'created', recordId: o.id }),
      })),
    ]);
  });
}

export const orderListBench: BenchCase = {
  name: 'order-list',
  description: 'POST order/list/ with 200 new orders of 3 lines each linked to stock, against the same rows in one bare multi-row transaction',
  async run() {
    await benchBase();
    const seller = await benchSeller();
    const rows = (await db()('stock')
      .insert(
        Array.from({ length: items }, (_, i) => ({ account_id: seller.id, name: `bench ${i}`, sku: `BENCH-${i}`, quantity: 1e8, quantity_available: 1e8 })),
      )
      .returning('id')) as { id: number }[];
    const skus = Array.from({ length: items }, (_, i) => `BENCH-${i}`);
    const body = { order: orderList(skus) };
    for (let w = 0; w < warmUpCalls; w++) await benchCall('order/list/', seller.token, body, 207);
    const api: number[] = [];
    for (let i = 0; i < runs; i++) api.push(await time(() => benchCall('order/list/', seller.token, body, 207)));
    const bare: number[] = [];
    for (let i = 0; i < runs; i++)
      bare.push(
        await time(() =>
          bareBaseline(
            seller.id,
            rows.map((r) => r.id),
            i,
          ),
        ),
      );
    report('order/list/ 200 orders x 3 stock lines (median of 5)', median(api), median(bare));
    // The order side alone: the same list without stock links, to show where the time goes.
    const unlinked = { order: body.order.map((o) => ({ ...o, line: o.line.map(({ stock_align_id: _ref, ...line }) => line) })) };
    const plain: number[] = [];
    for (let i = 0; i < runs; i++) plain.push(await time(() => benchCall('order/list/', seller.token, unlinked, 207)));
    report('order/list/ 200 orders x 3 lines without stock link', median(plain), median(bare));
    await benchDone();
  },
};
