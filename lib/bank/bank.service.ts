/**
 * POST bank/transfer/: creates a transfer with the next bank id of the account, answers the
 * existing id when the same transfer is already there, and assigns it to an order its subject
 * names (the order's paid_amount grows by the amount through the orders' own update rules).
 */
import type { Knex } from 'knex';
import { invalidField } from '../http/errors';
import { checkAmount, fromCents, toCents } from '../order/order-money';
import { orderRepository } from '../order/order.repository';
import { OrderCaller, updateOrderIn } from '../order/order.service';
import { BankColumns, bankRepository, OrderCandidate } from './bank.repository';
import { inTransaction } from '../db/transaction';
import { bankIdOf, BankInput, BankRow } from './bank.type';

export interface BankCreated {
  bankId: string;
  isOrderPaid: boolean;
  /** true when the same transfer existed already (HTTP 302). */
  existed: boolean;
}


/** Thrown inside the transaction so that a duplicate gives its bank number back. */
class Duplicate extends Error {
  constructor(readonly row: BankRow) { super('duplicate bank transfer'); }
}

/** Order references in a subject, in the order they appear: full order ids, and bare numbers. */
export function subjectReferences(subject: string): { ids: string[]; numbers: string[] } {
  const ids = [...subject.matchAll(/(?<![\d_])([1-9]\d{0,14})_(\d{4})_(\d{2})(?![\d_])/g)].map((m) => m[0]);
  // A number inside a decimal or a date (12.50, 21.11.2026) is not a reference; one ending a sentence is.
  const numbers = [...subject.matchAll(/(?<![\d_]|\d[.,])([1-9]\d{0,14})(?![\d_]|[.,]\d)/g)].map((m) => m[1]!);
  return { ids, numbers };
}

/** The first order the subject names (ids before numbers) that is not cancelled. */
function pickOrder(refs: { ids: string[]; numbers: string[] }, candidates: OrderCandidate[]): OrderCandidate | undefined {
  const open = candidates.filter((c) => !c.is_cancelled);
  for (const id of refs.ids) { const hit = open.find((c) => c.id === id); if (hit) return hit; }
  for (const n of refs.numbers) { const hit = open.find((c) => c.number === n); if (hit) return hit; }
  return undefined;
}

async function createIn(trx: Knex.Transaction, caller: OrderCaller, input: BankInput): Promise<BankCreated> {
  const { accountId } = caller;
  const columns: BankColumns = {
    type: 'bank', transfer_date: input.transfer_date, sender: input.sender ?? '', subject: input.subject ?? '',
    amount: input.amount, order_id: null, order_no: null, status: null,
  };
  // The counter row lock serialises the account's creates: the duplicate check below cannot race.
  const number = await bankRepository.nextNumber(trx, accountId);
  const existing = await bankRepository.findDuplicate(trx, accountId, columns);
  if (existing) throw new Duplicate(existing);

  const refs = subjectReferences(columns.subject);
  const candidates = await bankRepository.orderCandidates(trx, accountId, refs.ids, refs.numbers);
  const order = toCents(input.amount) > 0n ? pickOrder(refs, candidates) : undefined;
  if (order) {
    const current = await orderRepository.getForUpdate(trx, accountId, order.id);
    if (current && !current.is_cancelled) {
      const paid = fromCents(toCents(current.paid_amount ?? '0.00') + toCents(input.amount));
      checkAmount(paid, 'bank.amount');
      // The orders' update path keeps the paid rules, paid_date, invoice number and events.
      await updateOrderIn(trx, caller, order.id, { paid_amount: paid }, [], 'bank');
      columns.order_id = order.id;
    }
  }
  if (columns.order_id === null) columns.order_no = refs.ids[0] ?? refs.numbers[0] ?? null;
  const bankId = bankIdOf(number, new Date());
  await bankRepository.insert(trx, accountId, number, bankId, columns);
  return { bankId, isOrderPaid: columns.order_id !== null, existed: false };
}

/** POST bank/transfer/ in one transaction. */
export async function createTransfer(caller: OrderCaller, input: BankInput): Promise<BankCreated> {
  if (!Number.isFinite(input.transfer_date.getTime())) throw invalidField('bank.transfer_date', 'bank.transfer_date must be a datetime');
  checkAmount(input.amount, 'bank.amount');
  try {
    return await inTransaction((trx) => createIn(trx, caller, input));
  } catch (err) {
    if (err instanceof Duplicate) return { bankId: err.row.id, isOrderPaid: err.row.order_id !== null, existed: true };
    throw err;
  }
}
