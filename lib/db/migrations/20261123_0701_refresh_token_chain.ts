import type { Knex } from 'knex';

/**
 * Refresh-token reuse detection (RFC 9700 4.14.2): every refresh token and every access token
 * issued with one belongs to the chain started by an authorization code. A replaced refresh token
 * is kept (replaced_at set) until it would have expired, so a replay is recognised and revokes
 * its chain. Existing refresh tokens each start a chain of their own.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('refresh_token', (t) => {
    t.uuid('chain_id').notNullable().defaultTo(knex.raw('gen_random_uuid()'));
    t.timestamp('replaced_at', { useTz: true });
    t.index(['chain_id']);
  });
  await knex.schema.alterTable('access_token', (t) => {
    t.uuid('chain_id');
    t.index(['chain_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('access_token', (t) => { t.dropColumn('chain_id'); });
  await knex('refresh_token').whereNotNull('replaced_at').delete();
  await knex.schema.alterTable('refresh_token', (t) => { t.dropColumn('replaced_at'); t.dropColumn('chain_id'); });
}
