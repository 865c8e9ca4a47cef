import crypto from 'node:crypto';
import { config } from '../../config';
import { movedTime, now } from '../clock';
import { DomainError, throttled, dependencyUnavailable } from '../errors';
import { log } from '../log';
import { atTurnWrite, callGroupOf, isSlotError, luaNow, openRedis, redis, RedisClient, redisScript, turnWritten } from '../redis';
import { admitLocally, releaseLocally } from './rate-limit-local';

export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Unix time (seconds) when the window starts anew. */
  reset: number;
}

/** Days looked back for the daily relief (document 1: at most 3 times in 30 days). */
const reliefPeriodDays = 30;
/**
 * A call older than this no longer counts as in flight even if its process lives: the bound for a
 * call stuck in a live process. A process that is gone ends its calls sooner (its liveness key).
 */
const inFlightStaleMs = 120_000;
/** Names a call in flight: unique across processes (the tag) and within one (the count), no random bytes per call. */
const processTag = crypto.randomBytes(6).toString('base64url');
let callCount = 0;

/*
 * The liveness of this process (decision, lib/http/README.md): a key named by its tag that lives
 * livenessTtlMs and is set again every livenessRefreshMs by a timer of the process (unref'd,
 * stopped at shutdown), never by a call. A call in flight whose process has no such key was cut
 * off with its process (kill -9, a crash, a host gone): it is ended when it stands in the way of
 * the account's next call. Before, it stood for inFlightStaleMs (2 minutes) and every call of
 * the seller was answered 429 too_many_concurrent_calls "Retry-After: 1" meanwhile, although
 * document 1 counts the calls being processed and none was.
 */
const livenessTtlMs = 5_000;
const livenessRefreshMs = 1_000;

/** The liveness key of a process tag. Not in an account's slot: read only on a refusal, by its own command. */
export const livenessKeyOf = (tag: string) => `${config().queuePrefix}:live:${tag}`;

let livenessTimer: NodeJS.Timeout | undefined;
let livenessStopped = false;
/** The connection the key was last set (or waited for) on: a new one (after closeRedis) gets it set at once. */
let livenessOn: RedisClient | undefined;
const waitingForReady = new WeakSet<RedisClient>();

/** Sets this process's liveness key on the connection that is open; opens none (a timer must not reopen a closed one). */
function refreshLiveness(): void {
  const connection = openRedis();
  if (!connection) return;
  livenessOn = connection;
  if (connection.status === 'ready') {
    connection.set(livenessKeyOf(processTag), '1', 'PX', livenessTtlMs).catch(() => undefined);
  } else if (!waitingForReady.has(connection)) {
    // Before the first call's script: its 'ready' listener was added first and the script waits a turn.
    waitingForReady.add(connection);
    connection.once('ready', () => {
      waitingForReady.delete(connection);
      refreshLiveness();
    });
  }
}

/** Keeps the key from this process's first script on: per turn two comparisons, no command. */
function keepAlive(): void {
  if (livenessStopped) return;
  livenessTimer ??= setInterval(refreshLiveness, livenessRefreshMs).unref();
  if (livenessOn !== openRedis()) refreshLiveness();
}

/** At shutdown, once the HTTP server has answered its calls: the timer stops and the key goes (what is left in flight ends). */
export async function stopLiveness(): Promise<void> {
  livenessStopped = true;
  clearInterval(livenessTimer);
  livenessTimer = undefined;
  const connection = openRedis();
  if (connection?.status === 'ready') await connection.del(livenessKeyOf(processTag)).catch(() => undefined);
}

/** The process tag of a call in flight (`tag:count`). */
const tagOf = (requestId: string) => requestId.slice(0, requestId.lastIndexOf(':'));

/**
 * The calls in flight, among those that refused a call, whose process has no liveness key: gone.
 * This process's own are live. Only on a refusal (one command per other process); when Redis
 * cannot say, none: the call stays refused, never let through.
 */
async function goneCalls(holders: string[]): Promise<string[]> {
  const others = holders.filter((id) => tagOf(id) !== processTag);
  if (others.length === 0) return [];
  const tags = [...new Set(others.map(tagOf))];
  try {
    const live = await Promise.all(tags.map((tag) => redis().exists(livenessKeyOf(tag))));
    const gone = new Set(tags.filter((_, i) => live[i] === 0));
    return others.filter((id) => gone.has(tagOf(id)));
  } catch {
    return [];
  }
}

/*
 * One round trip for every acquire and release of this process in one turn of the event loop
 * (per slot on a Redis Cluster): first the releases of calls answered since the last script (a
 * refused call counts nowhere), then each acquire in the order the calls came: the calls in
 * flight, the request's weight in the account's window with the daily relief, and the call now
 * in flight. Timed by Redis's clock (luaNow: one for every web host; a test's moved clock is
 * sent instead), so windows, days and staleness do not depend on each host's clock: the keys
 * carry no window or day, the values do.
 * KEYS: per acquire its window counter (hash: window number, weight used), calls in flight
 * (sorted set: request id by start time), the relief (the day number relieved) and the days the
 * limit was reached (sorted set of day numbers); then the calls-in-flight key of each release.
 * ARGV: number of acquires, window seconds, limit, max in flight, a moved clock's ms or '', stale
 * ms, relief days allowed in the period, period days; then per acquire its weight and request
 * id; then the request id of each release.
 * Returns Redis's time (ms), then per acquire: used weight, the limit in force, 1 admitted, 0 over
 * the quota, -1 too many in flight, and on -1 the calls in flight (up to 16 ids, space-separated;
 * '' otherwise) for the liveness check of their processes.
 */
const admissionScript = redisScript(
  'kontorRateLimitTurn',
  'varying',
  `
local n = tonumber(ARGV[1])
local releases = 8 + 2 * n
for i = 4 * n + 1, #KEYS do redis.call('ZREM', KEYS[i], ARGV[releases + i - 4 * n]) end
${luaNow(5)}
local windowSeconds = tonumber(ARGV[2])
local nowSeconds = math.floor(now / 1000)
local window = math.floor(nowSeconds / windowSeconds)
local day = math.floor(nowSeconds / 86400)
local base = tonumber(ARGV[3])
local out = {now}
local function admit(k, weight, id)
  local relieved = redis.call('GET', KEYS[k + 3]) == tostring(day)
  local limit = base
  if relieved then limit = base * 2 end
  redis.call('ZREMRANGEBYSCORE', KEYS[k + 2], '-inf', now - tonumber(ARGV[6]))
  local counted = redis.call('HMGET', KEYS[k + 1], 'window', 'used')
  local current = tonumber(counted[1]) == window
  local used = 0
  if current then used = tonumber(counted[2]) or 0 end
  if redis.call('ZCARD', KEYS[k + 2]) >= tonumber(ARGV[4]) then
    return used, limit, -1, table.concat(redis.call('ZRANGE', KEYS[k + 2], 0, 15), ' ')
  end
  if current then
    used = redis.call('HINCRBY', KEYS[k + 1], 'used', weight)
  else
    used = weight
    redis.call('HSET', KEYS[k + 1], 'window', window, 'used', used)
    redis.call('EXPIRE', KEYS[k + 1], windowSeconds)
  end
  if used >= base and not relieved and tonumber(ARGV[7]) > 0 then
    redis.call('ZREMRANGEBYSCORE', KEYS[k + 4], '-inf', day - tonumber(ARGV[8]))
    redis.call('ZADD', KEYS[k + 4], day, day)
    redis.call('EXPIRE', KEYS[k + 4], (tonumber(ARGV[8]) + 1) * 86400)
    if redis.call('ZCARD', KEYS[k + 4]) <= tonumber(ARGV[7]) then
      redis.call('SET', KEYS[k + 3], day, 'EX', (day + 1) * 86400 - nowSeconds)
      limit = base * 2
    end
  end
  if used > limit then return used, limit, 0, '' end
  redis.call('ZADD', KEYS[k + 2], now, id)
  redis.call('PEXPIRE', KEYS[k + 2], ARGV[6])
  return used, limit, 1, ''
end
for a = 0, n - 1 do
  local used, limit, admitted, holders = admit(4 * a, tonumber(ARGV[9 + 2 * a]), ARGV[10 + 2 * a])
  out[#out + 1] = used
  out[#out + 1] = limit
  out[#out + 1] = admitted
  out[#out + 1] = holders
end
return out
`,
);

/** What the script answered for one acquire, with the window it was counted in. */
interface Admission {
  used: number;
  limit: number;
  admitted: 1 | 0 | -1;
  nowSeconds: number;
  window: number;
  /** On -1: the ids of the calls in flight. */
  holders: string[];
}

interface PendingAcquire {
  accountId: number;
  weightTenths: number;
  requestId: string;
  /** null when Redis could not answer; 'refused' when the keys were refused by the cluster (a defect). */
  settle: (admission: Admission | null | 'refused') => void;
}

/*
 * Acquires and releases not sent yet. Both go in the write of the turn's Redis commands (lib/redis
 * atTurnWrite), as one script call: a release microseconds after its answer was written, before
 * the client can have sent another call; an acquire with the other calls that arrived in the
 * same turn (a web process under load takes in several per turn, and each script call costs the
 * client more than the script costs Redis). Within the process the order holds: a script applies
 * every release queued before its acquires.
 */
let acquires: PendingAcquire[] = [];
let releaseKeys: string[] = [];
let releaseIds: string[] = [];
let flushQueued = false;

function queueFlush(): void {
  if (flushQueued) return;
  flushQueued = true;
  atTurnWrite(flushTurn);
}

function queueRelease(key: string, id: string): void {
  releaseKeys.push(key);
  releaseIds.push(id);
  queueFlush();
}

function flushTurn(): void {
  flushQueued = false;
  const [pending, keys, ids] = [acquires, releaseKeys, releaseIds];
  [acquires, releaseKeys, releaseIds] = [[], [], []];
  // One script call per slot on a cluster (an account's keys share its tag), one in all on a single Redis.
  const groups = new Map<number, { pending: PendingAcquire[]; keys: string[]; ids: string[] }>();
  const groupOf = (key: string) => {
    const slot = callGroupOf(key);
    let group = groups.get(slot);
    if (!group) groups.set(slot, (group = { pending: [], keys: [], ids: [] }));
    return group;
  };
  for (const a of pending) groupOf(callsKey(a.accountId)).pending.push(a);
  keys.forEach((key, i) => {
    const group = groupOf(key);
    group.keys.push(key);
    group.ids.push(ids[i]!);
  });
  for (const group of groups.values()) sendGroup(group.pending, group.keys, group.ids);
  keepAlive();
}

let unavailableWarnings = 0;

function sendGroup(pending: PendingAcquire[], keys: string[], ids: string[]): void {
  const { rateLimitPerWindow, rateLimitWindowSeconds, rateLimitReliefDays, concurrentCallsPerAccount } = config();
  const acquireKeys = pending.flatMap(({ accountId }) => {
    const tag = accountTag(accountId);
    return [`${tag}:rate`, callsKey(accountId), `${tag}:rate:relief`, `${tag}:rate:reached`];
  });
  const args = [
    pending.length,
    rateLimitWindowSeconds,
    rateLimitPerWindow * 10,
    concurrentCallsPerAccount,
    movedTime(),
    inFlightStaleMs,
    rateLimitReliefDays,
    reliefPeriodDays,
    ...pending.flatMap((a) => [a.weightTenths, a.requestId]),
    ...ids,
  ];
  admissionScript([...acquireKeys, ...keys], args).then(
    (answer) => {
      const [redisNow, ...values] = answer as [number, ...(number | string)[]];
      const nowSeconds = Math.floor(redisNow / 1000);
      const window = Math.floor(nowSeconds / rateLimitWindowSeconds);
      pending.forEach((a, i) => {
        const [used, limit, admitted, holders] = values.slice(4 * i, 4 * i + 4) as [number, number, Admission['admitted'], string];
        a.settle({ used, limit, admitted, nowSeconds, window, holders: holders ? holders.split(' ') : [] });
      });
    },
    (err: unknown) => {
      // Keys that a cluster cannot take in one call are a defect that would hold on every call:
      // refused (503), never let through without a word.
      if (isSlotError(err)) {
        log.error({ err }, 'rate limit keys span cluster slots; calls are refused until this is fixed');
        pending.forEach((a) => a.settle('refused'));
        return;
      }
      if (pending.length > 0 && unavailableWarnings++ % 100 === 0)
        log.warn({ err: (err as Error).message }, 'rate limit unavailable (Redis); calls counted by this process alone');
      // Releases that rode with acquires get one more chance on their own; a failed release-only
      // call is not sent again (while Redis is away it would be retried every turn): those calls
      // leave the calls in flight when they go stale.
      if (pending.length > 0) keys.forEach((key, i) => queueRelease(key, ids[i]!));
      // A call that timed out was written and may still run: a stalled Redis (paused, swapping,
      // a long script) runs what its socket holds once it resumes. The acquires then stood as
      // calls in flight that nobody released, and after a one-second stall the account was
      // answered 429 too_many_concurrent_calls for inFlightStaleMs (2 min). Their releases follow
      // on the same connection, so Redis runs them after the acquires whenever it runs those.
      if (mayStillRun(err)) pending.forEach((a) => queueRelease(callsKey(a.accountId), a.requestId));
      pending.forEach((a) => a.settle(null));
    },
  );
}

/** ioredis's commandTimeout: the command left for Redis, which may run it later (not so a refused or offline one). */
const mayStillRun = (err: unknown): boolean => /Command timed out/i.test(String((err as Error | undefined)?.message ?? ''));

/**
 * An account's keys share its hash tag: on a cluster they sit in one slot (the script touches
 * them together), and accounts spread over the masters.
 */
const accountTag = (accountId: number) => `${config().queuePrefix}:{a${accountId}}`;

const callsKey = (accountId: number) => `${accountTag(accountId)}:calls`;

/**
 * Document 1's limits: a call quota per period, bulk items weighing 1/10, one call of an account
 * processed at a time (CONCURRENT_CALLS_PER_ACCOUNT), and the daily relief: reaching the quota on
 * at most RATE_LIMIT_RELIEF_DAYS days in 30 doubles it for the rest of that day (UTC). Past the
 * quota 429 too_many_requests, past the calls in flight 429 too_many_concurrent_calls, both with
 * Retry-After. Weights are counted in tenths. When Redis cannot be reached the call is counted by
 * this process alone (rate-limit-local.ts, logged): limits protect the service, they must neither
 * take it down nor fail open. Keys a Redis Cluster refuses as spanning slots are a defect, not an
 * outage: 503, never let through.
 */
export async function acquire(accountId: number, weightTenths: number): Promise<{ state: RateLimitState; release: () => Promise<void> }> {
  const requestId = `${processTag}:${(callCount += 1)}`;
  const admit = () =>
    new Promise<Admission | null | 'refused'>((settle) => {
      acquires.push({ accountId, weightTenths, requestId, settle });
      queueFlush();
    });
  let admission = await admit();
  // Refused for calls in flight: those of a process that is gone end, and the call is asked again
  // (their releases go first in the same script). A refused call counted nothing.
  if (admission !== null && admission !== 'refused' && admission.admitted === -1) {
    const gone = await goneCalls(admission.holders);
    if (gone.length > 0) {
      log.info({ accountId, calls: gone }, 'calls in flight of a web process that is gone ended');
      for (const id of gone) queueRelease(callsKey(accountId), id);
      admission = await admit();
    }
  }
  if (admission === 'refused') throw dependencyUnavailable('redis');
  const { rateLimitPerWindow, rateLimitWindowSeconds, concurrentCallsPerAccount } = config();
  // Redis could not count the call: this process counts it (rate-limit-local.ts), never unlimited.
  const local = admission === null;
  const { used, limit, admitted, nowSeconds, window } =
    admission ??
    admitLocally(accountId, weightTenths, {
      limitTenths: rateLimitPerWindow * 10,
      maxInFlight: concurrentCallsPerAccount,
      windowSeconds: rateLimitWindowSeconds,
      nowMs: now(),
    });
  const reset = (window + 1) * rateLimitWindowSeconds;
  const state = { limit: limit / 10, remaining: Math.max(0, Math.floor((limit - used) / 10)), reset };
  if (admitted === 0) throw tooMany('too_many_requests', 'the call quota of this period is used up', state, reset - nowSeconds);
  // A live call in flight may end at any moment: the short value (lib/http/README.md). One of a
  // process that is gone no longer refuses (above); one stuck in a live process, at most 120 s.
  if (admitted === -1)
    throw tooMany(
      'too_many_concurrent_calls',
      `only ${concurrentCallsPerAccount} call(s) of an account are processed at a time; send the next when the last is answered`,
      state,
      1,
    );
  const calls = callsKey(accountId);
  let released = false;
  return {
    state,
    release: () => {
      if (released) return Promise.resolve();
      released = true;
      if (local) {
        releaseLocally(accountId);
        return Promise.resolve();
      }
      queueRelease(calls, requestId);
      return turnWritten();
    },
  };
}

/**
 * The account's quota as it stands, counting nothing: for the answer to a call refused before it
 * was counted (a missing scope, a body too large or not decodable), so that it too carries the
 * X-RateLimit headers document 1 puts on responses. Read by this host's clock (the script uses
 * Redis's), which can only matter within a second of a window's end. null when Redis cannot say:
 * the refusal is answered without them rather than delayed or failed.
 */
export async function quotaOf(accountId: number): Promise<RateLimitState | null> {
  const { rateLimitPerWindow, rateLimitWindowSeconds } = config();
  const tag = accountTag(accountId);
  try {
    const [counted, relief] = await Promise.all([redis().hmget(`${tag}:rate`, 'window', 'used'), redis().get(`${tag}:rate:relief`)]);
    const nowSeconds = Math.floor(now() / 1000);
    const window = Math.floor(nowSeconds / rateLimitWindowSeconds);
    const used = Number(counted[0]) === window ? Number(counted[1] ?? 0) : 0;
    const limit = rateLimitPerWindow * 10 * (relief === String(Math.floor(nowSeconds / 86_400)) ? 2 : 1);
    return { limit: limit / 10, remaining: Math.max(0, Math.floor((limit - used) / 10)), reset: (window + 1) * rateLimitWindowSeconds };
  } catch {
    return null;
  }
}

function tooMany(id: 'too_many_requests' | 'too_many_concurrent_calls', description: string, state: RateLimitState, retryAfter: number): DomainError {
  return throttled(id, description, Math.max(retryAfter, 1), state);
}

export function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(state.limit),
    'X-RateLimit-Remaining': String(state.remaining),
    'X-RateLimit-Reset': String(state.reset),
  };
}
