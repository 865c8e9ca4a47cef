import type { Knex } from 'knex';

/**
 * eBay revises a listing at most 250 times a calendar day (sell_inventory_v1). CIA counts its
 * revisions per listing and day (`portal_listing_revision`, lib/portal-offer: one row per
 * listing, the count of its latest day), so a restart forgets nothing; a quantity held by that
 * limit waits in its state until `held_until` (lib/cia), when the push sweep sends it again.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('portal_listing_revision', (t) => {
    t.integer('account_id').notNullable().references('account.id').onDelete('CASCADE');
    t.text('portal').notNullable();
    t.integer('portal_account_id').notNullable().references('portal_account.id').onDelete('CASCADE');
    t.text('listing_id').notNullable();
    t.date('day').notNullable();
    t.integer('revisions').notNullable();
    t.primary(['account_id', 'portal', 'portal_account_id', 'listing_id']);
  });
  await knex.schema.alterTable('cia_portal_state', (t) => {
    t.timestamp('held_until', { useTz: true });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('cia_portal_state', (t) => {
    t.dropColumn('held_until');
  });
  await knex.schema.dropTableIfExists('portal_listing_revision');
}
