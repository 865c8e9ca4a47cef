/**
 * The set-based writes of new orders (POST order/list/): each create checks and prepares its
 * order first (customer linked in the run's CustomerBook, stock changes held in PendingStock)
 * and leaves its rows here; flush then writes the customers' contact data in one UPDATE, reserves the order and invoice numbers of all of them in one statement each and
 * inserts the orders, lines, history and event outbox rows in one statement each. The counters
 * are locked before any customer, in the lock order every order write keeps (order counter,
 * invoice counter, customer, stock), and numbers go to orders that succeeded only: they stay
 * consecutive.
 */
import type { Knex } from 'knex';
import { counterRepository } from '../account/counter.repository';
import { CustomerBook } from '../customer/customer-book';
import { addManyToOutbox, OutboxJob, PendingWrites } from '../queue/outbox';
import type { PendingStock } from './order-stock.service';
import { LineRow, OrderColumns, orderRepository } from './order.repository';
import type { OrderInput } from './order.type';

export type EventType = 'created' | 'paid' | 'packed' | 'shipped' | 'cancelled' | 'changed';

/** <order_number>_<YYYY>_<MM> of the creation month (UTC). */
export function orderIdOf(number: number, at: Date): string {
  return `${number}_${at.getUTCFullYear()}_${String(at.getUTCMonth() + 1).padStart(2, '0')}`;
}

/** A new order ready to be written, without its number (and invoice number) yet. */
export interface OrderDraft {
  columns: Partial<OrderColumns>;
  lines: LineRow[];
  history: string[];
  events: EventType[];
  at: Date;
  /** Its held-back stock changes: their movements name the order once it has its id. */
  pending: PendingStock;
}

/** An order flush wrote: its order_id and its internal id (sales_order.internal_id). */
export interface WrittenOrder {
  id: string;
  internalId: string;
}

export class OrderWrites {
  private drafts: OrderDraft[] = [];
  /** The customers of the current run of creates (loaded when it starts, written by flush). */
  customers?: CustomerBook;
  private invoiceLocked = false;

  private constructor(
    private readonly accountId: number,
    /** Order numbers reserved at open, not yet handed out: the next one, and how many. */
    private reserved: { next: number; count: number },
  ) {}

  /**
   * Opens a batch: takes the order counter's lock for the rest of the transaction. `reserve`
   * numbers are reserved with it, in the same statement (POST order/: the one order's number;
   * one statement instead of two). Only for a caller whose refusals roll the transaction back:
   * a reserved number that no order takes would be lost.
   */
  static async open(trx: Knex.Transaction, accountId: number, reserve = 0): Promise<OrderWrites> {
    const next = await counterRepository.take(trx, accountId, 'order', reserve);
    return new OrderWrites(accountId, { next, count: reserve });
  }

  /** The first of `count` consecutive order numbers: the reserved ones first, then the counter's. */
  private async numbers(trx: Knex.Transaction, count: number): Promise<number> {
    const { next, count: left } = this.reserved;
    if (left === 0) return counterRepository.take(trx, this.accountId, 'order', count);
    // Reserved numbers run on into the counter's next ones: they are consecutive.
    if (count > left) await counterRepository.take(trx, this.accountId, 'order', count - left);
    const used = Math.min(count, left);
    this.reserved = { next: next + used, count: left - used };
    return next;
  }

  /**
   * Starts a run of creates: takes the invoice counter's lock when one of them may be paid (as a
   * paid create takes it before its customer), then loads and locks the customers they name.
   */
  async startRun(trx: Knex.Transaction, inputs: (OrderInput | undefined)[]): Promise<void> {
    const mayBePaid = (i: OrderInput | undefined) =>
      i !== undefined && (i.paid_amount !== undefined || i.status?.is_paid === true || i.payment_method_id !== undefined);
    if (!this.invoiceLocked && inputs.some(mayBePaid)) {
      await counterRepository.take(trx, this.accountId, 'invoice', 0);
      this.invoiceLocked = true;
    }
    this.customers = await CustomerBook.load(
      trx,
      this.accountId,
      inputs.map((i) => i?.customer ?? {}),
    );
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
    await this.customers?.write(trx, accountId, later);
    this.customers = undefined;
    if (drafts.length === 0) return [];
    const first = await this.numbers(trx, drafts.length);
    const paid = drafts.filter((d) => d.columns.is_paid);
    let invoice = paid.length ? await counterRepository.take(trx, accountId, 'invoice', paid.length) : 0;
    for (const draft of paid) draft.columns.invoice_number = String(invoice++);
    const orders = drafts.map((draft, i) => ({ number: first + i, id: orderIdOf(first + i, draft.at), columns: draft.columns }));
    drafts.forEach((draft, i) => {
      for (const p of draft.pending) p.change.cause.orderId = orders[i]!.id;
    });
    const internalIds = await orderRepository.insertMany(trx, accountId, orders);
    await orderRepository.insertLines(
      trx,
      drafts.flatMap((d, i) => d.lines.map((l) => ({ ...l, order_internal_id: internalIds[i]! }))),
      later,
    );
    await orderRepository.insertHistory(
      trx,
      drafts.flatMap((d, i) => d.history.map((text) => ({ order_internal_id: internalIds[i]!, text }))),
    );
    const events: OutboxJob[] = drafts.flatMap((d, i) =>
      d.events.map((type) => ({
        job: 'event.emit' as const,
        payload: { accountId, section: 'order', type, recordId: orders[i]!.id },
      })),
    );
    if (later) later.add(events);
    else await addManyToOutbox(trx, accountId, events);
    return orders.map((o, i) => ({ id: o.id, internalId: internalIds[i]! }));
  }
}
