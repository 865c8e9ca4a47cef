import type { Knex } from 'knex';

/**
 * The markets a live listing is in where the portal account sells in several and not every one
 * took it (lib/portal-offer portal_listing): an Amazon seller in DE and FR whose listing FR refused
 * holds it live in DE, which Kontor did not record at all (the job failed), so the seller saw no
 * listing, CIA's quantities named FR too, and a retry put DE again. `markets`: the marketplace ids
 * that took it (null: every one of the account, as every row before); `markets_job`: the upload
 * job that listed it there, whose retry submits only the others.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('portal_listing', (t) => {
    t.specificType('markets', 'text[]');
    t.text('markets_job');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('portal_listing', (t) => {
    t.dropColumn('markets_job');
    t.dropColumn('markets');
  });
}
