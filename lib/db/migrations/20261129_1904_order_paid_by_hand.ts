import type { Knex } from 'knex';

/**
 * When the seller last changed an order's paid_amount by hand (POST order/{order_id}/,
 * order/list/; not a channel's import, not a bank match). The bank matching reads it: a bank
 * record stored before it pays that order by no rule, since the seller had the record in view
 * (unassigned) and booked that money themselves (document 1, order rule 1); the re-match had
 * booked it a second time (lib/bank/README.md, "A payment booked by hand on the order").
 * Nullable without default: no table rewrite; not indexed (read with the order's row only).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE sales_order ADD COLUMN paid_by_hand_at timestamptz');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE sales_order DROP COLUMN IF EXISTS paid_by_hand_at');
}
