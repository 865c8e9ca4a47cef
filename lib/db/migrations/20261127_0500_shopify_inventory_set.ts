import type { Knex } from 'knex';

/**
 * What Kontor last set as an inventory item's `available` quantity at a Shopify store (lib/portals
 * README "CIA with compare-and-set"): the compareQuantity of the next inventorySetQuantities, so a
 * store's sale Kontor has not imported yet is not overwritten (sold twice). `set_at` is Shopify's
 * time of that change (the adjustment group's createdAt); `counted_orders` the store's orders
 * created after it whose units were taken off `quantity` when Kontor read them (each once).
 * Keyed by the portal account (a CIA push knows no more of the seller; a portal account is one
 * seller's), without a foreign key: the adapter is called with targets of no stored account too.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('shopify_inventory_set', (t) => {
    t.integer('portal_account_id').notNullable();
    t.text('inventory_item_id').notNullable();
    t.text('sku').notNullable();
    t.integer('quantity').notNullable();
    t.timestamp('set_at', { useTz: true }).notNullable();
    t.specificType('counted_orders', 'text[]').notNullable().defaultTo('{}');
    t.primary(['portal_account_id', 'inventory_item_id']);
    t.index(['portal_account_id', 'sku'], 'shopify_inventory_set_sku');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('shopify_inventory_set');
}
