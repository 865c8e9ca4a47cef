import type { Knex } from 'knex';

/**
 * Reference data of issue 6 (stock conditions, description icons, global categories, first-name
 * statistics; rows come from lib/reference/seed.ts) and the administration tables: persons,
 * shipping groups, tasks and event handlers.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('stock_condition', (t) => {
    t.integer('id').primary();
    t.text('description').notNullable();
  });

  await knex.schema.createTable('description_icon', (t) => {
    t.text('id').primary();
    t.text('description').notNullable();
    t.integer('sort').notNullable();
  });

  await knex.schema.createTable('global_category', (t) => {
    t.text('platform').notNullable();
    t.text('id').notNullable();
    t.text('parent_id').notNullable();
    t.text('name').notNullable();
    t.primary(['platform', 'id']);
    t.index(['platform', 'parent_id']);
  });

  // Birth counts per first name and country ('' = worldwide); gender and probability derive from them.
  await knex.schema.createTable('first_name_gender', (t) => {
    t.text('name_key').notNullable();
    t.string('country_iso2', 2).notNullable();
    t.text('name').notNullable();
    t.integer('female').notNullable();
    t.integer('male').notNullable();
    t.primary(['name_key', 'country_iso2']);
  });

  await knex.schema.createTable('person', (t) => {
    t.increments('id').primary();
    t.integer('account_id').notNullable().references('account.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['account_id', 'id']);
  });

  await knex.schema.createTable('shipping_group', (t) => {
    t.increments('id').primary();
    t.integer('account_id').notNullable().references('account.id').onDelete('CASCADE');
    // Document 2: 0 = all portal accounts; stored as NULL.
    t.integer('portal_account_id').references('portal_account.id').onDelete('CASCADE');
    t.string('name', 255).notNullable();
    t.integer('type_id').notNullable().defaultTo(0);
    t.jsonb('ships_to').notNullable().defaultTo('{}');
    t.decimal('price_first', 8, 2).notNullable().defaultTo(0);
    t.decimal('price_more', 8, 2).notNullable().defaultTo(0);
    t.decimal('cash_surcharge', 8, 2).notNullable().defaultTo(0);
    t.string('currency', 3).notNullable().defaultTo('EUR');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['account_id', 'id']);
  });

  await knex.schema.createTable('task', (t) => {
    t.increments('id').primary();
    t.integer('account_id').notNullable().references('account.id').onDelete('CASCADE');
    t.text('reference_section');
    t.text('reference_id');
    t.text('reference_platform');
    t.text('reference_stock_id');
    t.integer('person_id').references('person.id').onDelete('SET NULL');
    t.text('title').notNullable().defaultTo('');
    t.text('text').notNullable().defaultTo('');
    t.timestamp('appointment_date', { useTz: true });
    t.text('priority').notNullable().defaultTo('normal');
    t.boolean('is_completed').notNullable().defaultTo(false);
    // The event.run job that created the task (event action task): a re-run creates none twice.
    t.text('source_job_id').unique();
    t.timestamp('modified_date', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['account_id', 'id']);
  });
  await knex.raw('CREATE INDEX task_open ON task (account_id, id) WHERE NOT is_completed');

  await knex.schema.createTable('event_handler', (t) => {
    t.increments('id').primary();
    t.integer('account_id').notNullable().references('account.id').onDelete('CASCADE');
    t.text('section').notNullable();
    t.text('type').notNullable();
    t.text('action').notNullable();
    t.jsonb('required').notNullable().defaultTo('{}');
    t.jsonb('condition').notNullable().defaultTo('[]');
    t.boolean('is_active').notNullable().defaultTo(true);
    // HMAC-SHA256 key of notification deliveries; must be readable to sign, so not hashed.
    t.text('signing_secret').notNullable();
    t.timestamp('modified', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['account_id', 'section', 'type']);
  });

  // One row per (event, handler): the event.run outbox job of that pair, so an event.emit job
  // that runs again after a crash queues no handler twice.
  await knex.schema.createTable('event_run', (t) => {
    t.text('event_id').notNullable();
    t.integer('handler_id').notNullable().references('event_handler.id').onDelete('CASCADE');
    t.uuid('job_id').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['event_id', 'handler_id']);
    t.index(['created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['event_run', 'event_handler', 'task', 'shipping_group', 'person', 'first_name_gender', 'global_category', 'description_icon', 'stock_condition']) {
    await knex.schema.dropTableIfExists(table);
  }
}
