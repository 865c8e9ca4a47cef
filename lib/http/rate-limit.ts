import { config } from '../../config';
import { ApiError } from './errors';
import { redis, whenReady } from '../redis';

export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Unix time (seconds) when the window starts anew. */
  reset: number;
}

/*
 * One round trip: adds the request's weight to the account's window and counts it in flight.
 * KEYS[1] window counter, KEYS[2] in-flight counter; ARGV weight, window seconds, limit, max in flight.
 * Returns used weight, window TTL, in-flight count, and 1 when admitted.
 */
const acquireScript = `
local used = redis.call('INCRBY', KEYS[1], ARGV[1])
if used == tonumber(ARGV[1]) then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
local ttl = redis.call('TTL', KEYS[1])
if used > tonumber(ARGV[3]) then return {used, ttl, 0, 0} end
local inflight = redis.call('INCR', KEYS[2])
redis.call('EXPIRE', KEYS[2], 120)
if inflight > tonumber(ARGV[4]) then
  redis.call('DECR', KEYS[2])
  redis.call('DECRBY', KEYS[1], ARGV[1])
  return {used - tonumber(ARGV[1]), ttl, inflight, 0}
end
return {used, ttl, inflight, 1}
`;

let connected: Promise<void> | undefined;

/** The producer connection refuses commands until ready: wait for it once, at start-up only. */
function firstConnection(): Promise<void> {
  connected ??= whenReady(redis(), 2000).catch(() => undefined);
  return connected;
}

/**
 * Document 1's limits: a call quota per period, bulk items weighing 1/10, and a cap on calls of
 * one account processed at the same time; past either, 429. Weights are counted in tenths.
 * When Redis cannot be reached the request is let through: limits protect the service, they
 * must not take it down.
 */
export async function acquire(accountId: number, weightTenths: number): Promise<{ state: RateLimitState | null; release: () => void }> {
  const { rateLimitPerWindow, rateLimitWindowSeconds, concurrentCallsPerAccount, queuePrefix } = config();
  const window = Math.floor(Date.now() / 1000 / rateLimitWindowSeconds);
  const keys = [`${queuePrefix}:rate:${accountId}:${window}`, `${queuePrefix}:inflight:${accountId}`];
  let answer: [number, number, number, number];
  try {
    await firstConnection();
    answer = await redis().eval(acquireScript, 2, ...keys, weightTenths, rateLimitWindowSeconds, rateLimitPerWindow * 10, concurrentCallsPerAccount) as typeof answer;
  } catch {
    return { state: null, release: () => undefined };
  }
  const [used, ttl, , admitted] = answer;
  const state = {
    limit: rateLimitPerWindow,
    remaining: Math.max(0, Math.floor((rateLimitPerWindow * 10 - used) / 10)),
    reset: Math.floor(Date.now() / 1000) + Math.max(ttl, 0),
  };
  if (!admitted) {
    const quota = used > rateLimitPerWindow * 10;
    const retryAfter = quota ? Math.max(ttl, 1) : 1;
    throw new ApiError(429, 'too_many_requests',
      quota ? 'the call quota of this period is used up' : 'too many calls of this account at the same time',
      undefined, { ...rateLimitHeaders(state), 'Retry-After': String(retryAfter) });
  }
  let released = false;
  return {
    state,
    release: () => {
      if (released) return;
      released = true;
      redis().decr(keys[1]!).catch(() => undefined);
    },
  };
}

export function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(state.limit),
    'X-RateLimit-Remaining': String(state.remaining),
    'X-RateLimit-Reset': String(state.reset),
  };
}
