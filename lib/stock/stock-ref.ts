/**
 * Stock identifiers as clients send them: a stock id, or an alternative identifier with a
 * prefix (ID_, EAN_, SKU_, MPN_, MKTDSKU_); an order line's stock_align_id may also hold a bare
 * sku or barcode. Resolution is always scoped to the account.
 */
import type { Knex } from 'knex';
import { ambiguous } from '../errors';
import { prepared } from '../db';
import type { StockRow } from './stock.repository';

/** The largest id an integer column holds; a longer number cannot be a stock id. */
const maxId = 2147483647;

type Match = { column: 'id' | 'barcode' | 'sku' | 'mpn' | 'market_d_sku'; value: string | number };

const prefixes: [string, Match['column']][] = [
  ['ID_', 'id'],
  ['EAN_', 'barcode'],
  ['SKU_', 'sku'],
  ['MPN_', 'mpn'],
  ['MKTDSKU_', 'market_d_sku'],
];

function asId(text: string): number | undefined {
  if (!/^\d{1,10}$/.test(text)) return undefined;
  const n = Number(text);
  return n >= 1 && n <= maxId ? n : undefined;
}

/**
 * What a reference may match. `bare` says how an unprefixed value is read: 'id' for a path
 * {stock_id} (an integer only), 'align' for stock_align_id (id, sku or barcode).
 */
export function refMatches(ref: string, bare: 'id' | 'align'): Match[] {
  const text = ref.trim();
  for (const [prefix, column] of prefixes) {
    if (text.toUpperCase().startsWith(prefix)) {
      const rest = text.slice(prefix.length);
      if (column === 'id') {
        const id = asId(rest);
        return id === undefined ? [] : [{ column, value: id }];
      }
      return rest === '' ? [] : [{ column, value: rest }];
    }
  }
  const id = asId(text);
  if (bare === 'id') return id === undefined ? [] : [{ column: 'id', value: id }];
  if (text === '') return [];
  return [...(id !== undefined ? [{ column: 'id' as const, value: id }] : []), { column: 'sku', value: text }, { column: 'barcode', value: text }];
}

/**
 * The stock id a reference names in the account, undefined when none; several items matching
 * is a 300 naming `field` (where the client wrote the reference), as the caller's 404 does. With
 * `lock`, the row is locked FOR UPDATE in the caller's transaction.
 */
export async function resolveStockRef(
  knex: Knex | Knex.Transaction,
  accountId: number,
  ref: string | number,
  bare: 'id' | 'align',
  { lock = false, field }: { lock?: boolean; field?: string } = {},
): Promise<number | undefined> {
  const matches = refMatches(String(ref), bare);
  if (matches.length === 0) return undefined;
  const query = knex('stock')
    .select('id')
    .where('account_id', accountId)
    .where((any) => {
      for (const m of matches) any.orWhere(m.column, m.value);
    })
    .orderBy('id')
    .limit(2);
  if (lock) query.forUpdate();
  const rows = await query;
  if (rows.length > 1) throw ambiguous(`stock id ${String(ref)}`, field);
  return rows[0]?.id;
}

/**
 * The stock ids each reference names in the account, with one query for all of them: per
 * reference at most two ids in id order (two: the reference is ambiguous, see stockIdOf).
 * A reference that can match nothing maps to [].
 */
export async function matchStockRefs(knex: Knex | Knex.Transaction, accountId: number, refs: string[], bare: 'id' | 'align'): Promise<Map<string, number[]>> {
  return (await matchRefs(knex, accountId, refs, bare)).ids;
}

/**
 * matchStockRefs for order lines' stock_align_ids, in the same one query: also which of the
 * items found are variation mains (document 1: a main's quantities "are readable and writable but
 * invalid; variant values count"), which no line may take from, and the parts of each set main
 * found (one unit of the set, by sub id): a line that takes from a set records them and moves by
 * them ever after (lib/order/README.md, "Stock link").
 */
export async function matchAlignRefs(
  knex: Knex | Knex.Transaction,
  accountId: number,
  refs: string[],
): Promise<{ ids: Map<string, number[]>; mains: Set<number>; sets: Map<number, SetPart[]> }> {
  return matchRefs(knex, accountId, refs, 'align');
}

/** One part of a set, as one unit of the set holds it: the sub item and its count. */
export interface SetPart {
  stock_id: number;
  quantity: number;
}

const setPartsSql = `CASE WHEN stock.set_type = 'main' THEN (
  SELECT json_agg(json_build_object('stock_id', ss.sub_id, 'quantity', ss.quantity) ORDER BY ss.sub_id)
  FROM stock_set ss WHERE ss.account_id = stock.account_id AND ss.main_id = stock.id) END AS set_parts`;

async function matchRefs(
  knex: Knex | Knex.Transaction,
  accountId: number,
  refs: string[],
  bare: 'id' | 'align',
): Promise<{ ids: Map<string, number[]>; mains: Set<number>; sets: Map<number, SetPart[]> }> {
  const wanted = new Map<string, Match[]>();
  for (const ref of refs) if (!wanted.has(ref)) wanted.set(ref, refMatches(ref, bare));
  const values = new Map<Match['column'], Set<string | number>>();
  for (const matches of wanted.values()) {
    for (const m of matches) values.set(m.column, (values.get(m.column) ?? new Set()).add(m.value));
  }
  let rows: (Pick<StockRow, Match['column'] | 'variation_type'> & { set_parts?: SetPart[] | null })[] = [];
  if (values.size > 0) {
    rows = await knex('stock')
      .select('id', 'variation_type', ...[...values.keys()].filter((c) => c !== 'id'), ...(bare === 'align' ? [knex.raw(setPartsSql)] : []))
      .where('account_id', accountId)
      .where((any) => {
        // Arrays, not lists of placeholders: one statement text per set of columns (prepared).
        for (const [column, set] of values) any.orWhereRaw(`?? = ANY(?::${column === 'id' ? 'int' : 'text'}[])`, [column, [...set].map(String)]);
      })
      .orderBy('id')
      .options(prepared);
  }
  const result = new Map<string, number[]>();
  for (const [ref, matches] of wanted) {
    const ids = rows.filter((row) => matches.some((m) => row[m.column] === m.value)).map((row) => row.id);
    result.set(ref, ids.slice(0, 2));
  }
  const sets = new Map<number, SetPart[]>();
  for (const row of rows) if (row.set_parts?.length) sets.set(row.id, row.set_parts);
  return { ids: result, mains: new Set(rows.filter((row) => row.variation_type === 'main').map((row) => row.id)), sets };
}

/**
 * The one id of matchStockRefs' answer for a reference: undefined for none, 300 for several,
 * naming `field` (an order line's stock_align_id) as the 400 of an unknown item does.
 */
export function stockIdOf(ref: string, ids: number[] | undefined, field?: string): number | undefined {
  if (ids && ids.length > 1) throw ambiguous(`stock id ${ref}`, field);
  return ids?.[0];
}
