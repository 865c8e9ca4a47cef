/**
 * What portal calls and CIA read of stock items, kept here because lib/stock owns the table
 * (scripts/check-tables.ts): an item as a listing, its listers, its field group of a portal, and
 * the items the reconcile walks. Scoped by account, but the reconcile's walk over all accounts.
 */
import type { Knex } from 'knex';
import { fieldGroupEntry } from '../portals';
import type { PortalId, ListingItem } from '../portals';

interface StockRow {
  id: number;
  name: string;
  sku: string | null;
  barcode: string | null;
  price: string | null;
  quantity_available: number;
  grp: unknown;
}

export const stockPortalRepository = {
  /** The item with its field group of the portal; for lister groups the entry of lister_id (or the first). */
  async listingItem(knex: Knex, accountId: number, stockId: number, portal: PortalId, listerId?: string): Promise<ListingItem | undefined> {
    const row = (await knex('stock')
      .select('id', 'name', 'sku', 'barcode', 'price', 'quantity_available', knex.raw('data -> ? AS grp', [portal]))
      .where({ account_id: accountId, id: stockId })
      .first()) as StockRow | undefined;
    if (!row) return undefined;
    const group = fieldGroupEntry(row.grp, listerId);
    return { stockId: row.id, name: row.name, sku: row.sku, ean: row.barcode, price: row.price, quantityAvailable: row.quantity_available, group };
  },

  /**
   * A variation main's variants as listings (their own field group entry, as `listingItem`, and
   * their specifics) and what the main varies by (its variation.specifics_set), in id order;
   * undefined when the item is no variation main with variants. Two statements.
   */
  async variationOf(
    knex: Knex,
    accountId: number,
    stockId: number,
    portal: PortalId,
    listerId?: string,
  ): Promise<{ variesBy: { name: string; values: string[] }[]; variants: ListingItem[] } | undefined> {
    const main = (await knex('stock')
      .select(knex.raw("data -> 'variation' -> 'specifics_set' -> 'name_value' AS matrix"))
      .where({ account_id: accountId, id: stockId, variation_type: 'main' })
      .first()) as { matrix: unknown } | undefined;
    if (!main) return undefined;
    const rows = (await knex('stock')
      .select(
        'id',
        'name',
        'sku',
        'barcode',
        'price',
        'quantity_available',
        knex.raw('data -> ? AS grp', [portal]),
        knex.raw("data -> 'variation' -> 'specifics' -> 'name_value' AS specifics"),
      )
      .where({ account_id: accountId, variation_parent_id: stockId, variation_type: 'sub' })
      .orderBy('id')) as unknown as (StockRow & { specifics: unknown })[];
    if (rows.length === 0) return undefined;
    const variants = rows.map((row) => ({
      stockId: row.id,
      name: row.name,
      sku: row.sku,
      ean: row.barcode,
      price: row.price,
      quantityAvailable: row.quantity_available,
      group: fieldGroupEntry(row.grp, listerId),
      specifics: nameValues(row.specifics).map((s) => ({ name: s.name, value: s.values[0] ?? '' })),
    }));
    return { variesBy: nameValues(main.matrix), variants };
  },

  /**
   * Of these items, the variation mains (variation_type main, with or without variants left) and
   * each variant's main: what a listing shared by several items is to them (lib/portal-offer's
   * leftListings).
   */
  async variationLinks(knex: Knex, accountId: number, stockIds: number[]): Promise<{ mains: Set<number>; parents: Map<number, number> }> {
    const ids = [...new Set(stockIds)];
    if (ids.length === 0) return { mains: new Set(), parents: new Map() };
    const rows = (await knex('stock')
      .select('id', 'variation_type', 'variation_parent_id')
      .where('account_id', accountId)
      .whereIn('id', ids)
      .whereIn('variation_type', ['main', 'sub'])) as { id: number; variation_type: string; variation_parent_id: number | null }[];
    return {
      mains: new Set(rows.filter((r) => r.variation_type === 'main').map((r) => Number(r.id))),
      parents: new Map(
        rows.filter((r) => r.variation_type === 'sub' && r.variation_parent_id !== null).map((r) => [Number(r.id), Number(r.variation_parent_id)]),
      ),
    };
  },

  /** The lister ids of an item's entries in a lister group (auction_a[] ...). */
  async listerIds(knex: Knex, accountId: number, stockId: number, portal: PortalId): Promise<string[]> {
    const row = (await knex('stock')
      .select(knex.raw('data -> ? AS grp', [portal]))
      .where({ account_id: accountId, id: stockId })
      .first()) as { grp: unknown } | undefined;
    if (!row || !Array.isArray(row.grp)) return [];
    return (row.grp as Record<string, unknown>[]).map((e) => String(e.lister_id ?? '')).filter((id) => id !== '');
  },

  /** The account's items with their SKU and field group of the portal (id, sku, grp): a subquery for CIA's push to join. */
  portalFieldsQuery(knex: Knex, accountId: number, portal: string): Knex.QueryBuilder {
    return knex('stock')
      .select('id', 'sku', knex.raw('data -> ? AS grp', [portal]))
      .where('account_id', accountId);
  },

  /**
   * The account's items with their SKU and data (id, sku, data): a subquery for CIA to join where
   * its rows name several portals, to read each one's field group (data -> portal) in SQL.
   */
  itemDataQuery(knex: Knex, accountId: number): Knex.QueryBuilder {
    return knex('stock').select('id', 'sku', 'data').where('account_id', accountId);
  },

  /**
   * The account's items that hold a channel SKU at a portal (`sku`: an SQL expression of the
   * outer row, without bindings): a subquery for CIA to count per row. An item holds it as its own
   * SKU, or as the SKU its field group there gives it where an index finds that (market_d's
   * market_d_sku; an auction_a entry's sku, through stock_auction_a_group), as stockIdsByChannelSku
   * reads a channel's order lines. Counted, it is index lookups; asked as EXISTS (planned to stop
   * at a first row, with the 1% of items the planner guesses for an @>) it walked the account's
   * items reading each one's data.
   */
  channelSkuHoldersQuery(knex: Knex, accountId: number, portal: string, sku: string): Knex.QueryBuilder {
    return knex('stock as holder')
      .select(knex.raw('1'))
      .where('holder.account_id', accountId)
      .where((q) => {
        q.whereRaw(`holder.sku = ${sku}`);
        if (portal === 'market_d') q.orWhereRaw(`holder.market_d_sku = ${sku}`);
        if (portal === 'auction_a')
          q.orWhereRaw(`holder.data -> 'auction_a' @> jsonb_build_array(jsonb_build_object('sku', ${sku}))`).orWhereRaw(
            `holder.data -> 'auction_a' @> jsonb_build_object('sku', ${sku})`,
          );
      });
  },

  /**
   * Items of every account with an active cia.<portal>, or for which `orWhereExists` (a subquery
   * that may name the outer row as `stock`) finds a row, in (account, id) order after the given
   * key: the reconcile walks them in pages.
   */
  async itemsWithCia(
    knex: Knex,
    after: { accountId: number; stockId: number },
    limit: number,
    orWhereExists: Knex.QueryBuilder,
  ): Promise<{ account_id: number; id: number }[]> {
    return knex('stock')
      .select('account_id', 'id')
      .whereRaw('(account_id, id) > (?, ?)', [after.accountId, after.stockId])
      .where((q) =>
        q
          .whereRaw(
            "EXISTS (SELECT 1 FROM jsonb_each(CASE WHEN jsonb_typeof(data -> 'cia') = 'object' THEN data -> 'cia' ELSE '{}'::jsonb END) AS p(portal, setting) WHERE p.setting ->> 'is_active' = 'true')",
          )
          .orWhereExists(orWhereExists),
      )
      .orderBy([{ column: 'account_id' }, { column: 'id' }])
      .limit(limit);
  },
};

/** Name_value_type entries ({name, value[]}) as stored, read defensively (stored data predates checks). */
function nameValues(raw: unknown): { name: string; values: string[] }[] {
  if (!Array.isArray(raw)) return [];
  return raw
    .filter((e): e is { name: unknown; value: unknown } => e !== null && typeof e === 'object')
    .map((e) => ({
      name: typeof e.name === 'string' ? e.name : '',
      values: (Array.isArray(e.value) ? e.value : [e.value]).filter((v) => typeof v === 'string' || typeof v === 'number').map(String),
    }))
    .filter((e) => e.name !== '');
}
