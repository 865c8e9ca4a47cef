/**
 * Document 1's quota and calls in flight, counted in this process while Redis cannot count them
 * (decision). Letting every call through while Redis was away made the limits fail open: with a
 * quota of 3 five calls were answered, and four POST order/ of one account ran at once, the very
 * thing "only 1 call is processed at a time" guards. Refusing every call instead would take the
 * API down with Redis. So each web process keeps its own count: the same quota per window and the
 * same calls in flight per account, without the daily relief (its days live in Redis). With n web
 * processes an account gets at most n times its quota and n calls at once during the outage;
 * bounded, and back to one count when Redis answers again (nothing is carried over either way).
 */

/** What an acquire was answered, in the Redis script's terms (tenths of a call; 1 admitted, 0 over the quota, -1 too many in flight). */
export interface LocalAdmission {
  used: number;
  limit: number;
  admitted: 1 | 0 | -1;
  nowSeconds: number;
  window: number;
}

/** Accounts counted before the map is cleared of past windows: bounded memory whatever the outage's length. */
const pruneAbove = 10_000;

const inFlight = new Map<number, number>();
const windows = new Map<number, { window: number; used: number }>();

/** Counts one call of the account here, as the Redis script would have (no relief). */
export function admitLocally(
  accountId: number,
  weightTenths: number,
  limits: { limitTenths: number; maxInFlight: number; windowSeconds: number; nowMs: number },
): LocalAdmission {
  const nowSeconds = Math.floor(limits.nowMs / 1000);
  const window = Math.floor(nowSeconds / limits.windowSeconds);
  if (windows.size > pruneAbove) for (const [id, w] of windows) if (w.window !== window) windows.delete(id);
  const counted = windows.get(accountId);
  const before = counted?.window === window ? counted.used : 0;
  const answer = (used: number, admitted: LocalAdmission['admitted']) => ({ used, limit: limits.limitTenths, admitted, nowSeconds, window });
  if ((inFlight.get(accountId) ?? 0) >= limits.maxInFlight) return answer(before, -1);
  const used = before + weightTenths;
  windows.set(accountId, { window, used });
  if (used > limits.limitTenths) return answer(used, 0);
  inFlight.set(accountId, (inFlight.get(accountId) ?? 0) + 1);
  return answer(used, 1);
}

/** The end of a call admitted here. */
export function releaseLocally(accountId: number): void {
  const calls = (inFlight.get(accountId) ?? 0) - 1;
  if (calls > 0) inFlight.set(accountId, calls);
  else inFlight.delete(accountId);
}
