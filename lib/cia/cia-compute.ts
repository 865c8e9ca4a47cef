import { adapterFor, CiaPortal } from '../portals';
import type { CiaInput } from '../stock';

/**
 * The highest quantity any portal is offered (2^31 - 1) unless its adapter names a lower
 * `maxQuantity` (Shopify's 1,000,000,000): eBay's availableQuantity and Kaufland's amount are
 * int32, and cia_portal_state keeps the wanted quantity as an integer. A variation main offers
 * its variants' sum, which passes it (each variant may hold 500,000,000: five do); uncapped, the
 * adjustment failed in the database, and with it every item adjusted in the same transaction.
 */
export const maxOfferQuantity = 2147483647;

/** The quantity one portal should offer for an item. */
export interface CiaOffer {
  portal: CiaPortal;
  quantity: number;
  /** A portal whose cia group names accounts (market_d): the portal_account_id[] named; empty: resolved by the caller. */
  portalAccountIds: number[];
}

/**
 * The quantity every active portal should offer (pure; document 2, Stock_cia_portal_type):
 * quantity_available, or for a variation main the sum of its variants' (variant values count);
 * a set main's is already derived from its subs. max_quantity caps it, -1 ends the offer
 * (quantity 0); the portal's own maximum caps it too. Never negative. Inactive portals are left alone.
 */
export function computeOffers(input: CiaInput): CiaOffer[] {
  const available =
    input.variationType === 'main' && input.variants.length > 0
      ? input.variants.reduce((sum, v) => sum + Math.max(0, v.quantityAvailable), 0)
      : input.quantityAvailable;
  const base = Math.max(0, available);
  const offers: CiaOffer[] = [];
  for (const [portal, setting] of Object.entries(input.cia) as [CiaPortal, NonNullable<CiaInput['cia'][CiaPortal]>][]) {
    if (!setting.is_active) continue;
    const max = setting.max_quantity;
    const wanted = max === -1 ? 0 : max !== null && max >= 0 ? Math.min(base, max) : base;
    const quantity = Math.min(wanted, adapterFor(portal).maxQuantity ?? maxOfferQuantity);
    offers.push({ portal, quantity, portalAccountIds: adapterFor(portal).cia?.namedAccounts ? [...setting.portal_account_id] : [] });
  }
  return offers;
}

/** Items whose offers depend on this one: a variant's main, the set mains of a set sub. */
export function dependents(input: CiaInput): number[] {
  const ids = new Set<number>(input.setMainIds);
  if (input.variationType === 'sub' && input.variationParentId !== null) ids.add(input.variationParentId);
  ids.delete(input.stockId);
  return [...ids];
}
