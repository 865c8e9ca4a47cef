import { db } from '../../lib/db';

/**
 * Waits until a statement of this database waits for a lock (a row the test holds), optionally
 * one whose text contains `textLike` (a LIKE pattern); fails after about 5 s.
 */
export async function untilOneWaitsForALock(textLike = '%'): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const { rows } = (await db().raw(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE ?",
      [textLike],
    )) as { rows: { n: number }[] };
    if (rows[0]!.n > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('no statement came to wait for a lock within 5 s');
}
