/**
 * The stock items a real channel's SKUs name (the order import's lines): the SKU of the item's
 * field group of that portal first (market_d.sku, kept as the column market_d_sku; an
 * auction_a lister entry's sku), else the item's own sku. Scoped to the account; at most two
 * ids per SKU (two: the SKU is ambiguous).
 */
import type { Knex } from 'knex';

async function byColumn(knex: Knex | Knex.Transaction, accountId: number, column: 'sku' | 'market_d_sku', skus: string[]): Promise<Map<string, number[]>> {
  const rows = (await knex('stock').select('id', `${column} as sku`).where('account_id', accountId).whereIn(column, skus).orderBy('id')) as {
    id: number;
    sku: string;
  }[];
  const found = new Map<string, number[]>();
  for (const row of rows) found.set(row.sku, [...(found.get(row.sku) ?? []), row.id].slice(0, 2));
  return found;
}

/**
 * auction_a lister entries with each SKU, in one statement for all of them (a page of orders),
 * through the index stock_auction_a_group (jsonb_path_ops). No LIMIT per SKU: with one the
 * planner walks the account's items by id instead of asking the index.
 */
async function byListerSku(knex: Knex | Knex.Transaction, accountId: number, skus: string[]): Promise<Map<string, number[]>> {
  const { rows } = (await knex.raw(
    `SELECT w.sku, s.id FROM unnest(?::text[]) AS w(sku)
     JOIN stock s ON s.account_id = ? AND s.data -> 'auction_a' @> jsonb_build_array(jsonb_build_object('sku', w.sku))
     ORDER BY s.id`,
    [skus, accountId],
  )) as { rows: { sku: string; id: number }[] };
  const found = new Map<string, number[]>();
  for (const row of rows) found.set(row.sku, [...(found.get(row.sku) ?? []), row.id].slice(0, 2));
  return found;
}

/**
 * The variation mains among these items: a channel line is not linked to one (its variants hold
 * the stock, document 1), the seller is asked to link it to the variant (lib/order-import).
 */
export async function variationMainsAmong(knex: Knex | Knex.Transaction, accountId: number, stockIds: number[]): Promise<Set<number>> {
  if (stockIds.length === 0) return new Set();
  const rows = await knex('stock')
    .select('id')
    .where({ account_id: accountId, variation_type: 'main' })
    .whereIn('id', [...new Set(stockIds)]);
  return new Set(rows.map((row) => row.id));
}

export async function stockIdsByChannelSku(knex: Knex | Knex.Transaction, accountId: number, portal: string, skus: string[]): Promise<Map<string, number[]>> {
  const wanted = [...new Set(skus)];
  const result = new Map<string, number[]>();
  if (wanted.length === 0) return result;
  if (portal === 'market_d') for (const [sku, ids] of await byColumn(knex, accountId, 'market_d_sku', wanted)) result.set(sku, ids);
  if (portal === 'auction_a') for (const [sku, ids] of await byListerSku(knex, accountId, wanted)) result.set(sku, ids);
  const rest = wanted.filter((s) => !result.has(s));
  if (rest.length) for (const [sku, ids] of await byColumn(knex, accountId, 'sku', rest)) result.set(sku, ids);
  return result;
}

/**
 * The items among these ids that exist in the account: a listing's record outlives its item
 * (portal_listing keeps the row of a deleted item), and an order line linked to an id that is gone
 * refused the whole order (lib/order-import line-items.ts).
 */
export async function existingAmong(knex: Knex | Knex.Transaction, accountId: number, stockIds: number[]): Promise<Set<number>> {
  if (stockIds.length === 0) return new Set();
  const rows = (await knex('stock')
    .select('id')
    .where({ account_id: accountId })
    .whereIn('id', [...new Set(stockIds)])) as { id: number }[];
  return new Set(rows.map((row) => Number(row.id)));
}
