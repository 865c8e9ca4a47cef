import fs from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';
import countries from './data/countries.json';
import stockConditions from './data/stock-conditions.json';
import taxonomy from './data/google-product-taxonomy.json';
import { globalCategoryPlatforms, portalIds } from '../portals';

const batch = 2000;

/** Description icons: one flag per ISO 3166-1 country (the description's market) and one marker per portal. */
export function descriptionIcons(): { id: string; description: string; sort: number }[] {
  const flags = countries.map((c) => ({ id: `flag_${c.id.toLowerCase()}`, description: `Flag of ${c.name.en[0] ?? c.id}` }));
  const portals = portalIds.map((p) => ({ id: `portal_${p}`, description: `Portal marker ${p} (market_d: the description to use)` }));
  return [...portals, ...flags].map((icon, sort) => ({ ...icon, sort }));
}

/** The first-name statistics file: name,female,male per line (comment lines start with #). */
export function readFirstNames(): { name: string; female: number; male: number }[] {
  const text = fs.readFileSync(path.join(__dirname, 'data', 'first-names-us-ssa.csv'), 'utf8');
  return text
    .split('\n')
    .filter((l) => l && !l.startsWith('#'))
    .map((line) => {
      const [name = '', female = '0', male = '0'] = line.split(',');
      return { name, female: Number(female), male: Number(male) };
    });
}

async function insertInBatches(trx: Knex.Transaction, table: string, rows: Record<string, unknown>[]): Promise<void> {
  for (let i = 0; i < rows.length; i += batch)
    await trx(table)
      .insert(rows.slice(i, i + batch))
      .onConflict()
      .ignore();
}

/**
 * Stock conditions, description icons, global categories and first-name statistics. The large
 * sets are loaded only when their row count differs from the committed file, so every migrate
 * does not rewrite tens of thousands of rows.
 */
export async function seedAdminReferenceData(trx: Knex.Transaction): Promise<void> {
  await trx('stock_condition').insert(stockConditions).onConflict('id').merge();
  await trx('description_icon').insert(descriptionIcons()).onConflict('id').merge();

  const categories = globalCategoryPlatforms.flatMap((platform) =>
    (taxonomy as [string, string, string][]).map(([id, parentId, name]) => ({ platform, id, parent_id: parentId, name })),
  );
  const [{ count: categoryCount }] = (await trx('global_category').count({ count: '*' })) as [{ count: string }];
  if (Number(categoryCount) !== categories.length) {
    await trx('global_category').delete();
    await insertInBatches(trx, 'global_category', categories);
  }

  const names = readFirstNames();
  const [{ count: nameCount }] = (await trx('first_name_gender').count({ count: '*' })) as [{ count: string }];
  // Each name twice: the US statistics, and the same counts as the worldwide answer (country '').
  if (Number(nameCount) !== names.length * 2) {
    await trx('first_name_gender').delete();
    const rows = names.flatMap((n) =>
      ['US', ''].map((country) => ({
        name_key: n.name.toLowerCase(),
        country_iso2: country,
        name: n.name,
        female: n.female,
        male: n.male,
      })),
    );
    await insertInBatches(trx, 'first_name_gender', rows);
  }
}
