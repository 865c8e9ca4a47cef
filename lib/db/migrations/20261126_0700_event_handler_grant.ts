import type { Knex } from 'knex';

/**
 * Issue 31: an event handler keeps the portal-account grant of the client that created it
 * (NULL: all portal accounts, as the seller's own tokens and clients granted all): dispatch
 * runs it only on records of that portal account, and only such a client (or the seller) sees
 * it. A portal account deleted takes its bound handlers along.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('event_handler', (t) => {
    t.integer('portal_account_grant').references('portal_account.id').onDelete('CASCADE');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('event_handler', (t) => t.dropColumn('portal_account_grant'));
}
