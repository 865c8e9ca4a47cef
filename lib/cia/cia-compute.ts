import { adapterFor, CiaPortal } from '../portals';
import type { CiaInput } from '../stock';

/**
 * The highest quantity any portal is offered (2^31 - 1) unless its adapter names a lower
 * `maxQuantity` (Shopify's 1,000,000,000): eBay's availableQuantity and Kaufland's amount are
 * int32, and cia_portal_state keeps the wanted quantity as an integer. An item's own quantity
 * stays below it today (a variation main offered its variants' sum, which passed it, before a
 * variation main stopped offering anything); the cap keeps a wanted quantity the channel and the
 * column take whatever an item holds.
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
 * A variation main with variants (document 2, Stock_cia_portal_type: "On a variant main item these
 * fields are readable and writable but invalid; variant values count"): its own cia fields have no
 * effect, each variant is offered by its own settings under its own SKU. Every channel keeps the
 * quantity per variant (eBay's inventory item group has no quantity, only variantSKUs; a Shopify
 * product's quantity is its variants' inventory items'; a Kaufland unit is one EAN), so a quantity
 * under the main's SKU was refused or landed nowhere. A main without variants is an item like any.
 */
export function isVariationMain(input: CiaInput): boolean {
  return input.variationType === 'main' && input.variants.length > 0;
}

/**
 * The quantity every active portal should offer (pure; document 2, Stock_cia_portal_type):
 * quantity_available (a set main's is already derived from its subs); none for a variation main
 * with variants (isVariationMain: its variants are offered, each by its own settings).
 * max_quantity caps it, -1 ends the offer (quantity 0); the portal's own maximum caps it too.
 * Never negative. Inactive portals are left alone.
 */
export function computeOffers(input: CiaInput): CiaOffer[] {
  if (isVariationMain(input)) return [];
  const offers: CiaOffer[] = [];
  for (const [portal, setting] of Object.entries(input.cia) as [CiaPortal, NonNullable<CiaInput['cia'][CiaPortal]>][]) {
    if (!setting.is_active) continue;
    const quantity = offerQuantity(input.quantityAvailable, setting.max_quantity, adapterFor(portal).maxQuantity ?? maxOfferQuantity);
    offers.push({ portal, quantity, portalAccountIds: adapterFor(portal).cia?.namedAccounts ? [...setting.portal_account_id] : [] });
  }
  return offers;
}

/**
 * The one rule of an offered quantity (document 2, Stock_cia_portal_type), for a portal and for
 * cia.event alike: quantity_available never below 0 (an oversold item offers nothing), capped by
 * max_quantity (null: no cap), -1 ends the offer (0), and never above what the target takes.
 */
function offerQuantity(quantityAvailable: number, maxQuantity: number | null, ceiling: number): number {
  const base = Math.max(0, quantityAvailable);
  const wanted = maxQuantity === -1 ? 0 : maxQuantity !== null && maxQuantity >= 0 ? Math.min(base, maxQuantity) : base;
  return Math.min(wanted, ceiling);
}

/**
 * What the item's cia.event notification targets are told (document 1, Events 5: cia.event
 * "activates the quantity adjustment for notifications"; decision): the quantity a portal with
 * cia.event's settings is offered, by computeOffers' rule (offerQuantity) with the highest
 * quantity any portal takes. Told the raw quantity_available, a receiver feeding a shop offered
 * 5 under max_quantity -1 or 2 and -2 of an oversold item, where every portal offered 0 or 2. A
 * variation main offers nothing of its own (isVariationMain): 0 (it emits no cia event; one
 * emitted before it got its variants and read after is told so).
 */
export function eventOffer(input: CiaInput): number {
  return isVariationMain(input) ? 0 : offerQuantity(input.quantityAvailable, input.eventMaxQuantity, maxOfferQuantity);
}

/**
 * Items whose offers depend on this one: the set mains of a set sub (a set main's quantity is
 * derived from its subs). A variant's main is none of them: a variation main offers nothing of its
 * own (isVariationMain), so a variant's sale has nothing to change there. A main gaining or losing
 * its variants is adjusted by the request that links or separates them, or deletes one (lib/stock).
 */
export function dependents(input: CiaInput): number[] {
  const ids = new Set<number>(input.setMainIds);
  ids.delete(input.stockId);
  return [...ids];
}
