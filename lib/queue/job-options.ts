import type { JobsOptions } from 'bullmq';
import { config } from '../../config';
import { DomainError } from '../errors';
import type { JobName } from './jobs';

/** Backoff type of portal calls: honours a portal's Retry-After, else exponential (see worker.ts). */
export const portalBackoff = 'portal';

/**
 * BullMQ options of a job by name: tries and exponential backoff from config. Completed jobs
 * stay an hour in Redis (long enough for an id to refuse a second add after a relay crash;
 * the result outlives them in the outbox row), failed ones the retention time, for operators.
 */
export function jobOptions(name: JobName): JobsOptions {
  const c = config();
  const base: JobsOptions = {
    attempts: c.jobAttempts,
    backoff: { type: 'exponential', delay: c.jobBackoffMs, jitter: 0.2 },
    removeOnComplete: { age: Math.min(3600, c.jobRetentionSeconds) },
    removeOnFail: { age: c.jobRetentionSeconds },
  };
  const portalCall: JobsOptions = { ...base, backoff: { type: portalBackoff, delay: c.jobBackoffMs } };
  switch (name) {
    case 'portal.set_quantity':
      // Added by the cia worker, never by the outbox: no id to guard for an hour, and many of them.
      return { ...portalCall, removeOnComplete: { count: 1000 } };
    case 'portal.upload':
    case 'portal.listing_check':
    case 'order.channel_cancel':
    case 'bank.provider_sync':
    case 'order.import':
      return portalCall;
    case 'cia.reconcile':
    case 'outbox.cleanup':
    case 'expired.cleanup':
    case 'order.import_all':
      // A missed tick is caught up by the next one.
      return { ...base, attempts: 2 };
    default:
      return base;
  }
}

/** Delay before retry n (1-based) of a job with the portal backoff: Retry-After when given. */
export function portalRetryDelay(attemptsMade: number, err: Error | undefined): number {
  const retryAfter = err instanceof DomainError ? err.retryAfterSeconds : undefined;
  if (retryAfter !== undefined && retryAfter >= 0) return Math.min(Math.round(retryAfter * 1000), 10 * 60 * 1000);
  const base = config().jobBackoffMs * 2 ** Math.max(0, attemptsMade - 1);
  return Math.round(base * (0.8 + Math.random() * 0.4));
}
