import type { Knex } from 'knex';

/** Seller accounts, their portal accounts, OAuth clients and tokens, and reference tables. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('account', (t) => {
    t.increments('id').primary();
    t.text('login').notNullable();
    t.text('password_hash').notNullable();
    t.text('email');
    t.jsonb('address');
    t.jsonb('settings').notNullable().defaultTo('{}');
    t.boolean('is_banking_active').notNullable().defaultTo(false);
    // Document 2: quantity_available classically also subtracts the auction-listed quantity;
    // support can switch that off per account.
    t.boolean('is_auction_a_quantity_subtracted').notNullable().defaultTo(true);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('CREATE UNIQUE INDEX account_login_unique ON account (lower(login))');

  await knex.schema.createTable('portal_account', (t) => {
    t.increments('id').primary();
    t.integer('account_id').notNullable().references('account.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('platform');
    t.boolean('is_default').notNullable().defaultTo(false);
    t.text('base_url');
    t.jsonb('credentials').notNullable().defaultTo('{}');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['account_id', 'id']);
  });
  await knex.raw('CREATE UNIQUE INDEX portal_account_one_default ON portal_account (account_id) WHERE is_default');

  await knex.schema.createTable('oauth_client', (t) => {
    t.increments('id').primary();
    t.text('client_id').notNullable().unique();
    t.text('secret_hash').notNullable();
    t.text('name').notNullable();
    t.text('redirect_uri').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  // Tokens are stored only as SHA-256 hashes: a database leak yields no usable token.
  await knex.schema.createTable('access_token', (t) => {
    t.text('token_hash').primary();
    t.integer('account_id').notNullable().references('account.id').onDelete('CASCADE');
    t.integer('oauth_client_id').references('oauth_client.id').onDelete('CASCADE');
    t.integer('portal_account_id').references('portal_account.id').onDelete('SET NULL');
    t.specificType('scope', 'text[]').notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['expires_at']);
  });

  await knex.schema.createTable('refresh_token', (t) => {
    t.text('token_hash').primary();
    t.integer('account_id').notNullable().references('account.id').onDelete('CASCADE');
    t.integer('oauth_client_id').notNullable().references('oauth_client.id').onDelete('CASCADE');
    t.integer('portal_account_id').references('portal_account.id').onDelete('SET NULL');
    t.specificType('scope', 'text[]').notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('authorization_code', (t) => {
    t.text('code_hash').primary();
    t.integer('account_id').notNullable().references('account.id').onDelete('CASCADE');
    t.integer('oauth_client_id').notNullable().references('oauth_client.id').onDelete('CASCADE');
    t.integer('portal_account_id').references('portal_account.id').onDelete('SET NULL');
    t.specificType('scope', 'text[]').notNullable();
    t.text('redirect_uri').notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
  });

  await knex.schema.createTable('currency', (t) => {
    t.integer('internal_id').primary();
    t.string('id', 3).notNullable().unique();
    t.text('name').notNullable();
  });

  await knex.schema.createTable('country', (t) => {
    t.string('iso2', 2).primary();
    t.string('iso3', 3).notNullable().unique();
    t.specificType('name_de', 'text[]').notNullable();
    t.specificType('name_en', 'text[]').notNullable();
    t.specificType('name_other', 'text[]').notNullable();
    t.boolean('is_europe').notNullable();
    t.boolean('is_eu').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['country', 'currency', 'authorization_code', 'refresh_token', 'access_token', 'oauth_client', 'portal_account', 'account']) {
    await knex.schema.dropTableIfExists(table);
  }
}
