/**
 * `npm run bench -- channel-page`: the import of a page of 40 new channel orders (one line each,
 * linked by SKU, one buyer, paid), in this process without portal or queue: set-based in one
 * transaction (importNewOrders) against one transaction per order (importChannelOrder, the path
 * before it and still the fallback). Counts the SQL statements per order, which load does not
 * change, beside the wall time per page.
 */
import { db } from '../lib/db/knex';
import { importChannelOrder } from '../lib/order-import/channel-order.import';
import { importNewOrders } from '../lib/order-import/channel-page.import';
import { orderImportRepository } from '../lib/order-import/order-import.repository';
import type { ChannelOrder } from '../lib/portals/channel-order.type';
import type { BenchCase } from './cases';
import { benchBase, benchCall, benchDone, benchSeller, median, time } from './order-support';

const pageSize = 40;
const rounds = 5;
const items = 50;
let sequence = 0;

function page(): ChannelOrder[] {
  return Array.from({ length: pageSize }, () => {
    const n = ++sequence;
    const id = `CP-${process.pid}-${n}`;
    const now = new Date().toISOString();
    return {
      external_order_id: id,
      modified_at: now,
      created_at: now,
      currency_id: 'EUR',
      customer: { username: 'sandbox_buyer', email: 'buyer@members.ebay.example', address: { name: 'Erika Mustermann', city: 'Köln', country_iso2: 'DE' } },
      shipping: { fee: '0.00', method: 'DHL', address: { name: 'Erika Mustermann', city: 'Köln', country_iso2: 'DE' } },
      line: [{ transaction_id: `${id}-1`, sku: `CP-${n % items}`, name: 'Bench item', quantity: 1, price: '9.90' }],
      paid_amount: '9.90',
      status: { is_paid: true, is_shipped: false, is_cancelled: false },
    };
  });
}

/** Statements sent to the database while fn runs (every query of every transaction). */
async function counted(fn: () => Promise<unknown>): Promise<{ ms: number; statements: number }> {
  let statements = 0;
  const onQuery = (q: { sql: string }) => {
    statements += 1;
    if (process.env.BENCH_PRINT_SQL) process.stderr.write(`${q.sql.slice(0, 140)}\n`);
  };
  db().on('query', onQuery);
  try {
    return { ms: await time(fn), statements };
  } finally {
    db().off('query', onQuery);
  }
}

async function run(): Promise<void> {
  await benchBase();
  const seller = await benchSeller();
  for (let i = 0; i < items; i++) await benchCall('stock/', seller.token, { stock: { name: `CP ${i}`, sku: `CP-${i}`, quantity: 1000000 } }, 201);
  const [row] = (await db()('portal_account')
    .insert({ account_id: seller.id, name: 'channel page bench', platform: 'auction_a', connector: 'json', base_url: 'http://127.0.0.1:9' })
    .returning('id')) as { id: number }[];
  const account = (await orderImportRepository.account(seller.id, row!.id))!;
  const figures = { set: [] as { ms: number; statements: number }[], one: [] as { ms: number; statements: number }[] };
  for (let r = 0; r < rounds; r++) {
    const setPage = page();
    figures.set.push(await counted(() => importNewOrders(account, 'auction_a', setPage)));
    const onePage = page();
    figures.one.push(
      await counted(async () => {
        for (const order of onePage) await importChannelOrder(account, 'auction_a', order);
      }),
    );
  }
  const created = Number(((await db()('sales_order').where({ account_id: seller.id }).count('* as n')) as { n: string }[])[0]!.n);
  const line = (label: string, list: { ms: number; statements: number }[]) =>
    `${label.padEnd(40)} ${median(list.map((f) => f.ms))
      .toFixed(0)
      .padStart(
        6,
      )} ms a page (median of ${rounds}; range ${Math.min(...list.map((f) => f.ms)).toFixed(0)}-${Math.max(...list.map((f) => f.ms)).toFixed(0)}), ` +
    `${(median(list.map((f) => f.statements)) / pageSize).toFixed(1)} statements an order`;
  process.stdout.write(
    [
      `pages of ${pageSize} new channel orders, ${created} orders created`,
      line('set-based, one transaction a page', figures.set),
      line('one transaction an order (before)', figures.one),
      `ratio one by one / set-based: ${(median(figures.one.map((f) => f.ms)) / median(figures.set.map((f) => f.ms))).toFixed(1)}x time, ${(median(figures.one.map((f) => f.statements)) / median(figures.set.map((f) => f.statements))).toFixed(1)}x statements`,
      '',
    ].join('\n'),
  );
  await benchDone();
}

export const channelPageBench: BenchCase = {
  name: 'channel-page',
  description: 'the import of a page of 40 new channel orders: set-based in one transaction against one transaction per order',
  run,
};
