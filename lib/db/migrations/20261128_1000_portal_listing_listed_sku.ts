import type { Knex } from 'knex';

/**
 * The key a live listing is held under at a channel that addresses it by that key rather than by
 * its portal item id (lib/portal-offer portal_listing): eBay's inventory item SKU, or a variation
 * main's inventory item group key, as the list made it. An item whose SKU the seller changed after
 * listing had its quantity, revise and end sent under the new SKU, of which eBay holds nothing
 * (25002), while the listing buyers buy sold on at its old quantity. Null: the item's SKU now (a
 * listing recorded before this column, or a channel that needs none).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('portal_listing', (t) => {
    t.text('listed_sku');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('portal_listing', (t) => {
    t.dropColumn('listed_sku');
  });
}
