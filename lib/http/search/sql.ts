import type { Knex } from 'knex';
import { likePattern } from './filter';
import type { Condition, FilterField, Lookup, SearchRequest } from './types';

/**
 * Adds the WHERE of a search to a query: singletons AND (filter object OR filter object ...). An
 * object without conditions of its own is 'true', so the OR then restricts nothing.
 */
export function applyConditions(qb: Knex.QueryBuilder, singletons: Condition[], filters: Condition[][]): void {
  for (const condition of singletons) applyCondition(qb, condition);
  if (filters.length === 0 || filters.some((filter) => filter.length === 0)) return;
  qb.where((any) => {
    for (const filter of filters) {
      any.orWhere((all) => {
        for (const condition of filter) applyCondition(all, condition);
      });
    }
  });
}

/** Raw bindings: identifiers and values mixed; pg sends a JS array as one SQL array parameter. */
const bind = (...values: unknown[]) => values as Knex.RawBinding[];

function lhs(field: FilterField): [string, string[]] {
  return field.expression ? [`(${field.expression})`, []] : ['??', [field.column!]];
}

/**
 * One condition. Several values are joined by OR for = ~ and comparisons; for != and !~ a record
 * must differ from every value (the reading a client means), and NULL counts as different.
 */
function applyCondition(qb: Knex.QueryBuilder, condition: Condition): void {
  const { field, operator, values } = condition;
  if (field.lookup && operator !== '!=') return applyLookup(qb, condition, field.lookup);
  const [column, ids] = lhs(field);
  const cast = field.type === 'date' ? '::date' : field.type === 'datetime' ? '::timestamptz' : '';
  switch (operator) {
    case '=':
      if (field.array) qb.whereRaw(`${column} && ?::text[]`, bind(...ids, values.map(String)));
      else qb.whereRaw(`${column} = ANY(?${arrayCast(field)})`, bind(...ids, values));
      return;
    case '!=':
      if (field.array) qb.whereRaw(`NOT (${column} && ?::text[])`, bind(...ids, values.map(String)));
      else qb.whereRaw(`(${column} IS NULL OR NOT (${column} = ANY(?${arrayCast(field)})))`, bind(...ids, ...ids, values));
      return;
    case '~':
    case '!~': {
      // Backslash is LIKE's default escape; one pattern keeps a trigram index usable.
      const patterns = values.map((v) => likePattern(String(v)));
      const [match, binding] = patterns.length === 1 ? ['ILIKE ?', patterns[0]] : ['ILIKE ANY(?::text[])', patterns];
      const text = field.type === 'string' ? column : `${column}::text`;
      const like = field.array ? `EXISTS (SELECT 1 FROM unnest(${column}) AS element WHERE element ${match})` : `${text} ${match}`;
      if (operator === '~') qb.whereRaw(like, bind(...ids, binding));
      else qb.whereRaw(`(${column} IS NULL OR NOT ${like})`, bind(...ids, ...ids, binding));
      return;
    }
    default:
      qb.where((any) => {
        for (const value of values) any.orWhereRaw(`${column} ${operator} ?${cast}`, bind(...ids, value));
      });
  }
}

/**
 * A condition on a field indexed in a lookup table: the rows whose key the table lists with a
 * matching value. For = (at most as many keys as values) the keys are one array computed once,
 * so an OR of filter objects still reads indexes; a comparison may match most rows and stays a
 * subquery the planner joins.
 */
function applyLookup(qb: Knex.QueryBuilder, { field, operator, values }: Condition, lookup: Lookup): void {
  const { rowKey, table, key, column, where } = lookup;
  if (!where || !Object.keys(where).length) throw new Error(`search lookup in ${table} without a scope`);
  const scope = Object.entries(where);
  if (operator === '=') {
    const sql = `?? = ANY(ARRAY(SELECT ?? FROM ?? WHERE ${scope.map(() => '?? = ?').join(' AND ')} AND ?? = ANY(?${arrayCast(field)})))`;
    qb.whereRaw(sql, bind(rowKey, key, table, ...scope.flat(), column, values));
    return;
  }
  const own: Condition = { field: { column, type: field.type }, operator, values };
  qb.whereIn(rowKey, (keys) => {
    keys.select(key).from(table).where(where);
    applyCondition(keys, own);
  });
}

/** Sets the tenant of every lookup field in a search's conditions (Lookup.where): the account. */
export function scopeLookups(search: SearchRequest, where: Record<string, string | number>): SearchRequest {
  const scoped = (c: Condition): Condition => (c.field.lookup ? { ...c, field: { ...c.field, lookup: { ...c.field.lookup, where } } } : c);
  return { ...search, singletons: search.singletons.map(scoped), filters: search.filters.map((f) => f.map(scoped)) };
}

function arrayCast(field: FilterField): string {
  switch (field.type) {
    case 'integer':
      return '::bigint[]';
    case 'decimal':
      return '::numeric[]';
    case 'bool':
      return '::boolean[]';
    case 'date':
      return '::date[]';
    case 'datetime':
      return '::timestamptz[]';
    default:
      return '::text[]';
  }
}
