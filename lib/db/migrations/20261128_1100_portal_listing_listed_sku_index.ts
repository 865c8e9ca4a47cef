import type { Knex } from 'knex';

/**
 * The order import links an eBay sale's line to the item whose listing was made under its SKU
 * (lib/portal-offer itemsListedUnder, by listed_sku), once per page of orders: an index as
 * portal_item_id has (Amazon's SKU), so a seller of many listings is not read whole per page.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('portal_listing', (t) => {
    t.index(['account_id', 'listed_sku'], 'portal_listing_account_listed_sku');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('portal_listing', (t) => {
    t.dropIndex(['account_id', 'listed_sku'], 'portal_listing_account_listed_sku');
  });
}
