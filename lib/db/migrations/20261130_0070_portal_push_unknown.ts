import type { Knex } from 'knex';

/**
 * Items of a push target whose last quantity call had an unknown outcome (no answer in time, a
 * connection reset, a 5xx: lib/portal-offer README "A push whose outcome is unknown"), with the
 * time after which that call can no longer land at the channel. A delayed job takes them then and
 * has their latest quantity pushed once more, even if a newer push was acknowledged meanwhile:
 * an acknowledgement does not clear them. Written only when a push fails, never on the normal
 * path; one row per item and target (a later failure moves its time on).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('portal_push_unknown', (t) => {
    t.integer('account_id').notNullable().references('account.id').onDelete('CASCADE');
    t.text('portal').notNullable();
    t.integer('portal_account_id').notNullable().references('portal_account.id').onDelete('CASCADE');
    t.integer('stock_id').notNullable();
    t.timestamp('due_at', { useTz: true }).notNullable();
    t.primary(['account_id', 'portal', 'portal_account_id', 'stock_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('portal_push_unknown');
}
