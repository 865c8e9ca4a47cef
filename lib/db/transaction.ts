import type { Knex } from 'knex';
import { db } from './knex';

/** PostgreSQL chose the transaction as a deadlock or serialization victim: it left no trace. */
export function isConflictVictim(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return code === '40P01' || code === '40001';
}

/**
 * Runs work in a transaction, again (up to 3 times) when it lost a deadlock or a serialization
 * conflict: the work left no trace, and a client should not get an error for a race.
 */
export async function inTransaction<T>(work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db().transaction(work);
    } catch (err) {
      if (attempt >= 3 || !isConflictVictim(err)) throw err;
    }
  }
}
