/**
 * ISO 3166-1 alpha-3 codes as the countries of GET system/country/ (data/countries.json, the table
 * `country` is seeded from): a channel naming a country by three letters (Kaufland's Address.country,
 * its contract's example "USA") gives an order's country_iso2 and its spelled-out country. Read from
 * the committed data set, not the table: a pure lookup for mappers, held in memory.
 */
import countries from './data/countries.json';

/** A country by its alpha-3 code: its alpha-2 code (System_country_type.id) and its English name. */
export interface CountryCodes {
  iso2: string;
  /** The first English name of the data set ("United States of America"): document 2's spelled-out country. */
  name: string;
}

let byIso3: Map<string, CountryCodes> | undefined;

/** The country of an ISO 3166-1 alpha-3 code (any case, XKK for Kosovo as the data set has it), or undefined. */
export function countryOfIso3(code: string): CountryCodes | undefined {
  byIso3 ??= new Map(countries.map((c) => [c.iso3, { iso2: c.id, name: c.name.en[0] ?? c.id }]));
  return byIso3.get(code.trim().toUpperCase());
}
