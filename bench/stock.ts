/**
 * Stock bench cases (issue 3): POST stock/list/ with 200 new items (against a bare multi-row
 * transaction), GET stock/{id}/, and a filtered GET stock/ page on 100,000 items (against the
 * same reads done directly with Knex), each on the same database in the same run.
 */
import type { BenchCase } from './cases';
import { db } from '../lib/db/knex';
import { benchBase, benchCall, benchSeller, median, warmUpCalls } from './order-support';

const runs = 5;

function line(label: string, unit: string, apiRate: number, knexRate: number): void {
  process.stdout.write(
    `${label.padEnd(52)} api ${apiRate.toFixed(0).padStart(7)} ${unit}   knex ${knexRate.toFixed(0).padStart(7)} ${unit}   api/knex ${(apiRate / knexRate).toFixed(2)}\n`,
  );
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e9;
}

/** Runs `total` calls of fn, `concurrency` at a time; returns calls per second. */
async function rate(total: number, concurrency: number, fn: (i: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const seconds = await timed(() =>
    Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < total) await fn(next++);
      }),
    ),
  );
  return total / seconds;
}

/** An item of a stock/list/ call (`run` makes its sku and barcode new). */
export const listItem = (run: number, i: number) => ({
  name: `Bench item ${run}-${i}`,
  sku: `B-${run}-${i}`,
  barcode: String(4000000000000 + run * 1000 + i),
  price: '19.90',
  quantity: 10 + (i % 7),
  folder: '/bench',
  market_d: { is_active: true, sku: `AZ-${run}-${i}`, price: '21.00' },
  auction_a: [{ lister_id: 0, name: `Offer ${i}`, price: '19.90', duration: '7', type_id: '9' }],
});

/**
 * The bare baseline: what stock/list/ writes for 200 new items (rows, movements, outbox rows)
 * in one transaction of multi-row statements (lister ids reserved in one), with no validation,
 * rules or envelope. The floor a set-based stock/list/ can reach (issue 17: within 3x of it).
 */
export async function bareList(accountId: number, run: number): Promise<void> {
  await db().transaction(async (trx) => {
    const listers = (await trx.raw("SELECT nextval('stock_lister_id_seq') AS id FROM generate_series(1, 200)")).rows as { id: string }[];
    const rows = (await trx('stock')
      .insert(
        Array.from({ length: 200 }, (_, i) => {
          const { name, sku, barcode, price, quantity, folder, ...data } = listItem(run, i);
          return {
            account_id: accountId,
            name,
            sku,
            barcode,
            price,
            quantity,
            quantity_available: quantity,
            folder,
            market_d_sku: data.market_d.sku,
            data: JSON.stringify({ ...data, auction_a: [{ ...data.auction_a[0], lister_id: Number(listers[i]!.id) }] }),
          };
        }),
      )
      .returning(['id', 'quantity'])) as { id: number; quantity: number }[];
    await trx('stock_history').insert(
      rows.map((row) => ({
        account_id: accountId,
        stock_id: row.id,
        quantity_old: 0,
        quantity_difference: row.quantity,
        quantity_new: row.quantity,
        title: 'stock/list',
      })),
    );
    await trx('outbox').insert(
      rows.map((row) => ({
        account_id: accountId,
        queue: 'cia',
        job_name: 'cia.adjust',
        payload: JSON.stringify({ accountId, stockId: row.id, reason: 'stock.created' }),
      })),
    );
  });
}

export const stockListBench: BenchCase = {
  name: 'stock-list',
  description: 'POST stock/list/ with 200 new items (with a market_d group and an auction_a lister), against the same rows in one bare multi-row transaction',
  async run() {
    await benchBase();
    const seller = await benchSeller();
    for (let w = 0; w < warmUpCalls; w++)
      await benchCall('stock/list/', seller.token, { stock: Array.from({ length: 200 }, (_, i) => listItem(-1 - w, i)) }, 207);
    const api: number[] = [];
    const bare: number[] = [];
    for (let r = 1; r <= runs; r++) {
      const body = { stock: Array.from({ length: 200 }, (_, i) => listItem(r, i)) };
      api.push(await timed(() => benchCall('stock/list/', seller.token, body, 207)));
      bare.push(await timed(() => bareList(seller.id, r + 100)));
    }
    const [apiMs, bareMs] = [median(api) * 1000, median(bare) * 1000];
    process.stdout.write(
      `${'stock/list/ 200 new items (median of 5)'.padEnd(52)} api ${apiMs.toFixed(1).padStart(7)} ms   bare ${bareMs.toFixed(1).padStart(7)} ms   ratio ${(apiMs / bareMs).toFixed(2)}\n`,
    );
  },
};

/** What GET stock/{id}/ reads: the row, and its set links and variants when it has any. */
async function knexGet(accountId: number, id: number): Promise<unknown> {
  const row = (await db()('stock').where({ account_id: accountId, id }).first())!;
  if (row.set_type === 'none' && row.variation_type !== 'main') return row;
  const sets = await db()('stock_set')
    .where('account_id', accountId)
    .where((q) => q.where('main_id', id).orWhere('sub_id', id));
  const variants = await db()('stock').select('id', 'variation_parent_id').where({ account_id: accountId, variation_parent_id: id });
  return [row, sets, variants];
}

/** The framework's own floor: an authenticated GET that reads one small reference row. */
const floor = (token: string) => benchCall('system/currency/EUR/', token);

export const stockGetBench: BenchCase = {
  name: 'stock-get',
  description: 'GET stock/{id}/ of a full item, 8 at a time, against the same reads done with Knex',
  async run() {
    await benchBase();
    const seller = await benchSeller();
    const body = await benchCall('stock/list/', seller.token, { stock: Array.from({ length: 100 }, (_, i) => listItem(900, i)) }, 207);
    const ids = (body.response as { stock_id: number }[]).map((r) => r.stock_id);
    const total = 3000;
    await rate(200, 8, (i) => benchCall(`stock/${ids[i % ids.length]}/`, seller.token));
    const api = await rate(total, 8, (i) => benchCall(`stock/${ids[i % ids.length]}/`, seller.token));
    const knex = await rate(total, 8, (i) => knexGet(seller.id, ids[i % ids.length]!));
    line(`GET stock/{id}/ x ${total}, concurrency 8`, 'req/s', api, knex);
    const base = await rate(total, 8, () => floor(seller.token));
    process.stdout.write(`  framework floor: GET system/currency/EUR/ ${base.toFixed(0)} req/s (token, rate limit, envelope; no stock work)\n`);
  },
};

const bigLogin = 'bench_stock_100k';
const bigCount = 100000;
const colours = ['red', 'blue', 'green', 'black', 'white', 'grey', 'pink', 'brown'];

async function bigSeller(): Promise<{ id: number; token: string }> {
  const seller = await benchSeller(bigLogin);
  const [{ n }] = (await db()('stock').where('account_id', seller.id).count({ n: '*' })) as [{ n: string }];
  if (Number(n) < bigCount) {
    process.stdout.write(`  (loading ${bigCount - Number(n)} items for ${bigLogin} once)\n`);
    for (let start = Number(n); start < bigCount; start += 5000) {
      const rows = Array.from({ length: Math.min(5000, bigCount - start) }, (_, k) => {
        const i = start + k;
        return {
          account_id: seller.id,
          name: `${colours[i % colours.length]} shirt ${i}`,
          sku: `SKU-${i}`,
          barcode: String(4100000000000 + i),
          folder: `/folder${i % 20}`,
          quantity: i % 50,
          quantity_available: i % 50,
          price: '9.90',
          data: JSON.stringify({ market_d: { is_active: i % 3 === 0, sku: `AZ-${i}` } }),
          market_d_sku: `AZ-${i}`,
        };
      });
      await db()('stock').insert(rows);
    }
    await db().raw('ANALYZE stock');
  }
  return seller;
}

export const stockSearchBench: BenchCase = {
  name: 'stock-search',
  description: 'GET stock/ filtered (name ~ *blue*, quantity_available > 25, folder) page of 100 on 100,000 items, against the same query with Knex',
  async run() {
    await benchBase();
    const seller = await bigSeller();
    const filter =
      'filter[name][operator]=~&filter[name][value]=*blue shirt 1*&filter[quantity_available][operator]=>&filter[quantity_available][value]=25&filter[folder][operator]=!=&filter[folder][value]=/folder3';
    const path = (page: number) => `stock/?${filter.replace(/ /g, '%20')}&pagination[limit]=100&pagination[page]=${page}`;
    const first = await benchCall(path(1), seller.token);
    if ((first.stock as unknown[]).length !== 100) throw new Error('the bench filter should fill a page');
    const knexPage = async (page: number) => {
      const rows = (await db()('stock')
        .where('account_id', seller.id)
        .whereRaw('name ILIKE ?', ['%blue shirt 1%'])
        .where('quantity_available', '>', 25)
        .whereRaw('(folder IS NULL OR NOT (folder = ANY(?::text[])))', [['/folder3']])
        .orderBy('id')
        .offset((page - 1) * 100)
        .limit(101)) as { id: number }[];
      const ids = rows.map((r) => r.id);
      await db()('stock_set')
        .where('account_id', seller.id)
        .where((q) => q.whereIn('main_id', ids).orWhereIn('sub_id', ids));
      await db()('stock').select('id', 'variation_parent_id').where('account_id', seller.id).whereIn('variation_parent_id', ids);
      return rows;
    };
    const total = 400;
    const api = await rate(total, 4, (i) => benchCall(path(1 + (i % 5)), seller.token));
    const knex = await rate(total, 4, (i) => knexPage(1 + (i % 5)));
    line(`GET stock/ filtered page of 100 x ${total}, concurrency 4`, 'req/s', api, knex);
  },
};
