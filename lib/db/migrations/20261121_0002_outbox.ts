import type { Knex } from 'knex';

/**
 * The transactional outbox: side effects of a request are rows written in the request's own
 * transaction; the relay moves them to BullMQ with the row id as job id.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('outbox', (t) => {
    t.bigIncrements('id').primary();
    // The job id API clients see (GET job/{job_id}/): unguessable, and BullMQ-safe (no ':', not an integer).
    t.uuid('job_id').notNullable().unique().defaultTo(knex.raw('gen_random_uuid()'));
    t.integer('account_id').notNullable().references('account.id').onDelete('CASCADE');
    t.text('queue').notNullable();
    t.text('job_name').notNullable();
    t.jsonb('payload').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('relayed_at', { useTz: true });
  });
  await knex.raw('CREATE INDEX outbox_pending ON outbox (id) WHERE relayed_at IS NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('outbox');
}
