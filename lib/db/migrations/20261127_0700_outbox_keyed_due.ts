import type { Knex } from 'knex';

/**
 * Outbox rows a worker schedules for later (lib/queue `addKeyedToOutbox`; first the Amazon
 * listing check): `job_key` is the BullMQ job id the row is relayed under, unique per queue, so
 * a retried job that schedules the same follow-up adds no second row (BullMQ's own id check is
 * gone with a Redis that lost its data); `due_at` is when the job may run, from which the relay
 * and the repair sweep derive the delay left, so a job re-added after a Redis loss keeps its
 * time. Nullable columns without default (no table rewrite); the index covers keyed rows only.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE outbox ADD COLUMN job_key text, ADD COLUMN due_at timestamptz');
  await knex.raw('CREATE UNIQUE INDEX outbox_job_key ON outbox (queue, job_key) WHERE job_key IS NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS outbox_job_key');
  await knex.raw('ALTER TABLE outbox DROP COLUMN IF EXISTS job_key, DROP COLUMN IF EXISTS due_at');
}
