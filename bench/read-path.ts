/**
 * The read path (issue 17 item 2): GET order/{id}/ through the API against a bare Express + pg
 * server answering the same document from the same SQL, and an authenticated trivial GET
 * (system/currency/EUR/) against bare Express answering the same JSON. Both servers run in this
 * process with the same client (a keep-alive agent, 8 calls at a time), one after the other, so
 * the ratio is of one run on one machine. BENCH_CPU_PROFILE_DIR: a V8 CPU profile of the API part.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Session } from 'node:inspector/promises';
import fs from 'node:fs';
import path from 'node:path';
import express from 'express';
import pg from 'pg';
import type { BenchCase } from './cases';
import { allOrdersOf } from '../lib/access/caller';
import { db } from '../lib/db/knex';
import { orderReadQuery } from '../lib/order/order.repository';
import { orderToApi } from '../lib/order/order.mapper';
import type { OrderReadRow } from '../lib/order/order.repository';
import { benchBase, benchCall, benchDatabaseUrl, benchSeller, median } from './order-support';

const runs = 3;
const calls = 4000;
const concurrency = 8;

const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });

/** One GET over the keep-alive agent; fails on another status than 200. */
function get(base: URL, target: string, token?: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      { host: base.hostname, port: base.port, path: `${base.pathname}/${target}`, agent, headers: token ? { Authorization: `Bearer ${token}` } : {} },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          res.statusCode === 200 ? resolve() : reject(new Error(`${target}: ${res.statusCode} ${Buffer.concat(chunks).toString().slice(0, 300)}`)),
        );
      },
    );
    req.on('error', reject);
  });
}

/** CPU microseconds of this process per call in the last rate() (server and client: both sides share the client's cost). */
let cpuPerCall = 0;

/**
 * Calls per second of `calls` calls of fn, `concurrency` at a time. Also sets cpuPerCall: on a
 * shared machine the CPU a call costs holds still where calls per second swing with the load.
 */
async function rate(fn: () => Promise<void>): Promise<number> {
  let left = calls;
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (left-- > 0) await fn();
    }),
  );
  const used = process.cpuUsage(cpu);
  cpuPerCall = (used.user + used.system) / calls;
  return calls / (Number(process.hrtime.bigint() - start) / 1e9);
}

/** A bare Express app on an ephemeral port; resolves to its base URL and a close function. */
async function bareServer(app: express.Express): Promise<{ base: URL; close: () => Promise<void> }> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    base: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1.1`),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Bare Express + pg: the same SQL as the API's order read, the same mapping and envelope, nothing else. */
function bareOrderApp(pool: pg.Pool, accountId: number): express.Express {
  const app = express();
  app.get('/v1.1/order/:id/', async (req, res) => {
    const { sql, bindings } = orderReadQuery(db(), allOrdersOf(accountId)).where('sales_order.id', req.params.id).first().toSQL().toNative();
    const { rows } = await pool.query<OrderReadRow>(sql, bindings as unknown[]);
    res.json({ ack: 'success', order: orderToApi(rows[0]!) });
  });
  return app;
}

/** Bare Express answering the JSON of GET system/currency/EUR/. */
function bareCurrencyApp(): express.Express {
  const app = express();
  const body = { ack: 'success', currency: { internal_id: 0, id: 'EUR' } };
  app.get('/v1.1/system/currency/EUR/', (_req, res) => {
    res.json(body);
  });
  return app;
}

/** Profiles fn when BENCH_CPU_PROFILE_DIR is set (the API's part only). */
async function profiled<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const dir = process.env.BENCH_CPU_PROFILE_DIR;
  if (!dir) return fn();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  const result = await fn();
  const { profile } = await session.post('Profiler.stop');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, `${name}-${process.pid}.cpuprofile`), JSON.stringify(profile));
  session.disconnect();
  return result;
}

function line(label: string, api: number, bare: number, cpu: [number, number]): void {
  process.stdout.write(
    `${label.padEnd(50)} api ${api.toFixed(0).padStart(6)} req/s   bare ${bare.toFixed(0).padStart(6)} req/s   api/bare ${(api / bare).toFixed(2)}` +
      `   CPU/call api ${cpu[0].toFixed(0)} us bare ${cpu[1].toFixed(0)} us, bare/api ${(cpu[1] / cpu[0]).toFixed(2)}\n`,
  );
}

export const readPathBench: BenchCase = {
  name: 'read-path',
  description: `GET order/{id}/ against bare Express + pg, and an authenticated GET system/currency/EUR/ against bare Express (${calls} calls, ${concurrency} at a time, ${runs} rounds)`,
  async run() {
    const api = new URL(await benchBase());
    const seller = await benchSeller();
    const created = await benchCall(
      'order/',
      seller.token,
      {
        order: {
          customer: { email: 'reader@bench.example', username: 'reader' },
          payment_method_id: 'COD',
          shipping: { fee: '4.90' },
          line: [1, 2, 3].map((j) => ({ id: j, name: `item ${j}`, quantity: j, price: '9.99', sku: `R-${j}` })),
        },
      },
      201,
    );
    const orderId = String(created.order_id);
    const pool = new pg.Pool({ connectionString: benchDatabaseUrl().toString(), max: concurrency });
    const bareOrder = await bareServer(bareOrderApp(pool, seller.id));
    const bareCurrency = await bareServer(bareCurrencyApp());
    const orderPath = `order/${orderId}/`;
    const currencyPath = 'system/currency/EUR/';
    const figures = { order: [] as number[][], currency: [] as number[][] };
    const cpu = { order: [] as number[], currency: [] as number[] };
    // Warm both sides of both cases (JIT, pools, the token's cache) before the first measured
    // round: unwarmed, round 1's currency figures measured the JIT compiling its path.
    await rate(() => get(api, orderPath, seller.token));
    await rate(() => get(bareOrder.base, orderPath));
    await rate(() => get(api, currencyPath, seller.token));
    await rate(() => get(bareCurrency.base, currencyPath));
    for (let round = 0; round < runs; round++) {
      const apiOrder = await profiled(`read-path-order-${round}`, () => rate(() => get(api, orderPath, seller.token)));
      const apiOrderCpu = cpuPerCall;
      const bareOrderRate = await rate(() => get(bareOrder.base, orderPath));
      const bareOrderCpu = cpuPerCall;
      const apiCurrency = await profiled(`read-path-currency-${round}`, () => rate(() => get(api, currencyPath, seller.token)));
      const apiCurrencyCpu = cpuPerCall;
      const bareCurrencyRate = await rate(() => get(bareCurrency.base, currencyPath));
      const bareCurrencyCpu = cpuPerCall;
      figures.order.push([apiOrder, bareOrderRate, apiOrder / bareOrderRate]);
      figures.currency.push([apiCurrency, bareCurrencyRate, apiCurrency / bareCurrencyRate]);
      cpu.order.push(bareOrderCpu / apiOrderCpu);
      cpu.currency.push(bareCurrencyCpu / apiCurrencyCpu);
      line(`round ${round + 1}: GET order/{id}/`, apiOrder, bareOrderRate, [apiOrderCpu, bareOrderCpu]);
      line(`round ${round + 1}: GET system/currency/EUR/ (token)`, apiCurrency, bareCurrencyRate, [apiCurrencyCpu, bareCurrencyCpu]);
    }
    const ratio = (rows: number[][]) => median(rows.map((r) => r[2]!));
    process.stdout.write(`median ratio GET order/{id}/ api/bare+pg ${ratio(figures.order).toFixed(2)} (aim >= 0.6)\n`);
    process.stdout.write(`median ratio authenticated GET system/currency/EUR/ api/bare ${ratio(figures.currency).toFixed(2)} (aim >= 0.5)\n`);
    process.stdout.write(
      `median CPU ratio (bare CPU per call / api CPU per call, this process: server + client) order ${median(cpu.order).toFixed(2)}, currency ${median(cpu.currency).toFixed(2)}\n`,
    );
    await bareOrder.close();
    await bareCurrency.close();
    await pool.end();
  },
};
