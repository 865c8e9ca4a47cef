/**
 * lib/portal-offer's side of lib/stock's eBay listings contract (stock-ebay-sku.ts): the SKUs eBay
 * holds an item's live listings under, as Kontor recorded them, so a save does not warn of a SKU
 * eBay refuses for a new inventory item when eBay holds the item's listing under it.
 */
import { provideEbayListingQueries } from '../stock';
import { portalListingRepository } from './portal-listing.repository';

/** Gives lib/stock the look-up of an item's live auction_a listings: call once at a process's start. */
export function provideEbayListings(): void {
  provideEbayListingQueries({
    liveListings: (knex, accountId, stockId) => portalListingRepository.liveListedSkusOfItem(knex, accountId, 'auction_a', stockId),
  });
}
