/**
 * GET order/ over 1,000,000 orders of one seller (and 10,000 of another, to show the page time
 * does not grow with the table): a status filter walked with min_id, and ~ filters with *
 * wildcards on customer.email. Each against the same query run directly with Knex. The rows are
 * generated once with INSERT ... SELECT generate_series in the bench database and reused by later runs.
 */
import type { Knex } from 'knex';
import type { BenchCase } from './cases';
import { db } from '../lib/db/knex';
import { likePattern } from '../lib/http/search/filter';
import { benchBase, benchCall, benchDone, benchSeller, median, report, time } from './order-support';

const samples = 30;

/** The seller login holding `size` generated orders; generated when missing. */
async function sellerWithOrders(size: number): Promise<{ id: number; token: string }> {
  const seller = await benchSeller(`bench_orders_${size}`);
  const counted = await db()('sales_order').where({ account_id: seller.id }).count({ n: '*' }).first();
  if (Number(counted?.n) !== size) {
    process.stdout.write(`generating ${size} orders ...\n`);
    const started = Date.now();
    await db()('sales_order').where({ account_id: seller.id }).delete();
    const chunk = 100000;
    for (let from = 1; from <= size; from += chunk) {
      await db().raw(
        `INSERT INTO sales_order (account_id, number, id, created_at, order_date, invoice_amount, currency_id,
           customer_number, customer_username, customer_email, is_paid, paid_date, is_shipped, shipped_date, transaction_ids)
         SELECT :account, n, n || '_2026_' || lpad((1 + n % 12)::text, 2, '0'), now() - interval '1 day', now() - interval '1 day',
           (n % 997) + 0.99, 'EUR', 'C' || (n % 50000), 'user' || n,
           'user' || n || '@' || (ARRAY['example.com', 'shop.de', 'mail.org'])[1 + n % 3],
           n % 3 = 0, CASE WHEN n % 3 = 0 THEN now() - interval '1 day' END,
           n % 5 = 0, CASE WHEN n % 5 = 0 THEN now() - interval '1 day' END, ARRAY['T' || n]
         FROM generate_series(:from::bigint, :to::bigint) AS n`,
        { account: seller.id, from, to: Math.min(size, from + chunk - 1) },
      );
    }
    await db().raw(
      `INSERT INTO order_counter (account_id, kind, last_value) VALUES (?, 'order', ?)
      ON CONFLICT (account_id, kind) DO UPDATE SET last_value = EXCLUDED.last_value`,
      [seller.id, size],
    );
    await db().raw('ANALYZE sales_order');
    process.stdout.write(`generated in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  }
  return seller;
}

/** The API's page, as a client asks for it. */
const apiPage = (token: string, qs: string) => benchCall(`order/?${qs}`, token);

/** The same page with Knex: the account's old-enough orders, the filter, index order, one more row for next_min_id. */
function knexPage(accountId: number, where: (q: Knex.QueryBuilder) => void, minNumber?: number) {
  const q = db()('sales_order').select('*').where('account_id', accountId).whereRaw("created_at <= now() - interval '10 seconds'");
  where(q);
  if (minNumber !== undefined) q.where('number', '>=', minNumber);
  return q.orderBy('number').limit(21);
}

async function measure(label: string, api: () => Promise<unknown>, knex: () => Promise<unknown>): Promise<void> {
  await api();
  await knex();
  const a: number[] = [];
  const k: number[] = [];
  for (let i = 0; i < samples; i++) {
    a.push(await time(api));
    k.push(await time(knex));
  }
  report(label, median(a), median(k), 'knex');
}

export const orderSearchBench: BenchCase = {
  name: 'order-search',
  description: 'GET order/ with a status filter and min_id paging, and ~ filters on customer.email, at 10k and 1M orders',
  async run() {
    await benchBase();
    for (const size of [10000, 1000000]) {
      const seller = await sellerWithOrders(size);
      const middle = Math.floor(size / 2);
      let minNumber = middle;
      await measure(
        `${size} orders: status.is_paid=1, min_id paging (page of 20)`,
        async () => {
          const page = await apiPage(seller.token, `filter[status][is_paid]=1&pagination[min_id]=${minNumber}_2026_01`);
          // Walk on: each sample reads the next page.
          minNumber = Number(String(page.next_min_id).split('_')[0]);
        },
        () => knexPage(seller.id, (q) => q.where('is_paid', true), middle),
      );
      for (const pattern of [`user${middle}*`, `*${middle}@*`, '*@shop.de']) {
        await measure(
          `${size} orders: customer.email ~ ${pattern}`,
          () => apiPage(seller.token, `filter[customer][email][operator]=~&filter[customer][email][value][]=${encodeURIComponent(pattern)}`),
          () => knexPage(seller.id, (q) => q.whereRaw('customer_email ILIKE ?', [likePattern(pattern)])),
        );
      }
    }
    await benchDone();
  },
};
