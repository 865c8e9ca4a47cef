/**
 * Idempotency-Key for POSTs that create or trigger (declared `creates: true`): the first request
 * with a key claims it and its answer is stored; the same request again within 24 h gets that
 * answer without running; another request with the key is a 422, one that arrives while the
 * first runs a 409. Decisions: lib/http/README.md, "Idempotency-Key".
 */
import crypto from 'node:crypto';
import { now } from '../../clock';
import { commitOutcome, lostCommitOf } from '../../db';
import type { OpenRequest } from '../../db';
import { DomainError } from '../../errors';
import { CredentialsError, openCredentials, sealCredentials } from '../../secret';
import { errorEnvelope } from '../envelope';
import type { KeyHolder } from './holder';
import { idempotencyHeader } from './key';
import { idempotencyRepository, keyTakenOverCode, StoredAnswer } from './idempotency.repository';

export type { StoredAnswer } from './idempotency.repository';
export { idempotencyHeader, idempotencyKeyOf, maxKeyLength } from './key';
export { KeyHolder, keyHolderOf } from './holder';
export { fingerprintOf, RequestIdentity } from './fingerprint';

/** How long a key and its answer are kept, counted from the first request. */
export const keyLifetimeMs = 24 * 3600 * 1000;
/**
 * How long a running first request holds its key. Past it (the process died before answering) the
 * same request may run again if none of its transactions committed (the key row's mark,
 * commitMark); if one did, a resend is answered 503 already_carried_out.
 */
export const runningLockMs = 300 * 1000;

/** The header on a replayed answer (as Stripe names it), so a client can tell. */
export const replayedHeader = 'Idempotent-Replayed';

export type Claim =
  | { replay: StoredAnswer }
  | {
      replay?: undefined;
      /**
       * Stores the answer for replays, or frees the key when the client may retry (5xx, 429);
       * `failure` is what the request threw, if anything: a lost COMMIT keeps the key taken.
       */
      settle(answer: StoredAnswer, failure?: unknown): Promise<void>;
    };

/**
 * Claims the client's key for a request (its fingerprint), or gives the stored answer to
 * replay. Throws 422 idempotency_key_reused when the key belongs to another request, 409
 * idempotency_key_in_use while its first request runs. A claimed key's row is marked by each
 * transaction the request opens (`request`, lib/db commit-marks.ts), just before its COMMIT.
 */
export async function claimKey(holder: KeyHolder, key: string, fingerprint: string, request: { requestId: string; open: OpenRequest }): Promise<Claim> {
  const { requestId } = request;
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
    const settles = { settle: (answer: StoredAnswer, failure?: unknown) => settle(holder, key, owner, answer, failure) };
    const marked = () => {
      request.open.markCommits(idempotencyRepository.commitMark(holder, key, owner));
      return settles;
    };
    if (claimed) return marked();
    const row = await idempotencyRepository.find(holder, key, new Date(at));
    if (!row) continue;
    if (row.fingerprint !== fingerprint) throw reused();
    if (row.status === null && row.commit_xid !== null && row.locked_until !== null && row.locked_until.getTime() <= at) {
      // The first attempt's process died (its lock ran out) after a transaction of it committed,
      // before its answer was stored. The mark is seen only once its transaction committed (it
      // is written within it), so nothing need be asked: it is not run again.
      const answer = carriedOut();
      await idempotencyRepository.resolveUnknown(holder, key, row.owner, row.commit_xid, answer);
      return { replay: answer };
    }
    if (row.status === null || !row.envelope) throw inUse();
    if (row.commit_xid !== null) {
      // The first attempt's COMMIT answer was lost: PostgreSQL tells now what became of it.
      const outcome = await commitOutcome(row.commit_xid);
      if (outcome === 'in progress') throw inUse();
      if (outcome === 'aborted') {
        const taken = await idempotencyRepository.takeOverUnknown(holder, key, row.owner, row.commit_xid, {
          owner,
          requestId,
          lockedUntil: new Date(at + runningLockMs),
        });
        if (taken) return marked();
        continue;
      }
      if (outcome === 'committed') {
        const answer = carriedOut();
        await idempotencyRepository.resolveUnknown(holder, key, row.owner, row.commit_xid, answer);
        return { replay: answer };
      }
      // Too old for PostgreSQL to tell: the unknown answer stays the key's.
    }
    return { replay: { status: row.status, headers: row.headers ?? {}, envelope: openSecrets(holder, row.envelope) } };
  }
  throw inUse();
}

/**
 * Fields of an answer that are secrets: a notification handler's signing_secret (POST
 * admin/event/handler/), which lib/event keeps sealed in its row because whoever reads it from a
 * dump, a backup or a replica can sign events the seller's receiver believes. The answer kept for
 * replays held it in clear for the key's 24 hours (found by the security pass), so it is sealed
 * here too (lib/secret, purpose idempotency_key, bound to the seller account) and opened for a
 * replay only. A new answer field holding a secret is named here.
 */
const secretAnswerFields = ['signing_secret'];

function sealSecrets(holder: KeyHolder, answer: StoredAnswer): StoredAnswer {
  const fields = secretAnswerFields.filter((field) => typeof answer.envelope[field] === 'string');
  if (!fields.length) return answer;
  const envelope = { ...answer.envelope };
  for (const field of fields) envelope[field] = sealCredentials('idempotency_key', { [field]: envelope[field] }, holder.accountId);
  return { ...answer, envelope };
}

/**
 * The stored answer with its secrets opened. One that does not open (the key it was sealed with
 * was dropped within the 24 hours, or the value was altered) is left out of the replay rather
 * than failing it: the record exists, and the seller's own GET shows its secret. A value in clear
 * (kept by a process of the earlier release) is replayed as it is.
 */
function openSecrets(holder: KeyHolder, envelope: StoredAnswer['envelope']): StoredAnswer['envelope'] {
  const fields = secretAnswerFields.filter((field) => typeof envelope[field] === 'string' && /^kc[12]\./.test(envelope[field] as string));
  if (!fields.length) return envelope;
  const opened = { ...envelope };
  for (const field of fields) {
    try {
      opened[field] = openCredentials('idempotency_key', opened[field] as string, holder.accountId)[field];
    } catch (err) {
      if (!(err instanceof CredentialsError)) throw err;
      delete opened[field];
    }
  }
  return opened;
}

/** 5xx and 429 are not kept: nothing (or not everything) was done, and the client may retry. */
export function isKept(status: number): boolean {
  return status < 500 && status !== 429;
}

/**
 * A request whose COMMIT answer was lost (lib/db lostCommitOf) keeps its key with its answer (503,
 * outcome unknown) and its transaction's id: it is never freed, so a resend never runs it a
 * second time while it may have committed; the resend learns the outcome (claimKey).
 */
async function settle(holder: KeyHolder, key: string, owner: string, answer: StoredAnswer, failure: unknown): Promise<void> {
  const lost = lostCommitOf(failure);
  if (lost) await storeUnknown(holder, key, owner, answer, lost.xid ?? null);
  else if (isKept(answer.status)) await idempotencyRepository.store(holder, key, owner, sealSecrets(holder, answer));
  // A failure after a transaction of the request committed (its mark) does not free the key:
  // a resend would do that work again. It learns that it was carried out.
  else if (!(await idempotencyRepository.release(holder, key, owner))) await idempotencyRepository.store(holder, key, owner, carriedOut());
}

/** How often an unknown outcome that could not be stored is tried again, while its key is held. */
const storeRetryMs = 1000;

/**
 * Stores the unknown outcome; when PostgreSQL is still unreachable (the usual reason the outcome
 * could not be asked), tries again every second in the background until the key's running lock
 * would lapse: a resend meanwhile is answered 409 idempotency_key_in_use, and once stored it
 * learns the outcome. Only a process that dies before it could store leaves the lock to lapse
 * (README: the gap of a crash after COMMIT).
 */
async function storeUnknown(holder: KeyHolder, key: string, owner: string, answer: StoredAnswer, xid: string | null): Promise<void> {
  const until = now() + runningLockMs;
  const attempt = (): Promise<void> => idempotencyRepository.storeUnknown(holder, key, owner, answer, xid);
  const again = () => {
    if (now() + storeRetryMs >= until) return;
    setTimeout(() => void attempt().catch(again), storeRetryMs).unref();
  };
  try {
    await attempt();
  } catch (err) {
    again();
    throw err;
  }
}

/**
 * The answer to a resend whose first attempt committed but whose answer was lost (the database's
 * answer to its COMMIT, or the process that ran it): it is not run again.
 */
function carriedOut(): StoredAnswer {
  const error = new DomainError(
    'already_carried_out',
    `the first request with this ${idempotencyHeader} was carried out, but its answer was lost (the database's answer to it, or the process that ran it); it is not carried out again: read what it wrote (for a created record, search for it)`,
  );
  return { status: error.status, headers: {}, envelope: errorEnvelope(error.items()) };
}

const reused = () =>
  new DomainError(
    'idempotency_key_reused',
    `this ${idempotencyHeader} was used for another request (method, path or body differ) in the last 24 hours; use a new key for a new request`,
    { field: idempotencyHeader },
  );

/**
 * The answer of an attempt whose COMMIT its commit mark refused (idempotencyRepository.commitMark):
 * it ran past its running lock, a resend took the key over, and this attempt was rolled back.
 * The key is in use by the resend: 409 as for any duplicate, whose resend gets the resend's answer.
 */
export function keyTakenOverError(err: unknown): DomainError | undefined {
  if ((err as { code?: unknown } | null)?.code !== keyTakenOverCode) return undefined;
  return new DomainError(
    'idempotency_key_in_use',
    `this request ran past its ${idempotencyHeader}'s running lock and a resend with the key took it over; this one was rolled back, not carried out: send it again with the same key for the resend's answer`,
    { field: idempotencyHeader, retryAfterSeconds: 1 },
  );
}

const inUse = () =>
  new DomainError('idempotency_key_in_use', `the first request with this ${idempotencyHeader} is still running; send again when it is answered`, {
    field: idempotencyHeader,
    retryAfterSeconds: 1,
  });
