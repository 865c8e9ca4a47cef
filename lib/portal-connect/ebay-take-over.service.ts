/**
 * Taking over a seller's existing eBay listings (issue 30 point 3). Listings made in Seller Hub
 * or through the Trading API (`listingIds`) are migrated to the Inventory API
 * (bulkMigrateListing, 5 a call, AuctionAAdapter.takeOver); listings made through the Inventory
 * API by another tool (`skus`) need no migration, only eBay's confirmation that the SKU has an
 * offer. Each SKU is then linked to the Kontor stock item with that SKU (an auction_a lister
 * entry's sku, else the item's own, as the order import finds items) by switching its
 * cia.auction_a on, so CIA pushes its quantity to the listing.
 */
import { db } from '../db';
import { invalidField } from '../errors';
import { getPortalAccount, portalTargetRepository } from '../portal-account';
import { AuctionAAdapter, ebaySku, ebayOffersOfSku } from '../portals';
import { stockIdsByChannelSku, updateStockItem, stockPortalRepository } from '../stock';

/**
 * One listing's (or SKU's) outcome: taken_over (sku, stock_id), refused (eBay's reason), or not
 * linked: no_stock_item, ambiguous_sku (several items), sku_differs (the item's first auction_a
 * entry names another SKU, so CIA would update another listing).
 */
export interface TakeOverReport {
  listing_id?: string;
  sku?: string;
  outcome: 'taken_over' | 'refused' | 'no_stock_item' | 'ambiguous_sku' | 'sku_differs';
  stock_id?: number;
  message?: string;
}

/** Listings and SKUs per request: bulkMigrateListing takes 5 a call, so 100 is 20 calls. */
export const maxTakeOverListings = 100;

export async function takeOverListings(accountId: number, portalAccountId: number, listingIds: string[], skus: string[] = []): Promise<TakeOverReport[]> {
  const ids = [...new Set(listingIds)];
  const ownSkus = [...new Set(skus)];
  if (ids.length + ownSkus.length === 0 || ids.length + ownSkus.length > maxTakeOverListings)
    throw invalidField('listing_id', `listing_id and sku name 1 to ${maxTakeOverListings} eBay listings`);
  const bad = ids.find((id) => !/^\d{1,19}$/.test(id));
  if (bad !== undefined) throw invalidField('listing_id', `listing_id ${bad.slice(0, 40)} is not an eBay item id (digits)`);
  const badSku = ownSkus.find((sku) => sku.length === 0 || sku.length > 50);
  if (badSku !== undefined) throw invalidField('sku', 'an eBay SKU has 1 to 50 characters');
  const row = await getPortalAccount(accountId, portalAccountId);
  if (row.connector !== 'ebay')
    throw invalidField('portal_account_id', `portal account ${row.id} is not connected to eBay: connect it first (consent or kontor portal-account connect)`);
  const target = (await portalTargetRepository.target(db(), accountId, row.id))!;

  // What eBay says of each: a migrated listing's SKU, an Inventory API SKU with offers, or its refusal.
  const found: ({ listing_id?: string; sku: string } | { listing_id?: string; sku?: string; error: string })[] = [];
  if (ids.length)
    for (const m of await new AuctionAAdapter().takeOver(target, ids))
      found.push('error' in m ? { listing_id: m.listingId, error: m.error } : { listing_id: m.listingId, sku: m.sku });
  for (const sku of ownSkus) {
    const live = (await ebayOffersOfSku(target, sku)).filter((o) => o.status === 'PUBLISHED');
    found.push(live.length ? { sku } : { sku, error: `eBay has no published offer with the SKU ${sku}` });
  }

  const items = await stockIdsByChannelSku(
    db(),
    accountId,
    'auction_a',
    found.flatMap((f) => ('error' in f || !f.sku ? [] : [f.sku])),
  );
  const out: TakeOverReport[] = [];
  for (const f of found) {
    const which = { ...(f.listing_id ? { listing_id: f.listing_id } : {}), ...(f.sku ? { sku: f.sku } : {}) };
    if ('error' in f) {
      out.push({ ...which, outcome: 'refused', message: f.error });
      continue;
    }
    out.push({ ...which, ...(await link(accountId, f.sku, items.get(f.sku) ?? [])) });
  }
  return out;
}

/** Links a SKU live at eBay to its one stock item, or says why not. */
async function link(accountId: number, sku: string, stockIds: number[]): Promise<Pick<TakeOverReport, 'outcome' | 'stock_id' | 'message'>> {
  if (stockIds.length === 0)
    return { outcome: 'no_stock_item', message: `no stock item has the SKU ${sku}: create one with it, then take the listing over again` };
  if (stockIds.length > 1) return { outcome: 'ambiguous_sku', message: `several stock items have the SKU ${sku}` };
  const stockId = stockIds[0]!;
  // CIA sends the SKU the item's first auction_a entry names: it must be the listing's.
  const item = (await stockPortalRepository.listingItem(db(), accountId, stockId, 'auction_a'))!;
  const pushed = ebaySku(item.group, item.sku, stockId);
  if (pushed !== sku)
    return {
      outcome: 'sku_differs',
      message: `stock item ${stockId} has the SKU ${sku}, but its auction_a entry names ${pushed}: CIA would update another listing`,
    };
  await updateStockItem({ accountId }, String(stockId), { cia: { auction_a: { is_active: true } } }, []);
  return { outcome: 'taken_over', stock_id: stockId };
}
