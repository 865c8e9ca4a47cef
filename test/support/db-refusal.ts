/**
 * A refusal only the database knows of, for tests of the 207 isolation of set-based writes: a
 * CHECK constraint (NOT VALID: existing rows stay) on `table` while `work` runs, dropped after.
 */
import { db } from '../../lib/db/knex';

export async function whileDatabaseRefuses<T>(table: string, check: string, work: () => Promise<T>): Promise<T> {
  await db().raw(`ALTER TABLE ?? ADD CONSTRAINT test_refusal CHECK (${check}) NOT VALID`, [table]);
  try {
    return await work();
  } finally {
    await db().raw('ALTER TABLE ?? DROP CONSTRAINT test_refusal', [table]);
  }
}
