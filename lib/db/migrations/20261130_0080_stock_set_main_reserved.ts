import type { Knex } from 'knex';

/**
 * quantity_available of the set mains, stored as lib/stock now computes it (stock-available.ts):
 * what the parts give less the main's own quantity_reserved, quantity_reserved_2 and, unless the
 * account switched that off, quantity_auction_a. It was what the parts give alone, so a set with
 * units reserved read them as available, searches on quantity_available found it by that, and
 * CIA offered them. The SQL is written out here, not taken from lib/stock: a migration says what
 * it did on the day it ran.
 *
 * Only the set mains whose value changes are written (a row written moves its ETag); each
 * account's next CIA reconcile offers the new value. Running it again changes nothing.
 */
export async function backfillSetMainsReserved(knex: Knex | Knex.Transaction): Promise<number> {
  const result = (await knex.raw(
    `WITH given AS (
       SELECT ss.account_id, ss.main_id, MIN(FLOOR(s.quantity_available::numeric / ss.quantity)) AS available
         FROM stock_set ss JOIN stock s ON s.account_id = ss.account_id AND s.id = ss.sub_id
        GROUP BY ss.account_id, ss.main_id),
     computed AS (
       SELECT m.account_id, m.id,
              GREATEST(g.available - m.quantity_reserved - m.quantity_reserved_2
                - CASE WHEN a.is_auction_a_quantity_subtracted THEN m.quantity_auction_a ELSE 0 END, -2147483648)::int AS available
         FROM given g
         JOIN stock m ON m.account_id = g.account_id AND m.id = g.main_id
         JOIN account a ON a.id = m.account_id)
     UPDATE stock m SET quantity_available = c.available
       FROM computed c
      WHERE m.account_id = c.account_id AND m.id = c.id AND m.quantity_available <> c.available`,
  )) as { rowCount: number };
  return result.rowCount;
}

export async function up(knex: Knex): Promise<void> {
  await backfillSetMainsReserved(knex);
}

/** Nothing: the values before were the fault, and the next write of each set main would compute the new ones anyway. */
export async function down(): Promise<void> {}
