import type { Knex } from 'knex';

/** Payment_method_type reference table (rows come from lib/reference/seed.ts). */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('payment_method', (t) => {
    t.text('id').primary();
    t.text('name').notNullable();
    t.boolean('is_prepaid').notNullable();
    t.text('placeholder').notNullable();
    t.integer('sort').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('payment_method');
}
