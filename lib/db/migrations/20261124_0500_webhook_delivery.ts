import type { Knex } from 'knex';

/**
 * Durable webhook deliveries (issue 16.6): one row per notification (its id is the event.run
 * job id, the X-Kontor-Delivery header) that the events workers' sweep retries from Postgres,
 * so a delivery outlives worker and Redis restarts; one row per attempt, the log the seller
 * reads; and on the handler when it started failing and when it was paused.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhook_delivery', (t) => {
    t.uuid('id').primary();
    // Key of the log's paging (min_id) in creation order; the uuid says nothing of order.
    t.specificType('seq', 'bigserial').notNullable().unique();
    t.integer('account_id').notNullable().references('account.id').onDelete('CASCADE');
    t.integer('handler_id').notNullable().references('event_handler.id').onDelete('CASCADE');
    t.text('event_id').notNullable();
    t.text('section').notNullable();
    t.text('type').notNullable();
    // The JSON body as first sent: every attempt and redelivery sends the same bytes.
    t.text('body').notNullable();
    t.text('request_id');
    // pending (an attempt is due at next_attempt_at), delivered, failed (for good), held (handler paused).
    t.text('state').notNullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.timestamp('next_attempt_at', { useTz: true });
    // Retries stop at this time (WEBHOOK_RETRY_HOURS after the first attempt, or after a redelivery or resume).
    t.timestamp('retry_until', { useTz: true });
    // The last backoff delay (decorrelated jitter draws the next from it).
    t.integer('retry_delay_ms');
    // Why the next attempt is made: event (first), retry, resume (handler unpaused).
    t.text('next_trigger').notNullable().defaultTo('event');
    t.integer('last_status');
    t.text('last_error');
    t.timestamp('delivered_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['handler_id', 'seq']);
    t.index(['created_at']);
  });
  await knex.raw("CREATE INDEX webhook_delivery_due ON webhook_delivery (next_attempt_at) WHERE state = 'pending'");
  await knex.schema.createTable('webhook_attempt', (t) => {
    t.bigIncrements('id').primary();
    t.uuid('delivery_id').notNullable().references('webhook_delivery.id').onDelete('CASCADE');
    t.integer('attempt').notNullable();
    // event (first), retry, redeliver (on request), resume (handler unpaused).
    t.text('trigger').notNullable();
    t.timestamp('started_at', { useTz: true }).notNullable();
    t.integer('duration_ms').notNullable();
    t.integer('status');
    // timeout, dns, connection, tls, http, blocked_host.
    t.text('error');
    t.text('error_description');
    // delivered, retry, failed, held.
    t.text('outcome').notNullable();
    t.timestamp('next_attempt_at', { useTz: true });
    t.index(['delivery_id', 'attempt']);
  });
  await knex.schema.alterTable('event_handler', (t) => {
    // Start of the current run of failed attempts (null after a success): the pause clock.
    t.timestamp('failing_since', { useTz: true });
    t.timestamp('paused_at', { useTz: true });
    t.text('pause_reason');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('webhook_attempt');
  await knex.schema.dropTableIfExists('webhook_delivery');
  await knex.schema.alterTable('event_handler', (t) => {
    t.dropColumn('failing_since');
    t.dropColumn('paused_at');
    t.dropColumn('pause_reason');
  });
}
