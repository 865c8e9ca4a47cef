import type { Knex } from 'knex';

/**
 * The location a push set shopify_inventory_set's quantity at: since the web shop's stock is set at
 * the store's oldest active location that fulfils online orders, read on every push, that location
 * can change (the merchant switches the first one to a pickup counter), and a quantity Kontor set at
 * the former one is no compare quantity at the new one: compared there it read as the store's sales
 * Kontor had not imported and Kontor's count was lowered by it (lib/portals README "CIA with
 * compare-and-set"). Rows written before have none: they were set at the store's first location as
 * `locations(first: 1)` names it (the adapter asks it only for such rows).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('shopify_inventory_set', (t) => {
    t.text('location_id');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('shopify_inventory_set', (t) => {
    t.dropColumn('location_id');
  });
}
