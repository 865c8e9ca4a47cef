import type { Knex } from 'knex';

/**
 * Bank transfers and payment-provider payments (document 1, Bank; document 2, Bank_type) and the
 * per-account counter of their ids (<number>_<YYYY>_<MM>, like order ids).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('bank_counter', (t) => {
    t.integer('account_id').primary().references('account.id').onDelete('CASCADE');
    t.bigInteger('last_value').notNullable();
  });

  await knex.schema.createTable('bank', (t) => {
    t.bigIncrements('internal_id').primary();
    t.integer('account_id').notNullable().references('account.id').onDelete('CASCADE');
    t.bigInteger('number').notNullable();
    t.text('id').notNullable();
    t.text('type').notNullable();
    // Bank_type.date: the read-in time.
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('transfer_date', { useTz: true }).notNullable();
    t.text('sender').notNullable().defaultTo('');
    t.text('subject').notNullable().defaultTo('');
    t.decimal('amount', 14, 2).notNullable();
    t.text('order_id');
    t.text('order_no');
    t.text('status');
    t.unique(['account_id', 'number']);
    t.unique(['account_id', 'id']);
    t.index(['account_id', 'type', 'created_at']);
    t.index(['account_id', 'type', 'transfer_date']);
  });
  await knex.raw("ALTER TABLE bank ADD CONSTRAINT bank_type_check CHECK (type IN ('bank', 'payment_provider'))");
  await knex.raw('ALTER TABLE bank ADD CONSTRAINT bank_order_check CHECK (order_id IS NULL OR order_no IS NULL)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('bank');
  await knex.schema.dropTableIfExists('bank_counter');
}
