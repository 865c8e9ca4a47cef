import { config } from '../../../config';
import { log } from '../../log';
import { redisScript } from '../../redis';
import { redisReady } from '../portal-rate-limit';
import { spApiSdk } from './sp-api-sdk';

/** One SP-API operation's usage plan: requests per second and burst (the SDK's clientRateLimits, from Amazon's models). */
export interface UsagePlan {
  rate: number;
  burst: number;
}

let limits: ReturnType<typeof spApiSdk>['limits'] | undefined;

/** The usage plan of a call by method and path, as the SDK's table lists it. */
export function usagePlan(method: string, path: string): UsagePlan & { operation: string } {
  limits ??= spApiSdk().limits;
  const found = limits.find((l) => l.method.toLowerCase() === method.toLowerCase() && l.urlRegex.test(path));
  // Every route the adapter calls is in the table; an unknown one gets the most careful plan.
  if (!found) return { rate: 0.0167, burst: 1, operation: `${method} ${path}` };
  return { rate: found.rate, burst: found.burst, operation: `${method.toLowerCase()} ${found.urlRegex.source}` };
}

// A token bucket per (portal account, operation): refilled at `rate` per second up to `burst`;
// a call takes a token, or reserves the next one (the bucket goes below zero) when the wait is
// within max; beyond max nothing is reserved and the wait is answered negative.
const takeToken = redisScript(
  'kontorSpApiToken',
  1,
  `
local now = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local burst = tonumber(ARGV[3])
local maxWait = tonumber(ARGV[4])
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1]) or burst
local at = tonumber(state[2]) or now
tokens = math.min(burst, tokens + (now - at) * rate / 1000)
local wait = 0
if tokens < 1 then wait = math.ceil((1 - tokens) * 1000 / rate) end
if wait > maxWait then
  redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
  return -wait
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens - 1), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst * 1000 / rate) + 60000)
return wait
`,
);

/**
 * The rate Amazon applies to this seller and operation, learned from the x-amzn-RateLimit-Limit
 * header of its answers (a seller's usage plan may be above the default); per process.
 */
const learned = new Map<string, number>();

export function learnRate(portalAccountId: number, operation: string, header: unknown): void {
  const rate = Number(header);
  if (Number.isFinite(rate) && rate > 0) learned.set(`${portalAccountId}|${operation}`, rate);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Waits for a token of the operation's bucket of the portal account, shared by every worker
 * process through Redis. Answers the wait beyond maxWaitMs instead of waiting (the caller fails
 * the job for a retry after it); 0 once a token is taken. Without Redis the call goes ahead (the
 * 429 handling is the fallback).
 */
export async function takeSpApiToken(portalAccountId: number, method: string, path: string, maxWaitMs: number): Promise<number> {
  const plan = usagePlan(method, path);
  const rate = learned.get(`${portalAccountId}|${plan.operation}`) ?? plan.rate;
  let wait: number;
  try {
    await redisReady();
    wait = Number(
      await takeToken([`${config().queuePrefix}:spapi-rate:${portalAccountId}:${plan.operation}`], [Date.now(), rate, Math.max(1, plan.burst), maxWaitMs]),
    );
  } catch (err) {
    log.warn({ err: (err as Error).message }, 'SP-API rate limit not available; calling without it');
    return 0;
  }
  if (wait < 0) return -wait;
  if (wait > 0) await sleep(wait);
  return 0;
}
