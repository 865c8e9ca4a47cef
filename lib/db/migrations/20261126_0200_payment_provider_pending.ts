import type { Knex } from 'knex';

/**
 * Payments a payment provider listed as pending (issue 29): PayPal lists a payment under the
 * date it was made, and a pending one (an eCheck, a payment under review) becomes completed days
 * later under that same date, long behind the sync's look-back. Each pending payment is kept
 * here, per provider account, and asked for by its transaction id on every sync until it
 * completes (then it is stored as a bank record), fails, or is given up (lib/bank/provider).
 * transaction_date is the provider's date of the payment: the window it is asked for in and the
 * start of the time it is watched.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('payment_provider_pending', (t) => {
    t.integer('account_id').notNullable().references('account.id').onDelete('CASCADE');
    t.integer('payment_provider_account_id').notNullable().references('payment_provider_account.id').onDelete('CASCADE');
    t.text('transaction_id').notNullable();
    t.timestamp('transaction_date', { useTz: true }).notNullable();
    // What the seller is told of a payment given up: amount, currency and payer as first listed.
    t.decimal('amount', 14, 2).notNullable();
    t.text('currency_id').notNullable();
    t.text('sender').notNullable().defaultTo('');
    t.timestamp('first_seen_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('checked_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['payment_provider_account_id', 'transaction_id']);
    // A sync asks for the account's pending payments least recently checked first.
    t.index(['payment_provider_account_id', 'checked_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('payment_provider_pending');
}
