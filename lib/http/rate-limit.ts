import crypto from 'node:crypto';
import { config } from '../../config';
import { now } from '../clock';
import { DomainError, throttled } from '../errors';
import { atTurnWrite, redisScript } from '../redis';

export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Unix time (seconds) when the window starts anew. */
  reset: number;
}

/** Days looked back for the daily relief (document 1: at most 3 times in 30 days). */
const reliefPeriodDays = 30;
/** A call older than this no longer counts as in flight: a killed process cannot block its account for long. */
const inFlightStaleMs = 120_000;
/** Names a call in flight: unique across processes (the tag) and within one (the count), no random bytes per call. */
const processTag = crypto.randomBytes(6).toString('base64url');
let callCount = 0;

/*
 * One round trip: the releases of calls this process answered since its last command (they ride
 * along), the calls in flight (a refused call counts nowhere), the request's weight in the
 * account's window with the daily relief, and the call now in flight. KEYS: window counter,
 * calls in flight (sorted set: request id by start time), the day's relief flag, the days the
 * limit was reached (sorted set of day numbers), then the calls-in-flight key of each release.
 * ARGV: weight, window seconds, limit, max in flight, now ms, stale ms, request id, day number,
 * seconds left in the day, relief days allowed in the period, period days, then the request id
 * of each release.
 * Returns used weight, the limit in force, and 1 admitted, 0 over the quota, -1 too many in flight.
 */
const acquireScript = redisScript(
  'kontorRateLimitAcquire',
  'varying',
  `
for i = 5, #KEYS do redis.call('ZREM', KEYS[i], ARGV[i + 7]) end
local weight = tonumber(ARGV[1])
local base = tonumber(ARGV[3])
local relieved = redis.call('EXISTS', KEYS[3]) == 1
local limit = base
if relieved then limit = base * 2 end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', tonumber(ARGV[5]) - tonumber(ARGV[6]))
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4]) then
  return {tonumber(redis.call('GET', KEYS[1]) or '0'), limit, -1}
end
local used = redis.call('INCRBY', KEYS[1], weight)
if used == weight then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
if used >= base and not relieved and tonumber(ARGV[10]) > 0 then
  local day = tonumber(ARGV[8])
  redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', day - tonumber(ARGV[11]))
  redis.call('ZADD', KEYS[4], day, day)
  redis.call('EXPIRE', KEYS[4], (tonumber(ARGV[11]) + 1) * 86400)
  if redis.call('ZCARD', KEYS[4]) <= tonumber(ARGV[10]) then
    redis.call('SET', KEYS[3], 1, 'EX', ARGV[9])
    limit = base * 2
  end
end
if used > limit then return {used, limit, 0} end
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[7])
redis.call('PEXPIRE', KEYS[2], ARGV[6])
return {used, limit, 1}
`,
);

/** Releases that found no acquire to ride on: KEYS calls-in-flight keys, ARGV their request ids. */
const releaseScript = redisScript('kontorRateLimitRelease', 'varying', `for i = 1, #KEYS do redis.call('ZREM', KEYS[i], ARGV[i]) end return 0`);

/*
 * Releases not sent yet. A release is queued when a call ends, and goes with the next acquire
 * of this process (no command of its own) or, when none comes, in one command for all queued,
 * in the write of the turn's Redis commands (lib/redis atTurnWrite) before the event loop next
 * waits for I/O: microseconds after the answer was written, before the client can have sent
 * another call. Within the process the order holds: an acquire carries every release queued
 * before it, applied first.
 */
let releaseKeys: string[] = [];
let releaseIds: string[] = [];
let flushQueued = false;

function queueRelease(key: string, id: string): void {
  releaseKeys.push(key);
  releaseIds.push(id);
  if (flushQueued) return;
  flushQueued = true;
  atTurnWrite(flushReleases);
}

function takeReleases(): [string[], string[]] {
  const taken: [string[], string[]] = [releaseKeys, releaseIds];
  releaseKeys = [];
  releaseIds = [];
  return taken;
}

function flushReleases(): void {
  flushQueued = false;
  if (releaseKeys.length === 0) return;
  const [keys, ids] = takeReleases();
  releaseScript(keys, ids).catch(() => undefined);
}

/**
 * Document 1's limits: a call quota per period, bulk items weighing 1/10, one call of an account
 * processed at a time (CONCURRENT_CALLS_PER_ACCOUNT), and the daily relief: reaching the quota on
 * at most RATE_LIMIT_RELIEF_DAYS days in 30 doubles it for the rest of that day (UTC). Past the
 * quota 429 too_many_requests, past the calls in flight 429 too_many_concurrent_calls, both with
 * Retry-After. Weights are counted in tenths. When Redis cannot be reached the request is let
 * through: limits protect the service, they must not take it down.
 */
export async function acquire(accountId: number, weightTenths: number): Promise<{ state: RateLimitState | null; release: () => void }> {
  const { rateLimitPerWindow, rateLimitWindowSeconds, rateLimitReliefDays, concurrentCallsPerAccount, queuePrefix } = config();
  const nowMs = now();
  const nowSeconds = Math.floor(nowMs / 1000);
  const window = Math.floor(nowSeconds / rateLimitWindowSeconds);
  const day = Math.floor(nowSeconds / 86400);
  const requestId = `${processTag}:${(callCount += 1)}`;
  const key = `${queuePrefix}:rate:${accountId}`;
  const keys = [`${key}:${window}`, `${queuePrefix}:calls:${accountId}`, `${key}:relief:${day}`, `${key}:reached`];
  let answer: [number, number, number];
  const [releasingKeys, releasingIds] = takeReleases();
  try {
    answer = (await acquireScript(
      [...keys, ...releasingKeys],
      [
        weightTenths,
        rateLimitWindowSeconds,
        rateLimitPerWindow * 10,
        concurrentCallsPerAccount,
        nowMs,
        inFlightStaleMs,
        requestId,
        day,
        (day + 1) * 86400 - nowSeconds,
        rateLimitReliefDays,
        reliefPeriodDays,
        ...releasingIds,
      ],
    )) as typeof answer;
  } catch {
    // The releases that rode along get one more chance on their own.
    releasingKeys.forEach((key, i) => queueRelease(key, releasingIds[i]!));
    return { state: null, release: () => undefined };
  }
  const [used, limit, admitted] = answer;
  const reset = (window + 1) * rateLimitWindowSeconds;
  const state = { limit: limit / 10, remaining: Math.max(0, Math.floor((limit - used) / 10)), reset };
  if (admitted === 0) throw tooMany('too_many_requests', 'the call quota of this period is used up', state, reset - nowSeconds);
  if (admitted === -1)
    throw tooMany(
      'too_many_concurrent_calls',
      `only ${concurrentCallsPerAccount} call(s) of an account are processed at a time; send the next when the last is answered`,
      state,
      1,
    );
  let released = false;
  return {
    state,
    release: () => {
      if (released) return;
      released = true;
      queueRelease(keys[1]!, requestId);
    },
  };
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
