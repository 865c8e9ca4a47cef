/**
 * The set-based writes of new orders (POST order/list/): each create checks and prepares its
 * order first (customer linked in the run's CustomerBook, stock changes held in its StockBatch)
 * and leaves its rows here; flush then reserves their invoice numbers in one statement, inserts
 * the orders (numbering them from the order counter and writing their customers' contact data in
 * the same statement), and their lines, history and event outbox rows in one statement each. The
 * order counter is taken that late because an account's sales queue on its lock until they
 * commit. Numbers go to orders that succeeded only: they stay consecutive (a rollback gives them
 * back).
 */
import type { Knex } from 'knex';
import type { OrderScope } from '../access';
import { counterRepository } from '../account';
import { CustomerBook } from '../customer';
import { DeferredWrites } from '../db';
import { addManyToOutbox, OutboxJob, PendingWrites } from '../queue';
import { invoiceJobsFor } from './order-invoice.service';
import { giveInvoiceNumbers } from './order-paid';
import type { HeldChange } from './order-stock.service';
import { LineRow, orderIdSuffix, OrderColumns, orderRepository } from './order.repository';
import type { OrderInput } from './order.type';

export type EventType = 'created' | 'paid' | 'packed' | 'shipped' | 'cancelled' | 'changed';

/** <order_number>_<YYYY>_<MM> of the creation month (UTC). */
export function orderIdOf(number: number, at: Date): string {
  return `${number}${orderIdSuffix(at)}`;
}

/** A new order ready to be written, without its number (and invoice number) yet. */
export interface OrderDraft {
  columns: Partial<OrderColumns>;
  lines: LineRow[];
  history: string[];
  events: EventType[];
  at: Date;
  /** Its held-back stock changes: their movements name the order once it has its id. */
  pending: HeldChange[];
  /** Paid at creation: flush gives it its invoice number (planPaid). */
  needsInvoiceNumber: boolean;
}

/** An order flush wrote: its order_id and its internal id (sales_order.internal_id). */
export interface WrittenOrder {
  id: string;
  internalId: string;
}

/** Whether an order's create or change may make it paid (and so take an invoice number). */
function mayBePaid(input: OrderInput | undefined): boolean {
  return input !== undefined && (input.paid_amount !== undefined || input.status?.is_paid === true || input.payment_method_id !== undefined);
}

/**
 * For a write of many orders that may take a counter after the order counter (POST order/list/:
 * a run of creates after another, an update that makes an order paid, a create that makes a new
 * customer): takes them first, so that every order write takes the counters in one order
 * (invoice, customer, order) and no two wait for each other in a circle.
 */
export async function takeCountersAhead(trx: Knex.Transaction, accountId: number, inputs: (OrderInput | undefined)[]): Promise<void> {
  if (inputs.some(mayBePaid)) await counterRepository.take(trx, accountId, 'invoice', 0);
  await counterRepository.take(trx, accountId, 'customer', 0);
}

export class OrderWrites {
  private drafts: OrderDraft[] = [];
  /** The customers of the current run of creates (loaded when it starts, written by flush). */
  customers?: CustomerBook;
  /** Whether the invoice counter is locked already (takeCountersAhead, or an earlier run). */
  private invoiceLocked: boolean;
  /** Whether the customer counter is locked already (takeCountersAhead): a run's book then holds every customer it can find. */
  private readonly customerLocked: boolean;

  private readonly accountId: number;

  /** scope: the caller's, so the run finds only the customers its grant covers (lib/customer). */
  constructor(
    private readonly scope: OrderScope,
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

  add(draft: OrderDraft): void {
    this.drafts.push(draft);
  }

  /**
   * Writes the orders added since the last flush; their order ids and internal ids, in the order
   * added. With `later`, the customers' contact data, the lines and the event jobs join it
   * instead of being written here (the orders themselves are inserted now: their internal ids
   * are needed).
   */
  async flush(trx: Knex.Transaction, later?: PendingWrites): Promise<WrittenOrder[]> {
    const { accountId } = this;
    const drafts = this.drafts;
    this.drafts = [];
    const customers = this.customers;
    this.customers = undefined;
    await giveInvoiceNumbers(
      trx,
      accountId,
      drafts.filter((d) => d.needsInvoiceNumber).map((d) => ({ numbered: d.columns, at: d.at })),
    );
    // The customers' contact data (and the new customers) go with the orders' INSERT, after the
    // order counter and before any stock item: the lock order of every order write (lib/order/README.md).
    const alongside = new DeferredWrites();
    const customerEvents = (await customers?.write(trx, accountId, alongside)) ?? [];
    const orders = drafts.length ? await orderRepository.insertNumbered(trx, accountId, drafts, alongside) : [];
    await alongside.flush(trx);
    drafts.forEach((draft, i) => {
      for (const p of draft.pending) p.change.cause.orderId = orders[i]!.id;
    });
    await orderRepository.insertLines(
      trx,
      drafts.flatMap((d, i) => d.lines.map((l) => ({ ...l, order_internal_id: orders[i]!.internalId }))),
      later,
    );
    await orderRepository.insertHistory(
      trx,
      drafts.flatMap((d, i) => d.history.map((text) => ({ order_internal_id: orders[i]!.internalId, text }))),
    );
    const events: OutboxJob[] = customerEvents;
    events.push(
      ...drafts.flatMap((d, i) =>
        d.events.map((type) => ({
          job: 'event.emit' as const,
          payload: { accountId, section: 'order', type, recordId: orders[i]!.id },
        })),
      ),
    );
    events.push(
      ...invoiceJobsFor(
        accountId,
        orders.filter((_, i) => drafts[i]!.events.includes('paid')).map((o) => o.id),
      ),
    );
    if (later) later.add(events);
    else await addManyToOutbox(trx, accountId, events);
    return orders;
  }
}
