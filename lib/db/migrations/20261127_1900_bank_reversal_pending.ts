import type { Knex } from 'knex';

/**
 * Reversals of credits (lib/bank bank-reversal.service.ts) that no transfer fitted when their
 * statement was imported: kept, so that the credit they reverse, imported later (the statements
 * imported out of order), is tied to them when it is stored and pays no order. A row is removed
 * when its reversal is tied. `key` is the reversal's key (`reversal ...`), unique per account.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('bank_reversal_pending', (t) => {
    t.integer('account_id').notNullable().references('account.id').onDelete('CASCADE');
    t.text('key').notNullable();
    t.timestamp('transfer_date', { useTz: true }).notNullable();
    t.decimal('amount', 14, 2).notNullable();
    t.text('currency_id').notNullable();
    t.text('sender').notNullable();
    t.text('subject').notNullable();
    t.text('payer_ref').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['account_id', 'key']);
    t.index(['account_id', 'amount']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('bank_reversal_pending');
}
