/**
 * The stock link of order lines. Each stored line remembers how many units it holds out of its
 * stock item (stock_taken); every write brings that to the target (the line's quantity, or 0
 * while the order is cancelled or once it is deleted unshipped) through adjustStockQuantities,
 * which locks the items, writes the movements naming the order and queues cia.adjust: one batch
 * per order, or one per POST order/list/ request (PendingStock).
 */
import type { Knex } from 'knex';
import { invalidField } from '../errors';
import type { PendingWrites } from '../queue/outbox';
import { adjustStockQuantities, StockChange } from '../stock/stock-quantity';
import { matchStockRefs, stockIdOf } from '../stock/stock-ref';
import type { LineRow } from './order.repository';

/** A line about to be stored, before its stock link is settled. */
export type LineDraft = Omit<LineRow, 'stock_id' | 'stock_taken'>;

/**
 * Stock changes of order writes held back to run as one batch (applyPendingStock) at the end of
 * the transaction. `take` marks a change a line needs: its item must still exist then.
 */
export type PendingStock = { change: StockChange; take: boolean }[];

/**
 * The stock side of one order write inside a batch of writes (POST order/list/): `known` holds
 * references already resolved in the transaction (shared by the writes; settleLineStock adds
 * what it resolves), `pending` receives this write's changes instead of applying them.
 */
export interface StockBatch {
  known: Map<string, number[]>;
  pending: PendingStock;
}

/** Resolves the stock_align_ids of the orders' lines in one query, for StockBatch.known. */
export function resolveLineRefs(trx: Knex.Transaction, accountId: number, inputs: { line?: { stock_align_id?: string }[] }[]): Promise<Map<string, number[]>> {
  const refs = inputs.flatMap((input) => (input.line ?? []).map((l) => l.stock_align_id?.trim()).filter((r): r is string => Boolean(r)));
  return matchStockRefs(trx, accountId, refs, 'align');
}

interface Move {
  stockRef: string;
  difference: number;
  line?: LineRow;
  field?: string;
}

const idRef = (stockId: number) => `ID_${stockId}`;

const unknownItem = (field: string, ref: string | null) => invalidField(field, `${field} ${ref} is not a stock item of this account`, 'unknown_stock_item');

/**
 * Settles the stock of an order's lines in the caller's transaction and returns the lines to
 * store. `hold` is false while the order is cancelled: then no line holds stock. A line whose
 * stock_align_id names no item of the account is a 400 naming that field. With `batch`, the
 * references are checked now and the changes are added to batch.pending instead of being applied.
 */
export async function settleLineStock(
  trx: Knex.Transaction,
  accountId: number,
  orderId: string,
  before: LineRow[],
  after: LineDraft[],
  hold: boolean,
  title: string,
  fieldPrefix: string,
  batch?: StockBatch,
): Promise<LineRow[]> {
  const old = new Map(before.map((l) => [l.position, l]));
  const kept = new Set<number>();
  const moves: Move[] = [];
  const checks: { ref: string; field: string; line: LineRow }[] = [];
  const result: LineRow[] = [];

  for (const [index, draft] of after.entries()) {
    const ref = draft.stock_align_id?.trim() || null;
    const target = hold && ref ? draft.quantity : 0;
    const line: LineRow = { ...draft, stock_align_id: ref, stock_id: null, stock_taken: 0 };
    result.push(line);
    if (!ref) continue;
    const field = `${fieldPrefix}.line[${index}].stock_align_id`;
    const previous = old.get(draft.position);
    if (previous && previous.stock_id !== null && previous.stock_align_id === ref) {
      kept.add(previous.position);
      line.stock_id = previous.stock_id;
      line.stock_taken = target;
      const difference = previous.stock_taken - target;
      if (difference !== 0) moves.push({ stockRef: idRef(previous.stock_id), difference, line, field });
      continue;
    }
    if (target > 0) {
      line.stock_taken = target;
      moves.push({ stockRef: ref, difference: -target, line, field });
    } else {
      // Nothing to take now (cancelled order, quantity 0), but the link must name a real item.
      checks.push({ ref, field, line });
    }
  }
  for (const previous of before) {
    if (!kept.has(previous.position) && previous.stock_id !== null && previous.stock_taken !== 0) {
      moves.push({ stockRef: idRef(previous.stock_id), difference: previous.stock_taken });
    }
  }
  if (checks.length === 0 && moves.length === 0) return result;

  // Put-backs first, then takes, each in a stable order: the movements keep this order.
  moves.sort((a, b) => Number(a.difference < 0) - Number(b.difference < 0) || a.stockRef.localeCompare(b.stockRef));
  const refs = [...checks.map((c) => c.ref), ...moves.map((m) => m.stockRef)];
  const matches = batch?.known ?? new Map<string, number[]>();
  const unknown = refs.filter((ref) => !matches.has(ref));
  if (unknown.length > 0) for (const [ref, ids] of await matchStockRefs(trx, accountId, unknown, 'align')) matches.set(ref, ids);
  for (const check of checks) {
    const stockId = stockIdOf(check.ref, matches.get(check.ref));
    if (stockId === undefined) throw unknownItem(check.field, check.ref);
    check.line.stock_id = stockId;
  }
  const changes: { change: StockChange; take: boolean; line?: LineRow; field?: string }[] = [];
  for (const move of moves) {
    const stockId = stockIdOf(move.stockRef, matches.get(move.stockRef));
    const take = move.line !== undefined && move.difference < 0;
    if (stockId === undefined) {
      if (take) throw unknownItem(move.field!, move.line!.stock_align_id);
      continue; // A put-back to an item deleted meanwhile has nowhere to go and is dropped.
    }
    if (take) move.line!.stock_id = stockId;
    changes.push({
      change: { stockRef: idRef(stockId), difference: move.difference, cause: { title, orderId, personId: null } },
      take,
      line: move.line,
      field: move.field,
    });
  }

  if (batch) {
    batch.pending.push(...changes.map(({ change, take }) => ({ change, take })));
    return result;
  }
  const moved = await adjustStockQuantities(
    trx,
    accountId,
    changes.map((c) => c.change),
  );
  changes.forEach((c, i) => {
    // The item was deleted between the check above and its lock.
    if (c.take && !moved[i]) throw unknownItem(c.field!, c.line!.stock_align_id);
  });
  return result;
}

/**
 * Applies the changes settleLineStock held back, as one batch in the caller's transaction.
 * False when an item a line takes from is gone by now (deleted since its order was written):
 * the caller must then run its orders again one by one. With `later`, its writes join those (PendingWrites).
 */
export async function applyPendingStock(trx: Knex.Transaction, accountId: number, pending: PendingStock, later?: PendingWrites): Promise<boolean> {
  const moved = await adjustStockQuantities(
    trx,
    accountId,
    pending.map((p) => p.change),
    later,
  );
  return pending.every((p, i) => !p.take || moved[i] !== undefined);
}
