import type { Knex } from 'knex';
import { openCredentials, sealCredentials, CredentialsPurpose } from '../../secret';

/**
 * Real channels (issue 15): a portal account names its connector (the channel's real API, or
 * the generic JSON dialect) and keeps its order-fetch watermark and last refusal; credentials
 * of portal accounts and payment provider accounts are sealed at rest (lib/secret); every
 * channel order imported is one row of channel_order, whose key (account, portal account, the
 * channel's order id) makes two fetches of the same order one Kontor order.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('portal_account', (t) => {
    // NULL (an account of no platform, the default account): each portal through its own adapter.
    t.text('connector');
    // The fetch asks for orders changed since a little before this time (the clocks' skew).
    t.timestamp('orders_fetched_until', { useTz: true });
    // A refusal of the channel (revoked token): the scheduler leaves the account alone until it is connected again.
    t.text('order_import_error');
  });
  await knex.raw(
    "UPDATE portal_account SET connector = CASE platform WHEN 'auction_a' THEN 'ebay' WHEN 'market_d' THEN 'amazon_sp' ELSE 'json' END WHERE platform IS NOT NULL",
  );
  await knex.raw("ALTER TABLE portal_account ADD CONSTRAINT portal_account_connector_check CHECK (connector IN ('ebay', 'amazon_sp', 'json'))");
  await sealColumn(knex, 'portal_account', 'portal_account');
  await sealColumn(knex, 'payment_provider_account', 'payment_provider_account');

  await knex.schema.createTable('channel_order', (t) => {
    t.integer('account_id').notNullable().references('account.id').onDelete('CASCADE');
    t.integer('portal_account_id').notNullable().references('portal_account.id').onDelete('CASCADE');
    t.text('external_order_id').notNullable();
    // The Kontor order; null once the seller deleted it (a later fetch does not bring it back).
    t.bigInteger('order_internal_id').references('sales_order.internal_id').onDelete('SET NULL');
    t.text('order_id');
    // What the channel said last (paid_amount, is_paid, is_shipped, is_cancelled, modified_at): only its changes are applied.
    t.jsonb('channel_state').notNullable().defaultTo('{}');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['account_id', 'portal_account_id', 'external_order_id']);
    t.index(['order_internal_id']);
  });
  // The import finds an auction_a line's item by its lister entry's sku (data->'auction_a' @> '[{"sku": ...}]').
  await knex.raw("CREATE INDEX stock_auction_a_group ON stock USING gin ((data -> 'auction_a') jsonb_path_ops)");
}

/** Replaces a jsonb credentials column by its sealed text, row by row (few rows: accounts). */
async function sealColumn(knex: Knex, table: string, purpose: CredentialsPurpose): Promise<void> {
  await knex.schema.alterTable(table, (t) => t.text('credentials_sealed'));
  const rows = (await knex(table).select('id', 'credentials')) as { id: number; credentials: Record<string, unknown> | null }[];
  for (const row of rows)
    await knex(table)
      .where({ id: row.id })
      .update({ credentials_sealed: sealCredentials(purpose, row.credentials ?? {}) });
  await knex.schema.alterTable(table, (t) => t.dropColumn('credentials'));
  await knex.schema.alterTable(table, (t) => t.renameColumn('credentials_sealed', 'credentials'));
}

async function openColumn(knex: Knex, table: string, purpose: CredentialsPurpose): Promise<void> {
  await knex.schema.alterTable(table, (t) => t.jsonb('credentials_plain').notNullable().defaultTo('{}'));
  const rows = (await knex(table).select('id', 'credentials')) as { id: number; credentials: string | null }[];
  for (const row of rows)
    await knex(table)
      .where({ id: row.id })
      .update({ credentials_plain: JSON.stringify(openCredentials(purpose, row.credentials, row.id)) });
  await knex.schema.alterTable(table, (t) => t.dropColumn('credentials'));
  await knex.schema.alterTable(table, (t) => t.renameColumn('credentials_plain', 'credentials'));
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS stock_auction_a_group');
  await knex.schema.dropTableIfExists('channel_order');
  await openColumn(knex, 'payment_provider_account', 'payment_provider_account');
  await openColumn(knex, 'portal_account', 'portal_account');
  await knex.raw('ALTER TABLE portal_account DROP CONSTRAINT IF EXISTS portal_account_connector_check');
  await knex.schema.alterTable('portal_account', (t) => {
    t.dropColumn('order_import_error');
    t.dropColumn('orders_fetched_until');
    t.dropColumn('connector');
  });
}
