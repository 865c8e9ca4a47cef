/**
 * The read-path bench's bare baselines (bench/read-path.ts): bare Express + pg answering GET
 * order/{id}/ from the same SQL, mapping and envelope as the API, and bare Express answering the
 * JSON of GET system/currency/EUR/. Served in the bench's process (startBare), or in a process of
 * their own started with the web line's node flags (startBareProcess: read-path-bare-main.ts), so
 * that against the whole service's web process both sides serve from a process of their own.
 */
import { fork } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import express from 'express';
import pg from 'pg';
import { procfileProcesses } from '../bin/procfile';
import { allOrdersOf } from '../lib/access/caller';
import { db } from '../lib/db/knex';
import { orderReadQuery } from '../lib/order/order.repository';
import { orderToApi } from '../lib/order/order.mapper';
import type { OrderReadRow } from '../lib/order/order.repository';

export interface BareServers {
  order: URL;
  currency: URL;
  /** The serving process's id when it is not the bench's. */
  pid?: number;
  close(): Promise<void>;
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
  // The same read as a named (prepared) statement built once: the floor for the API's prepared read.
  const { sql, bindings } = orderReadQuery(db(), allOrdersOf(accountId)).where('sales_order.id', '').first().toSQL().toNative();
  const idAt = bindings.indexOf('');
  app.get('/v1.1/order-prepared/:id/', async (req, res) => {
    const values = [...bindings];
    values[idAt] = req.params.id;
    const { rows } = await pool.query<OrderReadRow>({ name: 'bare-order-read', text: sql, values: values as unknown[] });
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

/** Both bare servers in this process, the order one with a pool of `connections` to the database. */
export async function startBare(databaseUrl: string, accountId: number, connections: number): Promise<BareServers> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: connections });
  const order = await bareServer(bareOrderApp(pool, accountId));
  const currency = await bareServer(bareCurrencyApp());
  return {
    order: order.base,
    currency: currency.base,
    async close() {
      await order.close();
      await currency.close();
      await pool.end();
    },
  };
}

/** Both bare servers in a process of their own, run from the source with the web line's node flags. */
export async function startBareProcess(databaseUrl: string, accountId: number, connections: number): Promise<BareServers> {
  const web = procfileProcesses(path.join(__dirname, '..')).find((p) => p.name === 'web')!;
  const child = fork(path.join(__dirname, 'read-path-bare-main.ts'), [databaseUrl, String(accountId), String(connections)], {
    cwd: path.join(__dirname, '..'),
    execArgv: [...web.flags, '--require', 'tsx/cjs'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const ports = await new Promise<{ order: string; currency: string }>((resolve, reject) => {
    child.once('message', (message) => resolve(message as { order: string; currency: string }));
    child.once('exit', (code) => reject(new Error(`the bare servers' process exited (${code})`)));
  });
  return {
    order: new URL(ports.order),
    currency: new URL(ports.currency),
    pid: child.pid!,
    async close() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
