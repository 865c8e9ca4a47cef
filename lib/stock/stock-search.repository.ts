/** GET stock/: Stock_filter_type, select and both pagination modes over indexed columns. */
import { db } from '../db';
import { project, runSearch, SearchRequest, SearchSpec } from '../http';
import { stockToApi } from './stock.mapper';
import { StockRow, stockRepository } from './stock.repository';
import { stockType } from './stock.type';

/**
 * Stock_filter_type (document 1 leaves it open). id takes only plain stock ids (document 1:
 * no prefixed identifiers in this filter). Text fields take = != ~ !~ (name and sku ~ use a
 * trigram index); numbers and dates take comparisons too.
 */
export const stockSearch: SearchSpec<StockRow> = {
  filters: {
    id: { column: 'id', type: 'integer', operators: ['=', '!=', '<', '<=', '>', '>='] },
    name: { column: 'name', type: 'string' },
    sku: { column: 'sku', type: 'string' },
    barcode: { column: 'barcode', type: 'string' },
    mpn: { column: 'mpn', type: 'string' },
    manufacturer: { column: 'manufacturer', type: 'string' },
    folder: { column: 'folder', type: 'string' },
    price: { column: 'price', type: 'decimal' },
    condition_id: { column: 'condition_id', type: 'integer' },
    quantity: { column: 'quantity', type: 'integer' },
    quantity_available: { column: 'quantity_available', type: 'integer' },
    // Document 2's values only: another one answered no items, as if none were of that type.
    'variation.type': { column: 'variation_type', type: 'string', operators: ['=', '!='], values: ['main', 'sub', 'none'] },
    'variation.parent': { column: 'variation_parent_id', type: 'integer', operators: ['=', '!='] },
    'set.type': { column: 'set_type', type: 'string', operators: ['=', '!='], values: ['main', 'sub', 'none'] },
    modified_date: { column: 'modified_at', type: 'datetime' },
    created_date: { column: 'created_at', type: 'datetime' },
    'market_d.sku': { column: 'market_d_sku', type: 'string' },
    'market_d.is_active': { expression: "COALESCE((data->'market_d'->>'is_active')::boolean, false)", type: 'bool' },
    'market_d.is_fba': { expression: "COALESCE((data->'market_d'->>'is_fba')::boolean, false)", type: 'bool' },
    'market_d.market': { expression: "data->'market_d'->>'market'", type: 'string' },
    'market_d.id': { expression: "data->'market_d'->>'id'", type: 'string' },
  },
  key: {
    column: 'id',
    parse: (minId) => (/^\d{1,10}$/.test(minId) && Number(minId) <= 2147483647 ? Number(minId) : undefined),
    idOf: (row) => String(row.id),
  },
  // Stock_type is built on first use (lib/http/schema.ts): workers never search items.
  get type() {
    return stockType();
  },
  alwaysSelected: ['id'],
};

export const stockSearchRepository = {
  /** One page of the account's items as Stock_type, links loaded for the page at once. */
  async search(accountId: number, search: SearchRequest, appClient?: string) {
    // runSearch maps row by row; the links of the whole page are loaded in one go afterwards.
    const rows: StockRow[] = [];
    const page = await runSearch(db()('stock').where('account_id', accountId), stockSearch, search, (row: StockRow) => {
      rows.push(row);
      return { id: row.id };
    });
    const links = await stockRepository.linksOf(db(), accountId, rows);
    const byId = new Map(rows.map((r) => [r.id, r]));
    const items = page.items.map((item) => project(stockToApi(byId.get(item.id as number)!, links, appClient), search.select, stockSearch.alwaysSelected));
    return page.nextMinId === undefined ? { items } : { items, nextMinId: page.nextMinId };
  },
};
