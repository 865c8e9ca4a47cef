import type { Knex } from 'knex';

/**
 * Issue 33: a portal account may name the connector `kaufland` (market_e through Kaufland's
 * Seller API v2). Accounts connected before keep theirs: a market_e account on `json` may point
 * at a seller's middleware, so it is not switched.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE portal_account DROP CONSTRAINT IF EXISTS portal_account_connector_check');
  await knex.raw("ALTER TABLE portal_account ADD CONSTRAINT portal_account_connector_check CHECK (connector IN ('ebay', 'amazon_sp', 'kaufland', 'json'))");
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw("UPDATE portal_account SET connector = 'json' WHERE connector = 'kaufland'");
  await knex.raw('ALTER TABLE portal_account DROP CONSTRAINT IF EXISTS portal_account_connector_check');
  await knex.raw("ALTER TABLE portal_account ADD CONSTRAINT portal_account_connector_check CHECK (connector IN ('ebay', 'amazon_sp', 'json'))");
}
