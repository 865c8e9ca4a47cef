/**
 * Stock_market_e_type as a Kaufland unit (UnitRequest / UnitPatchRequest of the Seller API v2):
 * EAN (or document 2's `isbn:`), price and minimum price in cents of the storefront's currency
 * (storefrontPrices), condition, handling time from delivery_time, comment as the unit's note,
 * location as its warehouse, shipping group.
 */
import { portalInputError, str } from '../portal-http';
import type { ListingItem } from '../portal.type';

const portal = 'market_e';

/** The EAN-13 check digit of 12 digits. */
function checkDigit(twelve: string): string {
  const sum = [...twelve].reduce((s, d, i) => s + Number(d) * (i % 2 === 0 ? 1 : 3), 0);
  return String((10 - (sum % 10)) % 10);
}

/**
 * The EAN Kaufland takes ("EAN, 13 or 14 digits") of document 2's ean: 13 or 14 digits as they
 * are; 8 (EAN-8) and 12 (UPC-A) left-padded with zeros to 13, as GTINs are; `isbn:` an ISBN-13
 * (978/979, an EAN-13) without its hyphens, or an ISBN-10 as its ISBN-13 (978, the nine digits,
 * a new check digit).
 */
export function kauflandEan(raw: string): string {
  const value = raw.trim();
  const isbn = /^isbn:(.*)$/i.exec(value);
  if (isbn) {
    const digits = isbn[1]!.replace(/-/g, '').toUpperCase();
    if (/^97[89]\d{10}$/.test(digits)) return digits;
    if (/^\d{9}[\dX]$/.test(digits)) return `978${digits.slice(0, 9)}${checkDigit(`978${digits.slice(0, 9)}`)}`;
    throw portalInputError(portal, `${value} is not an ISBN-10 or ISBN-13`);
  }
  if (/^\d{13,14}$/.test(value)) return value;
  if (/^\d{8}$|^\d{12}$/.test(value)) return value.padStart(13, '0');
  throw portalInputError(portal, `Kaufland needs an EAN of 13 or 14 digits (or 8 or 12, padded), not ${value}`);
}

/** Cents of a decimal amount ("12.50", "12,50"); undefined when empty. */
export function cents(value: string | null, field: string): number | undefined {
  if (value === null) return undefined;
  const normal = value.trim().replace(',', '.');
  if (!/^\d+(\.\d{1,2})?$/.test(normal)) throw portalInputError(portal, `${field} ${value} is not an amount`);
  return Math.round(Number(normal) * 100);
}

/**
 * handling_time (days until the parcel is handed over) of delivery_time: `X-Y` (days) gives X,
 * the earliest day the seller names, so Kaufland never promises quicker than that; none gives 1.
 * The letters a to i are real.de's former delivery classes, whose days no reference Kontor has
 * names: refused, asking for X-Y, rather than guessed.
 */
export function handlingTime(deliveryTime: string | null): number {
  if (!deliveryTime) return 1;
  const range = /^(\d{1,3})-(\d{1,3})$/.exec(deliveryTime.trim());
  if (!range) throw portalInputError(portal, `delivery_time ${deliveryTime} is one of real.de's former classes; give the days as X-Y for Kaufland`);
  return Math.min(100, Number(range[1]));
}

/** The seller's id for the unit (id_offer): the item's master SKU, else its stock id; the order import finds the item by it. */
export const idOfferOf = (item: { sku: string | null; stockId: number }) => item.sku ?? String(item.stockId);

export interface UnitData {
  id_offer: string;
  ean: string;
  listing_price: number;
  minimum_price?: number;
  handling_time: number;
  note?: string;
  id_warehouse?: number;
  condition: 'NEW';
  amount: number;
}

/**
 * listing_price's maximum in cents of a storefront's currency: "Minimum 1 cent, maximum differs
 * by storefront (25 million CZK, 1 million EUR or 4.5 million PLN)" (UnitRequest,
 * UnitPatchRequest). For cz the field's int32 is the tighter bound (21,474,836.47 CZK): a larger
 * value breaks the contract's type before Kaufland's maximum.
 */
export function maxListingCents(storefront: string): number {
  if (storefront === 'cz') return 2_147_483_647;
  return storefront === 'pl' ? 450_000_000 : 100_000_000;
}

/** The currency a storefront sells in: "CZK for cz, EUR for de, sk, at, fr, it and PLN for pl" (listing_price's description). */
export const currencyOf = (storefront: string) => (storefront === 'cz' ? 'CZK' : storefront === 'pl' ? 'PLN' : 'EUR');

/**
 * The currency market_e.price (else the item's price) and market_e.price_min are taken in: EUR,
 * whatever the storefront (decision, lib/portals README "Prices per currency"). Document 2 gives
 * market_e one price and no currency, and the group is one per portal, not per portal account, so
 * a seller with a de and a cz account has one number for both: sent as each storefront's money, a
 * 19.90 EUR item sold at 19.90 CZK. EUR is document 1's default currency, the money of five of
 * Kaufland's seven storefronts and of real.de, which market_e names, and what Amazon's plain
 * price falls back to. Not the storefront's own (that is the bug) nor the currency the seller's
 * accounts share: a seller with a cz account alone whose price was read as CZK, then adding a de
 * account, had the same number read as EUR at de, a price changed with nothing said. Fixed, a
 * number is never read in another currency than the one it was set in.
 */
export const plainPriceCurrency = 'EUR';

/** One entry of market_e.currency_prices[] (ours): the item's price, and its minimum price, in a currency. */
interface CurrencyPrice {
  price: string;
  priceMin: string | null;
}

/**
 * market_e.currency_prices[] (ours, as market_d's: `currency_id`, `price`, and `price_min`, the
 * Smart Pricing minimum in that currency) by currency: the item's price at the storefronts
 * selling in that currency.
 */
function currencyPrices(group: Record<string, unknown>): Map<string, CurrencyPrice> {
  const entries = Array.isArray(group.currency_prices) ? (group.currency_prices as Record<string, unknown>[]) : [];
  return new Map(
    entries.flatMap((e) =>
      typeof e?.currency_id === 'string' && str(e, 'price') ? [[e.currency_id.toUpperCase(), { price: str(e, 'price')!, priceMin: str(e, 'price_min') }]] : [],
    ),
  );
}

/**
 * The price and minimum price of the item's unit at a storefront, as text in the storefront's
 * currency, with the field each was taken from. Refused before any call, naming the SKU (id_offer),
 * the storefront, its currency and what to set, when the item holds no price in that currency:
 * never converted (Kontor holds no exchange rate of the seller's). An entry of
 * market_e.currency_prices[] in the storefront's currency comes first (EUR too, before
 * market_e.price); without one, an EUR storefront takes market_e.price (else the item's price) and
 * market_e.price_min as before, a CZK or PLN storefront is refused. At such a storefront a
 * market_e.price_min without the entry's own price_min is refused too: sent as it is it would be a
 * floor in the wrong money, and left out a PATCH keeps whatever minimum Kaufland holds, which may be
 * such a number sent before, under which Smart Pricing may lower the price.
 */
export function storefrontPrices(
  item: ListingItem,
  storefront: string,
): { price: string | null; priceField: string; priceMin: string | null; priceMinField: string } {
  const g = item.group;
  const currency = currencyOf(storefront);
  const own = currencyPrices(g).get(currency);
  const entry = `market_e.currency_prices[] ${currency}`;
  const sku = idOfferOf(item);
  if (own) {
    const plainMin = str(g, 'price_min');
    if (own.priceMin === null && plainMin !== null && currency !== plainPriceCurrency)
      throw portalInputError(
        portal,
        `SKU ${sku}: market_e.price_min ${plainMin} is taken as ${plainPriceCurrency}, and Kaufland storefront ${storefront} sells in ${currency}; set price_min in ${entry} (or clear market_e.price_min); nothing was sent`,
      );
    return own.priceMin !== null
      ? { price: own.price, priceField: `${entry} price`, priceMin: own.priceMin, priceMinField: `${entry} price_min` }
      : { price: own.price, priceField: `${entry} price`, priceMin: plainMin, priceMinField: 'price_min' };
  }
  if (currency !== plainPriceCurrency)
    throw portalInputError(
      portal,
      `SKU ${sku} has no price in the currency of Kaufland storefront ${storefront} (${currency}): market_e.price (else the item's price) is taken as ${plainPriceCurrency}; set market_e.currency_prices[] (currency_id ${currency} with its price); nothing was sent`,
    );
  return { price: str(g, 'price', item.price), priceField: 'price', priceMin: str(g, 'price_min'), priceMinField: 'price_min' };
}

/**
 * The unit of an item. Document 2's group has no condition: NEW. location is Kaufland's
 * warehouse id when it is one (a number); Kaufland has no free-text location, so another value
 * is not sent. The shipping group (an id or a name) is resolved by the adapter.
 */
export function unitData(item: ListingItem, storefront = 'de'): { unit: UnitData; shippingGroup: string | null } {
  const g = item.group;
  const ean = str(g, 'ean', item.ean);
  if (!ean) throw portalInputError(portal, 'an EAN (or isbn:...) is required');
  // In the storefront's currency, or refused naming it (storefrontPrices): never another currency's number.
  const prices = storefrontPrices(item, storefront);
  const price = cents(prices.price, prices.priceField);
  if (!price) throw portalInputError(portal, `a price above 0 is required${prices.priceField === 'price' ? '' : ` (${prices.priceField})`}`);
  // Refused before any call, naming the price: Kaufland refuses a listing_price above it (the sandbox plays it).
  const max = maxListingCents(storefront);
  if (price > max)
    throw portalInputError(
      portal,
      `${prices.priceField} ${prices.price} is above Kaufland's maximum listing price of ${(max / 100).toFixed(2)} ${currencyOf(storefront)} at storefront ${storefront}`,
    );
  const minimum = cents(prices.priceMin, prices.priceMinField);
  if (minimum !== undefined && (minimum < 1 || minimum > price))
    throw portalInputError(portal, `${prices.priceMinField} must be above 0 and at most the price (${prices.priceField})`);
  const note = str(g, 'comment');
  // UnitRequest.note's maxLength counts characters (JSON Schema: code points), not UTF-16 units: 250 emoji fit.
  if (note && [...note].length > 250) throw portalInputError(portal, 'the comment (unit note) is at most 250 characters');
  const location = str(g, 'location');
  return {
    unit: {
      id_offer: idOfferOf(item),
      ean: kauflandEan(ean),
      listing_price: price,
      ...(minimum !== undefined ? { minimum_price: minimum } : {}),
      handling_time: handlingTime(str(g, 'delivery_time')),
      ...(note ? { note } : {}),
      ...(location && /^\d{1,9}$/.test(location) ? { id_warehouse: Number(location) } : {}),
      condition: 'NEW',
      amount: Math.max(0, item.quantityAvailable),
    },
    shippingGroup: str(g, 'shipping_group_id'),
  };
}
