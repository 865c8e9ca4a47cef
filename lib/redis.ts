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

/**
 * A Lua script as a command of the producer connection (ioredis defineCommand): its text is sent
 * once per connection (EVAL), then run by EVALSHA, so each call costs one round trip and no script
 * text. After the first call nothing is looked up or awaited before the command is written.
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
    return numberOfKeys === 'varying' ? bound.run(keys.length, ...keys, ...args) : bound.run(...keys, ...args);
  };
}
