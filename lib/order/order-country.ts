/**
 * The countries a client names in an order: customer.address.country_iso2 and
 * shipping.address.country_iso2 must be ids of GET system/country/ (document 1: an id a field
 * names comes from its reference). Only the seller's and clients' writes are checked (POST
 * order/, POST order/{order_id}/, order/list/): an invoice takes the buyer's country as it is
 * (EN 16931 BR-CL-14 wants ISO 3166-1; the reverse charge reads it as an EU country), and an
 * invoice is never changed once issued, so "UK" or Greece's VAT prefix "EL" gave an invoice every
 * validator refuses, or German VAT charged to a Greek business. A channel's order (lib/order-import)
 * is not refused for its country: eBay's CountryCodeEnum has codes ISO lacks (QM, QN, QO), and an
 * order a buyer placed must be imported.
 */
import { invalidField } from '../errors';
import { countryRepository } from '../reference';
import type { OrderAddress, OrderInput } from './order.type';

/** A 400 `unknown_country` naming the first address country_iso2 (`<prefix>.customer.address.country_iso2`, ...) that is no country of the reference; '' (no country) passes. */
export async function checkAddressCountries(input: OrderInput, prefix: string): Promise<void> {
  const addresses: [string, OrderAddress | undefined][] = [
    ['customer.address', input.customer?.address],
    ['shipping.address', input.shipping?.address],
  ];
  for (const [path, address] of addresses) {
    const iso2 = address?.country_iso2;
    if (!iso2 || (await countryRepository.exists(iso2))) continue;
    const field = `${prefix}.${path}.country_iso2`;
    throw invalidField(field, `${field} ${iso2} is not a country (see GET system/country/)`, 'unknown_country');
  }
}
