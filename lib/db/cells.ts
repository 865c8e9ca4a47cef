/**
 * Cells (issue 34 point 4): N identical stacks, each with its own PostgreSQL, every account pinned
 * to one. Ids must be unique across cells, so that an account moves to another cell with the ids
 * its API clients hold: each cell's sequences hand out ids of its own range only. CELL_COUNT is
 * the number of cell slots, fixed for the life of the installation (it decides every range);
 * cells are started as they are needed. CELL_COUNT=1 (the default) touches no sequence.
 *
 * Ranges: a sequence of a cell hands out [cell * B / count + 1, (cell + 1) * B / count] (the top
 * cell ends at B - 1), B being 2^31 for integer sequences (their columns are int4) and 2^49 for
 * bigint ones, not 2^63: bigint ids reach JavaScript as numbers (customer internal_id, stock
 * history id) and clients as JSON numbers, exact only up to 2^53, and the API's integer filters
 * take at most 15 digits (lib/http/search/filter.ts); 2^49 is the largest power of two below both.
 * README.md in this folder has the details.
 */
import type { Knex } from 'knex';
import { config } from '../../config';

/** Range bases by the type of the ids (the smaller of the sequence's and its column's type). */
const bases: Record<string, bigint> = { smallint: 2n ** 15n, integer: 2n ** 31n, bigint: 2n ** 49n };

export interface IdRange {
  first: bigint;
  last: bigint;
}

/** The ids a cell's sequences of this type hand out. */
export function cellRange(cell: number, count: number, type: 'smallint' | 'integer' | 'bigint' = 'integer'): IdRange {
  const base = bases[type]!;
  const first = (BigInt(cell) * base) / BigInt(count) + 1n;
  const end = (BigInt(cell + 1) * base) / BigInt(count);
  return { first, last: end < base ? end : base - 1n };
}

/** The cell whose range holds an id of this type (range arithmetic, no database). */
export function cellOfId(id: number | bigint | string, count: number, type: 'smallint' | 'integer' | 'bigint' = 'integer'): number {
  const value = BigInt(id);
  if (value < 1n || value >= bases[type]!) throw new RangeError(`id ${String(id)} lies outside every cell's ${type} range`);
  // The largest cell whose range starts at or below the id: cell * B / count < id (exact also
  // when count does not divide B).
  return Number((value * BigInt(count) - 1n) / bases[type]!);
}

/**
 * The cell an account was created in, for the router. An account moved to another cell keeps its
 * id: the router's short list of moved accounts answers for those before this arithmetic does.
 */
export function cellOfAccount(accountId: number, count = config().cellCount): number {
  return cellOfId(accountId, count, 'integer');
}

/**
 * What a secret or state handed out for an account starts with, so that the router in front of
 * the cells finds the account's cell without a shared database: `a<account id>_` with several
 * cells, nothing with one. The account rather than the cell: a refresh token lives two years, and
 * an account moved to another cell meanwhile keeps its id (the router's list of moved accounts
 * then answers for it).
 */
export function routePrefix(accountId: number, count = config().cellCount): string {
  return count > 1 ? `a${accountId}_` : '';
}

/** The account a token, code or state names by its routePrefix; undefined without one. */
export function accountOfRouteKey(key: string): number | undefined {
  const match = /^a([1-9]\d{0,9})_/.exec(key);
  const id = match ? Number(match[1]) : undefined;
  return id !== undefined && id <= 2147483647 ? id : undefined;
}

/**
 * The router's rule for a bearer token, refresh token, code or consent state: the cell of the
 * account its prefix names (moved accounts by the router's list, the rest by range arithmetic);
 * a key without the prefix was issued before the installation had cells, by what is now cell 0.
 */
export function cellOfRouteKey(key: string, moved: ReadonlyMap<number, number> = new Map(), count = config().cellCount): number {
  const accountId = accountOfRouteKey(key);
  if (accountId === undefined) return 0;
  return moved.get(accountId) ?? cellOfAccount(accountId, count);
}

/** A database that cannot become this cell: ids of another range exist. The message names the sequence. */
export class CellRangeError extends Error {}

interface SequenceRow {
  name: string;
  type: 'smallint' | 'integer' | 'bigint';
  min_value: string;
  max_value: string;
  /** null: never called since created or restarted. */
  last_value: string | null;
  table: string | null;
  column: string | null;
  column_type: string | null;
}

export interface SequenceChange {
  sequence: string;
  first: string;
  last: string;
  restarted: boolean;
}

const smaller = (a: SequenceRow['type'], b: string | null): SequenceRow['type'] => (b && b in bases && bases[b]! < bases[a]! ? (b as SequenceRow['type']) : a);

/**
 * Gives every sequence of the public schema (Knex's own bookkeeping aside) this cell's range:
 * MINVALUE/MAXVALUE, NO CYCLE, and RESTART at the range's start when it has not reached it yet.
 * A sequence that already has the range is left alone (running it again changes nothing, and an
 * account moved in brings rows with another cell's ids, which are not checked again). Before a
 * sequence gets its range, the ids its column holds and the last it handed out must lie inside
 * it: otherwise nothing is changed and CellRangeError names the sequence. count 1: no change at all.
 */
export async function applyCellRanges(knex: Knex, cell: number, count: number): Promise<SequenceChange[]> {
  if (count === 1) return [];
  return knex.transaction(async (trx) => {
    // Two releases migrating at once would each check, then both alter.
    await trx.raw("SELECT pg_advisory_xact_lock(hashtext('kontor cell ranges'))");
    const { rows } = (await trx.raw(
      `SELECT s.sequencename AS name, s.data_type::text AS type, s.min_value::text AS min_value,
              s.max_value::text AS max_value, s.last_value::text AS last_value,
              t.relname AS "table", a.attname AS "column", format_type(a.atttypid, NULL) AS column_type
         FROM pg_sequences s
         JOIN pg_class c ON c.relname = s.sequencename AND c.relnamespace = 'public'::regnamespace
         LEFT JOIN pg_depend d ON d.objid = c.oid AND d.classid = 'pg_class'::regclass
              AND d.refclassid = 'pg_class'::regclass AND d.deptype IN ('a', 'i')
         LEFT JOIN pg_class t ON t.oid = d.refobjid
         LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = d.refobjsubid
        WHERE s.schemaname = 'public' AND s.sequencename NOT LIKE 'knex\\_%'
        ORDER BY s.sequencename`,
    )) as { rows: SequenceRow[] };
    const pending: { row: SequenceRow; range: IdRange }[] = [];
    for (const row of rows) {
      const range = cellRange(cell, count, smaller(row.type, row.column_type));
      if (BigInt(row.min_value) === range.first && BigInt(row.max_value) === range.last) continue;
      const where = `cell ${cell} of ${count}: sequence ${row.name}`;
      const span = `${range.first}..${range.last}`;
      if (row.last_value !== null && BigInt(row.last_value) > range.last)
        throw new CellRangeError(`${where} has handed out ids up to ${row.last_value}, beyond the cell's range ${span}; nothing was changed`);
      if (row.table && row.column) {
        const found = (await trx.raw('SELECT min(??)::text AS low, max(??)::text AS high FROM ??', [row.column, row.column, row.table])) as {
          rows: { low: string | null; high: string | null }[];
        };
        const { low, high } = found.rows[0]!;
        if (low !== null && high !== null && (BigInt(low) < range.first || BigInt(high) > range.last))
          throw new CellRangeError(`${where}: ${row.table}.${row.column} holds ids ${low}..${high}, outside the cell's range ${span}; nothing was changed`);
      }
      pending.push({ row, range });
    }
    const changes: SequenceChange[] = [];
    for (const { row, range } of pending) {
      const restart = row.last_value === null || BigInt(row.last_value) < range.first;
      // Numbers from BigInt arithmetic only; ALTER SEQUENCE takes no bindings for them.
      await trx.raw(
        `ALTER SEQUENCE ?? NO CYCLE MINVALUE ${range.first} MAXVALUE ${range.last} START WITH ${range.first}${restart ? ` RESTART WITH ${range.first}` : ''}`,
        [row.name],
      );
      changes.push({ sequence: row.name, first: String(range.first), last: String(range.last), restarted: restart });
    }
    return changes;
  });
}
