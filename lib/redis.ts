import IORedis, { Cluster, ClusterOptions, Redis, RedisOptions } from 'ioredis';
import { config } from '../config';

/**
 * A connection to the one Redis (REDIS_URL) or to a Redis Cluster (REDIS_CLUSTER_NODES): both
 * take the same commands, scripts and BullMQ; what a cluster needs besides is that every
 * script's and MULTI's keys share a slot (hash tags, see `tagged`).
 */
export type RedisClient = Redis | Cluster;

export const isCluster = (connection: RedisClient): connection is Cluster => connection instanceof Cluster;

/**
 * A producer connection fails fast when Redis is away (requests must not hang on it); a worker
 * connection waits and retries for ever (BullMQ's advice for workers). On a cluster the same
 * holds per node; a producer refuses commands until the cluster's slots are known.
 */
export function createRedis(role: 'producer' | 'worker', options: RedisOptions = {}): RedisClient {
  const base: RedisOptions =
    role === 'producer' ? { enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: 1000, connectTimeout: 2000 } : { maxRetriesPerRequest: null };
  const nodes = config().redisClusterNodes;
  if (nodes.length > 0) {
    const { enableOfflineQueue, retryStrategy: _ignored, ...nodeOptions } = { ...base, ...options };
    const cluster: ClusterOptions = {
      enableOfflineQueue: enableOfflineQueue ?? true,
      clusterRetryStrategy: (times) => Math.min(times * 200, 2000),
      // A failover moves slots within seconds: commands wait for the new map instead of failing.
      retryDelayOnFailover: 200,
      retryDelayOnClusterDown: 200,
      retryDelayOnTryAgain: 100,
      slotsRefreshTimeout: 2000,
      redisOptions: nodeOptions,
    };
    return new Cluster(nodes, cluster);
  }
  return new IORedis(config().redisUrl, {
    ...base,
    retryStrategy: (times) => Math.min(times * 200, 2000),
    lazyConnect: false,
    ...options,
  });
}

let shared: RedisClient | undefined;

/** The process's producer connection (rate limits, queue adds from the web process). */
export function redis(): RedisClient {
  if (!shared) {
    shared = createRedis('producer');
    // Errors are reported where a command fails; an unhandled 'error' event would crash the process.
    shared.on('error', () => undefined);
  }
  return shared;
}

/** The process's producer connection if one is open, without opening one (for timers, which must not open one after closeRedis). */
export function openRedis(): RedisClient | undefined {
  return shared;
}

export async function closeRedis(): Promise<void> {
  if (shared) await shared.quit().catch(() => shared?.disconnect());
  shared = undefined;
}

/** Resolves when the connection is ready (producers refuse commands before), or rejects after ms. */
export function whenReady(connection: RedisClient, ms = 5000): Promise<void> {
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

const connected = new WeakMap<RedisClient, Promise<void>>();

/**
 * The producer connection refuses commands until ready: wait for each new one once (start-up,
 * or after closeRedis), until it is ready, its first attempt fails (refused: no use waiting) or
 * 2 s pass. Only the process's first connection was waited for, so the first commands on a later
 * one failed: let through then, refused now that the login throttle fails closed.
 */
function firstConnection(): Promise<void> {
  const connection = redis();
  let ready = connected.get(connection);
  if (!ready) {
    ready = new Promise<void>((resolve) => {
      if (connection.status === 'ready') return resolve();
      const done = () => {
        clearTimeout(timer);
        connection.off('ready', done);
        connection.off('error', done);
        resolve();
      };
      const timer = setTimeout(done, 2000);
      connection.once('ready', done);
      connection.once('error', done);
    });
    connected.set(connection, ready);
  }
  return ready;
}

const defined = new WeakMap<RedisClient, Set<string>>();

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

let afterWrite: (() => void)[] = [];

/**
 * Resolves once the commands queued for this turn (so far) are written to Redis's socket, at once
 * when none are queued. What a process answers after that cannot reach another process (a client's
 * next call through another web host) before they reach Redis.
 */
export function turnWritten(): Promise<void> {
  if (turn.length === 0 && lastMoment.length === 0) return Promise.resolve();
  return new Promise((resolve) => afterWrite.push(resolve));
}

function writeTurn(): void {
  const adds = lastMoment;
  lastMoment = [];
  for (const add of adds) add();
  const sends = turn;
  turn = [];
  // Corked, the commands' writes leave as one writev when uncorked. A cluster has a stream per
  // node and no single one to cork: each command is written to its node as it is sent.
  const stream = shared && !isCluster(shared) ? shared.stream : undefined;
  stream?.cork();
  for (const send of sends) send();
  stream?.uncork();
  const written = afterWrite;
  afterWrite = [];
  for (const resolve of written) resolve();
}

/**
 * A Lua script as a command of the producer connection (ioredis defineCommand): its text is sent
 * once per connection (EVAL), then run by EVALSHA, so each call costs one round trip and no script
 * text; the calls of one turn of the event loop share one write. After the first call nothing is
 * looked up or awaited before the command is queued for the turn's write.
 * 'varying': each call passes its own number of keys.
 */
export function redisScript(name: string, numberOfKeys: number | 'varying', lua: string) {
  let bound: { connection: RedisClient; run: (...a: (string | number)[]) => Promise<unknown> } | undefined;
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

/**
 * Lua that sets `now` to Redis's clock in ms (TIME), unless the call passed its own (ARGV[i] not
 * empty: a test's moved clock, lib/clock). Limits shared by hosts read the one clock they share:
 * with each host's own, 700 ms of skew let two calls through 128 ms apart inside a 200 ms spacing.
 * Redis 7 replicates a script's effects, not the script, so TIME is allowed before writes.
 */
export const luaNow = (argIndex?: number): string => {
  const time = `local t = redis.call('TIME')\nlocal now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;
  return argIndex === undefined ? time : `${time}\nif ARGV[${argIndex}] ~= '' then now = tonumber(ARGV[${argIndex}]) end`;
};

/*
 * Cluster slots (CRC16/XMODEM of the key's hash tag, mod 16384), as Redis computes them: the
 * per-turn script calls are grouped by slot, and the restart marker needs a key on each master.
 */
const crcTable = (() => {
  const table = new Uint16Array(256);
  for (let i = 0; i < 256; i++) {
    let crc = i << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    table[i] = crc;
  }
  return table;
})();

/** The cluster slot of a key: of its hash tag (the first non-empty `{...}`) when it has one. */
export function slotOf(key: string): number {
  let hashed = key;
  const open = key.indexOf('{');
  if (open >= 0) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) hashed = key.slice(open + 1, close);
  }
  let crc = 0;
  for (const byte of Buffer.from(hashed)) crc = ((crc << 8) & 0xffff) ^ crcTable[((crc >> 8) ^ byte) & 0xff]!;
  return crc % 16384;
}

/**
 * Which script call of a turn a key's work may share: on a cluster the calls are grouped by the
 * slot of their keys (a script's keys must share one); on a single Redis all share one call.
 */
export function callGroupOf(key: string): number {
  return config().redisClusterNodes.length > 0 ? slotOf(key) : 0;
}

/**
 * A reply that says a call's keys are not in one slot (CROSSSLOT) or a script touched a key of
 * another slot: a defect of the key layout that would hold on every call, not an outage. Limits
 * refuse then (fail closed) instead of letting calls through as they do while Redis is away.
 */
export function isSlotError(err: unknown): boolean {
  return /CROSSSLOT|Script attempted to access a non local key|Too many Cluster redirections/i.test(String((err as Error | undefined)?.message ?? ''));
}
