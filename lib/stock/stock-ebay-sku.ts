/**
 * A warning, never a refusal, when a save leaves an item with an auction_a (eBay) lister whose eBay
 * SKU eBay refuses for a new inventory item (lib/portals ebaySkuRefusal: 25707, letters, digits
 * and "-" only, at most 50). The SKU is the seller's across channels: refused at save, it would be
 * refused for every other channel too, which take it (decision, lib/stock/README.md "eBay SKUs").
 * Said at save, the seller learns it before a list or revise job fails at auction_a, and before
 * CIA's quantities go to a SKU eBay lists nothing under.
 */
import type { Warning } from '../errors';
import { ebaySku, ebaySkuRefusal } from '../portals';
import type { Json } from './stock-merge';
import type { StockInput } from './stock.type';

/**
 * The warnings of a save: one per auction_a entry of the saved data (`data.auction_a`) whose eBay
 * SKU (the entry's sku, else the item's `sku`) ebaySkuRefusal names, when the request sent the
 * item's sku or auction_a entries (a save of other fields repeats nothing). The field is the
 * input's `auction_a[i].sku` when the entry's own sku is the one, else `sku`. A new item without
 * either has its stock id for SKU, which eBay takes.
 */
export function ebaySkuWarnings(input: StockInput, data: Json, itemSku: string | null | undefined, field: (name: string) => string): Warning[] {
  if (input.sku === undefined && input.auction_a === undefined) return [];
  const entries = Array.isArray(data.auction_a) ? (data.auction_a as Json[]) : [];
  const warnings: Warning[] = [];
  const seen = new Set<string>();
  for (const entry of entries) {
    const own = typeof entry.sku === 'string' && entry.sku.trim() !== '';
    const sku = ebaySku(entry, itemSku ?? null, 0);
    const refused = sku === '0' ? undefined : ebaySkuRefusal(sku);
    if (!refused || seen.has(sku)) continue;
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
