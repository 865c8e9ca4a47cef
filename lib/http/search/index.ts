import type { Knex } from 'knex';
import { readTolerantOfLag } from '../../db';
import { domainError, invalidField } from '../../errors';
import { parseFilters } from './filter';
import { defaultLimit, parsePagination } from './pagination';
import { parseSelect, project } from './select';
import { applyConditions } from './sql';
import type { SearchPage, SearchRequest, SearchSpec } from './types';

export type { SearchPage, SearchRequest, SearchSpec, FilterField, Lookup, SelectTree } from './types';
export { project } from './select';
export { scopeLookups } from './sql';

/** Reads select, filter and pagination from a GET query for a resource; 400 names a bad part. */
export function parseSearch<Row>(query: Record<string, unknown>, spec: SearchSpec<Row>): SearchRequest {
  const { filters, singletons } = parseFilters(query.filter, spec);
  const pagination = parsePagination(query.pagination);
  let minKey: string | number | undefined;
  if (pagination.minId !== undefined) {
    minKey = spec.key.parse(pagination.minId);
    if (minKey === undefined) throw invalidField('pagination[min_id]', `pagination[min_id] ${pagination.minId} is not an id of this resource`);
  }
  return {
    select: parseSelect(query.select, spec.type),
    filters,
    singletons,
    limit: pagination.limit,
    offset: pagination.offset,
    ...(minKey !== undefined ? { minKey } : {}),
  };
}

/**
 * Reads the filter of a DELETE by filter (DELETE stock/category/): filter only, since a DELETE
 * removes every record its filter names (pagination would not bound it, select answers nothing:
 * both are a 400 in the framework), and among several filter objects each must name a condition of
 * its own. Such an object (an empty one, or a first one of singleton filters only) matches every
 * record the singletons allow, so it turns the OR into 'everything': `filter[0][platform]=shop_g&
 * filter[1][id]=5`, written as "the singleton in the first object applies to all" reads, deleted
 * every shop_g category, and so did a stray `{}` after the real object. A search keeps that
 * reading (a wider answer harms nobody); a DELETE names the object instead (400, nothing deleted).
 * One object of singletons only stays what it says: all records of, e.g., that platform.
 */
export function parseDeleteFilter<Row>(filter: unknown, spec: SearchSpec<Row>): SearchRequest {
  const { filters, singletons } = parseFilters(filter, spec);
  if (filters.length > 1) {
    const [first, ...more] = filters.flatMap((conditions, i) =>
      conditions.length
        ? []
        : invalidField(
            `filter[${i}]`,
            `filter[${i}] names no condition of its own, so it would delete every record its singleton filters allow whatever the other filter objects say; ` +
              "put each filter object's conditions in it (singleton filters in the first object apply to every object)",
          ).items(),
    );
    if (first) throw domainError(first.error, first.description, { field: first.field, more });
  }
  return { select: null, filters, singletons, limit: defaultLimit, offset: 0 };
}

/**
 * Runs a search on a repository's base query (already scoped to the account): filters, index
 * order, page or min_id, then maps and projects each row. Searches tolerate lag: the page is
 * read on the read replica when one is configured and fresh enough (lib/db/read-replica.ts).
 */
export async function runSearch<Row, Item extends Record<string, unknown>>(
  base: Knex.QueryBuilder,
  spec: SearchSpec<Row>,
  search: SearchRequest,
  toApi: (row: Row) => Item,
): Promise<SearchPage<Record<string, unknown>>> {
  applyConditions(base, search.singletons, search.filters);
  if (search.minKey !== undefined) base.where(spec.key.column, '>=', search.minKey);
  const rows = await readTolerantOfLag<Row[]>(
    base
      .orderBy(spec.key.column, 'asc')
      .offset(search.offset)
      .limit(search.limit + 1),
  );
  const more = rows.length > search.limit;
  const items = rows.slice(0, search.limit).map((row) => project(toApi(row), search.select, spec.alwaysSelected));
  const next = more && search.minKey !== undefined ? spec.key.idOf(rows[search.limit]!) : undefined;
  return next === undefined ? { items } : { items, nextMinId: next };
}
