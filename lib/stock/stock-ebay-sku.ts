/**
 * A warning, never a refusal, when a save leaves an item with an auction_a (eBay) lister whose eBay
 * SKU eBay refuses for a new inventory item (lib/portals ebaySkuRefusal: 25707, letters, digits
 * and "-" only, at most 50). The SKU is the seller's across channels: refused at save, it would be
 * refused for every other channel too, which take it (decision, lib/stock/README.md "eBay SKUs").
 * Said at save, the seller learns it before a list or revise job fails at auction_a, and before
 * CIA's quantities go to a SKU eBay lists nothing under.
 */
import type { Knex } from 'knex';
import type { Warning } from '../errors';
import { ebaySku, ebaySkuRefusal, fieldGroupEntry } from '../portals';
import type { Json } from './stock-merge';
import type { StockInput } from './stock.type';

/**
 * The contract with lib/portal-offer, which owns the listings Kontor made (portal_listing) and sits
 * above lib/stock: an item's live auction_a (eBay) listings, any portal account, each with its
 * lister and the SKU eBay holds it under (listed_sku; null for a listing recorded before Kontor
 * kept it). Each process's entry provides it at startup (provideEbayListings, lib/portal-offer).
 */
export interface EbayListingQueries {
  liveListings(knex: Knex, accountId: number, stockId: number): Promise<{ listerId: string; sku: string | null }[]>;
}

let provided: EbayListingQueries | undefined;

/** lib/portal-offer gives its implementation (once per process, at startup). */
export function provideEbayListingQueries(queries: EbayListingQueries): void {
  provided = queries;
}

/**
 * The SKUs under which eBay holds a live listing Kontor made of the stored item: each listing's
 * recorded SKU, else (recorded before Kontor kept it) the SKU the stored item gives that lister's
 * entry before this save, the one it was listed by unless changed since. Decision: a process whose
 * entry provided no look-up (a script) knows none, and warns as before.
 */
export async function ebaySkusListed(knex: Knex, stored: { id: number; account_id: number; sku: string | null; data: Json }): Promise<Set<string>> {
  if (!provided) return new Set();
  const listings = await provided.liveListings(knex, stored.account_id, stored.id);
  return new Set(listings.map((l) => l.sku ?? ebaySku(fieldGroupEntry(stored.data.auction_a, l.listerId), stored.sku, stored.id)));
}

/**
 * The warnings of a save: one per auction_a entry of the saved data (`data.auction_a`) whose eBay
 * SKU (the entry's sku, else the item's `sku`) ebaySkuRefusal names, when the request sent the
 * item's sku or auction_a entries (a save of other fields repeats nothing). The field is the
 * input's `auction_a[i].sku` when the entry's own sku is the one, else `sku`. A new item without
 * either has its stock id for SKU, which eBay takes. A SKU in `listed` (ebaySkusListed: eBay holds
 * the item's live listing under it, so eBay took it) warns of nothing: its listing is revised and
 * counted under it (auction_a's refuseSkus looks it up at eBay and lets it through).
 */
export function ebaySkuWarnings(
  input: StockInput,
  data: Json,
  itemSku: string | null | undefined,
  field: (name: string) => string,
  listed: Set<string> = new Set(),
): Warning[] {
  if (input.sku === undefined && input.auction_a === undefined) return [];
  const entries = Array.isArray(data.auction_a) ? (data.auction_a as Json[]) : [];
  const warnings: Warning[] = [];
  const seen = new Set<string>();
  for (const entry of entries) {
    const own = typeof entry.sku === 'string' && entry.sku.trim() !== '';
    const sku = ebaySku(entry, itemSku ?? null, 0);
    const refused = sku === '0' ? undefined : ebaySkuRefusal(sku);
    if (!refused || seen.has(sku) || listed.has(sku)) continue;
    seen.add(sku);
    const at = own ? (input.auction_a ?? []).findIndex((e) => e.sku === entry.sku) : -1;
    const name = own ? (at >= 0 ? field(`auction_a[${at}].sku`) : field('auction_a')) : field('sku');
    warnings.push({
      warning: 'ebay_sku_refused',
      description: `${name}: saved; for auction_a (eBay) ${refused.replace(/: give .*$/, '')}, so a listing or revision there fails unless eBay holds an item of that SKU already (a listing taken over); give the auction_a entry a sku of letters, digits and "-" to list it at eBay`,
      code: 200,
      field: name,
    });
  }
  return warnings;
}
