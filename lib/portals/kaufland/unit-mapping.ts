/**
 * Stock_market_e_type as a Kaufland unit (UnitRequest / UnitPatchRequest of the Seller API v2):
 * EAN (or document 2's `isbn:`), price and minimum price in cents, condition, handling time from
 * delivery_time, comment as the unit's note, location as its warehouse, shipping group.
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

const currencyOf = (storefront: string) => (storefront === 'cz' ? 'CZK' : storefront === 'pl' ? 'PLN' : 'EUR');

/**
 * The unit of an item. Document 2's group has no condition: NEW. location is Kaufland's
 * warehouse id when it is one (a number); Kaufland has no free-text location, so another value
 * is not sent. The shipping group (an id or a name) is resolved by the adapter.
 */
export function unitData(item: ListingItem, storefront = 'de'): { unit: UnitData; shippingGroup: string | null } {
  const g = item.group;
  const ean = str(g, 'ean', item.ean);
  if (!ean) throw portalInputError(portal, 'an EAN (or isbn:...) is required');
  const priceText = str(g, 'price', item.price);
  const price = cents(priceText, 'price');
  if (!price) throw portalInputError(portal, 'a price above 0 is required');
  // Refused before any call, naming the price: Kaufland refuses a listing_price above it (the sandbox plays it).
  const max = maxListingCents(storefront);
  if (price > max)
    throw portalInputError(
      portal,
      `price ${priceText} is above Kaufland's maximum listing price of ${(max / 100).toFixed(2)} ${currencyOf(storefront)} at storefront ${storefront}`,
    );
  const minimum = cents(str(g, 'price_min'), 'price_min');
  if (minimum !== undefined && (minimum < 1 || minimum > price)) throw portalInputError(portal, `price_min must be above 0 and at most the price`);
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
