import type { Knex } from 'knex';

/**
 * When Amazon last showed a live listing Kontor made as the seller's own offer (getListingsItem,
 * fulfillmentAvailability DEFAULT), read because an order of its SKU was fulfilled by Amazon (AFN):
 * lib/portal-offer does not read it again for AFN orders placed before that time (the answer
 * already covers them), only for one placed after (the seller may have converted it since).
 * Nullable without default: no table rewrite; not indexed (read with the listing's row only).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE portal_listing ADD COLUMN fulfilment_read_at timestamptz');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE portal_listing DROP COLUMN IF EXISTS fulfilment_read_at');
}
