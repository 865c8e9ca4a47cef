import type { Knex } from 'knex';

/**
 * Who wrote each top-level key of account.settings (lib/account settings-owner.ts): a third-party
 * client's oauth_client id, or "seller" for the seller's own tokens. Keys stored before have no
 * owner (the writer was never recorded). A constant default: no table rewrite.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw("ALTER TABLE account ADD COLUMN settings_owner jsonb NOT NULL DEFAULT '{}'");
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE account DROP COLUMN IF EXISTS settings_owner');
}
