import type { Knex } from 'knex';

/**
 * Statement import and matching (issue 14): the bank's own reference of an imported entry (one
 * row per reference and account, whatever the number of imports), the unassigned records the
 * re-match walks, the order columns the matching looks orders up by, and the seller's payment
 * provider accounts (credentials kept like a portal account's: never answered, never logged).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('bank', (t) => {
    t.text('entry_ref');
  });
  await knex.raw('CREATE UNIQUE INDEX bank_entry_ref ON bank (account_id, type, entry_ref) WHERE entry_ref IS NOT NULL');
  await knex.raw('CREATE INDEX bank_unassigned ON bank (account_id, transfer_date) WHERE order_id IS NULL');
  await knex.schema.createTable('payment_provider_account', (t) => {
    t.increments('id').primary();
    t.integer('account_id').notNullable().references('account.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('provider').notNullable().defaultTo('paypal');
    t.text('base_url').notNullable();
    t.jsonb('credentials').notNullable().defaultTo('{}');
    // Payments up to this time are fetched; the next sync starts a little before it (late arrivals).
    t.timestamp('synced_until', { useTz: true });
    t.text('last_error');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['account_id']);
  });
  await knex.raw('CREATE INDEX sales_order_payment_provider_transaction_id ON sales_order (account_id, payment_provider_transaction_id) WHERE payment_provider_transaction_id IS NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('payment_provider_account');
  await knex.raw('DROP INDEX IF EXISTS sales_order_payment_provider_transaction_id');
  await knex.raw('DROP INDEX IF EXISTS bank_unassigned');
  await knex.raw('DROP INDEX IF EXISTS bank_entry_ref');
  await knex.schema.alterTable('bank', (t) => { t.dropColumn('entry_ref'); });
}
