/**
 * POST order/list/: up to 200 orders, an item with id updates that order, one without creates
 * one. Each item runs in its own savepoint of one transaction: a failed item leaves nothing,
 * the others are kept, and the whole list costs one commit. The stock changes of the items that
 * succeeded run as one batch at the end (their references are checked inside each item, so an
 * unknown item still fails only its order); should that batch still fail (an item deleted
 * meanwhile, a database error), the list is rolled back and run again with each order's stock
 * changes applied inside its own savepoint.
 */
import { db } from '../db/knex';
import type { Payload, Warning } from '../http/envelope';
import { ApiError, invalidField, notFound } from '../http/errors';
import { stripReadOnly, validate } from '../http/validate';
import { log } from '../log';
import { applyPendingStock, PendingStock, resolveLineRefs, StockBatch } from './order-stock.service';
import { createOrderIn, OrderCaller, updateOrderIn } from './order.service';
import { OrderInput, orderCreateType, orderIdPattern, orderListItemType } from './order.type';

/** Most items one order/list/ request takes (document 1). */
export const maxOrderListItems = 200;

const prefixed = (path: string, warnings: Warning[]): Warning[] => warnings.map((w) => ({
  ...w,
  ...(w.field !== undefined ? { field: `${path}.${w.field}` } : {}),
  description: `${path}.${w.description}`,
}));

/** An item after validation: what to write, or why it cannot be written. */
interface ListItem {
  path: string;
  warnings: Warning[];
  orderId?: string;
  input?: OrderInput;
  error?: unknown;
}

/** Validation of one item (no database work, so it runs once even when the list runs twice). */
function prepare(raw: unknown, index: number): ListItem {
  const item: ListItem = { path: `order[${index}]`, warnings: [] };
  const { path } = item;
  try {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw invalidField(path, `${path} must be an Order_type object`);
    item.warnings.push(...prefixed(path, stripReadOnly(orderListItemType, raw)));
    const isUpdate = 'id' in raw && (raw as { id?: unknown }).id !== undefined;
    const input = validate<OrderInput>(isUpdate ? orderListItemType : orderCreateType, raw, path);
    if (isUpdate) {
      item.orderId = String(input.id);
      if (!orderIdPattern.test(item.orderId)) throw notFound(`order ${item.orderId}`, `${path}.id`);
    }
    item.input = input;
  } catch (err) {
    item.error = err;
  }
  return item;
}

/** The batch of stock changes at the end of a list failed: the list runs again without it. */
class StockBatchFailed extends Error {}

/** Runs the items one by one; returns one Multistatus_type entry per item, in input order. */
export async function writeOrderList(caller: OrderCaller, items: unknown[]): Promise<Payload[]> {
  const prepared = items.map(prepare);
  try {
    return await runOrderList(caller, prepared, true);
  } catch (err) {
    if (!(err instanceof StockBatchFailed)) throw err;
    log.warn({ err: err.cause }, 'order/list/: the stock batch failed; running the list again order by order');
    return runOrderList(caller, prepared, false);
  }
}

function runOrderList(caller: OrderCaller, items: ListItem[], batchStock: boolean): Promise<Payload[]> {
  return db().transaction(async (trx) => {
    const response: Payload[] = [];
    const pending: PendingStock = [];
    const inputs = items.flatMap((item) => (item.input ? [item.input] : []));
    const known = batchStock ? await resolveLineRefs(trx, caller.accountId, inputs) : undefined;
    for (const item of items) {
      const { path, orderId, input } = item;
      const warnings = [...item.warnings];
      const stock: StockBatch | undefined = known ? { known, pending: [] } : undefined;
      let created: string | undefined;
      try {
        if (!input) throw item.error;
        let code: number;
        if (orderId !== undefined) {
          const { id: _id, ...changes } = input;
          await trx.transaction((savepoint) => updateOrderIn(savepoint, caller, orderId, changes, warnings, path, stock));
          code = 200;
        } else {
          created = await trx.transaction((savepoint) => createOrderIn(savepoint, caller, input, path, stock));
          code = 201;
        }
        if (stock) pending.push(...stock.pending);
        response.push({ path, code, order_id: orderId ?? created, ...(warnings.length ? { warning: warnings } : {}) });
      } catch (err) {
        const error = err instanceof ApiError ? err : undefined;
        if (!error) log.error({ err, path }, 'order/list/ item failed');
        const id = orderId ?? created;
        response.push({
          path,
          code: error?.status ?? 500,
          ...(id !== undefined ? { order_id: id } : {}),
          ...(warnings.length ? { warning: warnings } : {}),
          error: error ? error.items() : [{ error: 'internal_error', description: 'the item could not be processed', code: 500 }],
        });
      }
    }
    if (batchStock) {
      const applied = await applyPendingStock(trx, caller.accountId, pending).catch((err: unknown) => { throw new StockBatchFailed('stock batch failed', { cause: err }); });
      if (!applied) throw new StockBatchFailed('an item a line takes from is gone');
    }
    return response;
  });
}
