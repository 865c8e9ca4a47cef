/**
 * What lib/invoice asks of an order (issue 35): an invoice number when the seller asks for the
 * invoice of an order that has none (document 2, bill_date: "order paid or invoice printed"), and
 * bill_url once the invoice is archived. Invoice numbers are given here as everywhere in lib/order:
 * once, from the account's counter, never reused.
 */
import type { Knex } from 'knex';
import type { OrderScope } from '../access';
import { counterRepository } from '../account';
import { notFound } from '../errors';
import type { OutboxJob } from '../queue';
import { orderRepository } from './order.repository';

/**
 * The order's invoice number, given now with bill_date today (UTC) when it has none; 404 when the
 * order is not in the scope. Locks in the order every order write takes them: the invoice
 * counter, then the order row.
 */
export async function invoiceNumberIn(
  trx: Knex.Transaction,
  scope: OrderScope,
  orderId: string,
  now = new Date(),
): Promise<{ invoiceNumber: string; given: boolean }> {
  await counterRepository.take(trx, scope.accountId, 'invoice', 0);
  const current = await orderRepository.getForUpdate(trx, scope, orderId);
  if (!current) throw notFound(`order ${orderId}`, 'order_id');
  if (current.invoice_number !== null) return { invoiceNumber: String(current.invoice_number), given: false };
  const invoiceNumber = String(await counterRepository.next(trx, scope.accountId, 'invoice'));
  await orderRepository.update(trx, scope.accountId, current.internal_id, { invoice_number: invoiceNumber, bill_date: now.toISOString().slice(0, 10) });
  return { invoiceNumber, given: true };
}

/** Sets bill_url of an order whose invoice was archived (only while it has none). */
export async function setBillUrlIn(trx: Knex.Transaction, accountId: number, internalId: string, url: string): Promise<void> {
  await orderRepository.setBillUrl(trx, accountId, internalId, url);
}

/**
 * The invoice job of the orders a write made paid (none: no job): every write that pays orders
 * (create, update, order/list/, a payment) queues one for all of them, and lib/invoice issues the
 * invoices (or credit notes) off the request.
 */
export function invoiceJobsFor(accountId: number, paidOrderIds: string[]): OutboxJob[] {
  return paidOrderIds.length ? [{ job: 'invoice.issue', payload: { accountId, orderIds: paidOrderIds } }] : [];
}
