import type { Knex } from 'knex';

/**
 * Where the channel fulfils a live listing it was marked fulfilled by (portal_listing
 * fulfilled_by_channel): the markets (Amazon marketplace ids) where it does so in some of the
 * listing's only, null where in all (every row before: Kaufland's units, Amazon's marks so far).
 * Each Amazon marketplace holds its own offer, so a SKU may be FBA in DE and the seller's own in FR;
 * marked whole, FR was sent no quantity and sold on after Kontor's stock ran out. Nullable without
 * default: no table rewrite; not indexed (read with the listing's row only).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE portal_listing ADD COLUMN fulfilled_markets text[]');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE portal_listing DROP COLUMN IF EXISTS fulfilled_markets');
}
