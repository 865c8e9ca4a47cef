import IORedis, { Redis, RedisOptions } from 'ioredis';
import { config } from '../config';

/**
 * A producer connection fails fast when Redis is away (requests must not hang on it); a worker
 * connection waits and retries for ever (BullMQ's advice for workers).
 */
export function createRedis(role: 'producer' | 'worker', options: RedisOptions = {}): Redis {
  const base: RedisOptions =
    role === 'producer' ? { enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: 1000, connectTimeout: 2000 } : { maxRetriesPerRequest: null };
  return new IORedis(config().redisUrl, {
    ...base,
    retryStrategy: (times) => Math.min(times * 200, 2000),
    lazyConnect: false,
    ...options,
  });
}

let shared: Redis | undefined;

/** The process's producer connection (rate limits, queue adds from the web process). */
export function redis(): Redis {
  if (!shared) {
    shared = createRedis('producer');
    // Errors are reported where a command fails; an unhandled 'error' event would crash the process.
    shared.on('error', () => undefined);
  }
  return shared;
}

export async function closeRedis(): Promise<void> {
  if (shared) await shared.quit().catch(() => shared?.disconnect());
  shared = undefined;
}

/** Resolves when the connection is ready (producers refuse commands before), or rejects after ms. */
export function whenReady(connection: Redis, ms = 5000): Promise<void> {
  if (connection.status === 'ready') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      connection.off('ready', onReady);
      reject(new Error(`Redis not ready after ${ms} ms`));
    }, ms);
    const onReady = () => {
      clearTimeout(timer);
      resolve();
    };
    connection.once('ready', onReady);
  });
}

let connected: Promise<void> | undefined;

/** The producer connection refuses commands until ready: wait for it once, at start-up only. */
function firstConnection(): Promise<void> {
  connected ??= whenReady(redis(), 2000).catch(() => undefined);
  return connected;
}

const defined = new WeakMap<Redis, Set<string>>();

/*
 * Script calls of one turn of the event loop leave at its end in one write: the write to a
 * loopback socket (and waking Redis) costs more than a short script, and a web process under load
 * takes in several requests per turn, each with its rate-limit call. The turn's last step
 * (setImmediate) runs what wants to add commands at the last moment, then writes them corked.
 */
let turn: (() => void)[] = [];
let lastMoment: (() => void)[] = [];

function scheduleTurnWrite(): void {
  if (turn.length === 0 && lastMoment.length === 0) setImmediate(writeTurn);
}

/** Runs `send` at the end of this turn, with the other script calls of the turn, in one write. */
function sendThisTurn<T>(send: () => Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    scheduleTurnWrite();
    turn.push(() => {
      try {
        send().then(resolve, reject);
      } catch (err) {
        reject(err as Error);
      }
    });
  });
}

/** Runs `add` once, just before this turn's script calls are written: what it sends goes in the same write. */
export function atTurnWrite(add: () => void): void {
  scheduleTurnWrite();
  lastMoment.push(add);
}

function writeTurn(): void {
  const adds = lastMoment;
  lastMoment = [];
  for (const add of adds) add();
  const sends = turn;
  turn = [];
  // Corked, the commands' writes leave as one writev when uncorked.
  const stream = shared?.stream;
  stream?.cork();
  for (const send of sends) send();
  stream?.uncork();
}

/**
 * A Lua script as a command of the producer connection (ioredis defineCommand): its text is sent
 * once per connection (EVAL), then run by EVALSHA, so each call costs one round trip and no script
 * text; the calls of one turn of the event loop share one write. After the first call nothing is
 * looked up or awaited before the command is queued for the turn's write.
 * 'varying': each call passes its own number of keys.
 */
export function redisScript(name: string, numberOfKeys: number | 'varying', lua: string) {
  let bound: { connection: Redis; run: (...a: (string | number)[]) => Promise<unknown> } | undefined;
  return async (keys: string[], args: (string | number)[]): Promise<unknown> => {
    if (!bound || bound.connection !== shared) {
      await firstConnection();
      const connection = redis();
      const names = defined.get(connection) ?? new Set<string>();
      if (!names.has(name)) {
        connection.defineCommand(name, numberOfKeys === 'varying' ? { lua } : { numberOfKeys, lua });
        defined.set(connection, names.add(name));
      }
      const command = (connection as unknown as Record<string, (...a: (string | number)[]) => Promise<unknown>>)[name]!;
      bound = { connection, run: command.bind(connection) };
    }
    const { run } = bound;
    const argv = numberOfKeys === 'varying' ? [keys.length, ...keys, ...args] : [...keys, ...args];
    return sendThisTurn(() => run(...argv));
  };
}
