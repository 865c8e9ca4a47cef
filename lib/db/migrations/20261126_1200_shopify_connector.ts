import type { Knex } from 'knex';

/** Issue 33: a portal account may name the connector `shopify` (webshop through Shopify's Admin GraphQL API). */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE portal_account DROP CONSTRAINT IF EXISTS portal_account_connector_check');
  await knex.raw("ALTER TABLE portal_account ADD CONSTRAINT portal_account_connector_check CHECK (connector IN ('ebay', 'amazon_sp', 'kaufland', 'shopify', 'json'))");
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw("UPDATE portal_account SET connector = 'json' WHERE connector = 'shopify'");
  await knex.raw('ALTER TABLE portal_account DROP CONSTRAINT IF EXISTS portal_account_connector_check');
  await knex.raw("ALTER TABLE portal_account ADD CONSTRAINT portal_account_connector_check CHECK (connector IN ('ebay', 'amazon_sp', 'kaufland', 'json'))");
}
