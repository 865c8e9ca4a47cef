/**
 * Taking over a seller's existing eBay listings (issue 30 point 3): listings made in Seller Hub
 * or through the Trading API are migrated to the Inventory API (bulkMigrateListing, 5 a call,
 * AuctionAAdapter.takeOver); each migrated SKU is then linked to the Kontor stock item with that
 * SKU (an auction_a lister entry's sku, else the item's own, as the order import finds items)
 * by switching its cia.auction_a on, so CIA pushes its quantity to the listing. Listings made
 * through the Inventory API need no migration: the same link by SKU is enough.
 */
import { db } from '../db/knex';
import { invalidField } from '../errors';
import { getPortalAccount } from '../portal-account/portal-account.service';
import { AuctionAAdapter } from '../portals/auction-a.adapter';
import { ebaySku } from '../portals/ebay/ebay-listing.mapping';
import { portalTargetRepository } from '../portals/portal-target.repository';
import { stockIdsByChannelSku } from '../stock/stock-channel-sku';
import { updateStockItem } from '../stock/stock.service';

/** One listing's outcome. */
export type TakeOverReport =
  | { listing_id: string; outcome: 'taken_over'; sku: string; stock_id: number }
  | { listing_id: string; outcome: 'refused'; message: string }
  | { listing_id: string; outcome: 'no_stock_item' | 'ambiguous_sku' | 'sku_differs'; sku: string; message: string };

/** Listings per request: bulkMigrateListing takes 5 a call, so 100 is 20 calls. */
export const maxTakeOverListings = 100;

export async function takeOverListings(accountId: number, portalAccountId: number, listingIds: string[]): Promise<TakeOverReport[]> {
  const ids = [...new Set(listingIds)];
  if (ids.length === 0 || ids.length > maxTakeOverListings) throw invalidField('listing_id', `listing_id names 1 to ${maxTakeOverListings} eBay listings`);
  const bad = ids.find((id) => !/^\d{1,19}$/.test(id));
  if (bad !== undefined) throw invalidField('listing_id', `listing_id ${bad.slice(0, 40)} is not an eBay item id (digits)`);
  const row = await getPortalAccount(accountId, portalAccountId);
  if (row.connector !== 'ebay')
    throw invalidField('portal_account_id', `portal account ${row.id} is not connected to eBay: connect it first (consent or kontor portal-account connect)`);
  const target = (await portalTargetRepository.target(db(), accountId, row.id))!;
  const migrated = await new AuctionAAdapter().takeOver(target, ids);
  const skus = migrated.flatMap((m) => ('sku' in m ? [m.sku] : []));
  const found = await stockIdsByChannelSku(db(), accountId, 'auction_a', skus);
  const out: TakeOverReport[] = [];
  for (const m of migrated) {
    if ('error' in m) {
      out.push({ listing_id: m.listingId, outcome: 'refused', message: m.error });
      continue;
    }
    const stockIds = found.get(m.sku) ?? [];
    if (stockIds.length !== 1) {
      out.push({
        listing_id: m.listingId,
        outcome: stockIds.length ? 'ambiguous_sku' : 'no_stock_item',
        sku: m.sku,
        message: stockIds.length
          ? `several stock items have the SKU ${m.sku}`
          : `no stock item has the SKU ${m.sku}: create one with it, then take the listing over again`,
      });
      continue;
    }
    const stockId = stockIds[0]!;
    // CIA sends the SKU the item's first auction_a entry names: it must be the listing's.
    const item = (await portalTargetRepository.listingItem(db(), accountId, stockId, 'auction_a'))!;
    const pushed = ebaySku(item.group, item.sku, stockId);
    if (pushed !== m.sku) {
      out.push({
        listing_id: m.listingId,
        outcome: 'sku_differs',
        sku: m.sku,
        message: `stock item ${stockId} has the SKU ${m.sku}, but its auction_a entry names ${pushed}: CIA would update another listing`,
      });
      continue;
    }
    await updateStockItem(accountId, String(stockId), { cia: { auction_a: { is_active: true } } }, []);
    out.push({ listing_id: m.listingId, outcome: 'taken_over', sku: m.sku, stock_id: stockId });
  }
  return out;
}
