import type { Knex } from 'knex';

/**
 * Quantity pushes go out per (portal, portal account) in batches: the push reads every state of
 * that target still waiting for the portal, so that lookup gets a partial index. A portal that
 * refuses one item of a batch marks that state refused at its sequence: it is left out of later
 * batches (it would only be refused again) until its wanted quantity changes or a reconcile.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('cia_portal_state', (t) => {
    t.bigInteger('refused_seq').notNullable().defaultTo(0);
  });
  await knex.raw(`CREATE INDEX cia_portal_state_waiting ON cia_portal_state (account_id, portal, portal_account_id, stock_id)
    WHERE acked_seq < desired_seq`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS cia_portal_state_waiting');
  await knex.schema.alterTable('cia_portal_state', (t) => { t.dropColumn('refused_seq'); });
}
