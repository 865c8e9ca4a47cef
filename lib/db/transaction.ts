import type { Knex } from 'knex';
import type { Client } from 'pg';
import { commitMarkOf, noteCommitted, publicRequestId } from './commit-marks';
import { CommitOutcome, doneReadingId, forgetLostCommit, lostCommitOf, readIdOnBegin } from './commit-outcome';
import { db } from './knex';

/** PostgreSQL chose the transaction as a deadlock or serialization victim: it left no trace. */
export function isConflictVictim(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return code === '40P01' || code === '40001';
}

/**
 * The API request each open transaction works for: the outbox copies its id into the jobs the
 * transaction queues (lib/queue/outbox.ts). The web hands it over here instead of through an
 * AsyncLocalStorage: on Node 20 the first AsyncLocalStorage.run turns on promise hooks for
 * every promise of the process, a tenth of a trivial GET's CPU (bench/RESULTS.md, issue 32).
 * Workers keep theirs (lib/log), which a transaction opened without a request id falls back to.
 */
const requests = new WeakMap<Knex.Transaction, string>();

/** The id of the API request the transaction works for, if it was opened for one. */
export function requestOf(trx: Knex.Transaction): string | undefined {
  return requests.get(trx);
}

function forRequest<T>(requestId: string | undefined, work: (trx: Knex.Transaction) => Promise<T>): (trx: Knex.Transaction) => Promise<T> {
  return requestId === undefined
    ? work
    : (trx) => {
        // The jobs it queues carry the request id the client knows, not the request's key (commit-marks.ts).
        requests.set(trx, publicRequestId(requestId));
        return work(trx);
      };
}

/**
 * Runs work in a transaction, for the API request `requestId` (its key, commit-marks.ts) when one asked for it.
 *
 * A request's transaction reads its id with its BEGIN (commit-outcome.ts). When the answer to its
 * COMMIT is lost, PostgreSQL is asked on another connection whether it committed: if it did, the
 * work's value is returned as if the answer had come (the client gets its answer, the order is
 * written once); if it rolled back, the error is a plain failure (nothing done, send again);
 * if it cannot be told (the database still unreachable), the error stays marked as a lost COMMIT
 * (lostCommitOf) and the web answers that the outcome is unknown (lib/errors dependency.ts).
 * A request with an Idempotency-Key writes its key row's mark in the COMMIT's message
 * (commit-marks.ts), so the row tells that the request committed even when its process dies.
 */
export async function transaction<T>(work: (trx: Knex.Transaction) => Promise<T>, requestId?: string): Promise<T> {
  if (requestId === undefined) return db().transaction(work);
  const knex = db();
  // The connection is taken here, so it is known before Knex sends BEGIN on it.
  const connection = (await knex.client.acquireConnection()) as Client;
  // A request holding an Idempotency-Key marks its key row before COMMIT (commit-marks.ts).
  readIdOnBegin(connection, commitMarkOf(requestId));
  let done: { value: T } | undefined;
  try {
    const value = await knex.transaction(
      forRequest(requestId, async (trx) => {
        const value = await work(trx);
        done = { value };
        return value;
      }),
      // Knex's defaults for a transaction without a config, and the connection taken above.
      { connection, doNotRejectOnRollback: true, userParams: {} },
    );
    // Committed: a later failure of the request must not tell the client to send it again.
    noteCommitted(requestId);
    return value;
  } catch (err) {
    const xid = lostCommitOf(err)?.xid;
    if (!done || xid === undefined) throw err;
    const outcome = await settleLostCommit(xid);
    if (outcome === 'committed') {
      noteCommitted(requestId);
      return done.value;
    }
    if (outcome === 'aborted') forgetLostCommit(err);
    throw err;
  } finally {
    doneReadingId(connection);
    await knex.client.releaseConnection(connection);
  }
}

/** What PostgreSQL says of a transaction id (txid_status); undefined when it can no longer tell. */
export async function commitOutcome(xid: string): Promise<CommitOutcome> {
  const { rows } = await db().raw<{ rows: { status: string | null }[] }>('SELECT txid_status(?::bigint) AS status', [xid]);
  const status = rows[0]?.status;
  return status === 'committed' || status === 'aborted' || status === 'in progress' ? status : undefined;
}

/** How long a request asks after its lost COMMIT before it answers that the outcome is unknown. */
const settleWithinMs = 2000;

/**
 * The outcome of a lost COMMIT, asked at once on another connection for at most settleWithinMs:
 * 'in progress' (the backend is still committing) is asked again every 100 ms; a database still
 * unreachable, or an answer that does not come in time, is undefined (unknown).
 */
async function settleLostCommit(xid: string): Promise<CommitOutcome> {
  const deadline = Date.now() + settleWithinMs;
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0) return undefined;
    const asked = commitOutcome(xid);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), left);
    });
    const outcome = await Promise.race([asked, late]).catch(() => 'failed' as const);
    clearTimeout(timer);
    // A late answer is not waited for; its failure must not go unhandled.
    asked.catch(() => undefined);
    if (outcome === 'committed' || outcome === 'aborted') return outcome;
    if (outcome !== 'in progress') return undefined;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Runs work in a savepoint of trx, for the same request. */
export function inSavepoint<T>(trx: Knex.Transaction, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  return trx.transaction(forRequest(requestOf(trx), work));
}

/**
 * Runs work in a transaction, again (up to 3 times) when it lost a deadlock or a serialization
 * conflict: the work left no trace, and a client should not get an error for a race.
 */
export async function inTransaction<T>(work: (trx: Knex.Transaction) => Promise<T>, requestId?: string): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await transaction(work, requestId);
    } catch (err) {
      if (attempt >= 3 || !isConflictVictim(err)) throw err;
    }
  }
}
