import { config } from '../../../config';
import { log } from '../../log';
import { luaNow, redisScript } from '../../redis';
import { redisReady } from '../portal-rate-limit';
import { spApiSdk } from './sp-api-sdk';

/** One SP-API operation's usage plan: requests per second and burst (the SDK's clientRateLimits, from Amazon's models). */
export interface UsagePlan {
  rate: number;
  burst: number;
}

let limits: ReturnType<typeof spApiSdk>['limits'] | undefined;

/**
 * Operations no SDK package covers: the usage plans their contract's descriptions state
 * (orders_2026-01-01.json: searchOrders 0.0056/s burst 20, getOrder 0.5/s burst 30).
 */
const ownPlans: { method: string; urlRegex: RegExp; rate: number; burst: number }[] = [
  { method: 'get', urlRegex: /^\/orders\/2026-01-01\/orders$/, rate: 0.0056, burst: 20 },
  { method: 'get', urlRegex: /^\/orders\/2026-01-01\/orders\/[^/]*$/, rate: 0.5, burst: 30 },
  // Sellers API v1 getMarketplaceParticipations (its reference: 0.016/s, burst 15).
  { method: 'get', urlRegex: /^\/sellers\/v1\/marketplaceParticipations$/, rate: 0.016, burst: 15 },
];

/** The usage plan of a call by method and path, as the SDK's table lists it. */
export function usagePlan(method: string, path: string): UsagePlan & { operation: string } {
  limits ??= [...ownPlans, ...spApiSdk().limits] as ReturnType<typeof spApiSdk>['limits'];
  const found = limits.find((l) => l.method.toLowerCase() === method.toLowerCase() && l.urlRegex.test(path));
  // Every route the adapter calls is in the table; an unknown one gets the most careful plan.
  if (!found) return { rate: 0.0167, burst: 1, operation: `${method} ${path}` };
  return { rate: found.rate, burst: found.burst, operation: `${method.toLowerCase()} ${found.urlRegex.source}` };
}

// A token bucket per (portal account, operation): refilled at `rate` per second up to `burst`.
// Up to `count` tokens are taken: as many as come within maxWait, reserving the ones not there
// yet (the bucket goes below zero). Answers {taken, wait for the last taken}; when none comes
// within maxWait, {0, wait for the first}. Timed by Redis's clock (luaNow), shared by every host.
const takeTokens = redisScript(
  'kontorSpApiToken',
  1,
  `
${luaNow()}
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local maxWait = tonumber(ARGV[3])
local count = tonumber(ARGV[4])
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1]) or burst
local at = tonumber(state[2]) or now
tokens = math.min(burst, tokens + (now - at) * rate / 1000)
local taken = math.min(count, math.floor(tokens + maxWait * rate / 1000))
if taken < 1 then
  redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
  return {0, math.ceil((1 - tokens) * 1000 / rate)}
end
local wait = 0
if tokens < taken then wait = math.ceil((taken - tokens) * 1000 / rate) end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens - taken), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst * 1000 / rate) + 60000)
return {taken, wait}
`,
);

/**
 * The burst Kontor spends: the plan's less the tokens kept in reserve. Calls go out at the plan's
 * exact pace from the bucket here, but Amazon's bucket counts their arrivals: a call that left on
 * time and arrived early against one that arrived late (a new connection, a busy process, a timer
 * fired late) would find Amazon's bucket a fraction of a token short and draw a 429. The reserve
 * absorbs that much jitter: tokens worth JITTER_MS at the plan's rate, at least one, leaving at
 * least one to spend. One token (200 ms at patchListingsItem's 5/s) was seen to fall short on a
 * loaded two-core CI machine; 600 ms keeps 3 of its 5 in reserve. Steady throughput is the
 * plan's rate either way: only the first burst is smaller.
 */
const JITTER_MS = 600;
const spendableBurst = (burst: number, rate: number): number => Math.max(1, burst - Math.max(1, Math.ceil((rate * JITTER_MS) / 1000)));

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
  const { taken, wait } = await takeSpApiTokens(portalAccountId, method, path, maxWaitMs, 1);
  if (taken === 0) return wait;
  if (wait > 0) await sleep(wait);
  return 0;
}

/**
 * Tokens for up to `count` calls of the operation, as many as come within maxWaitMs: each taken
 * call's delay from now, in the bucket's pace (the nth call waits for the nth token: calls sent
 * together would exceed Amazon's burst). Fewer delays than count: the rest must wait longer.
 */
export async function reserveSpApiTokens(portalAccountId: number, method: string, path: string, count: number, maxWaitMs: number): Promise<number[]> {
  const { taken, wait, rate } = await takeSpApiTokens(portalAccountId, method, path, maxWaitMs, count);
  return Array.from({ length: taken }, (_, i) => Math.max(0, Math.ceil(wait - ((taken - 1 - i) * 1000) / rate)));
}

async function takeSpApiTokens(
  portalAccountId: number,
  method: string,
  path: string,
  maxWaitMs: number,
  count: number,
): Promise<{ taken: number; wait: number; rate: number }> {
  const plan = usagePlan(method, path);
  const rate = learned.get(`${portalAccountId}|${plan.operation}`) ?? plan.rate;
  try {
    await redisReady();
    const key = `${config().queuePrefix}:spapi-rate:${portalAccountId}:${plan.operation}`;
    const [taken, wait] = (await takeTokens([key], [rate, spendableBurst(plan.burst, rate), maxWaitMs, count])) as [number, number];
    return { taken: Number(taken), wait: Number(wait), rate };
  } catch (err) {
    log.warn({ err: (err as Error).message }, 'SP-API rate limit not available; calling without it');
    return { taken: count, wait: 0, rate };
  }
}
