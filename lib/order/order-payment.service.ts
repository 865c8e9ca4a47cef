/**
 * Payments received for orders (bank transfers, payment-provider payments), many in one go: the
 * effects of setting paid_amount (document 1, order status rules 1 and 2, as updateOrderIn does):
 * paid_amount grows by the payment; the order is paid (fully when paid_amount equals
 * invoice_amount, partly otherwise), paid_date and an invoice number when it becomes paid; a
 * history entry; the events paid and changed (one event.emit_batch per type). Set-based so a statement of thousands of payments
 * costs a few statements, not thousands of order updates.
 */
import type { Knex } from 'knex';
import type { OrderScope } from '../access/caller';
import { counterRepository } from '../account/counter.repository';
import { addManyToOutbox, OutboxJob } from '../queue/outbox';
import { invoiceJobsFor } from './order-invoice.service';
import { checkAmount, fromCents, toCents } from './order-money';
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
  const byOrder = new Map([...cents].map(([id, added]) => [id, paymentOf(open.get(id)!, added, field)]));
  const updates = [...byOrder.values()];
  const needInvoice = [...byOrder].filter(([id, u]) => u.became_paid && open.get(id)!.invoice_number === null).map(([, u]) => u);
  if (needInvoice.length) {
    const first = await counterRepository.take(trx, accountId, 'invoice', needInvoice.length);
    needInvoice.forEach((u, i) => {
      u.invoice_number = String(first + i);
    });
  }
  await orderRepository.updatePayments(trx, accountId, updates);
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

function paymentOf(row: PaymentRow, added: bigint, field: string): PaymentUpdate {
  const paid = fromCents(toCents(row.paid_amount ?? '0.00') + added);
  checkAmount(paid, field);
  const isPaid = toCents(paid) !== 0n;
  return {
    internal_id: row.internal_id,
    paid_amount: paid,
    is_paid: isPaid,
    became_paid: isPaid && !row.is_paid,
    // Given below to an order paid for the first time that has none; an order keeps its own.
    invoice_number: null,
    bill_date: new Date().toISOString().slice(0, 10),
  };
}
