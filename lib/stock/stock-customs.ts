/** Stock_type.customs[]: origin_country_iso2 names a country of GET system/country/. */
import { invalidField } from '../errors';
import { countryRepository } from '../reference';
import type { StockInput } from './stock.type';

/**
 * A 400 `unknown_country` naming `<field>.customs[i].origin_country_iso2` when it is no country of
 * the reference ('' clears it): a customs app declares the goods' origin with it, and a code ISO
 * 3166-1 lacks ("UK", "EL") stops the parcel's declaration at the border, found only when shipping.
 * Checked before the first write, as the shipping groups are.
 */
export async function checkCustomsCountries(input: StockInput, f: (name: string) => string): Promise<void> {
  const customs = (input.customs as { origin_country_iso2?: string }[] | undefined) ?? [];
  for (const [i, entry] of customs.entries()) {
    const iso2 = entry.origin_country_iso2;
    if (!iso2 || (await countryRepository.exists(iso2))) continue;
    const field = f(`customs[${i}].origin_country_iso2`);
    throw invalidField(field, `${field} ${iso2} is not a country (see GET system/country/)`, 'unknown_country');
  }
}
