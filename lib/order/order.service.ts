/**
 * The rules of orders (document 1, Order status flags; document 2, Order_type): creation with a
 * per-account order number, updates, deletion, history, the paid state, invoice numbers, the
 * stock link of lines and the order events, each write in one transaction.
 */
import type { Knex } from 'knex';
import type { OrderScope } from '../access/caller';
import { linkCustomer } from '../customer/customer.service';
import { db } from '../db/knex';
import type { Warning } from '../errors';
import { invalidField, notFound } from '../errors';
import { addManyToOutbox, addToOutbox, PendingWrites } from '../queue/outbox';
import { cancelsAtChannel, queueChannelCancel } from './order-channel-cancel.service';
import { invoiceJobsFor } from './order-invoice.service';
import { currencyRepository } from '../reference/currency';
import { paymentMethodRepository } from '../reference/payment-method.repository';
import { checkAmount, invoiceAmount, toCents } from './order-money';
import { giveInvoiceNumbers, planPaid } from './order-paid';
import { LineDraft, StockBatch } from './order-stock.service';
import { EventType, OrderWrites, WrittenOrder } from './order-writes';
import { LineRow, OrderColumns, orderRepository, OrderRow } from './order.repository';
import { inTransaction } from '../db/transaction';
import type { OrderInput, StatusFlag } from './order.type';

/** Who writes: the account, the orders its authorization covers, and the request's portal account (new orders get it). */
export interface OrderCaller extends OrderScope {
  portalAccountId: number | null;
}

/** Flags with their read-only date column (document 1). is_paid is handled with paid_amount. */
const datedFlags: [Exclude<StatusFlag, 'is_paid'>, keyof OrderRow | null][] = [
  ['is_initial_contact', 'initial_contact_date'],
  ['is_checkout', null],
  ['is_packed', 'packed_date'],
  ['is_shipped', 'shipped_date'],
  ['is_arrived', 'arrived_date'],
  ['is_cancelled', 'cancelled_date'],
  ['is_parked', null],
];

const flagEvents: Partial<Record<StatusFlag, EventType>> = { is_packed: 'packed', is_shipped: 'shipped', is_cancelled: 'cancelled' };

function lineDrafts(input: OrderInput, prefix: string): LineDraft[] {
  const lines = input.line ?? [];
  const seen = new Set<number>();
  lines.forEach((line, i) => {
    if (seen.has(line.id))
      throw invalidField(
        `${prefix}.line[${i}].id`,
        `${prefix}.line[${i}].id ${line.id} is given twice; each line needs its own position id`,
        'duplicate_line_id',
      );
    seen.add(line.id);
    checkAmount(line.price, `${prefix}.line[${i}].price`);
    checkAmount(line.tax, `${prefix}.line[${i}].tax`, 6);
  });
  return [...lines]
    .sort((a, b) => a.id - b.id)
    .map((l) => ({
      position: l.id,
      name: l.name ?? null,
      sku: l.sku ?? null,
      quantity: l.quantity ?? 1,
      price: l.price ?? null,
      tax: l.tax ?? null,
      transaction_id: l.transaction_id ?? null,
      stock_align_id: l.stock_align_id ?? null,
    }));
}

const transactionIds = (lines: { transaction_id: string | null }[]) => [...new Set(lines.map((l) => l.transaction_id).filter((t): t is string => Boolean(t)))];

async function checkReferences(trx: Knex.Transaction, scope: OrderScope, input: OrderInput, prefix: string): Promise<{ prepaid: boolean }> {
  const mainId = input.credit?.main_id;
  if (mainId && !(await orderRepository.exists(trx, scope, mainId))) {
    throw invalidField(`${prefix}.credit.main_id`, `${prefix}.credit.main_id ${mainId} is not an order of this account`, 'unknown_order');
  }
  if (input.currency_id !== undefined && !(await currencyRepository.get(input.currency_id))) {
    throw invalidField(`${prefix}.currency_id`, `${prefix}.currency_id ${input.currency_id} is not a currency (see GET system/currency/)`, 'unknown_currency');
  }
  let prepaid = false;
  if (input.payment_method_id !== undefined) {
    const method = await paymentMethodRepository.get(input.payment_method_id);
    if (!method)
      throw invalidField(
        `${prefix}.payment_method_id`,
        `${prefix}.payment_method_id ${input.payment_method_id} is not a payment method (see GET system/payment_method/)`,
        'unknown_payment_method',
      );
    prepaid = method.is_prepaid;
  }
  checkAmount(input.paid_amount, `${prefix}.paid_amount`);
  checkAmount(input.shipping?.fee, `${prefix}.shipping.fee`);
  if (input.paid_amount !== undefined && toCents(input.paid_amount) < 0n) {
    throw invalidField(`${prefix}.paid_amount`, `${prefix}.paid_amount must not be negative`);
  }
  return { prepaid };
}

/** Fields of the input that map one to one onto columns. */
function plainColumns(input: OrderInput, current?: OrderRow): Partial<OrderColumns> {
  const columns: Partial<OrderColumns> = {};
  for (const key of [
    'platform',
    'infos',
    'pack_infos',
    'hidden_infos',
    'payment_method_id',
    'currency_id',
    'payment_provider_transaction_id',
    'external_order_id',
  ] as const) {
    if (input[key] !== undefined) columns[key] = input[key];
  }
  if (input.current_date !== undefined) columns.order_date = input.current_date;
  if (input.add_field !== undefined) columns.add_field = input.add_field;
  if (input.credit?.main_id !== undefined) columns.credit_main_id = input.credit.main_id || null;
  if (input.shipping) {
    const { fee, ...rest } = input.shipping;
    if (fee !== undefined) columns.shipping_fee = fee;
    columns.shipping = { ...(current?.shipping ?? {}), ...rest };
  }
  if (input.customer) {
    const { id: _id, username, email, ...rest } = input.customer;
    if (username !== undefined) columns.customer_username = username;
    if (email !== undefined) columns.customer_email = email;
    columns.customer = { ...(current?.customer ?? {}), ...rest };
  }
  return columns;
}

/**
 * The flags a write sets: is_arrived true without is_shipped also ships the order (clients send
 * `{"is_arrived":1}` alone; an arrived order has been shipped). An explicit is_shipped false stays
 * a contradiction for applyStatus to refuse.
 */
function sentFlags(input: OrderInput): { flags: OrderInput['status']; shipImplied: boolean } {
  const status = input.status;
  const shipImplied = status?.is_arrived === true && status.is_shipped === undefined;
  return { flags: shipImplied ? { ...status, is_shipped: true } : status, shipImplied };
}

/**
 * Status flags after this write, with their dates: a date is set when its flag becomes true and
 * cleared when it becomes false. Combinations document 1 leaves open are decided here (see
 * ARCHITECTURE.md): a cancelled order cannot be shipped and a shipped one cannot be cancelled;
 * an arrived order must be shipped (is_arrived alone ships it).
 */
function applyStatus(input: OrderInput, current: OrderRow | undefined, now: Date, prefix: string) {
  const columns: Partial<OrderColumns> = {};
  const became = new Set<StatusFlag>();
  const next = {} as Record<Exclude<StatusFlag, 'is_paid'>, boolean>;
  const { flags, shipImplied } = sentFlags(input);
  for (const [flag, dateColumn] of datedFlags) {
    const before = current?.[flag] ?? false;
    const after = flags?.[flag] ?? before;
    next[flag] = after;
    if (after === before && current) continue;
    columns[flag] = after;
    if (after && !before) became.add(flag);
    if (dateColumn) (columns as Record<string, unknown>)[dateColumn] = after ? now : null;
  }
  const field = (flag: StatusFlag) => `${prefix}.status.${flag}`;
  if (next.is_shipped && next.is_cancelled) {
    // A shipment implied by is_arrived is named by the flag the client sent.
    const at = became.has('is_cancelled') && !became.has('is_shipped') ? 'is_cancelled' : shipImplied ? 'is_arrived' : 'is_shipped';
    throw invalidField(
      field(at),
      at === 'is_cancelled'
        ? `${field(at)}: a shipped order cannot be cancelled; unset is_shipped first`
        : `${field(at)}: a cancelled order cannot be shipped; unset is_cancelled first`,
      'status_conflict',
    );
  }
  if (next.is_arrived && !next.is_shipped) {
    const at = input.status?.is_shipped === false ? 'is_shipped' : 'is_arrived';
    throw invalidField(field(at), `${field(at)}: an arrived order must be shipped`, 'status_conflict');
  }
  return { columns, became, cancelled: next.is_cancelled };
}

/** A value that cannot change once set (document 1: platform; issue: payment_provider_transaction_id). */
function checkUnchangeable(input: OrderInput, current: OrderRow, prefix: string): void {
  for (const key of ['platform', 'payment_provider_transaction_id'] as const) {
    const sent = input[key];
    if (sent !== undefined && current[key] !== null && current[key] !== sent) {
      throw invalidField(`${prefix}.${key}`, `${prefix}.${key} cannot be changed once set (it is ${current[key]})`, 'not_changeable');
    }
  }
  const isPaid = input.status?.is_paid;
  if (isPaid !== undefined && isPaid !== current.is_paid) {
    throw invalidField(
      `${prefix}.status.is_paid`,
      `${prefix}.status.is_paid can be set only when the order is created; set paid_amount instead`,
      'not_changeable',
    );
  }
}

async function emit(trx: Knex.Transaction, accountId: number, orderId: string, types: EventType[]): Promise<void> {
  for (const type of types) await addToOutbox(trx, accountId, 'event.emit', { accountId, section: 'order', type, recordId: orderId });
  await addManyToOutbox(trx, accountId, invoiceJobsFor(accountId, types.includes('paid') ? [orderId] : []));
}

/**
 * Plans a new order into `writes` (the batch's writer, its run started: OrderWrites.startRun) and
 * its lines' stock into `stock`, writing nothing: every rule that can refuse it does so here (a
 * DomainError naming the field), so a batch needs no savepoint per create. OrderWrites.flush
 * numbers and inserts it, then the caller applies `stock`.
 */
export async function planOrderCreate(
  trx: Knex.Transaction,
  caller: OrderCaller,
  input: OrderInput,
  prefix: string,
  stock: StockBatch,
  writes: OrderWrites,
): Promise<void> {
  const { prepaid } = await checkReferences(trx, caller, input, prefix);
  const drafts = lineDrafts(input, prefix);
  const now = new Date();
  const status = applyStatus(input, undefined, now, prefix);
  const invoice = invoiceAmount(drafts, input.shipping?.fee ?? null, `${prefix}.line`);
  // is_paid at creation, or a prepaid payment method, without paid_amount: paid in full.
  const paid = planPaid(
    undefined,
    input.paid_amount !== undefined ? { paidAmount: input.paid_amount } : input.status?.is_paid || prepaid ? { inFullOf: invoice } : { paidAmount: null },
    now,
  );
  // Before the customer: an unknown item refuses the order before the run's book holds its buyer.
  const { lines, held } = await stock.settle(trx, caller.accountId, {
    orderId: '',
    before: [],
    after: drafts,
    hold: !status.cancelled,
    title: 'order',
    fieldPrefix: prefix,
  });
  const currencyId = input.currency_id ?? 'EUR';
  const customer = await linkCustomer(trx, caller, input.customer ?? {}, currencyId, writes.customers);
  const columns: Partial<OrderColumns> = {
    ...plainColumns(input),
    ...status.columns,
    currency_id: currencyId,
    portal_account_id: caller.portalAccountId,
    invoice_amount: invoice,
    ...paid.columns,
    customer_internal_id: customer.internalId,
    customer_number: customer.number,
    transaction_ids: transactionIds(lines),
  };
  const events: EventType[] = ['created'];
  if (paid.becamePaid) events.push('paid');
  for (const flag of status.became) if (flagEvents[flag]) events.push(flagEvents[flag]!);
  writes.add({ columns, lines, history: input.history ?? [], events, at: now, pending: held, needsInvoiceNumber: paid.needsInvoiceNumber });
}

/**
 * Plans, numbers and inserts one order in the caller's transaction (a batch of one); its stock
 * joins `stock` for the caller to apply. `later`: the writes nobody reads before the commit join
 * those (PendingWrites). `countersTaken`: the caller holds the invoice and customer counters
 * already (order/list/, takeCountersAhead).
 */
export async function writeOrderIn(
  trx: Knex.Transaction,
  caller: OrderCaller,
  input: OrderInput,
  stock: StockBatch,
  options: { prefix?: string; later?: PendingWrites; countersTaken?: boolean } = {},
): Promise<WrittenOrder> {
  const writes = new OrderWrites(caller, options.countersTaken);
  await writes.startRun(trx, [input]);
  await planOrderCreate(trx, caller, input, options.prefix ?? 'order', stock, writes);
  const [written] = await writes.flush(trx, options.later);
  return written!;
}

/**
 * One new order with its stock in the caller's transaction (POST order/, a channel order on its
 * own): its customer's contact data, lines, stock quantities and history, events and cia.adjust
 * jobs go as one statement at the end.
 */
export async function createOrderIn(trx: Knex.Transaction, caller: OrderCaller, input: OrderInput): Promise<WrittenOrder> {
  const stock = await StockBatch.forOrders(trx, caller.accountId, [input]);
  const later = new PendingWrites();
  const written = await writeOrderIn(trx, caller, input, stock, { later });
  await stock.apply(trx, caller.accountId, later);
  await later.write(trx, caller.accountId);
  return written;
}

/**
 * Updates an order inside the caller's transaction; 404 when it is not an order of the account.
 * Its lines' stock changes join `stock`, which the caller applies (updateOneOrderIn: at once). Answers whether the update cancelled it, and whether its channel
 * then hears of it (cancelsAtChannel): the seller's paths queue that in the same transaction
 * (sellerCancelled), the channel's own import does not.
 */
export async function updateOrderIn(
  trx: Knex.Transaction,
  caller: OrderCaller,
  orderId: string,
  input: OrderInput,
  warnings: Warning[],
  prefix: string,
  stock: StockBatch,
): Promise<{ cancelledAtChannel: boolean }> {
  const { accountId } = caller;
  const current = await orderRepository.getForUpdate(trx, caller, orderId);
  if (!current) throw notFound(`order ${orderId}`, 'order_id');
  checkUnchangeable(input, current, prefix);
  const { prepaid } = await checkReferences(trx, caller, input, prefix);
  if (input.history !== undefined) {
    warnings.push({
      warning: 'read_only_field',
      code: 200,
      field: `${prefix}.history`,
      description: `${prefix}.history is written only when the order is created and was ignored; append entries with POST order/${orderId}/history/`,
    });
  }
  const now = new Date();
  const status = applyStatus(input, current, now, prefix);
  const columns: Partial<OrderColumns> = { ...plainColumns(input, current), ...status.columns };

  const before = await orderRepository.lines(trx, current.internal_id);
  const drafts = input.line !== undefined ? lineDrafts(input, prefix) : before;
  const invoice = invoiceAmount(drafts, columns.shipping_fee !== undefined ? columns.shipping_fee : current.shipping_fee, `${prefix}.line`);
  columns.invoice_amount = invoice;

  // A prepaid payment method chosen now makes an unpaid order paid in full, unless paid_amount is sent.
  const choosesPrepaid = prepaid && !current.is_paid && input.payment_method_id !== current.payment_method_id;
  const paid = planPaid(current, input.paid_amount !== undefined ? { paidAmount: input.paid_amount } : choosesPrepaid ? { inFullOf: invoice } : undefined, now);
  Object.assign(columns, paid.columns);
  // Locks in the order creates take them too (counters, customer, stock), so writes never deadlock each other.
  if (paid.needsInvoiceNumber) await giveInvoiceNumbers(trx, accountId, [{ numbered: columns, at: now }]);

  if (input.customer) {
    const changesCustomer = input.customer.id !== undefined && input.customer.id !== current.customer_number;
    const customer = await linkCustomer(
      trx,
      caller,
      changesCustomer ? input.customer : { ...input.customer, ...(current.customer_number !== null ? { id: current.customer_number } : {}) },
      columns.currency_id ?? current.currency_id,
    );
    columns.customer_internal_id = customer.internalId;
    columns.customer_number = customer.number;
  }

  const linesChange = input.line !== undefined || status.cancelled !== current.is_cancelled;
  let lines: LineRow[] = before;
  if (linesChange) {
    const title = status.cancelled !== current.is_cancelled ? (status.cancelled ? 'order cancelled' : 'order cancellation undone') : 'order changed';
    ({ lines } = await stock.settle(trx, accountId, { orderId, before, after: drafts, hold: !status.cancelled, title, fieldPrefix: prefix }));
    columns.transaction_ids = transactionIds(lines);
  }

  await orderRepository.update(trx, accountId, current.internal_id, columns);
  if (linesChange) await orderRepository.replaceLines(trx, current.internal_id, lines, true);

  const events: EventType[] = [];
  if (paid.becamePaid) events.push('paid');
  for (const flag of status.became) if (flagEvents[flag]) events.push(flagEvents[flag]!);
  events.push('changed');
  await emit(trx, accountId, orderId, events);
  return { cancelledAtChannel: status.became.has('is_cancelled') && cancelsAtChannel(current) };
}

/** After a seller's update (POST order/{order_id}/, order/list/): a cancellation of a Shopify or Kaufland order is sent there. */
export async function sellerCancelled(trx: Knex.Transaction, accountId: number, orderId: string, update: { cancelledAtChannel: boolean }): Promise<void> {
  if (update.cancelledAtChannel) await queueChannelCancel(trx, accountId, orderId);
}

/** An update with its stock applied at once (a seller's POST order/{order_id}/, a channel's change, send_mit). */
export async function updateOneOrderIn(
  trx: Knex.Transaction,
  caller: OrderCaller,
  orderId: string,
  input: OrderInput,
  warnings: Warning[],
): Promise<{ cancelledAtChannel: boolean }> {
  const stock = new StockBatch();
  const update = await updateOrderIn(trx, caller, orderId, input, warnings, 'order', stock);
  await stock.apply(trx, caller.accountId);
  return update;
}

/** POST order/: one order in one transaction. */
export async function createOrder(caller: OrderCaller, input: OrderInput): Promise<string> {
  return (await inTransaction((trx) => createOrderIn(trx, caller, input))).id;
}

/** POST order/{order_id}/: one update in one transaction. */
export function updateOrder(caller: OrderCaller, orderId: string, input: OrderInput, warnings: Warning[]): Promise<void> {
  // A retry must not repeat the warnings of the failed attempt.
  return inTransaction(async (trx) => {
    const attempt: Warning[] = [];
    await sellerCancelled(trx, caller.accountId, orderId, await updateOneOrderIn(trx, caller, orderId, input, attempt));
    warnings.push(...attempt);
  });
}

/**
 * DELETE order/{order_id}/: the lines' stock goes back unless the order was shipped (the goods
 * are gone); a cancelled order holds none any more.
 */
export function deleteOrder(scope: OrderScope, orderId: string): Promise<void> {
  const { accountId } = scope;
  return inTransaction(async (trx) => {
    const current = await orderRepository.getForUpdate(trx, scope, orderId);
    if (!current) throw notFound(`order ${orderId}`, 'order_id');
    if (!current.is_shipped) {
      const stock = new StockBatch();
      const before = await orderRepository.lines(trx, current.internal_id);
      await stock.settle(trx, accountId, { orderId, before, after: [], hold: false, title: 'order deleted', fieldPrefix: 'order' });
      await stock.apply(trx, accountId);
    }
    await orderRepository.delete(trx, accountId, current.internal_id);
  });
}

/** POST order/{order_id}/history/: appends one entry. */
export function appendHistory(scope: OrderScope, orderId: string, text: string): Promise<void> {
  return db().transaction(async (trx) => {
    const current = await orderRepository.getForUpdate(trx, scope, orderId);
    if (!current) throw notFound(`order ${orderId}`, 'order_id');
    await orderRepository.addHistory(trx, current.internal_id, [text]);
  });
}
