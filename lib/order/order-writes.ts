/**
 * The one writer of orders (issue 32, plan then apply): creates (planOrderCreate), updates
 * (updateOrderIn) and payments (payOrdersIn) are planned over what was read, writing nothing, and
 * added here; flush writes a batch of them in the lock order of lib/order/README.md: the invoice
 * numbers of the batch in one statement, the creates' customers and orders (the orders numbered
 * from the order counter in their INSERT, with their customers' contact data in the same
 * statement), the updates and payments, then the lines, history and event outbox rows in one
 * statement each; each order's stock moves join the StockBatch under its id, and apply ends the
 * batch with them. The order counter is taken that late because an account's sales queue on its
 * lock until they commit. Numbers go to orders that succeeded only: they stay consecutive (a
 * rollback gives them back).
 */
import type { Knex } from 'knex';
import type { OrderScope } from '../access';
import { counterRepository } from '../account';
import { CustomerBook } from '../customer';
import { addManyToOutbox, OutboxJob, PendingWrites } from '../queue';
import { invoiceJobsFor } from './order-invoice.service';
import { toCents } from './order-money';
import { giveInvoiceNumbers } from './order-paid';
import type { PlannedMove, StockBatch } from './order-stock.service';
import { LineRow, orderIdSuffix, OrderColumns, orderRepository, PaymentUpdate } from './order.repository';
import type { OrderInput } from './order.type';

/** The order events written (lib/event's catalog publishes the same list). */
export type EventType = 'created' | 'paid' | 'paid_in_full' | 'packed' | 'shipped' | 'cancelled' | 'changed';

/** <order_number>_<YYYY>_<MM> of the creation month (UTC). */
export function orderIdOf(number: number, at: Date): string {
  return `${number}${orderIdSuffix(at)}`;
}

/** What a write of an order plans: its columns and what follows from them. */
interface OrderWritePlan {
  columns: Partial<OrderColumns>;
  events: EventType[];
  at: Date;
  /** Its lines' stock moves: the writer holds them in its StockBatch under the order's id. */
  moves: PlannedMove[];
  /** It becomes paid: flush gives it its invoice number (planPaid). */
  needsInvoiceNumber: boolean;
}

/** A new order planned (planOrderCreate), without its number (and invoice number) yet. */
export interface OrderCreatePlan extends OrderWritePlan {
  lines: LineRow[];
  history: string[];
}

/** A change of an order planned (updateOrderIn) over its row, read locked. */
export interface OrderUpdatePlan extends OrderWritePlan {
  orderId: string;
  internalId: string;
  /** Its lines when the change replaces them. */
  lines?: LineRow[];
  /** History entries the change writes (a paid_amount set by hand). */
  history?: string[];
}

/**
 * Payments booked on an order (lib/bank's matches, payOrdersIn): its paid columns (planPaid, as
 * PaymentUpdate) and one history entry per payment. A statement of thousands of payments is one
 * batch: a few statements, not thousands of order updates.
 */
export interface OrderPaymentPlan {
  orderId: string;
  update: PaymentUpdate;
  history: string[];
  at: Date;
  /** The payment completes it (planPaid): its event `paid_in_full`. */
  becamePaidInFull: boolean;
  needsInvoiceNumber: boolean;
}

/** An order flush wrote: its order_id and its internal id (sales_order.internal_id). */
export interface WrittenOrder {
  id: string;
  internalId: string;
}

/** Whether an order's create or change may make it paid (and so take an invoice number). */
export function mayBePaid(input: OrderInput | undefined): boolean {
  return input !== undefined && (input.paid_amount !== undefined || input.status?.is_paid === true || input.payment_method_id !== undefined);
}

/**
 * Whether an update may bring its order's invoice to 0.00: it sends the lines or the shipping fee
 * (invoice_amount = lines + fee), and when it sends both, they sum to 0.00 (a post-back of a whole
 * order that is not free needs no look at the stored order). At paid_amount 0.00 that pays the
 * order (README, paid state) and gives it an invoice number if it has none.
 */
function mayZeroInvoice(input: OrderInput | undefined): boolean {
  if (input?.line === undefined) return input?.shipping?.fee !== undefined;
  const fee = input.shipping?.fee;
  if (fee === undefined) return true;
  return input.line.reduce((sum, l) => sum + BigInt(l.quantity ?? 1) * (l.price ? toCents(l.price) : 0n), toCents(fee)) === 0n;
}

/**
 * Whether an update of `orderId` may give the order an invoice number: it may make it paid
 * (mayBePaid), or bring its invoice to 0.00 while it is at paid_amount 0.00 without an invoice
 * number (read without a lock, before the order's row).
 */
async function mayNumberInvoice(trx: Knex.Transaction, scope: OrderScope, updates: { orderId: string; input: OrderInput }[]): Promise<boolean> {
  if (updates.some((u) => mayBePaid(u.input))) return true;
  const ids = updates.filter((u) => mayZeroInvoice(u.input)).map((u) => u.orderId);
  return ids.length > 0 && orderRepository.anyAtZeroPaidWithoutInvoiceNumber(trx, scope, ids);
}

/**
 * For a write of many orders that may take a counter after the order counter (POST order/list/:
 * a run of creates after another, an update that makes an order paid or brings its invoice back
 * to 0.00 at paid_amount 0.00, a create that makes a new customer): takes them first, so that
 * every order write takes the counters in one order (invoice, customer, order), the invoice
 * counter before any order row, and no two wait for each other in a circle. An update is an item
 * with its orderId.
 */
export async function takeCountersAhead(trx: Knex.Transaction, scope: OrderScope, items: { orderId?: string; input?: OrderInput }[]): Promise<void> {
  const updates = items.flatMap(({ orderId, input }) => (orderId !== undefined && input ? [{ orderId, input }] : []));
  if (items.some((i) => mayBePaid(i.input)) || (await mayNumberInvoice(trx, scope, updates))) await counterRepository.take(trx, scope.accountId, 'invoice', 0);
  await counterRepository.take(trx, scope.accountId, 'customer', 0);
}

export class OrderWrites {
  private creates: OrderCreatePlan[] = [];
  private updates: OrderUpdatePlan[] = [];
  private payments: OrderPaymentPlan[] = [];
  /** The customers of the current run of creates (loaded when it starts, written by flush). */
  customers?: CustomerBook;
  /** Whether the invoice counter is locked already (takeCountersAhead, or an earlier run). */
  private invoiceLocked: boolean;
  /** Whether the customer counter is locked already (takeCountersAhead): a run's book then holds every customer it can find. */
  private readonly customerLocked: boolean;

  private readonly accountId: number;

  /**
   * scope: the caller's, so the run finds only the customers its grant covers (lib/customer).
   * stock: the batch the plans' lines are settled against, and their moves held in.
   */
  constructor(
    private readonly scope: OrderScope,
    readonly stock: StockBatch,
    countersTaken = false,
  ) {
    this.accountId = scope.accountId;
    this.invoiceLocked = countersTaken;
    this.customerLocked = countersTaken;
  }

  /**
   * Starts a run of creates: takes the invoice counter's lock when one of them may be paid (as a
   * paid create takes it before its customer), in the statement that reads the customers they name.
   */
  async startRun(trx: Knex.Transaction, inputs: (OrderInput | undefined)[]): Promise<void> {
    const lockInvoice = !this.invoiceLocked && inputs.some(mayBePaid);
    this.customers = await CustomerBook.load(
      trx,
      this.scope,
      inputs.map((i) => i?.customer ?? {}),
      lockInvoice ? counterRepository.takeStatement(this.accountId, 'invoice', 0) : undefined,
      this.customerLocked,
    );
    this.invoiceLocked ||= lockInvoice;
  }

  /**
   * Takes the invoice counter's lock before an update locks the row of `orderId`, when the update
   * may give the order an invoice number (mayNumberInvoice): the invoice counter comes before the
   * order rows in every order write. A bank match takes it and then the rows it pays: an update
   * taking it after its row (at flush) waited in a circle with it, and in order/list/ the item
   * lost. A batch that took its counters ahead (order/list/) has decided this for all its items.
   */
  async lockInvoiceFor(trx: Knex.Transaction, orderId: string, input: OrderInput): Promise<void> {
    if (!this.invoiceLocked && (await mayNumberInvoice(trx, this.scope, [{ orderId, input }]))) await this.lockInvoice(trx);
  }

  /**
   * Takes the invoice counter's lock now, for an update that becomes paid and links a customer
   * next: the invoice counter comes before the customer counter in every order write.
   */
  async lockInvoice(trx: Knex.Transaction): Promise<void> {
    if (!this.invoiceLocked) await counterRepository.take(trx, this.accountId, 'invoice', 0);
    this.invoiceLocked = true;
  }

  addCreate(plan: OrderCreatePlan): void {
    this.creates.push(plan);
  }

  addUpdate(plan: OrderUpdatePlan): void {
    this.updates.push(plan);
  }

  addPayment(plan: OrderPaymentPlan): void {
    this.payments.push(plan);
  }

  /**
   * Writes the orders planned since the last flush, in the lock order: invoice numbers, the
   * creates' customers and orders (numbered in their INSERT), the updates and payments, then one
   * statement per table; each order's stock moves join the StockBatch under its id, for the
   * caller to apply.
   * Answers the created orders' ids, in the order added. With `later`, the customers' contact
   * data, the new lines and the event jobs join it instead of being written here (the orders
   * themselves are inserted now: their internal ids are needed; a change's old lines are deleted
   * now: its new ones take their positions).
   */
  async flush(trx: Knex.Transaction, later?: PendingWrites): Promise<WrittenOrder[]> {
    const { accountId } = this;
    const { creates, updates, payments, customers } = this;
    this.creates = [];
    this.updates = [];
    this.payments = [];
    this.customers = undefined;
    await giveInvoiceNumbers(trx, accountId, [
      ...[...creates, ...updates].filter((p) => p.needsInvoiceNumber).map((p) => ({ numbered: p.columns, at: p.at })),
      ...payments.filter((p) => p.needsInvoiceNumber).map((p) => ({ numbered: p.update, at: p.at })),
    ]);
    // The customers' contact data (and the new customers) go with the orders' INSERT, after the
    // order counter and before any stock item: the lock order of every order write (lib/order/README.md).
    const alongside = new PendingWrites();
    const customerEvents = (await customers?.write(trx, accountId, alongside)) ?? [];
    const created = creates.length ? await orderRepository.insertNumbered(trx, accountId, creates, alongside) : [];
    await alongside.write(trx, accountId);
    for (const update of updates) {
      await orderRepository.update(trx, accountId, update.internalId, update.columns);
      if (update.lines) await orderRepository.deleteLines(trx, update.internalId);
    }
    await orderRepository.updatePayments(
      trx,
      accountId,
      payments.map((p) => p.update),
    );
    await orderRepository.insertLines(
      trx,
      [
        ...creates.flatMap((c, i) => c.lines.map((l) => ({ ...l, order_internal_id: created[i]!.internalId }))),
        ...updates.flatMap((u) => (u.lines ?? []).map((l) => ({ ...l, order_internal_id: u.internalId }))),
      ],
      later,
    );
    await orderRepository.insertHistory(trx, [
      ...creates.flatMap((c, i) => c.history.map((text) => ({ order_internal_id: created[i]!.internalId, text }))),
      ...updates.flatMap((u) => (u.history ?? []).map((text) => ({ order_internal_id: u.internalId, text }))),
      ...payments.flatMap((p) => p.history.map((text) => ({ order_internal_id: p.update.internal_id, text }))),
    ]);
    const written: [string, OrderWritePlan][] = [
      ...creates.map((c, i): [string, OrderWritePlan] => [created[i]!.id, c]),
      ...updates.map((u): [string, OrderWritePlan] => [u.orderId, u]),
    ];
    for (const [orderId, plan] of written) this.stock.hold(orderId, plan.moves);
    const events: OutboxJob[] = customerEvents;
    events.push(...written.flatMap(([orderId, plan]) => plan.events.map((type) => orderEvent(accountId, type, orderId))));
    events.push(
      ...invoiceJobsFor(
        accountId,
        written.filter(([, plan]) => plan.events.includes('paid')).map(([orderId]) => orderId),
      ),
    );
    events.push(...paymentEvents(accountId, payments));
    if (later) later.add(events);
    else await addManyToOutbox(trx, accountId, events);
    return created.map(({ id, internalId }) => ({ id, internalId }));
  }

  /**
   * Writes what is still planned, then applies the batch's stock moves: stock items are the
   * last locks of an order write. Answers the orders this last flush created.
   */
  async apply(trx: Knex.Transaction, later?: PendingWrites): Promise<WrittenOrder[]> {
    const written = await this.flush(trx, later);
    await this.stock.apply(trx, this.accountId, later);
    return written;
  }
}

/**
 * The events paid (orders paid for the first time), paid_in_full (orders the payment completes)
 * and changed (every order paid) of payments, one outbox row per type for the whole batch
 * (event.emit_batch): a statement paying 10,000 orders in batches of BANK_MATCH_BATCH (1,000)
 * writes at most 30 rows, not 30,000 (lib/event/README.md).
 */
function paymentEvents(accountId: number, payments: OrderPaymentPlan[]): OutboxJob[] {
  const batch = (type: EventType, recordIds: string[]): OutboxJob[] =>
    recordIds.length ? [{ job: 'event.emit_batch', payload: { accountId, section: 'order', type, recordIds } }] : [];
  const paid = payments.filter((p) => p.update.became_paid).map((p) => p.orderId);
  return [
    ...batch('paid', paid),
    ...batch(
      'paid_in_full',
      payments.filter((p) => p.becamePaidInFull).map((p) => p.orderId),
    ),
    ...batch(
      'changed',
      payments.map((p) => p.orderId),
    ),
    ...invoiceJobsFor(accountId, paid),
  ];
}

function orderEvent(accountId: number, type: EventType, orderId: string): OutboxJob {
  return { job: 'event.emit', payload: { accountId, section: 'order', type, recordId: orderId } };
}
