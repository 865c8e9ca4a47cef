/**
 * Kaufland's carrier_code of document 2's shipping.deliverer (send and shipments take the codes of
 * GET /carriers, listed on the reference's order-files page). Without a tracking number Kaufland
 * asks for `Other` ("do not choose the Carrier Code, because then the tracking number field is
 * mandatory"); an unknown deliverer goes as `Other` too, with its tracking number.
 */
const carrierCodes: Record<string, string> = {
  dhl: 'DHL',
  'dhl express': 'DHL Express',
  post: 'Deutsche Post',
  'deutsche post': 'Deutsche Post',
  dpd: 'DPD',
  dpdp: 'DPD',
  gls: 'GLS',
  glsp: 'GLS',
  hermes: 'Hermes',
  ups: 'UPS',
  fedex: 'FedEx',
  tnt: 'TNT',
};

export function kauflandCarrier(deliverer: string | undefined, trackingCode: string | undefined): string {
  if (!trackingCode) return 'Other';
  return (deliverer && carrierCodes[deliverer.trim().toLowerCase()]) || 'Other';
}
