/**
 * Shared by the order bench cases: the dedicated bench database (BENCH_DATABASE_URL, else
 * kontor_bench next to the configured one), the app on an ephemeral port, a seller with a token,
 * and timing helpers.
 */
import crypto from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { Config, config, setConfig } from '../config';
import { createSeller } from '../lib/account/account.service';
import { grantClientCredentials } from '../lib/auth/token.service';
import { closeDb, db } from '../lib/db/knex';
import { migrateDatabase } from '../lib/migrate';
import { log } from '../lib/log';
import { closeQueues } from '../lib/queue/queue.registry';
import { createApp } from '../server/app';

/** CONCURRENT_CALLS_PER_ACCOUNT while benches run: one bench seller posts many calls at once. */
export const benchConcurrentCalls = 1000;

let prepared: Promise<string> | undefined;
let server: Server | undefined;
let original: Config | undefined;

/**
 * The bench's database: BENCH_DATABASE_URL when set (so a bench can run beside a service that
 * uses the configured database, or beside another bench), else BENCH_DATABASE (default
 * kontor_bench) next to DATABASE_URL.
 */
export function benchDatabaseUrl(): URL {
  const own = process.env.BENCH_DATABASE_URL;
  if (own) return new URL(own);
  const url = new URL(config().databaseUrl);
  url.pathname = `/${process.env.BENCH_DATABASE ?? 'kontor_bench'}`;
  return url;
}

/** Points the process at the bench database (created and migrated on first use) and serves the app. */
export function benchBase(): Promise<string> {
  prepared ??= (async () => {
    original = config();
    const url = benchDatabaseUrl();
    // No rate limit or log noise in the way of the measurement. The cases send several calls of one
    // seller at once, which document 1's default of 1 call in flight per account would refuse.
    // Redis keys of its own (rate limits and calls in flight are keyed by account id): under the
    // configured prefix, a bench's tens of thousands of calls counted against the account of the
    // same id of a service using that prefix, which then answered 429 for the rest of the hour.
    setConfig({
      ...config(),
      databaseUrl: url.toString(),
      queuePrefix: `bench-${url.pathname.slice(1)}`,
      rateLimitPerWindow: 1e9,
      concurrentCallsPerAccount: benchConcurrentCalls,
      logLevel: 'silent',
    });
    log.level = 'silent';
    await closeDb();
    await migrateDatabase(url.toString());
    server = createApp().listen(0, '127.0.0.1');
    await new Promise((resolve) => server!.once('listening', resolve));
    server.unref();
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1.1`;
  })();
  return prepared;
}

/** Closes the app and gives the process its configured database back, for the cases that follow. */
export async function benchDone(): Promise<void> {
  if (!prepared) return;
  await prepared;
  await new Promise<void>((resolve) => {
    server!.close(() => resolve());
    server!.closeAllConnections();
  });
  // createApp opens the queues (job status, operator board); their connection would keep the process alive.
  await closeQueues();
  await closeDb();
  setConfig(original!);
  prepared = undefined;
  server = undefined;
}

/** A seller of the bench database (new, or the one with this login) and a token with every scope. */
export async function benchSeller(login?: string): Promise<{ id: number; token: string }> {
  const name = login ?? `bench_${crypto.randomBytes(6).toString('hex')}`;
  const password = 'bench-password';
  const existing = (await db()('account').select('id').whereRaw('lower(login) = lower(?)', [name]).first()) as { id: number } | undefined;
  const id = existing?.id ?? (await createSeller(name, password)).id;
  const answer = await grantClientCredentials(name, password, undefined, 'bench');
  return { id, token: answer.access_token };
}

/** Calls the API and fails on an unexpected status. */
export async function benchCall(path: string, token: string, body?: unknown, expected = 200): Promise<Record<string, unknown>> {
  return benchCallAt(await benchBase(), path, token, body, expected);
}

/** benchCall against another API base (the web process of a whole service the bench started). */
export async function benchCallAt(base: string, path: string, token: string, body?: unknown, expected = 200): Promise<Record<string, unknown>> {
  const res = await fetch(`${base}/${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== expected) throw new Error(`${path} answered ${res.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/** Milliseconds of one run of fn. */
export async function time(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/**
 * Calls of a bulk case before its measured runs: the JIT compiles a 200-item path over its first
 * few calls (stock/list/ took 160, 75, 40, 45, 35 ms, then 25-30), so one warm-up call left
 * most of the measured runs compiling.
 */
export const warmUpCalls = 5;

export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** One line of figures: the API, a baseline of the same run (bare by default) and their ratio. */
export function report(label: string, apiMs: number, baseMs: number, base = 'bare'): void {
  process.stdout.write(
    `${label.padEnd(58)} api ${apiMs.toFixed(1).padStart(8)} ms   ${base} ${baseMs.toFixed(1).padStart(8)} ms   ratio ${(apiMs / baseMs).toFixed(2)}\n`,
  );
}
