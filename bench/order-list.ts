/**
 * order/list/ of 200 new orders of 3 stock-linked lines in the shapes sellers send (issue 32), each
 * against its own bare baseline writing the same rows in one multi-row transaction:
 * - returning: 50 returning buyers, lines spread over 30 items (the case since issue 17);
 * - marketplace: 200 new buyers, each with a billing address, as a marketplace's orders come;
 * - best-seller: 50 returning buyers, every line the same item.
 * With stock/list/ of 200 new items against its bare baseline (bench/stock.ts), all in two
 * settings of one run: the web process alone (the app in this process), and the whole service
 * as `npm start` runs it (bench/service.ts: every Procfile process, workers idle beside it).
 * Each line prints the p50 and the ratio, and the web process's Postgres statements (each a
 * round trip: pg sends one at a time) and Redis commands per call and per order.
 */
import crypto from 'node:crypto';
import type { BenchCase } from './cases';
import { db } from '../lib/db/knex';
import { callCounts, CallCounts, callsBetween } from './call-counter';
import { benchBase, benchCallAt, benchDone, benchSeller, median, report, time, warmUpCalls } from './order-support';
import { startService } from './service';
import { bareList, listItem } from './stock';

const runs = 7;
const items = 30;
const orderCount = 200;

/** One order of a shape: its buyer and the items its 3 lines take from (indexes into the bench's items). */
interface OrderSpec {
  email: string;
  username: string;
  address?: Record<string, string>;
  items: number[];
}

interface Shape {
  name: string;
  label: string;
  /** Whether its buyers are new at every call (they get new customers). */
  newBuyers: boolean;
  /** The orders of one call; `call` makes new buyers new again. */
  orders(call: string): OrderSpec[];
}

const spread = (i: number) => [0, 1, 2].map((j) => (i * 3 + j) % items);

const shapes: Shape[] = [
  {
    name: 'returning',
    label: '50 returning buyers, lines spread',
    newBuyers: false,
    orders: () => Array.from({ length: orderCount }, (_, i) => ({ email: `buyer${i % 50}@bench.example`, username: `buyer${i % 50}`, items: spread(i) })),
  },
  {
    name: 'marketplace',
    label: '200 new buyers with addresses',
    newBuyers: true,
    orders: (call) =>
      Array.from({ length: orderCount }, (_, i) => ({
        email: `m-${call}-${i}@bench.example`,
        username: `m-${call}-${i}`,
        address: { name: `Buyer ${i}`, street: `Hauptstrasse ${i + 1}`, zip: String(10000 + i), city: 'Berlin', country_iso2: 'DE' },
        items: spread(i),
      })),
  },
  {
    name: 'best-seller',
    label: '50 returning buyers, every line one item',
    newBuyers: false,
    orders: () => Array.from({ length: orderCount }, (_, i) => ({ email: `buyer${i % 50}@bench.example`, username: `buyer${i % 50}`, items: [0, 0, 0] })),
  },
];

function orderList(specs: OrderSpec[]) {
  return {
    order: specs.map((o) => ({
      customer: { email: o.email, username: o.username, ...(o.address ? { address: o.address } : {}) },
      payment_method_id: 'COD',
      shipping: { fee: '4.90' },
      line: o.items.map((item, j) => ({ id: j + 1, name: `item ${j}`, quantity: 1 + j, price: '9.99', stock_align_id: `BENCH-${item}` })),
    })),
  };
}

/**
 * The bare baseline: one transaction writing the rows the API writes with multi-row statements
 * (numbers reserved in one statement each, customers inserted or updated in one, orders, lines,
 * stock rows locked in id order and decremented with one UPDATE ... FROM (VALUES ...), movements
 * and outbox rows in one INSERT each), with no validation, rules or envelope. The floor a
 * set-based order/list/ can reach.
 */
async function bareBaseline(accountId: number, stockIds: number[], specs: OrderSpec[], newBuyers: boolean): Promise<void> {
  await db().transaction(async (trx) => {
    const reserve = async (kind: string, count: number) => {
      const counter = await trx.raw(
        `INSERT INTO order_counter (account_id, kind, last_value) VALUES (?, ?, ?)
        ON CONFLICT (account_id, kind) DO UPDATE SET last_value = order_counter.last_value + ? RETURNING last_value`,
        [accountId, kind, count, count],
      );
      return Number(counter.rows[0].last_value) - count + 1;
    };
    const buyers = [...new Map(specs.map((o) => [o.email, o])).values()];
    // Returning buyers: fixed numbers, so every call after the first updates them (what the API does).
    const firstCustomer = newBuyers ? await reserve('customer', buyers.length) : 0;
    const customers = (await trx('customer')
      .insert(
        buyers.map((b, i) => ({
          account_id: accountId,
          number: newBuyers ? String(firstCustomer + i) : `bare-${b.username}`,
          email: b.email,
          username: b.username,
          shop_username: [b.username],
          address_name: b.address?.name ?? null,
          address: b.address ? JSON.stringify(b.address) : null,
        })),
      )
      .onConflict(['account_id', 'number'])
      .merge(['email', 'username', 'updated_at'])
      .returning(['internal_id', 'number', 'email'])) as { internal_id: string; number: string; email: string }[];
    const customerOf = new Map(customers.map((c) => [c.email, c]));
    const first = await reserve('order', specs.length);
    const orders = await trx('sales_order')
      .insert(
        specs.map((o, i) => {
          const customer = customerOf.get(o.email)!;
          return {
            account_id: accountId,
            number: first + i,
            id: `${first + i}_2026_11`,
            customer_internal_id: customer.internal_id,
            customer_number: customer.number,
            customer_email: o.email,
            customer_username: o.username,
            customer: JSON.stringify(o.address ? { address: o.address } : {}),
            payment_method_id: 'COD',
            shipping_fee: '4.90',
            invoice_amount: '64.84',
          };
        }),
      )
      .returning(['internal_id', 'id', 'number']);
    orders.sort((a, b) => Number(a.number) - Number(b.number));
    const lines = orders.flatMap((order, i) =>
      specs[i]!.items.map((item, j) => ({
        order_internal_id: order.internal_id,
        position: j + 1,
        name: `item ${j}`,
        quantity: 1 + j,
        price: '9.99',
        stock_align_id: `BENCH-${item}`,
        stock_id: stockIds[item]!,
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
    const event = (section: string, recordId: string) => ({
      account_id: accountId,
      queue: 'events',
      job_name: 'event.emit',
      payload: JSON.stringify({ accountId, section, type: 'created', recordId }),
    });
    await trx('outbox').insert([
      ...(newBuyers ? customers.map((c) => event('customer', c.number)) : []),
      ...[...taken.keys()].map((stockId) => ({
        account_id: accountId,
        queue: 'cia',
        job_name: 'cia.adjust',
        payload: JSON.stringify({ accountId, stockId, reason: 'order' }),
      })),
      ...orders.map((o) => event('order', o.id)),
    ]);
  });
}

/** The fastest runs too: on a loaded two-core box the p50 swings with the load, the minimum less. */
function minimum(apiMs: number[], bareMs: number[]): void {
  const [api, bare] = [Math.min(...apiMs), Math.min(...bareMs)];
  process.stdout.write(`  fastest of ${runs}: api ${api.toFixed(1)} ms, bare ${bare.toFixed(1)} ms, ratio ${(api / bare).toFixed(2)}\n`);
}

/** Statements and Redis commands of one call, per call and per order. */
function callsLine(label: string, calls: CallCounts, orders: number): void {
  const redis = Object.values(calls.redis).reduce((sum, n) => sum + n, 0);
  process.stdout.write(
    `  ${label}: ${calls.pg} statements (${(calls.pg / orders).toFixed(2)} per order), ${redis} Redis commands, of the web process for one call\n`,
  );
}

/** Every shape and stock/list/ against one API (the in-process app, or the whole service's web process). */
async function measure(setting: string, api: string, calls: () => Promise<CallCounts>): Promise<void> {
  const seller = await benchSeller();
  const stock = (await db()('stock')
    .insert(Array.from({ length: items }, (_, i) => ({ account_id: seller.id, name: `bench ${i}`, sku: `BENCH-${i}`, quantity: 1e8, quantity_available: 1e8 })))
    .returning('id')) as { id: number }[];
  const stockIds = stock.map((r) => r.id);
  const tag = crypto.randomBytes(4).toString('hex');
  let call = 0;
  for (const shape of shapes) {
    const next = () => shape.orders(`${tag}-${call++}`);
    const post = (specs: OrderSpec[]) => benchCallAt(api, 'order/list/', seller.token, orderList(specs), 207);
    for (let w = 0; w < warmUpCalls; w++) {
      await post(next());
      await bareBaseline(seller.id, stockIds, next(), shape.newBuyers);
    }
    const apiMs: number[] = [];
    const bareMs: number[] = [];
    for (let i = 0; i < runs; i++) {
      const body = next();
      apiMs.push(await time(() => post(body)));
      const bare = next();
      bareMs.push(await time(() => bareBaseline(seller.id, stockIds, bare, shape.newBuyers)));
    }
    report(`${setting}: order/list/ ${shape.name} (${shape.label})`, median(apiMs), median(bareMs));
    minimum(apiMs, bareMs);
    const body = next();
    const before = await calls();
    await post(body);
    callsLine(shape.name, callsBetween(before, await calls()), orderCount);
  }
  const postStock = (run: number) => benchCallAt(api, 'stock/list/', seller.token, { stock: Array.from({ length: 200 }, (_, i) => listItem(run, i)) }, 207);
  for (let w = 0; w < warmUpCalls; w++) {
    await postStock(-1 - w);
    await bareList(seller.id, -101 - w);
  }
  const apiMs: number[] = [];
  const bareMs: number[] = [];
  for (let r = 1; r <= runs; r++) {
    apiMs.push(await time(() => postStock(r)));
    bareMs.push(await time(() => bareList(seller.id, r + 100)));
  }
  report(`${setting}: stock/list/ 200 new items`, median(apiMs), median(bareMs));
  minimum(apiMs, bareMs);
  const before = await calls();
  await postStock(1000);
  callsLine('stock/list/', callsBetween(before, await calls()), 200);
}

export const orderListBench: BenchCase = {
  name: 'order-list',
  description:
    'POST order/list/ 200 orders x 3 stock lines from returning buyers, new buyers (marketplace) and for one item (best-seller), and POST stock/list/ 200 new items, each against the same rows in one bare multi-row transaction; the web process alone, then the whole service',
  async run() {
    const api = await benchBase();
    await measure('web alone', api, async () => callCounts());
    const service = await startService();
    try {
      await measure('whole service', service.api, () => service.calls());
    } finally {
      await service.stop();
    }
    await benchDone();
  },
};
