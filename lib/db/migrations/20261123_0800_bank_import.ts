import type { Knex } from 'knex';

/**
 * Statement import and matching (issue 14): the bank's own reference of an imported entry (one
 * row per reference and account, whatever the number of imports), the unassigned records the
 * re-match walks, and the order columns the matching looks orders up by.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('bank', (t) => {
    t.text('entry_ref');
  });
  await knex.raw('CREATE UNIQUE INDEX bank_entry_ref ON bank (account_id, type, entry_ref) WHERE entry_ref IS NOT NULL');
  await knex.raw('CREATE INDEX bank_unassigned ON bank (account_id, transfer_date) WHERE order_id IS NULL');
  await knex.raw('CREATE INDEX sales_order_payment_provider_transaction_id ON sales_order (account_id, payment_provider_transaction_id) WHERE payment_provider_transaction_id IS NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS sales_order_payment_provider_transaction_id');
  await knex.raw('DROP INDEX IF EXISTS bank_unassigned');
  await knex.raw('DROP INDEX IF EXISTS bank_entry_ref');
  await knex.schema.alterTable('bank', (t) => { t.dropColumn('entry_ref'); });
}
