import type { Knex } from 'knex';
import type { OrderScope } from '../access';
import type { PendingWrites } from '../queue';
import { db, jsonParameter } from '../db';
import { Joi, bool, integer, readOnly, runSearch, SearchRequest, SearchSpec } from '../http';
import { orderGrantQueries } from '../access';

/** What caused a movement: the area (title), the order and the user when there is one. */
export interface MovementCause {
  title: string;
  orderId?: string;
  personId?: number | null;
}

/** Writes one Stock_history_type movement in the caller's transaction. */
export async function writeMovement(
  trx: Knex.Transaction,
  accountId: number,
  stockId: number,
  quantityOld: number,
  quantityNew: number,
  cause: MovementCause,
  isError = false,
): Promise<void> {
  await trx('stock_history').insert({
    account_id: accountId,
    stock_id: stockId,
    person_id: cause.personId ?? null,
    quantity_old: quantityOld,
    quantity_difference: quantityNew - quantityOld,
    quantity_new: quantityNew,
    order_id: cause.orderId ?? null,
    title: cause.title,
    is_error: isError,
  });
}

/** A movement for writeMovements. */
export interface Movement {
  stockId: number;
  quantityOld: number;
  quantityNew: number;
  cause: MovementCause;
}

/**
 * Writes movements in one INSERT, in the order given (their ids follow it); with `later`, it joins
 * the transaction's deferred writes.
 */
export async function writeMovements(trx: Knex.Transaction, accountId: number, movements: Movement[], later?: PendingWrites): Promise<void> {
  if (movements.length === 0) return;
  const rows = movements.map((m) => ({
    stockId: m.stockId,
    personId: m.cause.personId ?? null,
    old: m.quantityOld,
    new: m.quantityNew,
    orderId: m.cause.orderId ?? null,
    title: m.cause.title,
  }));
  const sql = `INSERT INTO stock_history (account_id, stock_id, person_id, quantity_old, quantity_difference, quantity_new, order_id, title, is_error)
     SELECT ?, (m->>'stockId')::int, (m->>'personId')::int, (m->>'old')::int, (m->>'new')::int - (m->>'old')::int, (m->>'new')::int,
            m->>'orderId', m->>'title', false
     FROM jsonb_array_elements(?::jsonb) WITH ORDINALITY AS t(m, n)
     ORDER BY t.n`;
  if (later) later.defer(sql, [accountId, jsonParameter(rows)]);
  else await trx.raw(sql, [accountId, jsonParameter(rows)]);
}

/** Stock_history_type (all read only). */
export const stockHistoryType = Joi.object({
  internal_id: readOnly(integer()),
  person_id: readOnly(integer().allow(null)),
  movement_date: readOnly(Joi.string()),
  stock_id: readOnly(integer()),
  quantity: readOnly(Joi.object({ old: integer(), difference: integer(), new: integer() })),
  order_id: readOnly(Joi.string().allow(null)),
  title: readOnly(Joi.string()),
  is_error: readOnly(bool()),
});

interface HistoryRow {
  id: string;
  person_id: number | null;
  movement_date: Date;
  stock_id: number;
  quantity_old: number;
  quantity_difference: number;
  quantity_new: number;
  order_id: string | null;
  title: string;
  is_error: boolean;
}

/** A row of stock_history as stored: HistoryRow and its account. */
interface HistoryTableRow extends HistoryRow {
  account_id: number;
}

// The row type of stock_history for Knex (declared once here, lib/stock owns the table): the id
// (bigint) is read as text; a movement is inserted without it, and its date and error flag have defaults.
type HistoryOptional = 'movement_date' | 'is_error' | 'person_id' | 'order_id';
type HistoryInsert = Omit<HistoryTableRow, 'id' | HistoryOptional> & Partial<Pick<HistoryTableRow, HistoryOptional>>;
declare module 'knex/types/tables' {
  interface Tables {
    stock_history: Knex.CompositeTableType<HistoryTableRow, HistoryInsert, Partial<HistoryInsert>>;
  }
}

const toApi = (row: HistoryRow) => ({
  internal_id: Number(row.id),
  person_id: row.person_id,
  movement_date: row.movement_date.toISOString(),
  stock_id: row.stock_id,
  quantity: { old: row.quantity_old, difference: row.quantity_difference, new: row.quantity_new },
  order_id: row.order_id,
  title: row.title,
  is_error: row.is_error,
});

/**
 * Stock_history_filter_type (document 1 leaves it open): internal_id, stock_id (overall list
 * only), movement_date, person_id, order_id, title (~), is_error, quantity.difference.
 */
function historySearch(withStockId: boolean): SearchSpec<HistoryRow> {
  return {
    filters: {
      internal_id: { column: 'id', type: 'integer', bigint: true },
      ...(withStockId ? { stock_id: { column: 'stock_id', type: 'integer' as const } } : {}),
      movement_date: { column: 'movement_date', type: 'datetime' },
      person_id: { column: 'person_id', type: 'integer' },
      order_id: { column: 'order_id', type: 'string' },
      title: { column: 'title', type: 'string' },
      is_error: { column: 'is_error', type: 'bool' },
      'quantity.difference': { column: 'quantity_difference', type: 'integer' },
    },
    key: {
      column: 'id',
      parse: (minId) => (/^\d{1,18}$/.test(minId) ? minId : undefined),
      idOf: (row) => String(row.id),
    },
    type: stockHistoryType,
    alwaysSelected: ['internal_id'],
  };
}

export const itemHistorySearch = historySearch(false);
export const allHistorySearch = historySearch(true);

/**
 * The movements a caller may read. Stock items are the seller's, shared by every portal account
 * (document 2: Stock_type has no portal account; CIA spreads one quantity over all of them), so a
 * client bound to one portal account still reads an item and its history; but a movement an order
 * caused (order_id) belongs to that order, which document 1 (Authentication 5) shows only to a
 * grant covering its portal account. So a bound client reads the movements no order caused and
 * those of its own portal account's orders; the rest of the history is left out, not refused (its
 * quantities old/new still show the item's quantity, which GET stock/{stock_id}/ shows anyway).
 */
function inHistoryScope(query: Knex.QueryBuilder, scope: OrderScope): Knex.QueryBuilder {
  query.where('stock_history.account_id', scope.accountId);
  const grant = scope.portalAccountGrant;
  if (grant === 'all') return query;
  return query.where((q) =>
    q
      .whereNull('stock_history.order_id')
      // The orders are lib/order's (through lib/access/order-grant.ts: stock sits below orders).
      .orWhereExists(
        orderGrantQueries().ordersOfPortalAccount(db(), 'o', grant).whereRaw('o.account_id = stock_history.account_id AND o.id = stock_history.order_id'),
      ),
  );
}

export const stockHistoryRepository = {
  /** Movements the scope may read (inHistoryScope), of one item when stockId is given. */
  search(scope: OrderScope, search: SearchRequest, stockId?: number) {
    const base = inHistoryScope(db()('stock_history'), scope);
    if (stockId !== undefined) base.where('stock_history.stock_id', stockId);
    return runSearch(base, stockId !== undefined ? itemHistorySearch : allHistorySearch, search, toApi);
  },
};
