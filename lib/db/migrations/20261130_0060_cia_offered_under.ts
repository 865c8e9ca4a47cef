import type { Knex } from 'knex';

/**
 * What each CIA state's item is offered under at its portal (lib/cia README "A deleted item's
 * offers go to 0"): {sku, group}, the item's SKU and the fields of its field group entry there
 * that a quantity push reads (lib/portals quantityPushFields, frozen here as they are today). A
 * deleted item's 0 is pushed under it: read from the item's row, which is gone, the SKU was null
 * and every adapter fell back to the stock id, so a Shopify variant or an eBay listing made
 * outside Kontor kept offering the deleted item's last quantity. Filled here for the items that
 * still exist; a state of an item deleted before keeps null (its SKU is gone with the row).
 * Nullable without default: no table rewrite.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE cia_portal_state ADD COLUMN offered_under jsonb');
  await knex.raw(
    `UPDATE cia_portal_state s
     SET offered_under = (
       SELECT jsonb_build_object('sku', st.sku, 'group', coalesce((
         SELECT jsonb_object_agg(f.key, f.value)
         FROM jsonb_each(CASE WHEN jsonb_typeof(x.g) = 'object' THEN x.g WHEN jsonb_typeof(x.g -> 0) = 'object' THEN x.g -> 0 ELSE '{}'::jsonb END) f
         WHERE f.key = ANY(ARRAY['sku', 'lister_id', 'is_fba', 'category_id', 'delivery_time'])), '{}'::jsonb))
       FROM (SELECT st.data -> s.portal AS g) x)
     FROM stock st
     WHERE st.account_id = s.account_id AND st.id = s.stock_id`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE cia_portal_state DROP COLUMN IF EXISTS offered_under');
}
