import type { Knex } from 'knex';

/**
 * When `portal.push_again` took an item of portal_push_unknown (lib/portal-offer README "A push
 * whose outcome is unknown"): the row stays as the mark of that episode instead of being deleted,
 * so that a push of the item that fails again before it is acknowledged (the push again's own,
 * against a portal still down) does not mark it again, and a down portal is not called once more
 * at every deadline. Null: marked, due at `due_at`, not taken yet.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('portal_push_unknown', (t) => {
    t.timestamp('pushed_again_at', { useTz: true });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('portal_push_unknown', (t) => {
    t.dropColumn('pushed_again_at');
  });
}
