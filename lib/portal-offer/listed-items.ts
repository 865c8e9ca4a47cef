/**
 * The items a channel's sales name by the key their listing was made under: eBay holds a listing
 * under the SKU it was listed by (portal_listing.listed_sku), Kaufland a unit under its id_offer
 * (listed_sku too), Amazon under the SKU that is its listing id (portal_item_id); the seller may have changed the item's SKU in Kontor since, and
 * an order line names the listing's. lib/order-import links a line through this first.
 */
import type { Knex } from 'knex';
import type { PortalId } from '../portals';
import { portalListingRepository } from './portal-listing.repository';

// Kaufland (market_e) holds a unit under its id_offer, recorded as listed_sku since the Kaufland adapter returns it (lib/portals market-e.adapter.ts heldUnder).
const keyColumn: Partial<Record<PortalId, 'listed_sku' | 'portal_item_id'>> = { auction_a: 'listed_sku', market_d: 'portal_item_id', market_e: 'listed_sku' };

/**
 * By SKU, the item listed under it at this portal account (one item for sure; else absent), and
 * whether that listing is live: none at a channel that keys listings otherwise.
 */
export async function itemsListedUnder(
  knex: Knex,
  accountId: number,
  portal: string,
  portalAccountId: number,
  skus: string[],
): Promise<Map<string, { stockId: number; live: boolean }>> {
  const column = keyColumn[portal as PortalId];
  if (!column) return new Map();
  return portalListingRepository.itemsByListingKey(knex, accountId, portal as PortalId, portalAccountId, column, [...new Set(skus)]);
}
