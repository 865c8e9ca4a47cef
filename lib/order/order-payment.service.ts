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
import { addManyToOutbox, OutboxJob } from '../queue';
import { invoiceJobsFor } from './order-invoice.service';
import { checkAmount, fromCents, toCents } from './order-money';
import { giveInvoiceNumbers, planPaid } from './order-paid';
import { orderRepository, PaymentRow, PaymentUpdate } from './order.repository';

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
 * Answers the keys of the payments booked.
 */
export async function payOrdersIn(trx: Knex.Transaction, scope: OrderScope, payments: OrderPayment[], field = 'bank.amount'): Promise<Set<string>> {
  if (!payments.length) return new Set();
  const { accountId } = scope;
  const rows = await orderRepository.lockForPayment(trx, scope, [...new Set(payments.map((p) => p.orderId))]);
  const open = new Map(rows.filter((r) => !r.is_cancelled).map((r) => [r.id, r]));
  const cents = new Map<string, bigint>();
  const history: { order_internal_id: string; text: string }[] = [];
  const booked = new Set<string>();
  for (const p of payments) {
    const row = open.get(p.orderId);
    const added = (cents.get(p.orderId) ?? 0n) + toCents(p.amount);
    if (!row || row.currency_id !== p.currency || toCents(row.paid_amount ?? '0.00') + added > toCents(row.invoice_amount)) continue;
    cents.set(p.orderId, added);
    history.push({ order_internal_id: row.internal_id, text: p.history });
    booked.add(p.key);
  }
  const now = new Date();
  const planned = [...cents].map(([id, added]) => planPayment(open.get(id)!, added, field, now));
  await giveInvoiceNumbers(
    trx,
    accountId,
    planned.filter((p) => p.needsInvoiceNumber).map((p) => ({ numbered: p.update, at: now })),
  );
  const byOrder = new Map(planned.map((p) => [p.orderId, p.update]));
  await orderRepository.updatePayments(trx, accountId, [...byOrder.values()]);
  await orderRepository.addHistories(trx, history);
  await addManyToOutbox(trx, accountId, paymentEvents(accountId, byOrder));
  return booked;
}

/**
 * The events paid (orders paid for the first time) and changed (every order paid), one outbox
 * row per type for the whole payment (event.emit_batch): 10,000 orders paid by a statement
 * write two rows, not 20,000 (lib/event/README.md).
 */
function paymentEvents(accountId: number, byOrder: Map<string, PaymentUpdate>): OutboxJob[] {
  const batch = (type: string, recordIds: string[]): OutboxJob[] =>
    recordIds.length ? [{ job: 'event.emit_batch', payload: { accountId, section: 'order', type, recordIds } }] : [];
  const paid = [...byOrder].filter(([, u]) => u.became_paid).map(([id]) => id);
  return [...batch('paid', paid), ...batch('changed', [...byOrder.keys()]), ...invoiceJobsFor(accountId, paid)];
}

/** A payment of `added` cents on an order: its paid state by the orders' rules (planPaid). */
function planPayment(row: PaymentRow, added: bigint, field: string, now: Date): { orderId: string; update: PaymentUpdate; needsInvoiceNumber: boolean } {
  const paidAmount = fromCents(toCents(row.paid_amount ?? '0.00') + added);
  checkAmount(paidAmount, field);
  const paid = planPaid(row, { paidAmount }, now);
  return {
    orderId: row.id,
    // invoice_number: given by giveInvoiceNumbers when it needs one (with its bill_date); an order keeps its own.
    update: {
      internal_id: row.internal_id,
      paid_amount: paidAmount,
      is_paid: paid.isPaid,
      became_paid: paid.becamePaid,
      invoice_number: null,
      bill_date: now.toISOString().slice(0, 10),
    },
    needsInvoiceNumber: paid.needsInvoiceNumber,
  };
}
