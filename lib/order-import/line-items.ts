/**
 * The stock items a channel order's line SKUs name. First the item whose listing at this portal
 * account was made under the SKU (lib/portal-offer itemsListedUnder: eBay, Amazon), as a sale
 * names its listing's SKU; then the item's channel SKU now (lib/stock stockIdsByChannelSku). By
 * the item's SKU alone, a sale on a listing whose item the seller gave another SKU since linked
 * no item (its stock untaken, every channel offering the units on) or, where another item took
 * the old SKU, took that item's stock.
 */
import type { Knex } from 'knex';
import { itemsListedUnder } from '../portal-offer';
import { existingAmong, stockIdsByChannelSku } from '../stock';
import type { ImportAccountRow } from './order-import.repository';

/** By SKU, the items it names (two: ambiguous), as stockIdsByChannelSku answers. */
export async function stockIdsOfLineSkus(trx: Knex.Transaction, account: ImportAccountRow, portal: string, skus: string[]): Promise<Map<string, number[]>> {
  const recorded = await itemsListedUnder(trx, account.account_id, portal, account.id, skus);
  // A listing's record outlives its item (a deleted item's row stays): such a SKU goes by the
  // items' SKUs as before, where an id that is gone refused the whole order (400 unknown item)
  // and the sale, made before the listing ended, never reached the seller.
  const existing = await existingAmong(
    trx,
    account.account_id,
    [...recorded.values()].map((r) => r.stockId),
  );
  const listed = [...recorded].filter(([, r]) => existing.has(r.stockId));
  const live = new Set(listed.filter(([, r]) => r.live).map(([sku]) => sku));
  const found = await stockIdsByChannelSku(
    trx,
    account.account_id,
    portal,
    skus.filter((s) => !live.has(s)),
  );
  // An ended listing's item only where the SKU names no item now: the seller may have given the
  // SKU to another item and listed that one outside Kontor (Seller Hub), whose sales name it too.
  for (const [sku, r] of listed) if (r.live || !found.has(sku)) found.set(sku, [r.stockId]);
  return found;
}
