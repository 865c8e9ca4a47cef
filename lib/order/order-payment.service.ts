/**
 * Payments received for orders (bank transfers, payment-provider payments), many in one go: the
 * effects of setting paid_amount (document 1, order status rules 1 and 2, as updateOrderIn does):
 * paid_amount grows by the payment; the order is paid (fully when paid_amount equals
 * invoice_amount, partly otherwise), paid_date and an invoice number when it becomes paid; a
 * history entry; the events paid and changed (one event.emit_batch per type). Set-based so a statement of thousands of payments
 * costs a few statements, not thousands of order updates.
 */
import type { Knex } from 'knex';
import type { OrderScope } from '../access';
import { checkAmount, fromCents, toCents } from './order-money';
import { planPaid } from './order-paid';
import { StockBatch } from './order-stock.service';
import { OrderPaymentPlan, OrderWrites } from './order-writes';
import { orderRepository, PaymentRow } from './order.repository';

export interface OrderPayment {
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

/**
 * Pays the orders in scope with the payments that fit them, in the order given: an order that is
 * absent, out of scope or cancelled, of another currency, or owing less than the payment (after
 * the payments before it) takes nothing, so money is never booked on an order it does not fit.
 * The payments are a batch of the orders' writer (OrderWrites). Answers the keys of the payments booked.
 */
export async function payOrdersIn(trx: Knex.Transaction, scope: OrderScope, payments: OrderPayment[], field = 'bank.amount'): Promise<Set<string>> {
  if (!payments.length) return new Set();
  const rows = await orderRepository.lockForPayment(trx, scope, [...new Set(payments.map((p) => p.orderId))]);
  const open = new Map(rows.filter((r) => !r.is_cancelled).map((r) => [r.id, r]));
  const fitting = new Map<string, { added: bigint; history: string[] }>();
  const booked = new Set<string>();
  for (const p of payments) {
    const row = open.get(p.orderId);
    const order = fitting.get(p.orderId) ?? { added: 0n, history: [] };
    const added = order.added + toCents(p.amount);
    if (!row || row.currency_id !== p.currency || toCents(row.paid_amount ?? '0.00') + added > toCents(row.invoice_amount)) continue;
    fitting.set(p.orderId, { added, history: [...order.history, p.history] });
    booked.add(p.key);
  }
  const now = new Date();
  const writes = new OrderWrites(scope, new StockBatch());
  for (const [id, { added, history }] of fitting) writes.addPayment(planPayment(open.get(id)!, added, history, field, now));
  await writes.flush(trx);
  return booked;
}

/** A payment of `added` cents on an order: its paid state by the orders' rules (planPaid). */
function planPayment(row: PaymentRow, added: bigint, history: string[], field: string, now: Date): OrderPaymentPlan {
  const paidAmount = fromCents(toCents(row.paid_amount ?? '0.00') + added);
  checkAmount(paidAmount, field);
  const paid = planPaid(row, { paidAmount }, now);
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
    needsInvoiceNumber: paid.needsInvoiceNumber,
  };
}
