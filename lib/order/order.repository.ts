/**
 * SQL of orders: the order row, its lines and history. Every query that finds orders is scoped by
 * an OrderScope: the account, and the portal account a client's authorization is bound to. A
 * foreign order, or one outside the grant, is as absent as a missing one.
 */
import type { Knex } from 'knex';
import type { OrderScope } from '../access';
import { counterRepository } from '../account';
import type { Statement } from '../db';
import type { PendingWrites } from '../queue';
import type { SetPart } from '../stock';
import { db, prepared, jsonParameter } from '../db';

/** The order's columns as stored (numeric as strings, timestamps as Date). */
export interface OrderRow {
  internal_id: string;
  account_id: number;
  number: string;
  id: string;
  portal_account_id: number | null;
  created_at: Date;
  order_date: Date;
  invoice_number: string | null;
  bill_date: string | null;
  bill_url: string | null;
  platform: string | null;
  infos: string | null;
  pack_infos: string | null;
  hidden_infos: string | null;
  payment_method_id: string | null;
  invoice_amount: string;
  paid_amount: string | null;
  currency_id: string;
  customer_internal_id: string | null;
  customer_number: string | null;
  customer_username: string | null;
  customer_email: string | null;
  customer: Record<string, unknown>;
  shipping_fee: string | null;
  shipping: Record<string, unknown>;
  is_initial_contact: boolean;
  initial_contact_date: Date | null;
  is_checkout: boolean;
  is_paid: boolean;
  paid_date: Date | null;
  is_packed: boolean;
  packed_date: Date | null;
  is_shipped: boolean;
  shipped_date: Date | null;
  is_arrived: boolean;
  arrived_date: Date | null;
  is_cancelled: boolean;
  cancelled_date: Date | null;
  is_parked: boolean;
  payment_provider_transaction_id: string | null;
  external_order_id: string | null;
  add_field: string[][] | null;
  credit_main_id: string | null;
  transaction_ids: string[];
  /** When the seller last changed paid_amount by hand (POST order/{order_id}/, order/list/); lib/bank's matching reads it. */
  paid_by_hand_at: Date | null;
  /** The money the seller booked by hand (the rises of paid_amount they wrote); null: stamped before it was kept. */
  paid_by_hand_amount: string | null;
}

/** A stored line (position = Order_line_type id). */
export interface LineRow {
  position: number;
  name: string | null;
  sku: string | null;
  quantity: number;
  price: string | null;
  tax: string | null;
  transaction_id: string | null;
  stock_align_id: string | null;
  stock_id: number | null;
  stock_taken: number;
  /** The parts one unit took when the line took stock from a set (lib/order/order-stock.service.ts); null otherwise. */
  stock_taken_parts: SetPart[] | null;
}

/** An order with its lines, history and credit notes, as read for the API. */
export interface OrderReadRow extends OrderRow {
  lines: LineRow[];
  history: string[];
  credit_sub_ids: string[];
}

/** What a payment reads of an order. */
export interface PaymentRow {
  internal_id: string;
  id: string;
  is_paid: boolean;
  is_cancelled: boolean;
  /** A payment taken back from a shipped order gives the seller a task (lib/bank reversals). */
  is_shipped: boolean;
  paid_amount: string | null;
  invoice_amount: string;
  currency_id: string;
  invoice_number: string | null;
  /** When the seller last changed paid_amount by hand: a payment stored before it is not booked (order-payment.service.ts). */
  paid_by_hand_at: Date | null;
  /** The money booked by hand: a payment larger than it is not that money (order-paid-by-hand.ts). */
  paid_by_hand_amount: string | null;
}

export interface PaymentUpdate {
  internal_id: string;
  paid_amount: string;
  is_paid: boolean;
  became_paid: boolean;
  /** A new invoice number (an order paid for the first time that has none), else null: an order keeps its own. */
  invoice_number: string | null;
  bill_date: string;
}

/** Writable columns of sales_order. */
export type OrderColumns = Omit<OrderRow, 'internal_id' | 'account_id' | 'number' | 'id' | 'created_at'>;

/** A row of sales_order as stored: OrderRow with updated_at, and bill_date as a date (the reads take it as text). */
interface OrderTableRow extends Omit<OrderRow, 'bill_date'> {
  updated_at: Date;
  bill_date: Date | null;
}

/** A row of sales_order_line as stored: the line and its order's internal id. */
interface LineTableRow extends LineRow {
  order_internal_id: string;
}

/** A row of sales_order_history as stored. */
interface HistoryTableRow {
  internal_id: string;
  order_internal_id: string;
  text: string;
  created_at: Date;
}

/** A row of order_invoice_number: where the lookup by invoice number finds the order. */
interface InvoiceNumberRow {
  account_id: number;
  invoice_number: string;
  order_internal_id: string;
}

// The row types of lib/order's tables for Knex (declared once here, lib/order owns them). Bigints
// are read as text and written as numbers too; an order's JSON columns are written as JSON text
// (forDb), bill_date as its text (YYYY-MM-DD), any column as SQL (now()). A row is inserted
// without its internal id, and what has a default or may be null may be left out.
type OrderJson = 'customer' | 'shipping' | 'add_field';
type OrderBigint = 'number' | 'invoice_number' | 'customer_internal_id';
type OrderWrite = {
  [K in Exclude<keyof OrderTableRow, 'internal_id'>]?:
    | (K extends OrderJson
        ? Exclude<OrderTableRow[K], object> | string
        : K extends OrderBigint
          ? OrderTableRow[K] | number
          : K extends 'bill_date'
            ? OrderTableRow[K] | string
            : OrderTableRow[K])
    | Knex.Raw;
};
type LineWrite = Partial<Omit<LineRow, 'position'>> & { order_internal_id: string | number; position: number };
type HistoryWrite = { order_internal_id: string | number; text: string; created_at?: Date | Knex.Raw };
type InvoiceNumberWrite = { account_id: number; invoice_number: string | number; order_internal_id: string | number };
declare module 'knex/types/tables' {
  interface Tables {
    sales_order: Knex.CompositeTableType<OrderTableRow, OrderWrite & Required<Pick<OrderWrite, 'account_id' | 'number' | 'id'>>, OrderWrite>;
    sales_order_line: Knex.CompositeTableType<LineTableRow, LineWrite, Partial<LineWrite>>;
    sales_order_history: Knex.CompositeTableType<HistoryTableRow, HistoryWrite, Partial<HistoryWrite>>;
    order_invoice_number: Knex.CompositeTableType<InvoiceNumberRow, InvoiceNumberWrite, Partial<InvoiceNumberWrite>>;
  }
}

const lineColumns = [
  'position',
  'name',
  'sku',
  'quantity',
  'price',
  'tax',
  'transaction_id',
  'stock_align_id',
  'stock_id',
  'stock_taken',
  'stock_taken_parts',
] as const;
const insertedLineColumns = ['order_internal_id', ...lineColumns].map((c) => `"${c}"`).join(', ');
const insertLinesSql = `INSERT INTO sales_order_line (${insertedLineColumns})
  SELECT ${insertedLineColumns} FROM jsonb_populate_recordset(NULL::sales_order_line, ?::jsonb)`;

function forDb(columns: Partial<OrderColumns>): OrderWrite {
  const { customer, shipping, add_field } = columns;
  // Each JSON column keeps its place among the columns; one left out stays out (Knex's update skips what is undefined), a null stays null.
  return {
    ...columns,
    customer: customer && jsonParameter(customer),
    shipping: shipping && jsonParameter(shipping),
    add_field: add_field && jsonParameter(add_field),
  };
}

/**
 * One statement inserting orders and recording their invoice numbers; answers internal_id and
 * number. The rows go as one JSON parameter per set of columns (jsonb_populate_recordset over
 * the table's row type): order/list/'s 200 orders as 5,200 bindings cost Postgres 7 ms to parse
 * and bind and pg and Knex as much to encode, more than the insert. Orders naming the same
 * columns (a client's batch, nearly always) share one INSERT; a column an order leaves out gets
 * its default, as in Knex's insert. JSON columns go as JSON, not as text.
 */
function insertOrdersSql(
  accountId: number,
  rows: Record<string, unknown>[],
  counter?: Statement,
  alongside: readonly Statement[] = [],
): { sql: string; bindings: Knex.RawBinding[] } {
  const groups = new Map<string, Record<string, unknown>[]>();
  for (const row of rows) {
    const given = Object.fromEntries(Object.entries(row).filter(([, value]) => value !== undefined));
    const key = Object.keys(given).sort().join(',');
    const group = groups.get(key);
    if (group) group.push(given);
    else groups.set(key, [given]);
  }
  // Numbered from the counter: a row's number is its offset in the batch and its id the suffix after the number.
  const value = (c: string) => (!counter ? `r."${c}"` : c === 'number' ? 'c.first + r.number' : c === 'id' ? '(c.first + r.number)::text || r.id' : `r."${c}"`);
  const inserts = [...groups].map(([key], i) => {
    const names = key.split(',');
    // Column names are the code's own (OrderColumns), never a client's keys: they are written into the SQL.
    const odd = names.find((c) => !/^[a-z][a-z0-9_]*$/.test(c));
    if (odd !== undefined) throw new Error(`not a sales_order column name: ${odd}`);
    return `o${i} AS (INSERT INTO sales_order (${names.map((c) => `"${c}"`).join(', ')})
      SELECT ${names.map(value).join(', ')} FROM jsonb_populate_recordset(NULL::sales_order, ?::jsonb) r${counter ? ', c' : ''}
      RETURNING internal_id, number, invoice_number)`;
  });
  const all = inserts.map((_, i) => `SELECT * FROM o${i}`).join(' UNION ALL ');
  const ctes = [
    ...(counter ? [`c AS (${counter.sql})`] : []),
    ...inserts,
    `o AS (${all})`,
    `n AS (${recordInvoiceNumbers} FROM o WHERE invoice_number IS NOT NULL)`,
    ...alongside.map((a, i) => `w${i} AS (${a.sql})`),
  ];
  return {
    sql: `WITH ${ctes.join(', ')} SELECT internal_id, number FROM o`,
    bindings: [...(counter?.bindings ?? []), ...[...groups.values()].map((group) => jsonParameter(group)), accountId, ...alongside.flatMap((a) => a.bindings)],
  };
}

/**
 * The start of the INSERT that records invoice numbers in order_invoice_number, where the lookup
 * by invoice number reads them (sales_order.invoice_number has no index, so that a payment's
 * UPDATE is HOT: migration 20261125_0100). Followed by `FROM <rows> WHERE ...`, rows having
 * internal_id and invoice_number; one binding, the account.
 */
const recordInvoiceNumbers = 'INSERT INTO order_invoice_number (account_id, invoice_number, order_internal_id) SELECT ?::integer, invoice_number, internal_id';

/** The parts of an order read by subqueries; a search whose select leaves them out skips them. */
export interface OrderParts {
  lines: boolean;
  history: boolean;
  credit: boolean;
}

const allParts: OrderParts = { lines: true, history: true, credit: true };

/**
 * The columns of sales_order an order read returns (bill_date apart: read as text). Named, not
 * `*`: the read of one order is a prepared statement, and a prepared `*` fails once a migration
 * changes the table under a live connection ("cached plan must not change result type"). A test
 * (test/order/order-read.test.ts) holds the list to the table's columns.
 */
export const orderReadColumns = [
  'internal_id',
  'account_id',
  'number',
  'id',
  'portal_account_id',
  'created_at',
  'updated_at',
  'order_date',
  'invoice_number',
  'bill_url',
  'platform',
  'infos',
  'pack_infos',
  'hidden_infos',
  'payment_method_id',
  'invoice_amount',
  'paid_amount',
  'currency_id',
  'customer_internal_id',
  'customer_number',
  'customer_username',
  'customer_email',
  'customer',
  'shipping_fee',
  'shipping',
  'is_initial_contact',
  'initial_contact_date',
  'is_checkout',
  'is_paid',
  'paid_date',
  'is_packed',
  'packed_date',
  'is_shipped',
  'shipped_date',
  'is_arrived',
  'arrived_date',
  'is_cancelled',
  'cancelled_date',
  'is_parked',
  'payment_provider_transaction_id',
  'external_order_id',
  'add_field',
  'credit_main_id',
  'transaction_ids',
  'paid_by_hand_at',
  'paid_by_hand_amount',
] as const;

/*
 * The read of one order by id, as SQL text built once per kind of scope (all orders, or those of
 * one portal account) with stand-ins for the values, then run as a prepared statement: per call
 * no query building and, in Postgres, no parse and (once the generic plan is chosen) no planning.
 */
const standIn = { account: -1_000_001, grant: -1_000_002, id: '\u0000order id' } as const;
const byIdStatements = new Map<'all' | 'grant', { sql: string; bindings: readonly unknown[] }>();

function orderByIdStatement(scope: OrderScope, id: string): { sql: string; bindings: Knex.RawBinding[] } {
  const kind = scope.portalAccountGrant === 'all' ? 'all' : 'grant';
  let statement = byIdStatements.get(kind);
  if (!statement) {
    const sample: OrderScope = { accountId: standIn.account, portalAccountGrant: kind === 'all' ? 'all' : standIn.grant };
    statement = orderReadQuery(db(), sample)
      .select(db().raw(`${versionSql} AS version`))
      .where('sales_order.id', standIn.id)
      .first()
      .toSQL();
    byIdStatements.set(kind, statement);
  }
  const value = (b: unknown): unknown => (b === standIn.account ? scope.accountId : b === standIn.grant ? scope.portalAccountGrant : b === standIn.id ? id : b);
  return { sql: statement.sql, bindings: statement.bindings.map(value) as Knex.RawBinding[] };
}

/**
 * The order row's version, the ETag of GET order/{order_id}/ and what If-Match of POST
 * order/{order_id}/ names (lib/order/README.md, conditional updates): the row's xmin, which every
 * UPDATE of it changes (payments, channel changes, a bill_url alike) and a lock does not, with its
 * updated_at, as an opaque digest (the bare xmin would show a client the database's transaction
 * count, a measure of every account's writes).
 */
const versionSql = "md5(sales_order.xmin::text || ' ' || extract(epoch FROM sales_order.updated_at)::text)";

/** Narrows a query of sales_order to the orders the scope may see (document 1, Authentication 5). */
export function inOrderScope<Q extends Knex.QueryBuilder>(query: Q, scope: OrderScope): Q {
  query.where('sales_order.account_id', scope.accountId);
  if (scope.portalAccountGrant !== 'all') query.where('sales_order.portal_account_id', scope.portalAccountGrant);
  return query;
}

/**
 * The order with its lines, history and credit sub ids in one statement: correlated subqueries
 * read only the rows of the orders on the page.
 */
export function orderReadQuery(knex: Knex | Knex.Transaction, scope: OrderScope, parts: OrderParts = allParts) {
  return inOrderScope(knex('sales_order'), scope).select<OrderReadRow[]>(
    ...orderReadColumns.map((c) => `sales_order.${c}`),
    knex.raw('sales_order.bill_date::text AS bill_date'),
    knex.raw(
      parts.lines
        ? `COALESCE((SELECT json_agg(json_build_object(
        'position', l.position, 'name', l.name, 'sku', l.sku, 'quantity', l.quantity, 'price', l.price::text,
        'tax', l.tax::text, 'transaction_id', l.transaction_id, 'stock_align_id', l.stock_align_id,
        'stock_id', l.stock_id, 'stock_taken', l.stock_taken, 'stock_taken_parts', l.stock_taken_parts) ORDER BY l.position)
      FROM sales_order_line l WHERE l.order_internal_id = sales_order.internal_id), '[]'::json) AS lines`
        : "'[]'::json AS lines",
    ),
    knex.raw(
      parts.history
        ? `COALESCE((SELECT json_agg(h.text ORDER BY h.internal_id)
      FROM sales_order_history h WHERE h.order_internal_id = sales_order.internal_id), '[]'::json) AS history`
        : "'[]'::json AS history",
    ),
    knex.raw(
      parts.credit
        ? `COALESCE((SELECT json_agg(c.id ORDER BY c.number) FROM sales_order c
      WHERE c.account_id = sales_order.account_id AND c.credit_main_id = sales_order.id), '[]'::json) AS credit_sub_ids`
        : "'[]'::json AS credit_sub_ids",
    ),
  );
}

/**
 * A condition on sales_order: the account's order has one of these invoice numbers. Read from
 * order_invoice_number (sales_order.invoice_number has no index, so that a payment's UPDATE is
 * HOT); at most one order per number, so the ids are one array computed once and an OR with
 * other conditions keeps to their indexes.
 */
export function hasInvoiceNumberIn(knex: Knex | Knex.Transaction, accountId: number, numbers: string[]): Knex.Raw {
  return knex.raw(
    `sales_order.internal_id = ANY(ARRAY(SELECT order_internal_id FROM order_invoice_number
       WHERE account_id = ? AND invoice_number = ANY(?::bigint[])))`,
    [accountId, numbers],
  );
}

/** An order insertNumbered wrote. */
export interface NumberedOrder {
  number: number;
  id: string;
  internalId: string;
}

/** What follows the order number in an order_id: _<YYYY>_<MM> of the creation month (UTC). */
export function orderIdSuffix(at: Date): string {
  return `_${at.getUTCFullYear()}_${String(at.getUTCMonth() + 1).padStart(2, '0')}`;
}

export const orderRepository = {
  async insert(trx: Knex.Transaction, accountId: number, number: number, id: string, columns: Partial<OrderColumns>): Promise<string> {
    const [internalId] = await orderRepository.insertMany(trx, accountId, [{ number, id, columns }]);
    return internalId!;
  },

  /**
   * Inserts several orders in one statement, their invoice numbers (paid ones) into
   * order_invoice_number in the same statement; their internal ids in the order given.
   */
  async insertMany(trx: Knex.Transaction, accountId: number, orders: { number: number; id: string; columns: Partial<OrderColumns> }[]): Promise<string[]> {
    const { sql, bindings } = insertOrdersSql(
      accountId,
      orders.map(({ number, id, columns }) => ({ ...columns, account_id: accountId, number, id })),
    );
    const { rows } = (await trx.raw(sql, bindings)) as { rows: { internal_id: string; number: string }[] };
    const byNumber = new Map(rows.map((r) => [Number(r.number), String(r.internal_id)]));
    return orders.map((o) => byNumber.get(o.number)!);
  },

  /**
   * insertMany for orders not numbered yet: the same statement takes their consecutive order
   * numbers from the account's counter (in the order given), so the counter stays locked from
   * this statement to the commit instead of from one before it, and then runs the writes
   * `alongside` (their customers' contact data: locked right after the counter). Their numbers,
   * order_ids and internal ids, in the order given.
   */
  async insertNumbered(
    trx: Knex.Transaction,
    accountId: number,
    orders: { at: Date; columns: Partial<OrderColumns> }[],
    alongside: PendingWrites,
  ): Promise<NumberedOrder[]> {
    const { sql, bindings } = insertOrdersSql(
      accountId,
      orders.map(({ at, columns }, offset) => ({ ...columns, account_id: accountId, number: offset, id: orderIdSuffix(at) })),
      counterRepository.takeStatement(accountId, 'order', orders.length),
      alongside.drain(),
    );
    const { rows } = (await trx.raw(sql, bindings)) as { rows: { internal_id: string; number: string }[] };
    const first = Math.min(...rows.map((r) => Number(r.number)));
    const byNumber = new Map(rows.map((r) => [Number(r.number), String(r.internal_id)]));
    return orders.map(({ at }, offset) => ({ number: first + offset, id: `${first + offset}${orderIdSuffix(at)}`, internalId: byNumber.get(first + offset)! }));
  },

  /**
   * The lines of several orders in one INSERT, sent as one JSON parameter: order/list/'s 600 lines
   * as 6,600 bindings cost pg and Knex more to encode and number than Postgres took to insert
   * them. Every line carries every column (LineRow). With `later`, it joins the transaction's
   * deferred writes.
   */
  async insertLines(trx: Knex.Transaction, lines: LineTableRow[], later?: PendingWrites): Promise<void> {
    if (!lines.length) return;
    const bindings = [jsonParameter(lines)];
    if (later) later.defer(insertLinesSql, bindings);
    else await trx.raw(insertLinesSql, bindings);
  },

  /** History entries of several orders in one INSERT, in the order given (two array bindings, however many: a bank statement's thousands). */
  async insertHistory(trx: Knex.Transaction, entries: { order_internal_id: string; text: string }[]): Promise<void> {
    if (!entries.length) return;
    await trx.raw(
      `INSERT INTO sales_order_history (order_internal_id, text)
       SELECT t.order_internal_id, t.text FROM unnest(?::bigint[], ?::text[]) WITH ORDINALITY AS t(order_internal_id, text, n) ORDER BY t.n`,
      [entries.map((e) => e.order_internal_id), entries.map((e) => e.text)],
    );
  },

  /** Writes the columns given; an invoice number (given once, on the first payment) also into order_invoice_number. */
  async update(trx: Knex.Transaction, accountId: number, internalId: string, columns: Partial<OrderColumns>): Promise<void> {
    await trx('sales_order')
      .where({ account_id: accountId, internal_id: internalId })
      .update({ ...forDb(columns), updated_at: trx.fn.now() });
    if (columns.invoice_number) {
      await trx('order_invoice_number').insert({ account_id: accountId, invoice_number: columns.invoice_number, order_internal_id: internalId });
    }
  },

  /** bill_url of an order whose invoice lib/invoice archived: set once, never changed. */
  async setBillUrl(trx: Knex.Transaction, accountId: number, internalId: string, url: string): Promise<void> {
    await trx('sales_order').where({ account_id: accountId, internal_id: internalId }).whereNull('bill_url').update({ bill_url: url });
  },

  /** The payment state of the account's orders among those ids, locked in internal_id order (no deadlock between payers). */
  async lockForPayment(trx: Knex.Transaction, scope: OrderScope, ids: string[]): Promise<PaymentRow[]> {
    return inOrderScope(trx('sales_order'), scope)
      .select(
        'internal_id',
        'id',
        'is_paid',
        'is_cancelled',
        'is_shipped',
        'paid_amount',
        'invoice_amount',
        'currency_id',
        'invoice_number',
        'paid_by_hand_at',
        'paid_by_hand_amount',
      )
      .whereRaw('id = ANY(?::text[])', [ids])
      .orderBy('internal_id')
      .forUpdate();
  },

  /**
   * Writes the payment state of many orders in one statement (see order-payment.service.ts): the
   * UPDATE, a HOT one (no index of sales_order names a column it sets), and the new invoice
   * numbers into order_invoice_number. An order keeps an invoice number it has.
   */
  async updatePayments(trx: Knex.Transaction, accountId: number, rows: PaymentUpdate[]): Promise<void> {
    if (!rows.length) return;
    await trx.raw(
      `WITH o AS (
         UPDATE sales_order o SET paid_amount = t.paid_amount, is_paid = t.is_paid,
           -- A payment taken back to 0.00 leaves the order unpaid: no paid_date (planPaid's rule).
           paid_date = CASE WHEN t.became_paid THEN now() WHEN NOT t.is_paid THEN NULL ELSE o.paid_date END,
           invoice_number = COALESCE(o.invoice_number, t.invoice_number),
           bill_date = CASE WHEN o.invoice_number IS NULL AND t.invoice_number IS NOT NULL THEN t.bill_date ELSE o.bill_date END,
           updated_at = now()
         FROM unnest(?::bigint[], ?::numeric[], ?::boolean[], ?::boolean[], ?::bigint[], ?::date[])
           AS t(internal_id, paid_amount, is_paid, became_paid, invoice_number, bill_date)
         WHERE o.account_id = ? AND o.internal_id = t.internal_id
         RETURNING o.internal_id, o.invoice_number, t.invoice_number AS given
       )
       ${recordInvoiceNumbers} FROM o WHERE given IS NOT NULL AND invoice_number = given`,
      [
        rows.map((r) => r.internal_id),
        rows.map((r) => r.paid_amount),
        rows.map((r) => r.is_paid),
        rows.map((r) => r.became_paid),
        rows.map((r) => r.invoice_number) as string[],
        rows.map((r) => r.bill_date),
        accountId,
        accountId,
      ],
    );
  },

  /** The order row locked for the rest of the transaction, or undefined. */
  async getForUpdate(trx: Knex.Transaction, scope: OrderScope, id: string): Promise<OrderRow | undefined> {
    return inOrderScope(trx('sales_order'), scope).select<OrderRow[]>('*', trx.raw('bill_date::text AS bill_date')).where({ id }).forUpdate().first();
  },

  /**
   * Whether one of the orders is at paid_amount 0.00 without an invoice number, read without a
   * lock (before the rows are locked): its invoice going back to 0.00 pays it and gives it a number
   * (README, paid state), so its writer takes the invoice counter first (lock order).
   */
  async anyAtZeroPaidWithoutInvoiceNumber(trx: Knex.Transaction, scope: OrderScope, ids: string[]): Promise<boolean> {
    const found = await inOrderScope(trx('sales_order'), scope)
      .select('internal_id')
      .whereRaw('id = ANY(?::text[])', [ids])
      .andWhere('paid_amount', 0)
      .whereNull('invoice_number')
      .first();
    return found !== undefined;
  },

  /** The version (versionSql) of an order the transaction has locked. */
  async versionOf(trx: Knex.Transaction, accountId: number, internalId: string): Promise<string> {
    const row = await trx('sales_order')
      .select<{ version: string }[]>(trx.raw(`${versionSql} AS version`))
      .where({ account_id: accountId, internal_id: internalId })
      .first();
    return row!.version;
  },

  async lines(trx: Knex.Transaction, internalId: string): Promise<LineRow[]> {
    return trx('sales_order_line')
      .select(...lineColumns)
      .where({ order_internal_id: internalId })
      .orderBy('position');
  },

  /** Deletes an order's lines, before a change writes its new ones (insertLines). */
  async deleteLines(trx: Knex.Transaction, internalId: string): Promise<void> {
    await trx('sales_order_line').where({ order_internal_id: internalId }).delete();
  },

  async addHistory(trx: Knex.Transaction, internalId: string, texts: string[]): Promise<void> {
    await orderRepository.insertHistory(
      trx,
      texts.map((text) => ({ order_internal_id: internalId, text })),
    );
  },

  /**
   * Deletes the order (lines and history by cascade) and its invoice number's row, and clears the
   * credit.main_id of its credit notes, as a foreign key's ON DELETE SET NULL would (document 2:
   * credit.main_id "R, W, FK"), in one statement. Left naming the deleted order, a credit note
   * read as credit.main_id an id GET order/ answered 404 to, and its own body posted back was a
   * 400 unknown_order.
   */
  async delete(trx: Knex.Transaction, accountId: number, internalId: string): Promise<void> {
    await trx.raw(
      `WITH o AS (DELETE FROM sales_order WHERE account_id = ? AND internal_id = ? RETURNING account_id, id, invoice_number),
       notes AS (
         UPDATE sales_order c SET credit_main_id = NULL, updated_at = now() FROM o
          WHERE c.account_id = o.account_id AND c.credit_main_id = o.id RETURNING c.internal_id)
       DELETE FROM order_invoice_number n USING o WHERE n.account_id = o.account_id AND n.invoice_number = o.invoice_number`,
      [accountId, internalId],
    );
  },

  /** One order with lines, history and its version (versionSql), or undefined. */
  async get(scope: OrderScope, id: string): Promise<(OrderReadRow & { version: string }) | undefined> {
    const { sql, bindings } = orderByIdStatement(scope, id);
    const result = (await db().raw(sql, bindings).options(prepared)) as { rows: (OrderReadRow & { version: string })[] };
    return result.rows[0];
  },

  /** The history of an order, or undefined when the order does not exist in the account. */
  async history(scope: OrderScope, id: string): Promise<string[] | undefined> {
    const order = await inOrderScope(db()('sales_order'), scope).select('internal_id').where({ id }).first();
    if (!order) return undefined;
    const rows = await db()('sales_order_history').select('text').where({ order_internal_id: order.internal_id }).orderBy('internal_id');
    return rows.map((r) => r.text);
  },

  async exists(trx: Knex.Transaction, scope: OrderScope, id: string): Promise<boolean> {
    return Boolean(await inOrderScope(trx('sales_order'), scope).select('internal_id').where({ id }).first());
  },
};
