import type { Knex } from 'knex';
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
        requests.set(trx, requestId);
        return work(trx);
      };
}

/** Runs work in a transaction, for the API request `requestId` when one asked for it. */
export function transaction<T>(work: (trx: Knex.Transaction) => Promise<T>, requestId?: string): Promise<T> {
  return db().transaction(forRequest(requestId, work));
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
