import type { Knex } from 'knex';

/** Orders (Order_type), their lines and history, customers (Customer_type) and per-account counters. */
export async function up(knex: Knex): Promise<void> {
  // One row per (account, kind): order numbers, invoice numbers and customer numbers are taken
  // with an UPSERT ... RETURNING, whose row lock makes concurrent creates wait instead of sharing a number.
  await knex.schema.createTable('order_counter', (t) => {
    t.integer('account_id').notNullable().references('account.id').onDelete('CASCADE');
    t.text('kind').notNullable();
    t.bigInteger('last_value').notNullable();
    t.primary(['account_id', 'kind']);
  });

  await knex.schema.createTable('customer', (t) => {
    t.bigIncrements('internal_id').primary();
    t.integer('account_id').notNullable().references('account.id').onDelete('CASCADE');
    // Customer_type.id: the changeable customer number (Order_type customer.id is a string).
    t.text('number').notNullable();
    t.text('username');
    t.text('comment');
    t.text('email');
    t.text('vat_id');
    t.text('phone_1');
    t.text('phone_2');
    t.text('fax');
    t.text('address_name');
    t.jsonb('address');
    t.specificType('shop_username', 'text[]').notNullable().defaultTo('{}');
    t.smallint('group_id').notNullable().defaultTo(0);
    t.string('currency_id', 3).notNullable().defaultTo('EUR');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['account_id', 'number']);
  });
  await knex.raw('CREATE INDEX customer_account_email ON customer (account_id, lower(email))');

  await knex.schema.createTable('sales_order', (t) => {
    t.bigIncrements('internal_id').primary();
    t.integer('account_id').notNullable().references('account.id').onDelete('CASCADE');
    t.bigInteger('number').notNullable();
    t.text('id').notNullable();
    t.integer('portal_account_id').references('portal_account.id').onDelete('SET NULL');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('order_date', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.bigInteger('invoice_number');
    t.date('bill_date');
    t.text('bill_url');
    t.text('platform');
    t.text('infos');
    t.text('pack_infos');
    t.text('hidden_infos');
    t.text('payment_method_id').references('payment_method.id');
    t.decimal('invoice_amount', 14, 2).notNullable().defaultTo(0);
    t.decimal('paid_amount', 14, 2);
    t.string('currency_id', 3).notNullable().defaultTo('EUR');
    t.bigInteger('customer_internal_id').references('customer.internal_id').onDelete('SET NULL');
    t.text('customer_number');
    t.text('customer_username');
    t.text('customer_email');
    // The rest of the order's customer snapshot (comment, vat_id, phones, fax, address).
    t.jsonb('customer').notNullable().defaultTo('{}');
    t.decimal('shipping_fee', 14, 2);
    // The rest of shipping (date, deliverer, code, method, address, platform_status, market_d_fba, link).
    t.jsonb('shipping').notNullable().defaultTo('{}');
    t.boolean('is_initial_contact').notNullable().defaultTo(false);
    t.timestamp('initial_contact_date', { useTz: true });
    t.boolean('is_checkout').notNullable().defaultTo(false);
    t.boolean('is_paid').notNullable().defaultTo(false);
    t.timestamp('paid_date', { useTz: true });
    t.boolean('is_packed').notNullable().defaultTo(false);
    t.timestamp('packed_date', { useTz: true });
    t.boolean('is_shipped').notNullable().defaultTo(false);
    t.timestamp('shipped_date', { useTz: true });
    t.boolean('is_arrived').notNullable().defaultTo(false);
    t.timestamp('arrived_date', { useTz: true });
    t.boolean('is_cancelled').notNullable().defaultTo(false);
    t.timestamp('cancelled_date', { useTz: true });
    t.boolean('is_parked').notNullable().defaultTo(false);
    t.text('payment_provider_transaction_id');
    t.text('external_order_id');
    t.jsonb('add_field');
    t.text('credit_main_id');
    // The lines' transaction ids, kept on the order so the transaction_id filter walks one GIN index.
    t.specificType('transaction_ids', 'text[]').notNullable().defaultTo('{}');
    t.unique(['account_id', 'number']);
    t.unique(['account_id', 'id']);
    t.index(['customer_internal_id']);
    t.index(['account_id', 'invoice_number']);
    t.index(['account_id', 'credit_main_id']);
    t.index(['account_id', 'customer_number']);
    t.index(['account_id', 'customer_email']);
  });
  // Text filters with ~ (ILIKE with wildcards) stay fast on large tables through trigram indexes.
  await knex.raw('CREATE INDEX sales_order_customer_email_trgm ON sales_order USING gin (customer_email gin_trgm_ops)');
  await knex.raw('CREATE INDEX sales_order_customer_username_trgm ON sales_order USING gin (customer_username gin_trgm_ops)');
  await knex.raw('CREATE INDEX sales_order_transaction_ids ON sales_order USING gin (transaction_ids)');

  await knex.schema.createTable('sales_order_line', (t) => {
    t.bigInteger('order_internal_id').notNullable().references('sales_order.internal_id').onDelete('CASCADE');
    t.integer('position').notNullable();
    t.text('name');
    t.text('sku');
    t.integer('quantity').notNullable().defaultTo(0);
    t.decimal('price', 14, 2);
    t.decimal('tax', 6, 2);
    t.text('transaction_id');
    t.text('stock_align_id');
    // The stock item the line is linked to and how much of it the order holds out of stock now.
    t.integer('stock_id');
    t.integer('stock_taken').notNullable().defaultTo(0);
    t.primary(['order_internal_id', 'position']);
  });

  await knex.schema.createTable('sales_order_history', (t) => {
    t.bigIncrements('internal_id').primary();
    t.bigInteger('order_internal_id').notNullable().references('sales_order.internal_id').onDelete('CASCADE');
    t.text('text').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['order_internal_id', 'internal_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['sales_order_history', 'sales_order_line', 'sales_order', 'customer', 'order_counter']) {
    await knex.schema.dropTableIfExists(table);
  }
}
