import type { Knex } from 'knex';
import { readTolerantOfLag } from '../../db';
import { invalidField } from '../../errors';
import { parseFilters } from './filter';
import { parsePagination } from './pagination';
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
