/** POST stock/list/: up to 200 creates and updates, each succeeding or failing on its own. */
import type { Knex } from 'knex';
import { db } from '../db/knex';
import type { Payload, Warning } from '../http/envelope';
import { ApiError, notFound } from '../http/errors';
import { stripReadOnly, validate } from '../http/validate';
import type { Logger } from '../log';
import { resolveStockRef } from './stock-ref';
import { saveStock } from './stock.service';
import { StockInput, stockListItemType } from './stock.type';

/** Most items of one stock/list/ request (document 1, Limits). */
export const maxListItems = 200;

/** Raised inside the fast path when the database refused an item that had no savepoint. */
class RetryWithSavepoints extends Error {}

/**
 * Runs the items in one transaction. A failed item must leave nothing behind: an item that may
 * fail after its first write (an update, or one linking variants or a set) runs in a savepoint.
 * A plain new item can only fail in validation, before it writes, so it needs none (two round
 * trips less). Should the database still refuse such an item, the transaction is rolled back
 * and the whole list runs again with a savepoint for every item. Returns Multistatus_type items.
 */
export async function saveStockList(accountId: number, items: unknown[], log: Logger): Promise<Payload[]> {
  try {
    return await runList(accountId, items, log, false);
  } catch (err) {
    if (!(err instanceof RetryWithSavepoints)) throw err;
    return runList(accountId, items, log, true);
  }
}

async function runList(accountId: number, items: unknown[], log: Logger, savepointAll: boolean): Promise<Payload[]> {
  return db().transaction(async (trx) => {
    const response: Payload[] = [];
    for (const [index, raw] of items.entries()) {
      const path = `stock[${index}]`;
      const warnings: Warning[] = [];
      let guarded = true;
      try {
        warnings.push(...stripReadOnly(stockListItemType, raw).map((w) => ({ ...w, field: `${path}.${w.field}`, description: `${path}.${w.description}` })));
        const input = validate<StockInput>(stockListItemType, raw, path);
        const { id, ...fields } = input;
        const save = async (t: Knex.Transaction) => {
          let existingId: number | undefined;
          if (id !== undefined) {
            existingId = await resolveStockRef(t, accountId, id, 'id');
            if (existingId === undefined) throw notFound(`stock ${String(id)}`, `${path}.id`);
          }
          return saveStock(t, accountId, fields, existingId, { warnings, title: 'stock/list', field: path });
        };
        guarded = savepointAll || id !== undefined || fields.variation !== undefined || fields.set !== undefined;
        const result = guarded ? await trx.transaction(save) : await save(trx);
        response.push({
          path, code: result.created ? 201 : 200, stock_id: result.stockId, lister_id: result.listerIds,
          ...(warnings.length ? { warning: warnings } : {}),
        });
      } catch (err) {
        if (!(err instanceof ApiError)) {
          if (!guarded) throw new RetryWithSavepoints();
          log.error({ err, path }, 'stock/list item failed');
          response.push({ path, code: 500, error: [{ error: 'internal_error', description: 'the item could not be saved', code: 500 }] });
          continue;
        }
        response.push({ path, code: err.status, error: err.items(), ...(warnings.length ? { warning: warnings } : {}) });
      }
    }
    return response;
  });
}
