import { db } from '../db';
import type { Warning } from '../errors';

/** System_gender_type. */
export interface Gender {
  id: string;
  name: string;
  country_iso2: string;
  gender: 'female' | 'male' | 'unknown';
  probability: number;
}

interface GenderRow {
  name: string;
  country_iso2: string;
  female: number;
  male: number;
}

/** A gender_id: a first name, optionally followed by _ and an ISO 3166-1 alpha-2 country. */
export function parseGenderId(id: string): { name: string; country: string } {
  const match = /^(.+)_([A-Za-z]{2})$/.exec(id);
  return match ? { name: match[1]!, country: match[2]!.toUpperCase() } : { name: id, country: '' };
}

function toApi(id: string, row: GenderRow): Gender {
  const total = row.female + row.male;
  const gender = row.female === row.male ? 'unknown' : row.female > row.male ? 'female' : 'male';
  const probability = Math.round((100 * Math.max(row.female, row.male)) / total);
  return { id, name: row.name, country_iso2: row.country_iso2, gender, probability };
}

/**
 * Most probable gender of a first name in a country, or worldwide. A country the statistics do
 * not cover is answered with the worldwide figures and a warning; an unknown name is undefined.
 */
export async function findGender(id: string, warnings: Warning[]): Promise<Gender | undefined> {
  const { name, country } = parseGenderId(id.trim());
  const rows: GenderRow[] = await db()('first_name_gender')
    .select('name', 'country_iso2', 'female', 'male')
    .where({ name_key: name.toLowerCase() })
    .whereIn('country_iso2', country ? [country, ''] : ['']);
  const exact = rows.find((r) => r.country_iso2 === country);
  if (exact) return toApi(id, exact);
  const worldwide = rows.find((r) => r.country_iso2 === '');
  if (!worldwide) return undefined;
  warnings.push({
    warning: 'country_not_covered',
    description: `no statistics for ${country}; the worldwide figures are given`,
    code: 200,
    field: 'gender_id',
  });
  return toApi(id, worldwide);
}
