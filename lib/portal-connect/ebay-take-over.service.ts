/**
 * Taking over a seller's existing eBay listings (issue 30 point 3). Listings made in Seller Hub
 * or through the Trading API (`listingIds`) are migrated to the Inventory API
 * (bulkMigrateListing, 5 a call, AuctionAAdapter.takeOver); listings made through the Inventory
 * API by another tool (`skus`) need no migration, only eBay's confirmation that the SKU has an
 * offer. Each SKU is then linked to the Kontor stock item with that SKU (an auction_a lister
 * entry's sku, else the item's own, as the order import finds items) by switching its
 * cia.auction_a on, so CIA pushes its quantity to the listing. A multiple-variation listing is
 * migrated as one inventory item and offer per variation and an inventory item group: each of
 * its SKUs is linked so, and reported on its own; when they are all linked to the variants of one
 * variation main, the listing is recorded as that main's (recordTakenOverVariation), as a
 * multiple-variation listing Kontor made is, so the main's revise, list again and end address
 * eBay's group.
 */
import { db } from '../db';
import { invalidField } from '../errors';
import { getPortalAccount, portalTargetRepository } from '../portal-account';
import { recordTakenOverVariation } from '../portal-offer';
import { AuctionAAdapter, ebaySku, ebayOffersOfSku } from '../portals';
import { stockIdsByChannelSku, updateStockItem, stockPortalRepository } from '../stock';

/**
 * One SKU's outcome (of a listing, or named by sku[]): taken_over (sku, stock_id), refused (eBay's
 * reason), or not linked: no_stock_item, ambiguous_sku (several items), sku_differs (the item's
 * first auction_a entry names another SKU, so CIA would update another listing). A
 * multiple-variation listing answers one entry per variation's SKU, each with the listing's
 * group_key (eBay's inventory item group) and main_stock_id when the listing was recorded as that
 * variation main's; else a taken_over entry's message says why it was not.
 */
export interface TakeOverReport {
  listing_id?: string;
  sku?: string;
  outcome: 'taken_over' | 'refused' | 'no_stock_item' | 'ambiguous_sku' | 'sku_differs';
  stock_id?: number;
  group_key?: string;
  main_stock_id?: number;
  message?: string;
}

/** What eBay says of a listing or SKU: a SKU it holds live (of a multiple-variation listing: with its group's key), or its refusal. */
type Found = { listing_id?: string; sku: string; group_key?: string } | { listing_id?: string; sku?: string; error: string };

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

  // What eBay says of each: a migrated listing's SKUs (one per variation), an Inventory API SKU with offers, or its refusal.
  const found: Found[] = [];
  if (ids.length)
    for (const m of await new AuctionAAdapter().takeOver(target, ids)) {
      if ('error' in m) found.push({ listing_id: m.listingId, error: m.error });
      else for (const { sku } of m.items) found.push({ listing_id: m.listingId, sku, ...(m.groupKey ? { group_key: m.groupKey } : {}) });
    }
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
    out.push({ ...which, ...(f.group_key ? { group_key: f.group_key } : {}), ...(await link(accountId, f.sku, items.get(f.sku) ?? [])) });
  }
  for (const listing of variationListings(out)) await recordForMain(accountId, row.id, listing);
  return out;
}

/** The entries of each multiple-variation listing taken over (those with a group key), by listing. */
function variationListings(out: TakeOverReport[]): TakeOverReport[][] {
  const byListing = new Map<string, TakeOverReport[]>();
  for (const e of out) if (e.group_key && e.listing_id) byListing.set(e.listing_id, [...(byListing.get(e.listing_id) ?? []), e]);
  return [...byListing.values()];
}

/**
 * The variation main a taken-over multiple-variation listing is the listing of, or why it is
 * none's (decision, lib/portals README "A multiple-variation listing taken over"): every SKU of
 * the listing linked (a SKU left out would be taken off eBay's listing by the main's next revise,
 * which replaces the group with the main's variants), each to a variant of one and the same
 * main. `parents`: each variant's main (variationLinks).
 */
export function variationMainOf(entries: TakeOverReport[], parents: Map<number, number>): { mainId: number } | { why: string } {
  const unlinked = entries.filter((e) => e.outcome !== 'taken_over').map((e) => e.sku);
  if (unlinked.length) return { why: `SKU ${unlinked.join(', ')} of it ${unlinked.length > 1 ? 'are' : 'is'} not linked` };
  const plain = entries.filter((e) => !parents.has(e.stock_id!));
  if (plain.length) return { why: `${plain.map((e) => `stock item ${e.stock_id} (SKU ${e.sku})`).join(', ')} ${plain.length > 1 ? 'are' : 'is'} no variant` };
  const mains = [...new Set(entries.map((e) => parents.get(e.stock_id!)!))];
  if (mains.length > 1)
    return { why: `its SKUs' stock items are variants of different mains (${entries.map((e) => `${e.stock_id} of ${parents.get(e.stock_id!)!}`).join(', ')})` };
  return { mainId: mains[0]! };
}

/**
 * A taken-over multiple-variation listing recorded as its variation main's (variationMainOf,
 * recordTakenOverVariation): its entries then name the main; else each taken_over entry says why
 * not, as its SKU is linked all the same (CIA keeps its quantity).
 */
async function recordForMain(accountId: number, portalAccountId: number, entries: TakeOverReport[]): Promise<void> {
  const { listing_id: listingId, group_key: groupKey } = entries[0]!;
  const linked = entries.filter((e) => e.outcome === 'taken_over').map((e) => e.stock_id!);
  const main = variationMainOf(entries, (await stockPortalRepository.variationLinks(db(), accountId, linked)).parents);
  const why =
    'why' in main
      ? main.why
      : await recordTakenOverVariation({
          accountId,
          portalAccountId,
          listingId: listingId!,
          groupKey: groupKey!,
          mainId: main.mainId,
          variants: entries.map((e) => ({ stockId: e.stock_id!, sku: e.sku! })),
        });
  for (const e of entries) {
    if (why === null) e.main_stock_id = (main as { mainId: number }).mainId;
    else if (e.outcome === 'taken_over')
      e.message = `eBay listing ${listingId} is a multiple-variation listing (inventory item group ${groupKey}) recorded as no variation main's listing: ${why}. CIA keeps this SKU's quantity there; a list, revise or end of a main does not reach that listing`;
  }
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
