/**
 * Payments received for orders (bank transfers, payment-provider payments), many in one go: the
 * effects of setting paid_amount (document 1, order status rules 1 and 2, as updateOrderIn does):
 * paid_amount grows by the payment; the order is paid (fully when paid_amount equals
 * invoice_amount, partly otherwise), paid_date and an invoice number when it becomes paid; a
 * history entry; the events paid, paid_in_full (the payment completes it) and changed (one
 * event.emit_batch per type). Set-based so a statement of thousands of payments
 * costs a few statements, not thousands of order updates.
 */
import type { Knex } from 'knex';
import type { OrderScope } from '../access';
import { checkAmount, fromCents, toCents } from './order-money';
import { owedOn, planPaid } from './order-paid';
import { bookedByHand, PayerRecordTimes } from './order-paid-by-hand';
import { StockBatch } from './order-stock.service';
import { OrderPaymentPlan, OrderWrites } from './order-writes';
import { orderRepository, PaymentRow } from './order.repository';

/**
 * A payment and its record's times (storedAt, bookedAt): an order whose paid_amount the seller set
 * by hand after the record was stored, or on or after the day its bank booked it, takes nothing
 * unless the payment is more than the money booked by hand: the seller booked that money
 * (bookedByHand, lib/bank/README.md "A payment booked by hand on the order").
 */
export interface OrderPayment extends PayerRecordTimes {
  /** The payer's record (a bank record number): answered when paid. */
  key: string;
  orderId: string;
  /** Positive decimal string. */
  amount: string;
  /** ISO 4217: an order is paid only in its own currency. */
  currency: string;
  /** The history entry of the order, naming where the money came from. */
  history: string;
}

/** Why a payment was not booked, found under the orders' row locks (the caller decided on unlocked reads). */
export type PaymentMisfit = 'order_missing' | 'order_cancelled' | 'currency_mismatch' | 'booked_by_hand' | 'overpayment';

/**
 * Pays the orders in scope with the payments that fit them, in the order given: an order that is
 * absent, out of scope or cancelled, of another currency, or owing less than the payment (after
 * the payments before it) takes nothing, so money is never booked on an order it does not fit.
 * The payments are a batch of the orders' writer (OrderWrites). Answers, for each payment not
 * booked, why (by key); every other payment was booked.
 */
export async function payOrdersIn(
  trx: Knex.Transaction,
  scope: OrderScope,
  payments: OrderPayment[],
  field = 'bank.amount',
): Promise<Map<string, PaymentMisfit>> {
  const misfits = new Map<string, PaymentMisfit>();
  if (!payments.length) return misfits;
  const writes = new OrderWrites(scope, new StockBatch());
  // Every payment may make its order paid: the invoice counter before the order rows, the lock
  // order of every order write (lib/order/README.md), so a match never waits in a circle with a
  // paying update or order/list/.
  await writes.lockInvoice(trx);
  const rows = new Map((await orderRepository.lockForPayment(trx, scope, [...new Set(payments.map((p) => p.orderId))])).map((r) => [r.id, r]));
  const fitting = new Map<string, { added: bigint; history: string[] }>();
  for (const p of payments) {
    const order = fitting.get(p.orderId) ?? { added: 0n, history: [] };
    const added = order.added + toCents(p.amount);
    const misfit = misfitOf(rows.get(p.orderId), p, added);
    if (misfit) misfits.set(p.key, misfit);
    else fitting.set(p.orderId, { added, history: [...order.history, p.history] });
  }
  const now = new Date();
  for (const [id, { added, history }] of fitting) writes.addPayment(planPayment(rows.get(id)!, added, history, field, now));
  await writes.flush(trx);
  return misfits;
}

/** A payment taken back off its order (lib/bank: the bank reversed the credit that paid it). */
export interface PaymentTakenBack {
  orderId: string;
  /** What came off paid_amount: the payment, or what was left of paid_amount when it was less. */
  amount: string;
  /** The order was shipped already: the goods went without the money. */
  shipped: boolean;
}

/**
 * Takes payments back off the orders they paid, in the order given: paid_amount lowered by each
 * (never below 0.00), the paid state by the same rules and writer as a payment (planPayment,
 * OrderWrites: unpaid again at 0.00, partly paid below invoice_amount, never paid in full by
 * this), a history entry, the event `changed`. Only the order named and in scope is touched; an
 * order absent or out of scope answers 'order_missing', one of another currency
 * 'currency_mismatch' (nothing taken). Answers per key what was taken back or why not.
 */
export async function takeBackPaymentsIn(
  trx: Knex.Transaction,
  scope: OrderScope,
  payments: OrderPayment[],
): Promise<Map<string, PaymentTakenBack | PaymentMisfit>> {
  const outcomes = new Map<string, PaymentTakenBack | PaymentMisfit>();
  if (!payments.length) return outcomes;
  const writes = new OrderWrites(scope, new StockBatch());
  // The lock order of every order write (see payOrdersIn), though taking back gives no invoice number.
  await writes.lockInvoice(trx);
  const rows = new Map((await orderRepository.lockForPayment(trx, scope, [...new Set(payments.map((p) => p.orderId))])).map((r) => [r.id, r]));
  const taken = new Map<string, { removed: bigint; history: string[] }>();
  for (const p of payments) {
    const row = rows.get(p.orderId);
    if (!row || row.currency_id !== p.currency) {
      outcomes.set(p.key, row ? 'currency_mismatch' : 'order_missing');
      continue;
    }
    const order = taken.get(p.orderId) ?? { removed: 0n, history: [] };
    const left = toCents(row.paid_amount ?? '0.00') - order.removed;
    const removed = toCents(p.amount) < left ? toCents(p.amount) : left > 0n ? left : 0n;
    taken.set(p.orderId, { removed: order.removed + removed, history: [...order.history, p.history] });
    outcomes.set(p.key, { orderId: p.orderId, amount: fromCents(removed), shipped: row.is_shipped });
  }
  const now = new Date();
  for (const [id, { removed, history }] of taken) writes.addPayment(planPayment(rows.get(id)!, -removed, history, 'bank.amount', now));
  await writes.flush(trx);
  return outcomes;
}

/** `added`: this payment with those of the batch before it on the same order, in cents. */
function misfitOf(row: PaymentRow | undefined, payment: OrderPayment, added: bigint): PaymentMisfit | null {
  if (!row) return 'order_missing';
  if (row.is_cancelled) return 'order_cancelled';
  if (row.currency_id !== payment.currency) return 'currency_mismatch';
  if (bookedByHand(row, payment)) return 'booked_by_hand';
  // More than the buyer owes (owedOn: a credit order owes nothing, whatever was refunded).
  return added > owedOn(row.paid_amount, row.invoice_amount) ? 'overpayment' : null;
}

/**
 * A payment of `added` cents on an order (negative: a payment taken back): its paid state by the
 * orders' rules (planPaid).
 */
function planPayment(row: PaymentRow, added: bigint, history: string[], field: string, now: Date): OrderPaymentPlan {
  const paidAmount = fromCents(toCents(row.paid_amount ?? '0.00') + added);
  checkAmount(paidAmount, field);
  const paid = planPaid(row, { paidAmount }, row.invoice_amount, now);
  return {
    orderId: row.id,
    // invoice_number: given by the writer when it needs one (with its bill_date); an order keeps its own.
    update: {
      internal_id: row.internal_id,
      paid_amount: paidAmount,
      is_paid: paid.isPaid,
      became_paid: paid.becamePaid,
      invoice_number: null,
      bill_date: now.toISOString().slice(0, 10),
    },
    history,
    at: now,
    becamePaidInFull: paid.becamePaidInFull,
    needsInvoiceNumber: paid.needsInvoiceNumber,
  };
}
