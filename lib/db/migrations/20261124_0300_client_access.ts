import type { Knex } from 'knex';

const tokenTables = ['access_token', 'refresh_token', 'authorization_code'] as const;

/**
 * Client accesses (document 1, Authentication 5; issue 16): the authorization a seller gave a
 * client, one row per refresh-token chain, which the seller lists and revokes. Its portal account
 * is the one the grant is bound to (NULL: all portal accounts). The tokens' portal account now
 * cascades: deleting a portal account must revoke the grants bound to it, where SET NULL would
 * have widened them to every portal account. Authorization codes remember the PKCE challenge
 * (RFC 7636) and whether the client sent redirect_uri (RFC 6749 4.1.3 then requires it again).
 */
export async function up(knex: Knex): Promise<void> {
  for (const table of tokenTables) {
    await knex.schema.alterTable(table, (t) => {
      t.dropForeign(['portal_account_id']);
      t.foreign('portal_account_id').references('portal_account.id').onDelete('CASCADE');
    });
  }
  await knex.schema.alterTable('authorization_code', (t) => {
    t.text('code_challenge');
    t.boolean('redirect_uri_sent').notNullable().defaultTo(false);
  });
  await knex.schema.createTable('client_access', (t) => {
    t.increments('id').primary();
    t.uuid('chain_id').notNullable().unique();
    t.integer('account_id').notNullable().references('account.id').onDelete('CASCADE');
    t.integer('oauth_client_id').notNullable().references('oauth_client.id').onDelete('CASCADE');
    t.integer('portal_account_id').references('portal_account.id').onDelete('CASCADE');
    t.specificType('scope', 'text[]').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('refreshed_at', { useTz: true });
    t.index(['account_id', 'id']);
  });
  // Chains issued before this migration become accesses the seller can see and revoke.
  await knex.raw(`
    INSERT INTO client_access (chain_id, account_id, oauth_client_id, portal_account_id, scope, created_at)
    SELECT DISTINCT ON (chain_id) chain_id, account_id, oauth_client_id, portal_account_id, scope, created_at
    FROM refresh_token WHERE replaced_at IS NULL ORDER BY chain_id, created_at DESC
    ON CONFLICT (chain_id) DO NOTHING`);
  // A client bound to one portal account searches its orders by number within it.
  await knex.raw('CREATE INDEX sales_order_portal_account_number ON sales_order (account_id, portal_account_id, number)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS sales_order_portal_account_number');
  await knex.schema.dropTableIfExists('client_access');
  await knex.schema.alterTable('authorization_code', (t) => {
    t.dropColumn('code_challenge');
    t.dropColumn('redirect_uri_sent');
  });
  for (const table of tokenTables) {
    await knex.schema.alterTable(table, (t) => {
      t.dropForeign(['portal_account_id']);
      t.foreign('portal_account_id').references('portal_account.id').onDelete('SET NULL');
    });
  }
}
