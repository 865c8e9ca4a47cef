/**
 * The paid rules of an order (document 1, order status rules 1 and 2), in one place for every
 * write that moves paid_amount: a create, an update (the seller's, a channel's, send_mit's) and a
 * payment (lib/bank). paid_amount sets the paid state: any non-zero amount is paid (fully or
 * partly), 0 unpaid again (paid_date cleared, the invoice number stays) unless the invoice is 0.00. The first time an order
 * becomes paid it takes the account's next invoice number and today's bill_date (UTC); invoice
 * numbers are never given twice. A write that moves invoice_amount without writing paid_amount
 * (lines, shipping fee) re-derives the state from the stored paid_amount by the same rule: a free
 * order made paid at 0.00 whose invoice grows is unpaid again, and paid again back at 0.00.
 *
 * Paid in full (the event `paid_in_full`) is decided here too, beside "becomes paid", so every
 * writer of paid_amount or invoice_amount gets it without a rule of its own: the order is paid and
 * paid_amount is at least invoice_amount. `paid` keeps its meaning (paid or partly paid: the first
 * cent); a seller who ships on payment needs the moment nothing is owed any more.
 *
 * A credit order (invoice_amount below 0.00) runs the other way: its paid_amount is what the
 * seller refunded, kept in the invoice's sign (is_paid at creation stores the invoice_amount), so
 * every comparison here is in the invoice's direction: refunded in full at -16.36 of -16.36, partly
 * at -10.00, refunded too much at -20.00 (lib/order/README.md, paid_amount of a credit order).
 */
import type { Knex } from 'knex';
import { counterRepository } from '../account';
import { invalidField } from '../errors';
import { fromCents, toCents } from './order-money';

/** What the rules read of an order before the write; a create has none. */
export interface PaidBefore {
  paid_amount: string | null;
  is_paid: boolean;
  invoice_number: string | null;
  invoice_amount: string;
}

/** The paid columns a write sets, and what follows from them. */
export interface PaidPlan {
  columns: { paid_amount?: string | null; is_paid?: boolean; paid_date?: Date | null };
  isPaid: boolean;
  /** The order is paid now and was not: its event `paid`, its invoice. */
  becamePaid: boolean;
  /** paid_amount reaches invoice_amount now and did not before the write: its event `paid_in_full`. */
  becamePaidInFull: boolean;
  /** It has no invoice number yet: giveInvoiceNumbers gives it one. */
  needsInvoiceNumber: boolean;
  /** The paid state changed with invoice_amount alone (paid_amount not written): the write says so. */
  followsInvoice: boolean;
}

const neverPaid: PaidBefore = { paid_amount: null, is_paid: false, invoice_number: null, invoice_amount: '0.00' };

/**
 * The way an order's money goes, as a sign: 1 where the buyer pays (an invoice of 0.00 or more),
 * -1 for a credit order (invoice below 0.00), whose paid_amount is the seller's refund, stored in
 * the invoice's sign. Multiplied in, every comparison below reads both alike.
 */
const directionOf = (invoiceCents: bigint): bigint => (invoiceCents < 0n ? -1n : 1n);

/**
 * Nothing is owed: paid (is_paid) and paid_amount at least invoice_amount, in the invoice's
 * direction (a credit order: refunded at least its credit, -16.36 of -16.36; 10.00 refunded of it
 * read as 10.00 >= -16.36 and fired paid_in_full on a partial refund). Document 1 calls only an
 * equal amount "fully paid"; more than the invoice (an API update, or lines removed after the
 * payment; bank matches refuse it) owes nothing either, and a seller shipping on `paid_in_full`
 * must not wait for ever on an order paid too much. An order marked paid at 0.00 of 0.00 is paid
 * in full; an unpaid one is not, whatever its invoice.
 */
function isPaidInFull(order: { is_paid: boolean; paid_amount: string | null; invoice_amount: string }): boolean {
  const invoice = toCents(order.invoice_amount);
  const way = directionOf(invoice);
  return order.is_paid && way * toCents(order.paid_amount ?? '0.00') >= way * invoice;
}

/**
 * paid_amount as a write sends it (a seller's, a channel's), in the form the order keeps, after
 * the write's invoice_amount: on a credit order the amount refunded in either sign, -10.00 as the
 * order answers it (so a read order posts back) or 10.00, its magnitude (as lib/invoice's credit
 * note states it, and as clients were told to send it), both kept as -10.00; is_paid stores the
 * invoice_amount, -16.36, the same form. On an invoice of 0.00 or more a negative amount is a 400:
 * money received is never below 0.00 there (a refund lowers paid_amount, returned goods are a
 * credit order), and reading it as its magnitude would take a sign error for a payment. A value
 * equal to the stored one is kept as it is: a credit order whose lines became an ordinary invoice
 * keeps its refund (-16.36 on 10.00: 26.36 owed) and its read body still posts back.
 */
export function paidAmountSent(sent: string, invoiceAmount: string, stored: string | null, field: string): string {
  const cents = toCents(sent);
  if (stored !== null && cents === toCents(stored)) return fromCents(cents);
  if (toCents(invoiceAmount) < 0n) return fromCents(cents > 0n ? -cents : cents);
  if (cents < 0n) {
    throw invalidField(
      field,
      `${field} must not be negative on an invoice of ${invoiceAmount} (money received; a refund lowers it, and a credit order's refund has the credit's sign)`,
    );
  }
  return fromCents(cents);
}

/**
 * What the order holds beyond its invoice, in cents of the invoice's direction (0 when nothing):
 * paid more than an invoice (to give back to the buyer), or refunded more than a credit order's
 * credit (to claim back); all of it once the order is cancelled (a cancelled order keeps nothing).
 */
export function paidBeyond(paidAmount: string | null, invoiceAmount: string, cancelled: boolean): bigint {
  const invoice = toCents(invoiceAmount);
  const way = directionOf(invoice);
  const paid = way * toCents(paidAmount ?? '0.00');
  const beyond = cancelled ? paid : paid - way * invoice;
  return beyond > 0n ? beyond : 0n;
}

/**
 * What the buyer still owes the seller, in cents: invoice_amount - paid_amount (negative: paid
 * too much). A credit order owes nothing, whatever was refunded: money the buyer sends is never
 * booked on it as owed (a refund of -20.00 on -16.36 left 3.64 that a transfer of the buyer
 * could pay). The bank's queries read the same rule in SQL (order-scope.repository.ts owedSql).
 */
export function owedOn(paidAmount: string | null, invoiceAmount: string): bigint {
  const invoice = toCents(invoiceAmount);
  return invoice < 0n ? 0n : invoice - toCents(paidAmount ?? '0.00');
}

/**
 * The paid state paid_amount gives on an invoice (document 1, rules 1 and 2): any non-zero amount
 * is paid (fully or partly; a credit order's refund too); 0 is unpaid, but not where it is the whole invoice (paid_amount
 * equal to invoice_amount is fully paid): a free order (a replacement, a giveaway) sent with
 * paid_amount 0.00 stayed unpaid, while the same order made paid by is_paid or a prepaid payment
 * method read paid at the same 0.00 of 0.00. null: never written, unpaid.
 */
function paidBy(paidAmount: string | null, invoiceAmount: string): boolean {
  return paidAmount !== null && (toCents(paidAmount) !== 0n || toCents(invoiceAmount) === 0n);
}

/** Two paid_amounts are the same amount (null: never written, only the same as null). */
function sameAmount(a: string | null, b: string | null): boolean {
  return a === null || b === null ? a === b : toCents(a) === toCents(b);
}

/**
 * What a write does to paid_amount: sets it, or pays the invoice in full (is_paid at creation, a
 * prepaid payment method): then the order is paid even when its invoice is 0.00.
 */
export type PaidChange = { paidAmount: string | null } | { inFullOf: string };

/**
 * The paid state after a write that changes paid_amount so (undefined: leaves it as it is) and
 * leaves invoice_amount at `invoiceAmount` (a change of lines or shipping fee can cross the line
 * too). Paid in full is a crossing: once when the order gets there, not again for a later payment
 * or change while it stays there; again after it fell below (a line added, paid_amount lowered)
 * and gets there anew, as `paid` comes again after paid_amount went back to 0: the seller was owed
 * money again and now is not (a receiver that must act once per order checks the order, e.g.
 * is_shipped).
 */
export function planPaid(before: PaidBefore | undefined, sent: PaidChange | undefined, invoiceAmount: string, now: Date): PaidPlan {
  const was = before ?? neverPaid;
  // paid_amount written as it is stored (a read order posted back) changes nothing, so it counts
  // as not sent and the state follows the invoice below. Before, a free order made paid, read
  // (0.00) and posted back with a 20.00 line was unpaid silently: no not_paid warning, no history.
  const change = before && sent && 'paidAmount' in sent && sameAmount(sent.paidAmount, was.paid_amount) ? undefined : sent;
  const columns: PaidPlan['columns'] = {};
  let isPaid = was.is_paid;
  let followsInvoice = false;
  if (change && 'inFullOf' in change) {
    columns.paid_amount = change.inFullOf;
    isPaid = true;
  } else if (change) {
    columns.paid_amount = change.paidAmount;
    isPaid = paidBy(change.paidAmount, invoiceAmount);
  } else if (before && was.paid_amount !== null && toCents(invoiceAmount) !== toCents(was.invoice_amount)) {
    // The state follows paid_amount against the invoice as it is now, not as it was when paid_amount
    // was written: a free order made paid (0.00 of 0.00) whose lines or fee raised the invoice
    // kept is_paid at paid_amount 0.00, and a seller shipped what nobody paid. Only 0.00 can move
    // (paidBy); a prepaid method's 0.00 too, since it paid the invoice as it was when chosen (a
    // prepaid 30.00 raised to 50.00 is partly paid the same way). A paid_amount never written
    // (null) has nothing to follow.
    isPaid = paidBy(was.paid_amount, invoiceAmount);
    followsInvoice = isPaid !== was.is_paid;
  }
  if (!before || isPaid !== was.is_paid) {
    columns.is_paid = isPaid;
    columns.paid_date = isPaid ? now : null;
  }
  const becamePaid = isPaid && !was.is_paid;
  const paidAmount = columns.paid_amount !== undefined ? columns.paid_amount : was.paid_amount;
  const becamePaidInFull = isPaidInFull({ is_paid: isPaid, paid_amount: paidAmount, invoice_amount: invoiceAmount }) && !isPaidInFull(was);
  return { columns, isPaid, becamePaid, becamePaidInFull, needsInvoiceNumber: becamePaid && was.invoice_number === null, followsInvoice };
}

/** The orders' invoice numbers and bill dates, as stored with them. */
export interface InvoiceNumbered {
  invoice_number?: string | null;
  bill_date?: string | null;
}

/**
 * Gives each order, in the order given, the account's next invoice number and the date it became
 * paid as its bill_date: one statement for all. Takes the invoice counter's lock, the first of an
 * order write's counters (lib/order/README.md, lock order).
 */
export async function giveInvoiceNumbers(trx: Knex.Transaction, accountId: number, orders: { numbered: InvoiceNumbered; at: Date }[]): Promise<void> {
  if (!orders.length) return;
  let next = await counterRepository.take(trx, accountId, 'invoice', orders.length);
  for (const { numbered, at } of orders) {
    numbered.invoice_number = String(next++);
    numbered.bill_date = at.toISOString().slice(0, 10);
  }
}
