import type { Knex } from 'knex';

/**
 * The relay is woken by a trigger instead of a pg_notify call after each outbox insert: no
 * extra round trip for the writer, and one notification per transaction however many inserts
 * it makes (PostgreSQL delivers identical notifications of a transaction once, at commit).
 * The channel is lib/queue/outbox.ts's outboxChannel.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE FUNCTION outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM pg_notify('kontor_outbox', ''); RETURN NULL; END $$`);
  await knex.raw('CREATE TRIGGER outbox_notify AFTER INSERT ON outbox FOR EACH STATEMENT EXECUTE FUNCTION outbox_notify()');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER IF EXISTS outbox_notify ON outbox');
  await knex.raw('DROP FUNCTION IF EXISTS outbox_notify()');
}
