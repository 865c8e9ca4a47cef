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
