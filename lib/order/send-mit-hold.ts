/**
 * send_mit and a portal that waits for someone else (a Shopify store's fulfillment hold, placed
 * by a fraud or payment app or the merchant and lifted only by them; lib/portals README): the job
 * waits for it without spending its tries, and the order is not marked shipped meanwhile.
 * Decisions: the waits rise from a minute, doubling, to an hour (a fraud check is often done in
 * minutes, a payment hold may take days); after 14 days of holding the job fails for good naming
 * the hold (the parcel long left, the seller has to look; send_mit again once the store released
 * it fulfils what remains, nothing twice). Time is lib/clock's, which tests move.
 */
import { now } from '../clock';
import { DomainError, portalRefused } from '../errors';

/** The waits and the bound, in ms (settable by tests; not in config, as no deployment needs another yet). */
export const sendMitHoldWait = { firstMs: 60_000, maxMs: 3_600_000, boundMs: 14 * 24 * 3_600_000 };

/** A hold as the job's progress keeps it (across its tries and a Redis loss, lib/queue outbox progress). */
export interface HoldProgress {
  /** When the job first found it held (ms, lib/clock). */
  since: number;
  /** Waits so far. */
  waits: number;
}

/** Thrown by runSendMit to its processor: the job is to wait this long without spending a try. */
export class SendMitWaits extends Error {
  override name = 'SendMitWaits';
  constructor(
    readonly delayMs: number,
    message: string,
  ) {
    super(message);
  }
}

/** A portal's answer that it waits for someone else (DomainError waitsFor), not a failed call. */
export function isPortalWaiting(err: unknown): err is DomainError {
  return err instanceof DomainError && err.waitsFor !== undefined;
}

/**
 * The next wait for a hold (its progress and the delay), or the refusal once it has lasted
 * longer than the bound: the job then fails for good naming it, and the order stays unshipped.
 */
export function nextHoldWait(previous: HoldProgress | undefined, message: string): { hold: HoldProgress; wait: SendMitWaits } {
  const at = now();
  const hold = { since: previous?.since ?? at, waits: (previous?.waits ?? 0) + 1 };
  const { firstMs, maxMs, boundMs } = sendMitHoldWait;
  if (at - hold.since >= boundMs) {
    const days = Math.round(((at - hold.since) / 86_400_000) * 10) / 10;
    throw portalRefused(`${message}; still held after ${days} days: send_mit again once the store has released it (what was fulfilled is not sent twice)`);
  }
  const delayMs = Math.min(maxMs, firstMs * 2 ** Math.min(30, hold.waits - 1));
  return { hold, wait: new SendMitWaits(delayMs, `${message}; waiting for the store to release it (next look in ${Math.round(delayMs / 1000)} s)`) };
}
