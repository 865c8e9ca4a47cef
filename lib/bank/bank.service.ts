/**
 * POST bank/transfer/: creates a transfer with the next bank id of the account, answers the
 * existing id when the same transfer is already there, and assigns it to the order it pays by
 * the rules of bank.match.ts (the order's paid_amount grows through the orders' payment rules).
 */
import type { Knex } from 'knex';
import { invalidField } from '../errors';
import { checkAmount, fromCents, toCents } from '../order';
import type { OrderCaller } from '../order';
import { grantOf } from '../access';
import { currencyRepository } from '../reference';
import { assignIn } from './bank.match';
import { applyReversalsIn } from './bank-reversal.service';
import { BankColumns, bankRepository } from './bank.repository';
import { inTransaction } from '../db';
import { bankIdOf, BankInput, BankRow } from './bank.type';
import { bookingDaysOf, daysAround, HandDayRule, sameBookingByHand, tiedDayOf, VALUE_DAY_WINDOW, valueDayRules } from './statement/entry-key';

export interface BankCreated {
  bankId: string;
  isOrderPaid: boolean;
  /** true when the same transfer existed already (HTTP 302). */
  existed: boolean;
}

/** Thrown inside the transaction so that a duplicate gives its bank number back. */
class Duplicate extends Error {
  constructor(
    readonly bankId: string,
    readonly isOrderPaid: boolean,
  ) {
    super('duplicate bank transfer');
  }
}

/**
 * The credit an imported statement stored already that this transfer is (entry-key.ts
 * sameBookingByHand: the booking day, amount, currency, and payer and text as the formats spell
 * them), the first stored: the payment exists, so 302 with its id. Before, only a record equal in
 * every field (its date at the statement's 00:00 UTC, the payer spelt as the file does) answered
 * 302, and a client booking a payment its seller's statement had brought stored it twice, paying
 * the order a second time (or the payer's next order with the copy).
 */
async function statementCopyOf(trx: Knex.Transaction, accountId: number, columns: BankColumns): Promise<BankRow | undefined> {
  const hand = { transferDate: columns.transfer_date, amount: columns.amount, currency: columns.currency_id, sender: columns.sender, subject: columns.subject };
  const credits = await bankRepository.statementCreditsOn(trx, accountId, {
    days: daysAround(bookingDaysOf(columns.transfer_date), VALUE_DAY_WINDOW),
    amount: columns.amount,
    currency: columns.currency_id,
  });
  // A hand booking a statement claimed is of that statement's day (claimed_on), not of its
  // client's span: before, the rate of the 19th booked by hand was answered 302 with the hand
  // booking the MT940 of the 20th had claimed (at 00:30 in Berlin, 23:30 on the 19th in UTC), and
  // never stored.
  const fits = (days: HandDayRule) => (r: BankRow) =>
    sameBookingByHand(hand, { transferDate: tiedDayOf(r), amount: r.amount, currency: r.currency_id, sender: r.sender, subject: r.subject }, days);
  // A credit of the transfer's UTC day first, then of its day on a client's clock (entry-key.ts
  // sameBookingDay), then within the value-day window, nearest first (VALUE_DAY_WINDOW), the
  // window only for credits no hand booking claimed: such a credit has its hand booking, and an
  // equal one of another day is another payment.
  const unclaimed = credits.filter((r) => r.claimed_on === null);
  return (
    credits.find(fits('utc')) ??
    credits.find(fits('zone')) ??
    valueDayRules().reduce<BankRow | undefined>((found, within) => found ?? unclaimed.find(fits(within)), undefined)
  );
}

async function createIn(trx: Knex.Transaction, caller: OrderCaller, input: BankInput): Promise<BankCreated> {
  const { accountId } = caller;
  const columns: BankColumns = {
    type: 'bank',
    transfer_date: input.transfer_date,
    sender: input.sender ?? '',
    subject: input.subject ?? '',
    amount: input.amount,
    currency_id: input.currency_id ?? 'EUR',
    order_id: null,
    order_no: null,
    status: null,
    portal_account_grant: grantOf(caller),
  };
  // The counter row lock serialises the account's creates: the duplicate check below cannot race.
  const number = await bankRepository.nextNumber(trx, accountId);
  const existing = (await bankRepository.findDuplicate(trx, accountId, columns)) ?? (await statementCopyOf(trx, accountId, columns));
  // is_order_paid as the caller sees it: a client bound to a portal account whose booking is a
  // payment that paid an order of another portal account (a buyer of the same name, amount and
  // text there) was told '1', took its own order for paid and shipped it unpaid, and learnt of
  // an order beyond its grant. It is told '0': no order it sees was paid.
  if (existing) throw new Duplicate(existing.id, await bankRepository.paidOrderIn(trx, caller, existing));

  const bankId = bankIdOf(number, new Date());
  const amount = fromCents(toCents(input.amount));
  await bankRepository.insert(trx, accountId, number, bankId, columns);
  // A reversal kept from an earlier statement (imported before its credit) is tried on this
  // transfer as on a statement's credits (bank-reversal.service.ts): the one it fits is reversed
  // and pays no order. Before, a transfer booked here stayed untried and paid its order in full.
  await applyReversalsIn(trx, caller, [], [amount], number);
  if (await bankRepository.isReversed(trx, accountId, number)) return { bankId, isOrderPaid: false, existed: false };
  const record = { ...columns, number: String(number), id: bankId, amount, payer_ref: '', entry_ref: null };
  const [outcome] = await assignIn(trx, caller, [record]);
  return { bankId, isOrderPaid: outcome!.order_id !== null, existed: false };
}

/** POST bank/transfer/ in one transaction. */
export async function createTransfer(caller: OrderCaller, input: BankInput): Promise<BankCreated> {
  if (!Number.isFinite(input.transfer_date.getTime())) throw invalidField('bank.transfer_date', 'bank.transfer_date must be a datetime');
  checkAmount(input.amount, 'bank.amount');
  // Money received only (README, "A transfer booked by hand"): a debit or 0.00 was stored as a
  // received transfer with no reason, never offered to an order nor found by unassigned_reason.
  if (toCents(input.amount) <= 0n) {
    throw invalidField(
      'bank.amount',
      'bank.amount must be above 0.00: a transfer booked by hand is money received (a refund or a debit is no bank transfer here)',
    );
  }
  if (input.currency_id !== undefined && !(await currencyRepository.get(input.currency_id))) {
    throw invalidField('bank.currency_id', `bank.currency_id ${input.currency_id} is not a currency (see GET system/currency/)`, 'unknown_currency');
  }
  try {
    return await inTransaction((trx) => createIn(trx, caller, input), caller.requestId);
  } catch (err) {
    if (err instanceof Duplicate) return { bankId: err.bankId, isOrderPaid: err.isOrderPaid, existed: true };
    throw err;
  }
}
