/**
 * What createShippingFulfillment takes of a send_mit (sell_fulfillment_v1_oas3.json,
 * ShippingFulfillmentDetails): eBay's carrier code for Kontor's deliverer, the tracking number
 * as eBay accepts it, and the shipped date.
 */

/**
 * Kontor's deliverer names (shipping.deliverer, free text, compared without case, spaces and
 * hyphens) to eBay's shipping carrier codes. The contract points to the Trading API's
 * GeteBayDetails (DetailName ShippingCarrierDetails) for the list; the values here are those
 * of its ShippingCarrierCodeType (UPS, USPS, FedEx, DHL, DeutschePost, Hermes, iLoxx, TNT,
 * ColiposteDomestic, ColiposteInternational, Chronopost, Correos, Seur, Nacex, Other) and GLS
 * and DPD, which eBay.de's carrier list names. A deliverer not in the table is sent as Other
 * (the tracking number still reaches the buyer), never as free text eBay would refuse.
 */
const carriers: Readonly<Record<string, string>> = {
  dhl: 'DHL',
  dhlexpress: 'DHL',
  dhlpaket: 'DHL',
  deutschepost: 'DeutschePost',
  post: 'DeutschePost',
  warenpost: 'DeutschePost',
  hermes: 'Hermes',
  gls: 'GLS',
  dpd: 'DPD',
  ups: 'UPS',
  usps: 'USPS',
  fedex: 'FedEx',
  tnt: 'TNT',
  iloxx: 'iLoxx',
  coliposte: 'ColiposteDomestic',
  colissimo: 'ColiposteDomestic',
  chronopost: 'Chronopost',
  correos: 'Correos',
  seur: 'Seur',
  nacex: 'Nacex',
};

/** eBay's carrier code of a deliverer (Other when it is unknown or none is given). */
export function ebayCarrierCode(deliverer: string | undefined): string {
  const name = (deliverer ?? '').toLowerCase().replace(/[\s_.-]+/g, '');
  return carriers[name] ?? 'Other';
}

/** The tracking number as eBay takes it: alphanumeric only ("do not include a space even if one appears on the label"). */
export const ebayTrackingNumber = (code: string): string => code.replace(/[^A-Za-z0-9]/g, '');

/**
 * shippedDate: send_mit's date (YYYY-MM-DD: that day at 00:00 UTC; or a full ISO time) in
 * eBay's [YYYY]-[MM]-[DD]T[hh]:[mm]:[ss].[sss]Z, never later than now (a date of today in a
 * time zone ahead of UTC could be); now when send_mit gives none or one that cannot be read.
 */
export function ebayShippedDate(date: string | undefined, now = new Date()): string {
  if (!date) return now.toISOString();
  const parsed = new Date(/^\d{4}-\d\d-\d\d$/.test(date) ? `${date}T00:00:00.000Z` : date);
  return Number.isNaN(parsed.getTime()) || parsed > now ? now.toISOString() : parsed.toISOString();
}

/** A line item and its units, as a package names it (LineItemReference). */
export interface PackageLine {
  lineItemId: string;
  quantity: number;
}

/**
 * The units of package `index` of `count` (send_mit's tracking codes, one package each) out of the
 * order's lines (decision, lib/portals/README.md "send_mit at eBay"): Kontor does not record which
 * unit went into which parcel, and eBay fulfils a line item at most its quantity across its
 * fulfillments ("the number of lineItems associated with the trackingNumber"), so the units are
 * shared out, not named in every package: the lines' units in order, cut into `count` runs as
 * even as can be (the first ones one unit more), so a line is split only where a run ends. Each
 * line is fulfilled once in all. A package left without a unit (more codes than units) is empty.
 */
export function packageShare(lines: PackageLine[], index: number, count: number): PackageLine[] {
  const total = lines.reduce((s, l) => s + l.quantity, 0);
  const size = (i: number) => Math.floor(total / count) + (i < total % count ? 1 : 0);
  let start = 0;
  for (let i = 0; i < index; i++) start += size(i);
  const end = start + size(index);
  const out: PackageLine[] = [];
  let at = 0;
  for (const l of lines) {
    const from = Math.max(start, at);
    const to = Math.min(end, at + l.quantity);
    if (to > from) out.push({ lineItemId: l.lineItemId, quantity: to - from });
    at += l.quantity;
  }
  return out;
}

/**
 * The package's units that eBay has not fulfilled yet (`shipped`: units per line item across the
 * order's fulfillments): a later send_mit, or a line shipped in Seller Hub meanwhile, must not
 * fulfil a line beyond its quantity (eBay refuses the package).
 */
export function unfulfilled(parcel: PackageLine[], lines: PackageLine[], shipped: Map<string, number>): PackageLine[] {
  return parcel.flatMap((p) => {
    const ordered = lines.find((l) => l.lineItemId === p.lineItemId)?.quantity ?? 0;
    const left = Math.max(0, ordered - (shipped.get(p.lineItemId) ?? 0));
    return left > 0 ? [{ lineItemId: p.lineItemId, quantity: Math.min(p.quantity, left) }] : [];
  });
}
