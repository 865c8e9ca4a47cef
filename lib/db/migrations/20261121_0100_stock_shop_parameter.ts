import type { Knex } from 'knex';

/** Shop parameters (Shop_parameter_type: tax_class, manufacturer), each portal account its own. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('stock_shop_parameter', (t) => {
    t.increments('id').primary();
    t.integer('account_id').notNullable().references('account.id').onDelete('CASCADE');
    t.integer('portal_account_id').notNullable().references('portal_account.id').onDelete('CASCADE');
    t.text('type').notNullable();
    t.text('name').notNullable().defaultTo('');
    t.text('additional').notNullable().defaultTo('');
    t.index(['account_id', 'type', 'id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('stock_shop_parameter');
}
