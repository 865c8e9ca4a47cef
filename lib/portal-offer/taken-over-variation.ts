import { db, transaction } from '../db';
import { stockPortalRepository } from '../stock';
import { portalListingRepository } from './portal-listing.repository';

/** A multiple-variation eBay listing taken over (bulkMigrateListing): its id, eBay's inventory item group key and its variants' SKUs. */
export interface TakenOverVariation {
  accountId: number;
  portalAccountId: number;
  listingId: string;
  groupKey: string;
  mainId: number;
  variants: { stockId: number; sku: string }[];
}

/**
 * Records a taken-over multiple-variation eBay listing as its variation main's, as listVariation
 * records one Kontor made (portal-variation.service.ts): the main's record under its auction_a
 * lister (its only one, else '') with the listing id and eBay's inventory item group key as
 * `listed_sku`, and each variant's record under the same key with the listing id and its SKU. A
 * revise, a list again and the end of the main then address eBay's group by that key (the
 * adapter's groupKeyOf takes `main.listedSku`) instead of making a second group under the
 * main's SKU, which eBay refuses for SKUs already in a group (25703); without the record a
 * revise was refused no_live_listing. Answers why it was not recorded, else null: the main has
 * several auction_a listers (which one's listing it is cannot be told), or a live auction_a
 * listing at this portal account recorded under another id (not overwritten: that record is
 * what its revise and end address).
 */
export async function recordTakenOverVariation(taken: TakenOverVariation): Promise<string | null> {
  const { accountId, portalAccountId, listingId, groupKey, mainId } = taken;
  const listers = await stockPortalRepository.listerIds(db(), accountId, mainId, 'auction_a');
  if (listers.length > 1)
    return `its variation main, stock item ${mainId}, has several auction_a listers (${listers.join(', ')}), so which one's listing it is cannot be told`;
  const recorded = (await portalListingRepository.liveItemIds(db(), accountId, 'auction_a', portalAccountId, [mainId])).get(mainId);
  if (recorded !== undefined && recorded !== listingId)
    return `its variation main, stock item ${mainId}, is recorded with another live eBay listing, ${recorded}, at this portal account`;
  const key = { accountId, stockId: mainId, portal: 'auction_a' as const, portalAccountId, listerId: listers[0] ?? '' };
  await transaction(async (trx) => {
    await portalListingRepository.saveListing(trx, key, listingId, 'listed', null, groupKey);
    for (const v of taken.variants) await portalListingRepository.saveListing(trx, { ...key, stockId: v.stockId }, listingId, 'listed', null, v.sku);
  });
  return null;
}
