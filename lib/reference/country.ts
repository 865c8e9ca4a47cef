import { db } from '../db';
import { Joi, bool, list, readOnly, runSearch, SearchRequest, SearchSpec } from '../http';
import { cachedTable } from './reference-cache';

/** System_country_type. */
export const countryType = Joi.object({
  id: readOnly(Joi.string().length(2)),
  iso3: readOnly(Joi.string().length(3)),
  name: Joi.object({ de: list(Joi.string()), en: list(Joi.string()), other: list(Joi.string()) }),
  is_europe: readOnly(bool()),
  is_eu: readOnly(bool()),
});

interface CountryRow {
  iso2: string;
  iso3: string;
  name_de: string[];
  name_en: string[];
  name_other: string[];
  is_europe: boolean;
  is_eu: boolean;
}

const toApi = (row: CountryRow) => ({
  id: row.iso2,
  iso3: row.iso3,
  name: { de: row.name_de, en: row.name_en, other: row.name_other },
  is_europe: row.is_europe,
  is_eu: row.is_eu,
});

/** Country_filter_type: iso2[], iso3[], name[] (any language), is_europe, is_eu. */
export const countrySearch: SearchSpec<CountryRow> = {
  filters: {
    iso2: { column: 'iso2', type: 'string' },
    iso3: { column: 'iso3', type: 'string' },
    name: { expression: 'name_de || name_en || name_other', type: 'string', array: true },
    is_europe: { column: 'is_europe', type: 'bool' },
    is_eu: { column: 'is_eu', type: 'bool' },
  },
  key: {
    column: 'iso2',
    parse: (minId) => (/^[A-Za-z]{2}$/.test(minId) ? minId.toUpperCase() : undefined),
    idOf: (row) => row.iso2,
  },
  type: countryType,
  alwaysSelected: ['id'],
};

/** The ids of GET system/country/, held in memory (the table is seeded and not written at run time). */
const allIds = cachedTable('country', async () => new Set((await db()('country').select('iso2')).map((r: { iso2: string }) => r.iso2)));

export const countryRepository = {
  search(search: SearchRequest) {
    return runSearch(db()('country'), countrySearch, search, toApi);
  },

  async get(iso2: string) {
    const row = await db()('country').where({ iso2: iso2.toUpperCase() }).first();
    return row ? toApi(row) : undefined;
  },

  /** Whether an uppercase ISO 3166-1 alpha-2 code is a country of GET system/country/ (read from memory, for checks of many fields). */
  async exists(iso2: string): Promise<boolean> {
    return (await allIds()).has(iso2);
  },
};
