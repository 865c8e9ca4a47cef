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

/** auction_a lister entries with the SKU (index stock_auction_a_group, jsonb_path_ops). */
async function byListerSku(knex: Knex | Knex.Transaction, accountId: number, sku: string): Promise<number[]> {
  const rows = (await knex('stock')
    .select('id')
    .where('account_id', accountId)
    .whereRaw("data -> 'auction_a' @> ?::jsonb", [JSON.stringify([{ sku }])])
    .orderBy('id')
    .limit(2)) as { id: number }[];
  return rows.map((r) => r.id);
}

export async function stockIdsByChannelSku(knex: Knex | Knex.Transaction, accountId: number, portal: string, skus: string[]): Promise<Map<string, number[]>> {
  const wanted = [...new Set(skus)];
  const result = new Map<string, number[]>();
  if (wanted.length === 0) return result;
  if (portal === 'market_d') for (const [sku, ids] of await byColumn(knex, accountId, 'market_d_sku', wanted)) result.set(sku, ids);
  if (portal === 'auction_a') {
    for (const sku of wanted) {
      const ids = await byListerSku(knex, accountId, sku);
      if (ids.length) result.set(sku, ids);
    }
  }
  const rest = wanted.filter((s) => !result.has(s));
  if (rest.length) for (const [sku, ids] of await byColumn(knex, accountId, 'sku', rest)) result.set(sku, ids);
  return result;
}
