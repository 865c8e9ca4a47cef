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
import { stockIdsByChannelSku } from '../stock';
import type { ImportAccountRow } from './order-import.repository';

/** By SKU, the items it names (two: ambiguous), as stockIdsByChannelSku answers. */
export async function stockIdsOfLineSkus(trx: Knex.Transaction, account: ImportAccountRow, portal: string, skus: string[]): Promise<Map<string, number[]>> {
  const listed = await itemsListedUnder(trx, account.account_id, portal, account.id, skus);
  const found = await stockIdsByChannelSku(
    trx,
    account.account_id,
    portal,
    skus.filter((s) => !listed.has(s)),
  );
  for (const [sku, id] of listed) found.set(sku, [id]);
  return found;
}
