import type { Knex } from 'knex';

/**
 * A portal account's order fetch cut short at its page cap (lib/order-import): where the next
 * fetch goes on (the channel's cursor) and the since and start of the fetch that began the chain,
 * so the watermark moves to that start only once every page is in. Nullable without default: no
 * table rewrite.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    'ALTER TABLE portal_account ADD COLUMN orders_fetch_cursor text, ADD COLUMN orders_fetch_since timestamptz, ADD COLUMN orders_fetch_started timestamptz',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(
    'ALTER TABLE portal_account DROP COLUMN IF EXISTS orders_fetch_cursor, DROP COLUMN IF EXISTS orders_fetch_since, DROP COLUMN IF EXISTS orders_fetch_started',
  );
}
