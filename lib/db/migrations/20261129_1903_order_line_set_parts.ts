import type { Knex } from 'knex';

/**
 * What an order line took of each part when it took stock from a set (lib/order
 * order-stock.service.ts): `[{stock_id, quantity}]`, the parts of one unit of the set as it was
 * then. Every later move of the line (cancel, un-cancel, delete, a quantity change) gives back
 * and takes by it, not by the set as the seller has recomposed it since, which lost the parts
 * taken for good and invented units of the new ones. Null: the line's item is no set, or holds
 * nothing, or it took its stock before this column (then the set as it is now counts, as before).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('sales_order_line', (t) => {
    t.jsonb('stock_taken_parts');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('sales_order_line', (t) => {
    t.dropColumn('stock_taken_parts');
  });
}
