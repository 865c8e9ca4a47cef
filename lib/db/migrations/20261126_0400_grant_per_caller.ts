import type { Knex } from 'knex';

/**
 * Issue 31 (the grant is a property of the caller; finding 7):
 * - idempotency_key.client: keys are held per client (`seller`, or the OAuth client and its
 *   portal-account grant), so one client's Idempotency-Key never replays another client's answer;
 * - job_creator: the jobs a client bound to one portal account started (GET job/{job_id}/ shows
 *   such a client only these); gone with the job's outbox row;
 * - authorization_code.used_at and chain_id: a used code is kept until it expires, so presenting
 *   it again revokes the tokens issued for it (RFC 6749 4.1.2).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('idempotency_key', (t) => {
    t.text('client').notNullable().defaultTo('seller');
  });
  await knex.raw('ALTER TABLE idempotency_key DROP CONSTRAINT idempotency_key_pkey');
  await knex.raw('ALTER TABLE idempotency_key ADD PRIMARY KEY (account_id, client, key)');

  await knex.schema.createTable('job_creator', (t) => {
    t.uuid('job_id').primary().references('outbox.job_id').onDelete('CASCADE');
    t.integer('account_id').notNullable().references('account.id').onDelete('CASCADE');
    t.integer('oauth_client_id').references('oauth_client.id').onDelete('SET NULL');
    t.integer('portal_account_id').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.alterTable('authorization_code', (t) => {
    t.timestamp('used_at', { useTz: true });
    t.uuid('chain_id');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('authorization_code', (t) => {
    t.dropColumn('used_at');
    t.dropColumn('chain_id');
  });
  await knex.schema.dropTableIfExists('job_creator');
  await knex.raw("DELETE FROM idempotency_key WHERE client <> 'seller'");
  await knex.raw('ALTER TABLE idempotency_key DROP CONSTRAINT idempotency_key_pkey');
  await knex.raw('ALTER TABLE idempotency_key ADD PRIMARY KEY (account_id, key)');
  await knex.schema.alterTable('idempotency_key', (t) => {
    t.dropColumn('client');
  });
}
