/** POST stock/list/: up to 200 creates and updates, each succeeding or failing on its own. */
import { db } from '../db/knex';
import { MultiStatusItem, notFound, runItem, runListSafely, Warning } from '../errors';
import { stripReadOnly, validate } from '../http/validate';
import type { Logger } from '../log';
import { resolveStockRef } from './stock-ref';
import { saveStock } from './stock.service';
import { StockInput, stockListItemType } from './stock.type';

/** Most items of one stock/list/ request (document 1, Limits). */
export const maxListItems = 200;

/**
 * Runs the items in one transaction. A failed item must leave nothing behind: an item that may
 * fail after its first write (an update, or one linking variants or a set) runs in a savepoint.
 * A plain new item can only fail in validation, before it writes, so it needs none (two round
 * trips less). Should the database still refuse such an item, the transaction is rolled back
 * and the whole list runs again with a savepoint for every item. Returns Multistatus_type items.
 */
export async function saveStockList(accountId: number, items: unknown[], log: Logger): Promise<MultiStatusItem[]> {
  return runListSafely((savepointAll) => db().transaction(async (trx) => {
    const response: MultiStatusItem[] = [];
    for (const [index, raw] of items.entries()) {
      const path = `stock[${index}]`;
      const warnings: Warning[] = [];
      response.push(await runItem(trx, path, async (savepoint) => {
        warnings.push(...stripReadOnly(stockListItemType, raw).map((w) => ({ ...w, field: `${path}.${w.field}`, description: `${path}.${w.description}` })));
        const { id, ...fields } = validate<StockInput>(stockListItemType, raw, path);
        const result = await savepoint(async (t) => {
          let existingId: number | undefined;
          if (id !== undefined) {
            existingId = await resolveStockRef(t, accountId, id, 'id');
            if (existingId === undefined) throw notFound(`stock ${String(id)}`, `${path}.id`);
          }
          return saveStock(t, accountId, fields, existingId, { warnings, title: 'stock/list', field: path });
        }, id !== undefined || fields.variation !== undefined || fields.set !== undefined);
        return { code: result.created ? 201 : 200, fields: { stock_id: result.stockId, lister_id: result.listerIds } };
      }, { log, warnings, savepointAll }));
    }
    return response;
  }), log);
}
