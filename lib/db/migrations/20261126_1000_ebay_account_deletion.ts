import type { Knex } from 'knex';

/**
 * Issue 30 point 3: each eBay Marketplace Account Deletion notification acted on, by eBay's
 * notification id (a redelivery is recognised), with what was done and when; no personal data
 * (neither the username nor the user id is kept: the record must not re-identify the person).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('ebay_account_deletion', (t) => {
    t.text('notification_id').primary();
    t.timestamp('received_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('finished_at', { useTz: true });
    t.integer('accounts').notNullable().defaultTo(0);
    t.integer('orders').notNullable().defaultTo(0);
    t.integer('customers').notNullable().defaultTo(0);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('ebay_account_deletion');
}
