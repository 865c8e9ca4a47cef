/**
 * The field rules sell_inventory_v1_oas3.json states in its descriptions rather than its schemas
 * (the contract gate, ebay-contract.sandbox.ts, checks only what the schemas type), for the
 * requests Kontor sends: the inventory item, the offer, the inventory item group and the
 * bulkUpdatePriceQuantity entries. Each rule names its field and its source; the sandbox answers
 * the first one broken with 400 errorId 25709 ("Invalid value for field", the Inventory API's
 * field error, as the gate does), the message naming the field.
 *
 * The sandbox's own choices, where the file only links eBay's documentation:
 * - MarketplaceEnum (EbayOfferDetailsWithKeys.marketplaceId, "See MarketplaceEnum for the list of
 *   supported enumeration values"): the list below, eBay's MarketplaceEnum page;
 * - Content-Language (createOrReplaceInventoryItem, createOffer, updateOffer,
 *   createOrReplaceInventoryItemGroup; the gate checks that it is sent): a language and region
 *   such as the header's examples "en-US" and "de-DE".
 */
import type { Body } from './ebay-state.sandbox';

/** eBay's MarketplaceEnum (developer.ebay.com, sell/inventory types ba:MarketplaceIdEnum). */
export const ebayMarketplaces = new Set([
  'EBAY_AT',
  'EBAY_AU',
  'EBAY_BE',
  'EBAY_CA',
  'EBAY_CH',
  'EBAY_DE',
  'EBAY_ES',
  'EBAY_FR',
  'EBAY_GB',
  'EBAY_HK',
  'EBAY_IE',
  'EBAY_IN',
  'EBAY_IT',
  'EBAY_MOTORS_US',
  'EBAY_MY',
  'EBAY_NL',
  'EBAY_PH',
  'EBAY_PL',
  'EBAY_SG',
  'EBAY_TW',
  'EBAY_US',
]);

/** An auction's listing durations (the offer's listingDuration; a fixed-price offer "must be set to GTC"). */
const auctionDurations = new Set(['DAYS_1', 'DAYS_3', 'DAYS_5', 'DAYS_7', 'DAYS_10']);

type Problem = { field: string; message: string };

const isText = (v: unknown): v is string => typeof v === 'string';
const tooLong = (field: string, value: unknown, max: number): Problem | undefined =>
  isText(value) && value.length > max ? { field, message: `${field} is longer than its Max Length of ${max} (${value.length})` } : undefined;
const wholeNotNegative = (field: string, value: unknown): Problem | undefined =>
  value !== undefined && (typeof value !== 'number' || !Number.isInteger(value) || value < 0)
    ? { field, message: `${field} must be a whole number of 0 or more` }
    : undefined;

/** Product.aspects and InventoryItemGroup.aspects: "Max Length for Aspect Name: 40", "Max Length for Aspect Value: 50". */
function aspects(field: string, value: unknown): Problem | undefined {
  if (!value || typeof value !== 'object') return undefined;
  for (const [name, values] of Object.entries(value as Record<string, unknown>)) {
    if (name.length > 40) return { field: `${field}`, message: `the aspect name "${name}" is longer than its Max Length of 40` };
    for (const v of Array.isArray(values) ? values : [])
      if (isText(v) && v.length > 50) return { field: `${field}.${name}`, message: `the value "${v}" of aspect ${name} is longer than its Max Length of 50` };
  }
  return undefined;
}

/** Product.imageUrls and InventoryItemGroup.imageUrls: "URLs must use the "HTTPS" protocol"; at most `max` of them. */
function images(field: string, value: unknown, max: number): Problem | undefined {
  if (!Array.isArray(value)) return undefined;
  if (value.length > max) return { field, message: `at most ${max} pictures (${value.length})` };
  const plain = value.find((u) => !isText(u) || !/^https:\/\//i.test(u));
  return plain === undefined ? undefined : { field, message: `${String(plain)}: URLs must use the "HTTPS" protocol` };
}

/** The Content-Language header of a call that takes one: a language and region ("en-US", "de-DE"). */
export function languageProblem(header: string | undefined): Problem | undefined {
  return header !== undefined && !/^[a-z]{2}-[A-Z]{2}$/.test(header)
    ? { field: 'Content-Language', message: `Content-Language "${header}" is no language such as en-US or de-DE` }
    : undefined;
}

/**
 * createOrReplaceInventoryItem's body: Product.title 80, subtitle 55, description 4000, brand and
 * mpn 65, aspects 40/50, imageUrls HTTPS and at most 24 ("up to 24 pictures in one listing");
 * conditionDescription 1000; shipToLocationAvailability.quantity a whole number of 0 or more.
 */
export function inventoryItemProblem(body: Body): Problem | undefined {
  const product = (body.product ?? {}) as Body;
  const availability = (body.availability as { shipToLocationAvailability?: { quantity?: unknown } } | undefined)?.shipToLocationAvailability;
  return (
    tooLong('product.title', product.title, 80) ??
    tooLong('product.subtitle', product.subtitle, 55) ??
    tooLong('product.description', product.description, 4000) ??
    tooLong('product.brand', product.brand, 65) ??
    tooLong('product.mpn', product.mpn, 65) ??
    aspects('product.aspects', product.aspects) ??
    images('product.imageUrls', product.imageUrls, 24) ??
    tooLong('conditionDescription', body.conditionDescription, 1000) ??
    wholeNotNegative('availability.shipToLocationAvailability.quantity', availability?.quantity)
  );
}

/**
 * createOffer's and updateOffer's body (`format` is the offer's: updateOffer's body has none):
 * sku "Max Length: 50"; marketplaceId of MarketplaceEnum; format FIXED_PRICE or AUCTION ("Supported
 * values"); listingDuration GTC for a fixed price ("must be set to GTC"), an auction's DAYS_n;
 * availableQuantity a whole number of 0 or more; listingDescription 500000; merchantLocationKey 36;
 * tax.vatPercentage "Max applicable length is 6 characters, including the decimal".
 */
export function offerProblem(body: Body, format: unknown): Problem | undefined {
  if (body.sku !== undefined) {
    const long = tooLong('sku', body.sku, 50);
    if (long) return long;
  }
  if (body.marketplaceId !== undefined && !ebayMarketplaces.has(String(body.marketplaceId)))
    return { field: 'marketplaceId', message: `marketplaceId ${String(body.marketplaceId)} is no MarketplaceEnum value` };
  if (format !== 'FIXED_PRICE' && format !== 'AUCTION') return { field: 'format', message: `format ${String(format)} is neither FIXED_PRICE nor AUCTION` };
  const duration = body.listingDuration;
  if (duration !== undefined && (format === 'FIXED_PRICE' ? duration !== 'GTC' : !auctionDurations.has(String(duration))))
    return {
      field: 'listingDuration',
      message:
        format === 'FIXED_PRICE' ? 'a fixed-price listing’s listingDuration must be GTC' : `an auction runs DAYS_1, 3, 5, 7 or 10, not ${String(duration)}`,
    };
  const vat = (body.tax as { vatPercentage?: unknown } | undefined)?.vatPercentage;
  return (
    wholeNotNegative('availableQuantity', body.availableQuantity) ??
    tooLong('listingDescription', body.listingDescription, 500000) ??
    tooLong('merchantLocationKey', body.merchantLocationKey, 36) ??
    (vat !== undefined && String(vat).length > 6
      ? { field: 'tax.vatPercentage', message: `vatPercentage ${String(vat)} is longer than 6 characters` }
      : undefined)
  );
}

/**
 * createOrReplaceInventoryItemGroup's body: title 80, subtitle 55, description 500000, aspects
 * 40/50, imageUrls HTTPS, variesBy.specifications[] name 40 and each value 50.
 */
export function groupProblem(body: Body): Problem | undefined {
  const specifications = (body.variesBy as { specifications?: unknown } | undefined)?.specifications;
  for (const [i, spec] of (Array.isArray(specifications) ? specifications : []).entries()) {
    const { name, values } = (spec ?? {}) as { name?: unknown; values?: unknown };
    const long = tooLong(`variesBy.specifications[${i}].name`, name, 40);
    if (long) return long;
    for (const v of Array.isArray(values) ? values : []) {
      const longValue = tooLong(`variesBy.specifications[${i}].values`, v, 50);
      if (longValue) return longValue;
    }
  }
  return (
    tooLong('title', body.title, 80) ??
    tooLong('subtitle', body.subtitle, 55) ??
    tooLong('description', body.description, 500000) ??
    aspects('aspects', body.aspects) ??
    images('imageUrls', body.imageUrls, 24)
  );
}

/** A member's inventory item of a multiple-variation listing: "a maximum of 12 pictures may be used per inventory item in the group" (Product.imageUrls). */
export function memberPicturesProblem(sku: string, item: Body | undefined): Problem | undefined {
  const urls = ((item?.product ?? {}) as Body).imageUrls;
  return Array.isArray(urls) && urls.length > 12
    ? { field: 'product.imageUrls', message: `SKU ${sku} has ${urls.length} pictures; an inventory item in a group may use at most 12` }
    : undefined;
}

/** bulkUpdatePriceQuantity's OfferPriceQuantity.availableQuantity: a whole number of 0 or more. */
export function offerQuantityProblem(value: unknown): Problem | undefined {
  return wholeNotNegative('offers.availableQuantity', value);
}

/** eBay's answer to a broken rule: 25709, naming the field. */
export function limitError(problem: Problem) {
  return {
    errors: [
      {
        errorId: 25709,
        domain: 'API_INVENTORY',
        category: 'REQUEST',
        message: `Invalid value for ${problem.field}. ${problem.message}`,
        parameters: [{ name: 'field', value: problem.field }],
      },
    ],
  };
}
