/**
 * Counts this process's Postgres statements (every pg Client query: Knex's, BEGIN/COMMIT, the
 * relay's LISTEN client) and Redis commands (by name; a BullMQ script is one evalsha) for the
 * fleet bench: round trips do not depend on the machine's load, timings do. Loaded in the bench
 * process by import and in the fleet's child processes with `--require`; on SIGUSR2 a child
 * writes its counts to BENCH_CALLS_DIR/<pid>.json.
 */
import fs from 'node:fs';
import path from 'node:path';
import Redis from 'ioredis';
import { Client } from 'pg';

/** Counts so far: statements, and Redis commands by name. */
export interface CallCounts {
  pg: number;
  redis: Record<string, number>;
}

const counts: CallCounts = { pg: 0, redis: {} };

type Query = (this: Client, ...args: unknown[]) => unknown;
const query = Client.prototype.query as unknown as Query;
(Client.prototype as unknown as { query: Query }).query = function (this: Client, ...args: unknown[]) {
  counts.pg += 1;
  return query.apply(this, args);
};

type SendCommand = (this: Redis, command: { name: string; args: unknown[] }, ...rest: unknown[]) => unknown;
type Scripts = { scriptsSet?: Record<string, { sha: string }> };

/** A script's name (BullMQ's moveToActive, addStandardJob, ...) from its sha, else the command's name. */
function commandName(redis: Redis, command: { name: string; args: unknown[] }): string {
  if (command.name !== 'evalsha') return command.name;
  const sha = String(command.args[0]);
  const scripts = (redis as unknown as Scripts).scriptsSet ?? {};
  const name = Object.keys(scripts).find((key) => scripts[key]!.sha === sha);
  return name ? `evalsha:${name.replace(/-\d+$/, '')}` : 'evalsha';
}

const sendCommand = Redis.prototype.sendCommand as unknown as SendCommand;
(Redis.prototype as unknown as { sendCommand: SendCommand }).sendCommand = function (this: Redis, command, ...rest) {
  const name = commandName(this, command);
  counts.redis[name] = (counts.redis[name] ?? 0) + 1;
  return sendCommand.call(this, command, ...rest);
};

/** A copy of the counts now. */
export function callCounts(): CallCounts {
  return { pg: counts.pg, redis: { ...counts.redis } };
}

/** after − before, per name. */
export function callsBetween(before: CallCounts, after: CallCounts): CallCounts {
  const redis: Record<string, number> = {};
  for (const [name, n] of Object.entries(after.redis)) if (n - (before.redis[name] ?? 0) > 0) redis[name] = n - (before.redis[name] ?? 0);
  return { pg: after.pg - before.pg, redis };
}

const dir = process.env.BENCH_CALLS_DIR;
if (dir) {
  process.on('SIGUSR2', () => {
    fs.writeFileSync(path.join(dir, `${process.pid}.json`), JSON.stringify(callCounts()));
  });
}
