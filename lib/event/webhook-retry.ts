import { Config, config } from '../../config';

/** When a failed webhook delivery is tried again (WEBHOOK_RETRY_* in config). */
export interface RetryPolicy {
  /** Smallest delay between two attempts. */
  baseMs: number;
  /** Largest delay drawn by the backoff. */
  maxDelayMs: number;
  /** Retries stop this long after the first attempt; the last one falls at its end. */
  windowMs: number;
}

export function retryPolicy(c: Config = config()): RetryPolicy {
  return { baseMs: c.webhookRetryBaseMs, maxDelayMs: c.webhookRetryMaxDelayMs, windowMs: Math.round(c.webhookRetryHours * 3600 * 1000) };
}

/**
 * The delay before the next attempt: decorrelated jitter (AWS Architecture Blog, "Exponential
 * Backoff And Jitter": sleep = min(cap, random_between(base, previous sleep * 3))). It grows
 * about twofold per attempt on average and spreads the retries of many deliveries that failed
 * together (a receiver's outage) instead of sending them back in waves. random() is in [0, 1).
 */
export function nextDelay(policy: RetryPolicy, previousMs: number | null, random: () => number = Math.random): number {
  const previous = previousMs ?? policy.baseMs;
  const upper = Math.max(policy.baseMs, previous * 3);
  return Math.min(policy.maxDelayMs, Math.round(policy.baseMs + random() * (upper - policy.baseMs)));
}

/**
 * The delay a receiver asked for with Retry-After (delay-seconds or an HTTP-date, RFC 9110
 * 10.2.3), in ms from now; undefined when absent or unreadable.
 */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const text = header.trim();
  if (/^\d{1,10}$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * When the attempt after a failure at `now` falls: the backoff's delay (or the receiver's
 * Retry-After, at least the base delay), never after `retryUntil`; undefined when the retry
 * window is over (the delivery has failed for good).
 */
export function nextAttemptAt(
  policy: RetryPolicy,
  now: Date,
  retryUntil: Date,
  previousDelayMs: number | null,
  askedMs?: number,
  random: () => number = Math.random,
): { at: Date; delayMs: number } | undefined {
  if (now.getTime() >= retryUntil.getTime()) return undefined;
  const delayMs = askedMs !== undefined ? Math.max(policy.baseMs, askedMs) : nextDelay(policy, previousDelayMs, random);
  const at = new Date(Math.min(now.getTime() + delayMs, retryUntil.getTime()));
  return { at, delayMs };
}

/**
 * The attempts of a delivery that never succeeds, as offsets in ms from the first attempt
 * (which is 0), with instant answers: what the policy promises a receiver that is down.
 */
export function plannedSchedule(policy: RetryPolicy, random: () => number = Math.random): number[] {
  const offsets = [0];
  const until = new Date(policy.windowMs);
  let previous: number | null = null;
  for (;;) {
    const next = nextAttemptAt(policy, new Date(offsets[offsets.length - 1]!), until, previous, undefined, random);
    if (!next) return offsets;
    offsets.push(next.at.getTime());
    previous = next.delayMs;
  }
}
