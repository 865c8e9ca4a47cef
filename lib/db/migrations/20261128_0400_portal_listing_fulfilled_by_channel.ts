import type { Knex } from 'knex';

/**
 * A live listing Kontor made that the channel fulfils from its own warehouse since (lib/portal-offer
 * portal_listing): a Kaufland unit the seller moved into Kaufland's fulfilment programme
 * (Unit.fulfillment_type fulfilled_by_kaufland). Kontor learnt it only in a process's memory, so
 * after a restart, or in another portal_upload worker, CIA sent its recorded unit one amount
 * again; recorded here, every process sends it none. A list or end of the listing clears it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('portal_listing', (t) => {
    t.boolean('fulfilled_by_channel').notNullable().defaultTo(false);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('portal_listing', (t) => {
    t.dropColumn('fulfilled_by_channel');
  });
}
