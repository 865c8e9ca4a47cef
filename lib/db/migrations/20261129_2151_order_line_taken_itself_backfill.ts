import type { Knex } from 'knex';

/**
 * stock_taken_parts (20261129_1903) of the lines that took an item itself: `[]`, which lib/order
 * now records for such a take (order-stock.service.ts). Until now it recorded null for them, and
 * null means "took stock before the record existed": the line moves by the set as it is now. So a
 * plain item sold and made a set afterwards gave back to the set's new parts on a cancel, a
 * delete or fewer units (parts it never took: phantom stock every channel offered) and the item
 * stayed short for good.
 *
 * Which lines, and why:
 * - a line holding stock (stock_taken > 0) with a null record whose item exists and is no set
 *   main now: `[]`. Taken since 20261129_1903 (today), it took the item itself: a set main then
 *   recorded its parts unless it had none, and then it too took its own quantity. Taken before,
 *   the item was plain then, or a set since dissolved: either way the fallback moves its own
 *   quantity today, and `[]` moves exactly that, now and after the seller makes it a set.
 * - a null line whose item is a set main now: left null (the documented fallback). It may have
 *   taken the set's parts before the record, or the item itself before it became a set: nothing
 *   stored tells the two apart, and the parts were taken for the older lines.
 * - a line holding nothing: left null; its next take records anew. A line whose item was deleted:
 *   left null; its put-back is dropped and a take refused with either record.
 * Only null records are written: running it again changes nothing. One UPDATE, as the bank
 * backfills: it holds only the row locks of the lines it writes.
 */
export async function backfillLinesTakenItself(knex: Knex | Knex.Transaction): Promise<number> {
  const result = (await knex.raw(
    `UPDATE sales_order_line l SET stock_taken_parts = '[]'::jsonb
       FROM sales_order o, stock s
      WHERE o.internal_id = l.order_internal_id AND s.account_id = o.account_id AND s.id = l.stock_id
        AND l.stock_taken_parts IS NULL AND l.stock_taken > 0 AND s.set_type <> 'main'`,
  )) as { rowCount: number };
  return result.rowCount;
}

export async function up(knex: Knex): Promise<void> {
  await backfillLinesTakenItself(knex);
}

/** Nothing: a `[]` moves what null moved for these lines' items as they were; 20261129_1903's down drops the column. */
export async function down(): Promise<void> {}
