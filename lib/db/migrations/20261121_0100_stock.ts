import type { Knex } from 'knex';

/**
 * Stock items (issue 3): the item with its searchable fields as columns and its large nested
 * groups (portal field groups, pictures, cia settings ...) as JSONB; set connections; the
 * movement history; descriptions; own categories.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE EXTENSION IF NOT EXISTS pg_trgm');

  await knex.schema.createTable('stock', (t) => {
    t.increments('id').primary();
    t.integer('account_id').notNullable().references('account.id').onDelete('CASCADE');
    t.text('name').notNullable().defaultTo('');
    t.text('sku');
    t.text('barcode');
    t.text('mpn');
    t.text('manufacturer');
    // The seller SKU at market_d (MKTDSKU_ identifiers), copied from data.market_d.sku on write.
    t.text('market_d_sku');
    t.text('folder').notNullable().defaultTo('/');
    t.decimal('price', 14, 2);
    t.integer('condition_id');
    t.integer('quantity').notNullable().defaultTo(0);
    t.integer('quantity_auction_a').notNullable().defaultTo(0);
    t.integer('quantity_reserved').notNullable().defaultTo(0);
    t.integer('quantity_reserved_2').notNullable().defaultTo(0);
    // Maintained by lib/stock on every write (own quantities, or derived from set subs), so the
    // API can filter and sort on it with an index.
    t.integer('quantity_available').notNullable().defaultTo(0);
    t.text('variation_type').notNullable().defaultTo('none');
    t.integer('variation_parent_id').references('stock.id').onDelete('SET NULL');
    t.text('set_type').notNullable().defaultTo('none');
    t.jsonb('data').notNullable().defaultTo('{}');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('modified_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('CREATE INDEX stock_account_id ON stock (account_id, id)');
  await knex.raw('CREATE INDEX stock_account_sku ON stock (account_id, sku)');
  await knex.raw('CREATE INDEX stock_account_barcode ON stock (account_id, barcode)');
  await knex.raw('CREATE INDEX stock_account_mpn ON stock (account_id, mpn)');
  await knex.raw('CREATE INDEX stock_account_market_d_sku ON stock (account_id, market_d_sku)');
  await knex.raw('CREATE INDEX stock_account_folder ON stock (account_id, folder)');
  await knex.raw('CREATE INDEX stock_account_quantity ON stock (account_id, quantity)');
  await knex.raw('CREATE INDEX stock_account_available ON stock (account_id, quantity_available)');
  await knex.raw('CREATE INDEX stock_account_modified ON stock (account_id, modified_at)');
  await knex.raw('CREATE INDEX stock_variation_parent ON stock (variation_parent_id) WHERE variation_parent_id IS NOT NULL');
  await knex.raw('CREATE INDEX stock_name_trgm ON stock USING gin (name gin_trgm_ops)');
  await knex.raw('CREATE INDEX stock_sku_trgm ON stock USING gin (sku gin_trgm_ops)');

  await knex.raw('CREATE SEQUENCE stock_lister_id_seq');

  await knex.schema.createTable('stock_set', (t) => {
    t.integer('account_id').notNullable().references('account.id').onDelete('CASCADE');
    t.integer('main_id').notNullable().references('stock.id').onDelete('CASCADE');
    t.integer('sub_id').notNullable().references('stock.id').onDelete('CASCADE');
    t.integer('quantity').notNullable();
    t.primary(['main_id', 'sub_id']);
    t.index(['sub_id']);
  });

  // No FK to stock: the movements of a deleted item stay readable.
  await knex.schema.createTable('stock_history', (t) => {
    t.bigIncrements('id').primary();
    t.integer('account_id').notNullable().references('account.id').onDelete('CASCADE');
    t.integer('stock_id').notNullable();
    t.integer('person_id');
    t.timestamp('movement_date', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.integer('quantity_old').notNullable();
    t.integer('quantity_difference').notNullable();
    t.integer('quantity_new').notNullable();
    t.text('order_id');
    t.text('title').notNullable();
    t.boolean('is_error').notNullable().defaultTo(false);
  });
  await knex.raw('CREATE INDEX stock_history_account ON stock_history (account_id, id)');
  await knex.raw('CREATE INDEX stock_history_item ON stock_history (account_id, stock_id, id)');

  await knex.schema.createTable('stock_description', (t) => {
    t.increments('id').primary();
    t.integer('account_id').notNullable().references('account.id').onDelete('CASCADE');
    t.integer('stock_id').notNullable().references('stock.id').onDelete('CASCADE');
    t.text('name').notNullable().defaultTo('');
    t.text('icon_id');
    t.string('language_iso2', 2);
    t.text('long');
    t.text('short');
    t.text('alternative_title');
    t.text('meta_keywords');
    t.text('meta_description');
    t.index(['account_id', 'stock_id', 'id']);
  });

  await knex.schema.createTable('stock_category', (t) => {
    t.bigIncrements('internal_id').primary();
    t.integer('account_id').notNullable().references('account.id').onDelete('CASCADE');
    t.text('platform').notNullable();
    t.integer('portal_account_id').references('portal_account.id').onDelete('CASCADE');
    t.text('id').notNullable();
    t.text('name').notNullable().defaultTo('');
    t.text('parent_id').notNullable().defaultTo('0');
  });
  await knex.raw('CREATE UNIQUE INDEX stock_category_key ON stock_category (account_id, platform, COALESCE(portal_account_id, 0), id)');
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['stock_category', 'stock_description', 'stock_history', 'stock_set']) await knex.schema.dropTableIfExists(table);
  await knex.raw('DROP SEQUENCE IF EXISTS stock_lister_id_seq');
  await knex.schema.dropTableIfExists('stock');
}
