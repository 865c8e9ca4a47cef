/**
 * The tracking company Shopify is sent for Kontor's deliverer (document 2's shipping.deliverer:
 * "Carrier; free values allowed; common: DHL, Post, Deutsche Post, UPS, Hermes, DPD, DPDP, TNT, GLS,
 * GLSP"). FulfillmentTrackingInput.company (admin_schema_2025-01.json): "If you specify a tracking
 * company name from the list, Shopify will automatically build tracking URLs for all provided
 * tracking numbers ... Send the tracking company name exactly as written in the list
 * (capitalization matters)"; the list is FulfillmentTrackingInfo.company's "Supported tracking
 * companies". Kontor sent the deliverer as written ("dhl", "dpdp", "post"), which names no listed
 * company: the buyer's number was no link unless Shopify guessed the carrier from its format.
 */

/**
 * Kontor's deliverers (compared without case, spaces, dots, hyphens and underscores, as eBay's
 * ebayCarrierCode) -> the name in Shopify's list. Names of the list "for shops located in any
 * country", else of its Germany list (a Kontor store is a German seller's: "DHL" and "Hermes" are
 * listed for Germany only; decision). DPDP and GLSP are DPD's and GLS's own services (as
 * Amazon's and Kaufland's mappings take them); "Post" is Deutsche Post (as eBay's).
 */
const listedNames: Readonly<Record<string, string>> = {
  dhl: 'DHL',
  dhlpaket: 'DHL',
  dhlexpress: 'DHL Express',
  post: 'Deutsche Post',
  deutschepost: 'Deutsche Post',
  warenpost: 'Deutsche Post',
  hermes: 'Hermes',
  dpd: 'DPD',
  dpdp: 'DPD',
  gls: 'GLS',
  glsp: 'GLS',
  ups: 'UPS',
  tnt: 'TNT',
  fedex: 'FedEx',
  usps: 'USPS',
  colissimo: 'Colissimo',
  coliposte: 'Colissimo',
  chronopost: 'Chronopost',
  correos: 'Correos',
};

/** Every name Kontor sends (checked against the schema's list by test/portals/shopify-tracking.test.ts). */
export const shopifyCompanyNames: readonly string[] = [...new Set(Object.values(listedNames))];

/**
 * The listed name of a deliverer, or undefined when Shopify's list has none (iloxx, a seller's own
 * courier) or none is given. Decision (the schema: "If you're not specifying a Shopify-known
 * tracking company name in the `company` field, then provide tracking URLs for all tracking
 * numbers"): such a deliverer goes without a company, its number with the tracking URL Kontor
 * knows of it; the deliverer's own text is not sent, as Shopify would neither build a link nor
 * follow the parcel for it, and the buyer would see the seller's own code as the carrier.
 */
export function shopifyTrackingCompany(deliverer: string | null | undefined): string | undefined {
  return listedNames[(deliverer ?? '').toLowerCase().replace(/[\s_.-]+/g, '')];
}
