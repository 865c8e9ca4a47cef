/**
 * Idempotency-Key for POSTs that create or trigger (declared `creates: true`): the first request
 * with a key claims it and its answer is stored; the same request again within 24 h gets that
 * answer without running; another request with the key is a 422, one that arrives while the
 * first runs a 409. Decisions: lib/http/README.md, "Idempotency-Key".
 */
import crypto from 'node:crypto';
import { now } from '../../clock';
import { DomainError } from '../../errors';
import type { KeyHolder } from './holder';
import { idempotencyHeader } from './key';
import { idempotencyRepository, StoredAnswer } from './idempotency.repository';

export type { StoredAnswer } from './idempotency.repository';
export { idempotencyHeader, idempotencyKeyOf, maxKeyLength } from './key';
export { KeyHolder, keyHolderOf } from './holder';
export { fingerprintOf, RequestIdentity } from './fingerprint';

/** How long a key and its answer are kept, counted from the first request. */
export const keyLifetimeMs = 24 * 3600 * 1000;
/**
 * How long a running first request holds its key. Past it (the process died before answering) the
 * same request may run again: the service cannot know whether the first did its work.
 */
export const runningLockMs = 300 * 1000;

/** The header on a replayed answer (as Stripe names it), so a client can tell. */
export const replayedHeader = 'Idempotent-Replayed';

export type Claim =
  | { replay: StoredAnswer }
  | {
      replay?: undefined;
      /** Stores the answer for replays, or frees the key when the client may retry (5xx, 429). */
      settle(answer: StoredAnswer): Promise<void>;
    };

/**
 * Claims the client's key for a request (its fingerprint), or gives the stored answer to
 * replay. Throws 422 idempotency_key_reused when the key belongs to another request, 409
 * idempotency_key_in_use while its first request runs.
 */
export async function claimKey(holder: KeyHolder, key: string, fingerprint: string, requestId: string): Promise<Claim> {
  // Twice at most: a key freed between our claim and our read (its first request failed) is claimed again.
  for (let attempt = 0; attempt < 2; attempt++) {
    const at = now();
    const owner = crypto.randomUUID();
    const claimed = await idempotencyRepository.claim({
      ...holder,
      key,
      fingerprint,
      owner,
      requestId,
      now: new Date(at),
      lockedUntil: new Date(at + runningLockMs),
      expiresAt: new Date(at + keyLifetimeMs),
    });
    if (claimed) return { settle: (answer) => settle(holder, key, owner, answer) };
    const row = await idempotencyRepository.find(holder, key, new Date(at));
    if (!row) continue;
    if (row.fingerprint !== fingerprint) throw reused();
    if (row.status === null || !row.envelope) throw inUse();
    return { replay: { status: row.status, headers: row.headers ?? {}, envelope: row.envelope } };
  }
  throw inUse();
}

/** 5xx and 429 are not kept: nothing (or not everything) was done, and the client may retry. */
export function isKept(status: number): boolean {
  return status < 500 && status !== 429;
}

async function settle(holder: KeyHolder, key: string, owner: string, answer: StoredAnswer): Promise<void> {
  if (isKept(answer.status)) await idempotencyRepository.store(holder, key, owner, answer);
  else await idempotencyRepository.release(holder, key, owner);
}

const reused = () =>
  new DomainError(
    'idempotency_key_reused',
    `this ${idempotencyHeader} was used for another request (method, path or body differ) in the last 24 hours; use a new key for a new request`,
    { field: idempotencyHeader },
  );

const inUse = () =>
  new DomainError('idempotency_key_in_use', `the first request with this ${idempotencyHeader} is still running; send again when it is answered`, {
    field: idempotencyHeader,
    retryAfterSeconds: 1,
  });
