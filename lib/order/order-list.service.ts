/**
 * POST order/list/: up to 200 orders, an item with id updates that order, one without creates
 * one, all in one transaction. Creates are set-based (OrderWrites): each is checked and prepared
 * without a savepoint (it refuses before its first write), and each run of consecutive creates is
 * numbered and inserted with one statement per table before the next update. Updates run in a
 * savepoint each. The stock changes of the items that succeeded run as one batch at the end
 * (their references are checked inside each item, so an unknown item still fails only its order).
 * Should a set-based statement or the stock batch fail (an item deleted meanwhile, a refusal only
 * the database finds), the list is rolled back and run again with every order written and its
 * stock changed inside its own savepoint, which isolates the refused order.
 */
import type { Knex } from 'knex';
import { inTransaction, isConflictVictim } from '../db';
import { invalidField, MultiStatusItem, notFound, runItem, runListSafely, RunAgainSafely, Warning } from '../errors';
import { stripReadOnly, validate } from '../http';
import { log } from '../log';
import { StockBatch } from './order-stock.service';
import { OrderWrites, takeCountersAhead, WrittenOrder } from './order-writes';
import { checkAddressCountries } from './order-country';
import { OrderCaller, planOrderCreate, sellerCancelled, updateOrderIn } from './order.service';
import { OrderInput, orderCreateType, orderIdPattern, orderListItemType } from './order.type';

/** Most items one order/list/ request takes (document 1). */
export const maxOrderListItems = 200;

const prefixed = (path: string, warnings: Warning[]): Warning[] =>
  warnings.map((w) => ({
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
    item.warnings.push(...prefixed(path, stripReadOnly(orderListItemType(), raw)));
    const isUpdate = 'id' in raw && (raw as { id?: unknown }).id !== undefined;
    const input = validate<OrderInput>(isUpdate ? orderListItemType() : orderCreateType(), raw, path);
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

/** Runs the items one by one; returns one Multistatus_type entry per item, in input order. */
export async function writeOrderList(caller: OrderCaller, items: unknown[]): Promise<MultiStatusItem[]> {
  const prepared = items.map(prepare);
  return runListSafely((safely) => runOrderList(caller, prepared, !safely), log);
}

/**
 * An item of a run of set-based creates: a create naming no credit main (that may be created in
 * the same list), or an item refused in validation (it writes nothing, so it does not end a run).
 */
const setBased = (item: ListItem) => item.orderId === undefined && !item.input?.credit?.main_id;

/** The run of set-based creates that starts at index. */
function runFrom(items: ListItem[], index: number): ListItem[] {
  const end = items.findIndex((item, i) => i >= index && !setBased(item));
  return items.slice(index, end < 0 ? items.length : end);
}

/**
 * One run of the list in one transaction. Batched: set-based creates are planned into the list's
 * OrderWrites and written run by run; every other item (an update, a create that must see the
 * items before it written) is written in its savepoint; the stock of every item that succeeded is
 * applied as one batch at the end. Safely (the rerun): every item is a batch of one in its
 * savepoint, its stock applied there, so a refusal only the database finds fails only that item.
 */
function runOrderList(caller: OrderCaller, items: ListItem[], batched: boolean): Promise<MultiStatusItem[]> {
  const { accountId } = caller;
  // A deadlock or serialization victim runs the whole list again (lib/db, up to 3 times): runItem
  // throws it rather than failing the item, since the race is never the client's fault.
  return inTransaction(async (trx) => {
    const response: MultiStatusItem[] = [];
    const inputs = items.flatMap((item) => (item.input ? [item.input] : []));
    const stock = await StockBatch.forOrders(trx, accountId, inputs);
    await takeCountersAhead(trx, caller, items);
    const writes = new OrderWrites(caller, stock, true);
    // Entries of planned creates: they get their order_id when their run is written.
    let awaiting: MultiStatusItem[] = [];
    const resolve = (written: WrittenOrder[]) => {
      awaiting.forEach((entry, i) => {
        entry.order_id = written[i]!.id;
      });
      awaiting = [];
    };
    // A refusal only the database finds (a set-based statement, an item a line takes from gone): the list runs again safely.
    // A conflict victim left the transaction unusable, not refused: it runs again as it was.
    const rerun = (err: unknown): never => {
      if (isConflictVictim(err)) throw err;
      throw new RunAgainSafely('a set-based order write failed', { cause: err });
    };
    const flush = async () => resolve(await writes.flush(trx).catch(rerun));
    for (const [index, item] of items.entries()) {
      const { path, orderId, input } = item;
      const planned = batched && setBased(item);
      // Every other write sees the orders of the list before it written (numbers, customers).
      // (Also ends the run's customer book: the next run reads the customers it names.)
      if (!planned) await flush();
      if (planned && !writes.customers)
        await writes.startRun(
          trx,
          runFrom(items, index).map((i) => i.input),
        );
      const warnings = [...item.warnings];
      const entry = await runItem(
        trx,
        path,
        async (savepoint) => {
          if (!input) throw item.error;
          await checkAddressCountries(input, path);
          if (planned) {
            // A planned create refuses before its first write: no savepoint needed.
            await planOrderCreate(trx, caller, { input, path, byHand: true }, writes);
            return { code: 201, fields: { order_id: '' } };
          }
          // Its stock joins the list's only when it succeeds.
          const itemStock = stock.forItem();
          const done = await savepoint(async (t) => {
            const written = await writeItem(t, caller, item, warnings, new OrderWrites(caller, itemStock, true));
            if (!batched) await itemStock.apply(t, accountId);
            return written;
          });
          stock.adopt(itemStock);
          return { code: done.code, fields: { order_id: done.id } };
        },
        { log, warnings, failedFields: orderId !== undefined ? { order_id: orderId } : {} },
      );
      if (planned && entry.code === 201) awaiting.push(entry);
      response.push(entry);
    }
    if (batched) resolve(await writes.apply(trx).catch(rerun));
    return response;
  }, caller.requestId);
}

/** An item written on its own, a batch of one of `writes`: an update (200), or a create (201). */
async function writeItem(
  trx: Knex.Transaction,
  caller: OrderCaller,
  { path, orderId, input }: ListItem,
  warnings: Warning[],
  writes: OrderWrites,
): Promise<{ code: number; id: string }> {
  if (orderId === undefined) {
    await planOrderCreate(trx, caller, { input: input!, path, byHand: true }, writes);
    const [written] = await writes.flush(trx);
    return { code: 201, id: written!.id };
  }
  const { id: _id, ...changes } = input!;
  const update = await updateOrderIn(trx, caller, { orderId, input: changes, path, warnings, idField: `${path}.id`, byHand: true }, writes);
  await writes.flush(trx);
  await sellerCancelled(trx, caller.accountId, orderId, update);
  return { code: 200, id: orderId };
}
