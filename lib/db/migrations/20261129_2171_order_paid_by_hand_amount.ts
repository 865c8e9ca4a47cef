import type { Knex } from 'knex';

/**
 * How much money the seller accounted for by hand on an order (the rises of paid_amount they
 * wrote, POST order/{order_id}/, order/list/, a create with paid_amount): a bank record larger
 * than it cannot be that money and pays as before (lib/order order-paid-by-hand.ts,
 * lib/bank/README.md "A payment booked by hand on the order"). The type of paid_amount.
 * Nullable without default: no table rewrite; null on an order stamped before it (amount not checked).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE sales_order ADD COLUMN paid_by_hand_amount numeric(14,2)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE sales_order DROP COLUMN IF EXISTS paid_by_hand_amount');
}
