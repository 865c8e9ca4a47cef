/**
 * The read path (issue 17 item 2, issue 32): GET order/{id}/ through the API against a bare
 * Express + pg server answering the same document from the same SQL, and an authenticated trivial
 * GET (system/currency/EUR/) against bare Express answering the same JSON, in two settings of one
 * run: the web process alone (the app in this process), then the whole service as `npm start`
 * runs it (bench/service.ts: every Procfile process at its default log level info, workers idle beside it). The bare servers run
 * in this process (both settings) and, against the service, also in a process of their own with
 * the web line's node flags (bench/read-path-bare.ts): served from the bench's process they share
 * one thread with the client, which the service's web process does not. The same client (a
 * keep-alive agent, 8 calls at a time) calls each side one after the other, so each ratio is of
 * one run on one machine. Besides calls per second it
 * prints the CPU per call (client + server: in the whole service, this process's client plus the
 * web process), and the web process's Postgres statements (round trips) and Redis commands per
 * call. BENCH_CPU_PROFILE_DIR: a V8 CPU profile of the API part of the web-alone setting (for the
 * web process of the whole service: `node --cpu-prof`, see lib/http/README.md).
 */
import http from 'node:http';
import { Session } from 'node:inspector/promises';
import fs from 'node:fs';
import path from 'node:path';
import type { BenchCase } from './cases';
import { callCounts, CallCounts, callsBetween } from './call-counter';
import { benchBase, benchCall, benchDatabaseUrl, benchDone, benchSeller, median } from './order-support';
import { BareServers, startBare, startBareProcess } from './read-path-bare';
import { startService } from './service';

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

/** CPU microseconds per call in the last rate(): this process (client, and a server in it) plus the other server process's. */
let cpuPerCall = 0;

/** CPU microseconds a process used so far (utime + stime of /proc/<pid>/stat). */
function processCpu(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14 and 15 of stat, counted from the state (field 3): clock ticks of 10 ms (CLK_TCK 100 on Linux).
  return (Number(fields[11]) + Number(fields[12])) * 1e4;
}

/**
 * Calls per second of `count` calls of fn, `concurrency` at a time. Also sets cpuPerCall (with
 * serverCpu, the CPU so far of a server in another process): on a shared machine the CPU a call
 * costs holds still where calls per second swing with the load.
 */
async function rate(fn: () => Promise<void>, serverCpu: () => number = () => 0, count = calls): Promise<number> {
  let left = count;
  const cpu = process.cpuUsage();
  const server = serverCpu();
  const start = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (left-- > 0) await fn();
    }),
  );
  const used = process.cpuUsage(cpu);
  cpuPerCall = (used.user + used.system + serverCpu() - server) / count;
  return count / (Number(process.hrtime.bigint() - start) / 1e9);
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
    `${label.padEnd(70)} api ${api.toFixed(0).padStart(6)} req/s   bare ${bare.toFixed(0).padStart(6)} req/s   api/bare ${(api / bare).toFixed(2)}` +
      `   CPU/call api ${cpu[0].toFixed(0)} us bare ${cpu[1].toFixed(0)} us, bare/api ${(cpu[1] / cpu[0]).toFixed(2)}\n`,
  );
}

/** Where the API runs: this process, or the whole service's web process. */
interface Setting {
  name: string;
  api: URL;
  /** The API process's statements and Redis commands so far. */
  calls(): Promise<CallCounts>;
  /** CPU microseconds so far of the API's process when it is not this one (else 0). */
  serverCpu(): number;
}

/** A baseline the API is measured against: the bare servers in this process or in their own. */
interface Baseline {
  name: string;
  servers: BareServers;
}

/** Statements and Redis commands per call of `count` calls of fn (the API alone: nothing else runs meanwhile). */
async function callsPerRequest(setting: Setting, fn: () => Promise<void>, count: number): Promise<string> {
  const before = await setting.calls();
  await rate(fn, undefined, count);
  const between = callsBetween(before, await setting.calls());
  const redis = Object.entries(between.redis)
    .map(([name, n]) => `${name} ${(n / count).toFixed(2)}`)
    .join(', ');
  return `${(between.pg / count).toFixed(2)} statements, Redis ${redis || 'none'}`;
}

/** Both cases against one API, `runs` rounds, each round the API then each of its baselines. */
async function measure(setting: Setting, token: string, orderId: string, baselines: Baseline[]): Promise<void> {
  const { api, serverCpu } = setting;
  const cases = [
    { name: 'GET order/{id}/', path: `order/${orderId}/`, bare: (b: BareServers) => b.order, aim: 0.7 },
    // The bare read as a prepared statement too: the API's read of one order is one (lib/order).
    { name: 'GET order/{id}/ (bare prepared)', path: `order/${orderId}/`, barePath: `order-prepared/${orderId}/`, bare: (b: BareServers) => b.order, aim: 0.7 },
    { name: 'GET system/currency/EUR/ (token)', path: 'system/currency/EUR/', bare: (b: BareServers) => b.currency, aim: 0.6 },
  ] as { name: string; path: string; barePath?: string; bare: (b: BareServers) => URL; aim: number }[];
  const bareCpu = (b: BareServers) => (b.pid ? () => processCpu(b.pid!) : () => 0);
  // Warm every side of both cases (JIT, pools, the token's cache) before the first measured
  // round: unwarmed, round 1's currency figures measured the JIT compiling its path.
  for (const c of cases) {
    await rate(() => get(api, c.path, token));
    for (const b of baselines) await rate(() => get(c.bare(b.servers), c.barePath ?? c.path));
  }
  const profile = setting.name === 'web alone';
  // Per case and baseline: per round [api, bare, api/bare calls per second, bare/api CPU per call].
  const figures = new Map<string, number[][]>();
  for (let round = 0; round < runs; round++) {
    for (const c of cases) {
      const apiCall = () => get(api, c.path, token);
      const apiRate = await (profile ? profiled(`read-path-${c.path.split('/')[0]}-${round}`, () => rate(apiCall)) : rate(apiCall, serverCpu));
      const apiCpu = cpuPerCall;
      for (const b of baselines) {
        const bareRate = await rate(() => get(c.bare(b.servers), c.barePath ?? c.path), bareCpu(b.servers));
        const key = `${c.name} against ${b.name}`;
        figures.set(key, [...(figures.get(key) ?? []), [apiRate, bareRate, apiRate / bareRate, cpuPerCall / apiCpu]]);
        line(`${setting.name}: round ${round + 1}: ${key}`, apiRate, bareRate, [apiCpu, cpuPerCall]);
      }
    }
  }
  const col = (rows: number[][], i: number) => median(rows.map((r) => r[i]!));
  for (const c of cases)
    for (const b of baselines) {
      const rows = figures.get(`${c.name} against ${b.name}`)!;
      process.stdout.write(
        `${setting.name}: median ${c.name}: api ${col(rows, 0).toFixed(0)} req/s, ${b.name} ${col(rows, 1).toFixed(0)} req/s, ` +
          `api/bare ${col(rows, 2).toFixed(2)} (aim >= ${c.aim}), CPU per call bare/api ${col(rows, 3).toFixed(2)}\n`,
      );
    }
  for (const c of cases) process.stdout.write(`${setting.name}: per ${c.name}: ${await callsPerRequest(setting, () => get(api, c.path, token), 1000)}\n`);
}

export const readPathBench: BenchCase = {
  name: 'read-path',
  description: `GET order/{id}/ against bare Express + pg, and an authenticated GET system/currency/EUR/ against bare Express (${calls} calls, ${concurrency} at a time, ${runs} rounds), the web process alone, then the whole service`,
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
    const databaseUrl = benchDatabaseUrl().toString();
    const inProcess = await startBare(databaseUrl, seller.id, concurrency);
    try {
      await measure({ name: 'web alone', api, calls: async () => callCounts(), serverCpu: () => 0 }, seller.token, orderId, [
        { name: 'bare', servers: inProcess },
      ]);
      // The in-process app stops serving: its idle pools and timers would share the CPU with the service's.
      await benchDone();
      // Against the web process of the service, the bare servers in a process of their own too (the
      // client then shares no thread with either server), and, as before, in this process.
      const ownProcess = await startBareProcess(databaseUrl, seller.id, concurrency);
      // At npm start's log level: a request line per call is part of what a call costs there.
      const service = await startService({ logLevel: 'info' });
      try {
        const setting = { name: 'whole service', api: new URL(service.api), calls: () => service.calls(), serverCpu: () => processCpu(service.webPid) };
        await measure(setting, seller.token, orderId, [
          { name: 'bare (own process)', servers: ownProcess },
          { name: 'bare (bench process)', servers: inProcess },
        ]);
      } finally {
        await service.stop();
        await ownProcess.close();
      }
    } finally {
      await inProcess.close();
    }
  },
};
