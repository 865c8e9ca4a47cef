import type { Knex } from 'knex';

/**
 * Idempotency-Key (issue 16): one row per account and key, claimed when the first request starts
 * (locked_until), holding its answer once it is known (status, headers, envelope), kept until
 * expires_at. In PostgreSQL, not Redis: a Redis restarted without persistence would forget the
 * keys and let a retry create the order twice.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('idempotency_key', (t) => {
    t.integer('account_id').notNullable().references('account.id').onDelete('CASCADE');
    t.text('key').notNullable();
    // sha256 of the canonical request (method, version, path, parameters, body).
    t.text('fingerprint').notNullable();
    // The attempt that holds the key: only it may store the answer or free the key.
    t.uuid('owner').notNullable();
    t.text('request_id').notNullable();
    // Set while the first request runs; a claim older than this may be taken over (its process died).
    t.timestamp('locked_until', { useTz: true });
    t.integer('status');
    // json, not jsonb: the replay keeps the first answer's field order (XML element order too).
    t.json('headers');
    t.json('envelope');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.primary(['account_id', 'key']);
    t.index(['account_id', 'expires_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('idempotency_key');
}
