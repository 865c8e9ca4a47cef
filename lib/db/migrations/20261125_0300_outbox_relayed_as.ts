import type { Knex } from 'knex';

/**
 * The BullMQ job that carries an outbox row when it is not a job of its own: several cia.adjust
 * rows of one account relayed together as one cia.adjust_many (lib/queue/merged-jobs.ts). GET
 * job/{job_id}/ and the relay's repair sweep look the row's job up under this id. Null: the
 * job's id is the row's job_id. A nullable column without default: no table rewrite.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE outbox ADD COLUMN relayed_as text');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE outbox DROP COLUMN IF EXISTS relayed_as');
}
