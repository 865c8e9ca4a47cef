import { portalInputError, str } from '../portal-http';
import type { ListingItem } from '../portal.type';
import { marketplaceOf } from './marketplaces';

/**
 * Stock_market_d_type (document 2) as a Listings Items API submission: the one place where the
 * item's market_d group becomes Amazon's productType and attributes (the JSON_LISTINGS_FEED
 * messages use the same attribute names).
 */
export interface AmazonListing {
  sku: string;
  productType: string;
  requirements: 'LISTING_OFFER_ONLY';
  attributes: Record<string, Record<string, unknown>[]>;
}

const idTypes = ['ASIN', 'ISBN', 'UPC', 'EAN'];

/** The seller SKU of an item at market_d: its market_d.sku, else its master SKU, else its stock id. */
export function sellerSku(group: Record<string, unknown>, masterSku: string | null, stockId: number): string {
  return str(group, 'sku', masterSku ?? String(stockId))!;
}

/** The item's offer identity: merchant_suggested_asin for an ASIN, else the barcode as externally_assigned_product_identifier. */
function identity(item: ListingItem, marketplaceId: string): Record<string, Record<string, unknown>[]> {
  const g = item.group;
  const type = str(g, 'id_type', 'EAN')!.toUpperCase();
  if (!idTypes.includes(type)) throw portalInputError('market_d', `id_type must be one of ${idTypes.join(', ')}`);
  const id = str(g, 'id', type === 'ASIN' ? null : item.ean);
  if (!id) throw portalInputError('market_d', 'a product id (market_d.id or the barcode) is required');
  if (type === 'ASIN') return { merchant_suggested_asin: [{ value: id, marketplace_id: marketplaceId }] };
  return { externally_assigned_product_identifier: [{ type: type.toLowerCase(), value: id, marketplace_id: marketplaceId }] };
}

/**
 * The seller's price per currency (market_d.currency_prices[]: currency_id, price; ours, as
 * document 2 gives market_d one price and no currency), for marketplaces selling in another
 * currency than the item's price.
 */
function currencyPrices(group: Record<string, unknown>): Map<string, string> {
  const entries = Array.isArray(group.currency_prices) ? (group.currency_prices as Record<string, unknown>[]) : [];
  return new Map(entries.flatMap((e) => (typeof e?.currency_id === 'string' && str(e, 'price') ? [[e.currency_id, str(e, 'price')!]] : [])));
}

/**
 * The currency market_d.price (else the item's price) is in, for an account in these
 * marketplaces: theirs when they share one (a seller in the UK alone, or in DE and FR, prices in
 * the money of their marketplaces, as before); else EUR, document 1's default currency (document 2
 * gives the stock price none), so a seller in DE and UK has its price taken as euros. A seller in
 * US and CA thus has a price in neither and names each currency's price (ours: the documents are silent).
 */
function plainPriceCurrency(marketplaceIds: readonly string[]): string {
  const currencies = new Set(marketplaceIds.map((m) => marketplaceOf(m).currency));
  return currencies.size === 1 ? [...currencies][0]! : 'EUR';
}

/**
 * Refuses, before any call, the marketplaces of the account whose currency the item has no price
 * in (market_d.currency_prices[] of it, else market_d.price or the item's price when those are in
 * it: plainPriceCurrency), naming each with its currency and the field to set: the price went out
 * unchanged as each marketplace's currency, so a seller in DE and UK offered 19.90 EUR as 19.90
 * GBP. The whole submission is refused, the marketplaces that could be priced too, as one Kontor
 * cannot place is (marketplaceOf): the seller sets the price and lists again.
 */
function refuseUnpriced(item: ListingItem, marketplaceIds: readonly string[], wanted: readonly string[]): void {
  const plain = plainPriceCurrency(marketplaceIds);
  const prices = currencyPrices(item.group);
  const unpriced = wanted.filter((m) => marketplaceOf(m).currency !== plain && !prices.has(marketplaceOf(m).currency));
  if (unpriced.length === 0) return;
  const currencies = [...new Set(unpriced.map((m) => marketplaceOf(m).currency))];
  throw portalInputError(
    'market_d',
    `SKU ${sellerSku(item.group, item.sku, item.stockId)} has no price in the currency of ${unpriced.map((m) => `Amazon marketplace ${m} (${marketplaceOf(m).currency})`).join(', ')}: market_d.price (else the item's price) is taken as ${plain}; set market_d.currency_prices[] (currency_id ${currencies.join(', ')} with its price); nothing was sent`,
  );
}

/**
 * The decimals of a currency's smallest unit where it has fewer than two (ISO 4217's minor unit:
 * the Listings Items contract names currencies by ISO 4217, Money.currencyCode): the yen has
 * none. Kontor keeps prices with two decimals (document 2: price decimal(?,2)), so a JPY price of
 * 1980.50 went to Amazon.co.jp as 1980.5 yen, an amount no buyer can pay.
 */
const minorUnits: Record<string, number> = { JPY: 0 };

/**
 * Refuses, before any call, a price with more decimals than its currency has (minorUnits): the
 * offer is not rounded (a price the seller did not set, decision in lib/portals/README.md), the
 * seller is told the SKU, the marketplace and the amount, and sets a whole yen price.
 */
function refuseBeyondMinorUnits(item: ListingItem, marketplaceId: string, currency: string, amount: string): void {
  const places = minorUnits[currency] ?? 2;
  const fraction = /\.(\d*)$/.exec(amount)?.[1] ?? '';
  if (!/[1-9]/.test(fraction.slice(places))) return;
  throw portalInputError(
    'market_d',
    `SKU ${sellerSku(item.group, item.sku, item.stockId)}: the price ${amount} ${currency} for Amazon marketplace ${marketplaceId} has more decimals than ${currency} has (${places}); set a price in whole ${currency} (market_d.currency_prices[] or market_d.price); nothing was sent`,
  );
}

/** The price of the offer in a marketplace of the account (marketplaceIds), in the marketplace's currency (refuseUnpriced). */
function offerPrice(item: ListingItem, marketplaceId: string, marketplaceIds: readonly string[]): { currency: string; amount: number } {
  refuseUnpriced(item, marketplaceIds, [marketplaceId]);
  const currency = marketplaceOf(marketplaceId).currency;
  const amount = currencyPrices(item.group).get(currency) ?? str(item.group, 'price', item.price);
  if (!amount || !Number.isFinite(Number(amount))) throw portalInputError('market_d', 'a price is required');
  refuseBeyondMinorUnits(item, marketplaceId, currency, amount);
  return { currency, amount: Number(amount) };
}

/** Whether the revise values (all when none) name the price. */
const pricesRevised = (revised: readonly string[]): boolean => revised.length === 0 || revised.includes('price');

/** The price as purchasable_offer (gross, in the marketplace's currency: offerPrice). */
function price(item: ListingItem, marketplaceId: string, marketplaceIds: readonly string[]): Record<string, Record<string, unknown>[]> {
  const { currency, amount } = offerPrice(item, marketplaceId, marketplaceIds);
  return {
    purchasable_offer: [{ currency, our_price: [{ schedule: [{ value_with_tax: amount }] }], marketplace_id: marketplaceId }],
  };
}

/**
 * Who ships: FBA (is_fba) names the region's Amazon channel and no quantity (Amazon counts what
 * its fulfilment centre holds); the seller's own shipping is DEFAULT with the quantity and the
 * handling time (delivery_time, lead_time_to_ship_max_days).
 */
export function fulfillmentAvailability(group: Record<string, unknown>, quantity: number, marketplaceId: string): Record<string, unknown>[] {
  if (group.is_fba === true) return [{ fulfillment_channel_code: marketplaceOf(marketplaceId).fba }];
  const handling = typeof group.delivery_time === 'number' ? { lead_time_to_ship_max_days: group.delivery_time } : {};
  return [{ fulfillment_channel_code: 'DEFAULT', quantity, ...handling }];
}

/** The offer's terms beyond price: condition (new; comment as its note) and the prime (shipping) template. */
function terms(item: ListingItem, marketplaceId: string): Record<string, Record<string, unknown>[]> {
  const comment = str(item.group, 'comment');
  const template = str(item.group, 'prime_template');
  return {
    condition_type: [{ value: 'new_new', marketplace_id: marketplaceId }],
    ...(comment ? { condition_note: [{ value: comment, marketplace_id: marketplaceId }] } : {}),
    ...(template ? { merchant_shipping_group: [{ value: template, marketplace_id: marketplaceId }] } : {}),
  };
}

/**
 * The listing of an item in one marketplace of the account (marketplaceIds: all of them, which
 * decide the currency of its price): an offer on a product Amazon knows (LISTING_OFFER_ONLY:
 * document 2's market_d group carries identifiers and offer terms, no product facts), its product
 * type the group's category_id or Amazon's generic PRODUCT. revised: the revise values it is built
 * for (all when none); the price only when they name it, so that a quantity or a note of an item
 * with no price in a marketplace's currency is still sent (a quantity is no money).
 */
export function amazonListing(
  item: ListingItem,
  marketplaceId: string,
  marketplaceIds: readonly string[] = [marketplaceId],
  revised: string[] = [],
): AmazonListing {
  return {
    sku: sellerSku(item.group, item.sku, item.stockId),
    productType: str(item.group, 'category_id', 'PRODUCT')!,
    requirements: 'LISTING_OFFER_ONLY',
    attributes: {
      ...identity(item, marketplaceId),
      ...(pricesRevised(revised) ? price(item, marketplaceId, marketplaceIds) : {}),
      ...terms(item, marketplaceId),
      fulfillment_availability: fulfillmentAvailability(item.group, item.quantityAvailable, marketplaceId),
    },
  };
}

/**
 * The listing of the item in each marketplace of the account, every one made before the first
 * call: a marketplace Kontor cannot place or price refuses them all with none sent, naming every
 * marketplace without a price in its currency at once.
 */
export function amazonListings(
  item: ListingItem,
  marketplaceIds: readonly string[],
  revised: string[] = [],
  wanted: readonly string[] = marketplaceIds,
): Map<string, AmazonListing> {
  // `wanted`: the marketplaces submitted to (a revise of a listing only some took: those). Only
  // they are built and priced; the account's marketplaces still decide the plain price's currency
  // (plainPriceCurrency), so a revise in FR of a seller also in the UK keeps FR's price in EUR.
  const built = marketplaceIds.filter((m) => wanted.includes(m));
  if (pricesRevised(revised)) refuseUnpriced(item, marketplaceIds, built);
  return new Map(built.map((m) => [m, amazonListing(item, m, marketplaceIds, revised)]));
}

/** Document 2's revise values of market_d and the attributes each replaces (all when none named). */
const reviseAttributes: Record<string, string[]> = {
  price: ['purchasable_offer'],
  quantity: ['fulfillment_availability'],
  shipping: ['fulfillment_availability', 'merchant_shipping_group'],
  sku: ['merchant_suggested_asin', 'externally_assigned_product_identifier'],
  desc: ['condition_note'],
};

/** JSON Patch operations (patchListingsItem) replacing the named values' attributes of a live offer. */
export function listingPatches(listing: AmazonListing, values: string[]): { op: 'replace'; path: string; value: Record<string, unknown>[] }[] {
  const named = values.length === 0 ? Object.keys(listing.attributes) : values.flatMap((v) => reviseAttributes[v] ?? []);
  return [...new Set(named)]
    .filter((name) => listing.attributes[name] !== undefined)
    .map((name) => ({ op: 'replace' as const, path: `/attributes/${name}`, value: listing.attributes[name]! }));
}
