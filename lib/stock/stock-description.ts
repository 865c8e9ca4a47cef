/** Stock_description_type: descriptions of an item, scoped by account and item. */
import type { Knex } from 'knex';
import { db } from '../db';
import { invalidField, notFound } from '../errors';
import { Joi, integer, readOnly, text } from '../http';
import { descriptionIconRepository } from '../reference';

/**
 * Two-letter codes that CLDR (ICU, in Node's Intl) names but that ISO 639 withdrew or never
 * assigned: in, iw, ji (now id, he, yi), jw (a typo for jv), mo (ro), sh (sr, hr, bs).
 */
const withdrawnIso639 = new Set(['in', 'iw', 'ji', 'jw', 'mo', 'sh']);
let iso639Codes: Set<string> | undefined;

/**
 * The ISO 639-1 codes: the two-letter codes Intl.DisplayNames names (fallback 'none' answers
 * undefined for an unassigned one) less the withdrawn ones, 184 codes with Node 20's ICU. Chosen
 * over an npm package: Node's official builds carry full ICU, which is kept with CLDR, and it
 * adds no dependency; canonicalising (Intl.getCanonicalLocales) was not used as the filter
 * because it also maps tl, an assigned code, to fil. test/stock/stock-refs-outside.test.ts pins
 * the set, so an ICU without the data fails there, not at a client. Built at first use.
 */
export function isIso639Code(code: string): boolean {
  if (!iso639Codes) {
    const names = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'none' });
    const letters = 'abcdefghijklmnopqrstuvwxyz';
    iso639Codes = new Set([...letters].flatMap((a) => [...letters].map((b) => a + b)).filter((c) => !withdrawnIso639.has(c) && names.of(c)));
  }
  return iso639Codes.has(code);
}

/** Stock_description_type. */
export const stockDescriptionType = Joi.object({
  id: readOnly(integer()),
  name: text(255),
  icon_id: text(255),
  // Document 2: string(2) FK, with no list of languages in document 1: an ISO 639-1 code,
  // in either case ("DE" is German, as clients send it), stored lowercase as ISO writes it.
  language_iso2: Joi.string()
    .trim()
    .lowercase()
    .pattern(/^[a-z]{2}$/, 'ISO 639-1 code')
    .custom((code: string, helpers) => (isIso639Code(code) ? code : helpers.message({ custom: '{{#label}} {{#value}} is not an ISO 639-1 language code' })))
    .allow(''),
  long: text(),
  short: text(),
  alternative_title: text(255),
  meta_keywords: text(255),
  meta_description: text(255),
});

export type DescriptionInput = Partial<
  Record<'name' | 'icon_id' | 'language_iso2' | 'long' | 'short' | 'alternative_title' | 'meta_keywords' | 'meta_description', string>
>;

const fields = ['name', 'icon_id', 'language_iso2', 'long', 'short', 'alternative_title', 'meta_keywords', 'meta_description'] as const;

/** A row of stock_description: its name is never null (default ''), the other fields are null when not given. */
interface DescriptionRow extends Record<Exclude<(typeof fields)[number], 'name'>, string | null> {
  id: number;
  account_id: number;
  stock_id: number;
  name: string;
}

// The row type of stock_description for Knex (declared once here, lib/stock owns the table): a
// description is inserted with its account and item, the fields as given ('' stored as null but the name's).
type DescriptionWrite = Partial<Omit<DescriptionRow, 'id'>>;
declare module 'knex/types/tables' {
  interface Tables {
    stock_description: Knex.CompositeTableType<DescriptionRow, DescriptionWrite & Pick<DescriptionRow, 'account_id' | 'stock_id'>, DescriptionWrite>;
  }
}

/**
 * Every field of Stock_description_type, an empty one as '' (what clears it on input, so a read
 * description posts back as it is, in JSON and XML). Empty fields were left out, so a client read
 * {"id":4,"name":""} for a description without icon, language or texts: fields document 2 lists
 * missing from the answer, where Order_type answers null and Customer_type and Task_type ''.
 * '' rather than null: the fields are strings, and the type refuses null on input.
 */
function toApi(row: DescriptionRow): Record<string, unknown> {
  const out: Record<string, unknown> = { id: row.id };
  for (const f of fields) out[f] = row[f] ?? '';
  return out;
}

/** icon_id must be one of GET system/stock/description/icon/ (checked before the write transaction). */
export async function checkIcon(input: DescriptionInput): Promise<void> {
  if (input.icon_id && !(await descriptionIconRepository.exists(input.icon_id))) {
    throw invalidField('description.icon_id', `description.icon_id ${input.icon_id} is not an icon of GET system/stock/description/icon/`);
  }
}

const clean = (input: DescriptionInput) => Object.fromEntries(Object.entries(input).map(([k, v]) => [k, k !== 'name' && v === '' ? null : v]));

export const stockDescriptionRepository = {
  async list(accountId: number, stockId: number): Promise<Record<string, unknown>[]> {
    const rows = await db()('stock_description').where({ account_id: accountId, stock_id: stockId }).orderBy('id');
    return rows.map(toApi);
  },

  async get(accountId: number, stockId: number, id: number): Promise<Record<string, unknown>> {
    const row = await db()('stock_description').where({ account_id: accountId, stock_id: stockId, id }).first();
    if (!row) throw notFound(`description ${id}`, 'description_id');
    return toApi(row);
  },

  async insert(trx: Knex.Transaction, accountId: number, stockId: number, input: DescriptionInput): Promise<number> {
    const [row] = await trx('stock_description')
      .insert({ ...clean(input), account_id: accountId, stock_id: stockId })
      .returning('id');
    return row!.id;
  },

  async update(trx: Knex.Transaction, accountId: number, stockId: number, id: number, input: DescriptionInput): Promise<void> {
    const query = trx('stock_description').where({ account_id: accountId, stock_id: stockId, id });
    const count = Object.keys(input).length ? await query.update(clean(input)) : (await query.clone().count({ n: '*' }))[0]!.n;
    if (Number(count) === 0) throw notFound(`description ${id}`, 'description_id');
  },

  async delete(trx: Knex.Transaction, accountId: number, stockId: number, id: number): Promise<void> {
    const count = await trx('stock_description').where({ account_id: accountId, stock_id: stockId, id }).delete();
    if (count === 0) throw notFound(`description ${id}`, 'description_id');
  },
};
