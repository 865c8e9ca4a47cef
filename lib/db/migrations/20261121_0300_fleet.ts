import type { Knex } from 'knex';

/**
 * The worker fleet: final job states on the outbox row (GET job/{job_id}/ survives a Redis
 * restart and the retention of BullMQ), the per-portal quantity state of CIA, and the listings
 * portal uploads created.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('outbox', (t) => {
    t.text('state');
    t.jsonb('result');
    t.text('error');
    t.integer('attempts_made');
    t.timestamp('finished_at', { useTz: true });
  });
  // The relay's repair sweep looks for rows relayed but never finished (a Redis that lost them).
  await knex.raw('CREATE INDEX outbox_unfinished ON outbox (relayed_at) WHERE state IS NULL AND relayed_at IS NOT NULL');
  await knex.raw('CREATE INDEX outbox_finished ON outbox (finished_at) WHERE finished_at IS NOT NULL');
  await knex.raw('CREATE INDEX outbox_account_job ON outbox (account_id, job_id)');

  // One row per (item, portal, portal account): what CIA wants the portal to show and what the
  // portal last acknowledged. Sequence numbers order the pushes: an older quantity is never
  // acknowledged over a newer one.
  await knex.schema.createTable('cia_portal_state', (t) => {
    t.bigIncrements('id').primary();
    t.integer('account_id').notNullable().references('account.id').onDelete('CASCADE');
    t.integer('stock_id').notNullable();
    t.text('portal').notNullable();
    t.integer('portal_account_id').notNullable().references('portal_account.id').onDelete('CASCADE');
    t.integer('desired_quantity').notNullable();
    t.bigInteger('desired_seq').notNullable().defaultTo(1);
    t.integer('acked_quantity');
    t.bigInteger('acked_seq').notNullable().defaultTo(0);
    t.timestamp('acked_at', { useTz: true });
    t.text('last_error');
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['account_id', 'stock_id', 'portal', 'portal_account_id']);
  });

  // Offers created at portals by portal_upload (list), with the portal's own item id.
  await knex.schema.createTable('portal_listing', (t) => {
    t.bigIncrements('id').primary();
    t.integer('account_id').notNullable().references('account.id').onDelete('CASCADE');
    t.integer('stock_id').notNullable();
    t.text('portal').notNullable();
    t.integer('portal_account_id').notNullable().references('portal_account.id').onDelete('CASCADE');
    t.text('lister_id').notNullable().defaultTo('');
    t.text('portal_item_id');
    t.text('status').notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['account_id', 'stock_id', 'portal', 'portal_account_id', 'lister_id']);
    t.index(['account_id', 'portal_item_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('portal_listing');
  await knex.schema.dropTableIfExists('cia_portal_state');
  await knex.raw('DROP INDEX IF EXISTS outbox_unfinished');
  await knex.raw('DROP INDEX IF EXISTS outbox_finished');
  await knex.raw('DROP INDEX IF EXISTS outbox_account_job');
  await knex.schema.alterTable('outbox', (t) => {
    for (const column of ['state', 'result', 'error', 'attempts_made', 'finished_at']) t.dropColumn(column);
  });
}
