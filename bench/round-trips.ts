/**
 * What one round trip costs on this machine, client and server (issue 32's fleet aim): a
 * prepared SELECT, a BEGIN / INSERT / COMMIT transaction and a Redis PING, each sent one after
 * the other over the connections the service uses (DATABASE_URL's TCP, REDIS_URL), with the CPU
 * of this process and of the server's process read from /proc. The fleet prints its statements
 * and Redis commands per order; multiplied by these, they give the part of an order's CPU that is
 * round trips alone, before any work, which bounds what fewer lines of our code can save.
 */
import Redis from 'ioredis';
import pg from 'pg';
import { config } from '../config';
import { ensureDatabase } from '../lib/db';
import type { BenchCase } from './cases';
import { cpuSeconds } from './fleet';
import { benchDatabaseUrl, median } from './order-support';

const count = 4000;
const rounds = 3;

/** CPU µs per call of `fn` (sent `count` times, one after the other), in this process and in the server process. */
async function perCall(fn: () => Promise<unknown>, serverPid: number): Promise<{ client: number; server: number }> {
  for (let i = 0; i < 200; i++) await fn();
  const samples: { client: number; server: number }[] = [];
  for (let r = 0; r < rounds; r++) {
    const cpu = process.cpuUsage();
    const server = cpuSeconds({ s: [serverPid] }).s!;
    for (let i = 0; i < count; i++) await fn();
    const used = process.cpuUsage(cpu);
    samples.push({ client: (used.user + used.system) / count, server: ((cpuSeconds({ s: [serverPid] }).s! - server) * 1e6) / count });
  }
  return { client: median(samples.map((s) => s.client)), server: median(samples.map((s) => s.server)) };
}

function line(label: string, cost: { client: number; server: number }): void {
  process.stdout.write(
    `${label.padEnd(62)} client ${cost.client.toFixed(0).padStart(4)} µs   server ${cost.server.toFixed(0).padStart(4)} µs   both ${(cost.client + cost.server).toFixed(0).padStart(4)} µs\n`,
  );
}

export const roundTripsBench: BenchCase = {
  name: 'round-trips',
  description: 'CPU of one round trip, client and server: a prepared SELECT, a BEGIN/INSERT/COMMIT and a Redis PING, over the connections the service uses',
  async run() {
    // Run alone on a new machine, no earlier case has made the bench's database.
    await ensureDatabase(benchDatabaseUrl().toString());
    const client = new pg.Client({ connectionString: benchDatabaseUrl().toString() });
    await client.connect();
    const redis = new Redis(config().redisUrl, { lazyConnect: true });
    await redis.connect();
    try {
      const backend = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      await client.query('CREATE TABLE IF NOT EXISTS bench_round_trip (id bigserial PRIMARY KEY, note text)');
      line('postgres: a prepared SELECT $1::int', await perCall(() => client.query({ name: 'bench-rt', text: 'SELECT $1::int', values: [1] }), backend));
      line(
        'postgres: BEGIN, a prepared one-row INSERT, COMMIT (3 trips)',
        await perCall(async () => {
          await client.query('BEGIN');
          await client.query({ name: 'bench-rt-insert', text: 'INSERT INTO bench_round_trip (note) VALUES ($1)', values: ['x'] });
          await client.query('COMMIT');
        }, backend),
      );
      await client.query('DROP TABLE bench_round_trip');
      const redisPid = Number(/process_id:(\d+)/.exec(await redis.info('server'))![1]);
      line('redis: PING', await perCall(() => redis.ping(), redisPid));
    } finally {
      redis.disconnect();
      await client.end();
    }
  },
};
