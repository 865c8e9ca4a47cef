/**
 * What Kontor sends when it replaces a record eBay holds already: eBay's record as a get answered
 * it, with Kontor's mapping (ebay-listing.mapping.ts) laid over it field by field.
 *
 * sell_inventory_v1_oas3.json: createOrReplaceInventoryItem "will do a complete replacement of the
 * existing inventory item record, so all fields that are currently defined for the inventory item
 * record are required ... it is advised that the seller run a getInventoryItem call" first
 * (#/paths/~1inventory_item~1{sku}/put/description); updateOffer "does a complete replacement of
 * the existing offer object, so all fields that make up the current offer object are required"
 * (#/paths/~1offer~1{offerId}/put/description); createOrReplaceInventoryItemGroup the same of a
 * group ("it is advised that the seller run a getInventoryItemGroup call"). Kontor sent its mapping
 * alone, so a revise wiped what the seller set at eBay and Kontor never holds (package weight and
 * size, the EU product safety data in `regulatory`, store categories, lot size, shipping cost
 * overrides, pictures and item specifics of a listing taken over from Seller Hub), or eBay refused
 * it (packageWeightAndSize: "required if an inventory item is being updated and shipping package
 * data already exists").
 *
 * **The rule (decision, lib/portals/README.md "What a list or revise keeps of eBay's record"):** a field
 * Kontor's mapping sets is Kontor's; a field it does not set is eBay's. Kontor's mapping leaves a
 * field out when the entry holds nothing for it, and Kontor keeps no record of what it sent
 * before, so an empty field cannot be told from one the seller cleared: eBay's value stays (remove
 * it in Seller Hub). The containers Kontor fills only in part are merged one level down:
 * product (and its aspects by name), availability.shipToLocationAvailability, pricingSummary,
 * listingPolicies, tax; an inventory item group's aspects by name. Explicit "off" values Kontor
 * does send (best_offer.is_active false: bestOfferEnabled false) win as any value.
 * Fields a get answers that the replacing call does not take are dropped (readOnly below).
 */
import type { components } from 'ebay-api/lib/types/restful/specs/sell_inventory_v1_oas3';
import type { EbayInventoryItem, EbayInventoryItemGroup, EbayOffer } from './ebay-listing.mapping';

type Schemas = components['schemas'];
type Body = Record<string, unknown>;
/** getInventoryItem's answer (InventoryItemWithSkuLocaleGroupid), aspects as a map (SOURCES.md erratum). */
export type EbayInventoryItemRead = Body;
/** getOffers/getOffer's answer (EbayOfferDetailsWithAll). */
export type EbayOfferRead = Schemas['EbayOfferDetailsWithAll'];
/** updateOffer's body: EbayOfferDetailsWithId, the offer without sku, marketplaceId and format. */
export type EbayOfferUpdate = Omit<EbayOffer, 'sku' | 'marketplaceId' | 'format'>;

/**
 * Read-only in the answers, not in the request schemas: InventoryItemWithSkuLocaleGroupid's sku,
 * locale, groupIds and inventoryItemGroupKeys are not InventoryItem's; EbayOfferDetailsWithAll's
 * offerId, status and listing not EbayOfferDetailsWithId's, nor sku, marketplaceId and format
 * (updateOffer cannot change them); InventoryItemGroup.inventoryItemGroupKey "is only applicable
 * to the getInventoryItemGroup call".
 */
const readOnly = {
  item: ['sku', 'locale', 'groupIds', 'inventoryItemGroupKeys'],
  offer: ['offerId', 'status', 'listing', 'sku', 'marketplaceId', 'format'],
  group: ['inventoryItemGroupKey'],
} as const;

const isObject = (v: unknown): v is Body => typeof v === 'object' && v !== null && !Array.isArray(v);
const object = (v: unknown): Body => (isObject(v) ? v : {});
const without = (body: Body, keys: readonly string[]): Body => Object.fromEntries(Object.entries(body).filter(([k]) => !keys.includes(k)));

/** Kontor's fields over eBay's, one level: a field Kontor's mapping left out (or sent as an empty list) is eBay's. */
function over(ebay: Body, ours: Body): Body {
  const kept = { ...ebay };
  for (const [k, v] of Object.entries(ours)) if (v !== undefined && !(Array.isArray(v) && v.length === 0 && k in ebay)) kept[k] = v;
  return kept;
}

/** Item specifics by name: Kontor's names carry Kontor's values, eBay's other names stay. */
function aspectsOver(ebay: unknown, ours: unknown): Body | undefined {
  if (!isObject(ebay) && !isObject(ours)) return undefined;
  return { ...object(ebay), ...object(ours) };
}

/**
 * The inventory item createOrReplaceInventoryItem replaces eBay's with: eBay's (getInventoryItem)
 * less its read-only fields, Kontor's product fields, condition and ship-to-home quantity over
 * it. eBay's packageWeightAndSize, conditionDescriptors, pickup availability, the quantity's
 * warehouse split (availabilityDistributions) and product fields Kontor has none of (brand,
 * videoIds, pictures or identifiers it holds none of) stay. allocationByFormat is the answer's
 * (ShipToLocationAvailabilityWithAll), not the request's.
 */
export function inventoryItemOver(current: EbayInventoryItemRead | undefined, ours: EbayInventoryItem): EbayInventoryItem {
  if (!current) return ours;
  const ebay = without(current, readOnly.item);
  const product = over(object(ebay.product), ours.product as Body);
  const aspects = aspectsOver(object(ebay.product).aspects, ours.product.aspects);
  const availability = object(ebay.availability);
  const shipTo = without(object(availability.shipToLocationAvailability), ['allocationByFormat']);
  const oursShipTo = object(ours.availability?.shipToLocationAvailability);
  return {
    ...over(ebay, without(ours as Body, ['product', 'availability'])),
    product: { ...product, ...(aspects ? { aspects } : {}) },
    availability: { ...availability, shipToLocationAvailability: { ...shipTo, ...oursShipTo } },
  } as EbayInventoryItem;
}

/**
 * The offer updateOffer replaces eBay's with: eBay's (the getOffers answer Kontor read to find
 * it) less its read-only fields and keys, Kontor's offer over it; pricingSummary, listingPolicies
 * and tax merged one level down, so eBay's minimum advertised price, shipping cost overrides,
 * compliance and take-back policies and third-party tax category stay beside Kontor's price,
 * policy ids and VAT. eBay's regulatory, storeCategoryNames, lotSize, quantityLimitPerBuyer,
 * charity, hideBuyerDetails, extendedProducerResponsibility stay (Kontor's mapping sets none).
 * merchantLocationKey is eBay's when the offer has one (decision): Kontor's is the account's
 * first location, not the seller's choice for this item, and a listing taken over ships from
 * the location eBay migrated it with.
 */
export function offerOver(current: EbayOfferRead | undefined, ours: EbayOfferUpdate): EbayOfferUpdate {
  const own = without(ours as Body, readOnly.offer);
  if (!current) return own as EbayOfferUpdate;
  const ebay = without(current as Body, readOnly.offer);
  const merged = over(ebay, own);
  for (const part of ['pricingSummary', 'listingPolicies', 'tax'] as const)
    if (isObject(ebay[part]) || isObject(own[part])) merged[part] = over(object(ebay[part]), object(own[part]));
  if (typeof ebay.merchantLocationKey === 'string' && ebay.merchantLocationKey !== '') merged.merchantLocationKey = ebay.merchantLocationKey;
  return merged as EbayOfferUpdate;
}

/**
 * The inventory item group createOrReplaceInventoryItemGroup replaces eBay's with: eBay's
 * (getInventoryItemGroup) less inventoryItemGroupKey, Kontor's title, subtitle, description,
 * pictures, variantSKUs and variesBy over it, the common aspects by name; eBay's videoIds stay.
 */
export function inventoryItemGroupOver(current: Body | undefined, ours: EbayInventoryItemGroup): EbayInventoryItemGroup {
  if (!current) return ours;
  const ebay = without(current, readOnly.group);
  const aspects = aspectsOver(ebay.aspects, ours.aspects);
  return { ...over(ebay, ours as Body), ...(aspects ? { aspects } : {}) } as EbayInventoryItemGroup;
}
