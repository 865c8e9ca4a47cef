import type { Knex } from 'knex';

/**
 * A variation main with variants offers nothing of its own (lib/cia README, "A variation main
 * offers nothing"; document 2, Stock_cia_portal_type on a variant main item: "invalid; variant
 * values count"). The states such mains hold from when they offered their variants' sum under
 * their own SKU go at once, so neither the push sweep nor a reconcile sends them to a channel
 * again (a main's adjustment removes any it gets later). down: nothing to bring back; the old
 * code derives them again at the next reconcile.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `DELETE FROM cia_portal_state s USING stock m
     WHERE m.account_id = s.account_id AND m.id = s.stock_id AND m.variation_type = 'main'
       AND EXISTS (SELECT 1 FROM stock v WHERE v.account_id = m.account_id AND v.variation_parent_id = m.id)`,
  );
}

export async function down(): Promise<void> {}
