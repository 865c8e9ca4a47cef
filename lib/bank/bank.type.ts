/**
 * Bank_type of document 2 as Joi schemas (select and create input) and the shapes of a stored
 * and a validated record.
 */
import { Joi, datetime, decimal, readOnly, text } from '../http';

/** The rules that assign a record to an order (bank.match.ts), as match_rule names them. */
export const matchRules = ['provider_id', 'order_id', 'invoice_number', 'order_number', 'number', 'name_amount'] as const;
export type MatchRule = (typeof matchRules)[number];
/**
 * Why a record stays unassigned (bank.match.ts), as unassigned_reason names it; `order_deleted`:
 * the order it paid was deleted (order-payment-records.provide.ts), until the re-match decides again.
 */
export const unassignedReasons = [
  'no_match',
  'ambiguous',
  'several_orders',
  'overpayment',
  'currency_mismatch',
  'order_cancelled',
  'amount_mismatch',
  'order_deleted',
  'booked_by_hand',
] as const;
export type UnassignedReason = (typeof unassignedReasons)[number];

/** A bank id: <number>_<YYYY>_<MM>, like an order id. */
export const bankIdPattern = /^([1-9]\d{0,14})_(\d{4})_(\d{2})$/;

/** <number>_<YYYY>_<MM> of the creation month (UTC), like an order id. */
export const bankIdOf = (number: number, at: Date) => `${number}_${at.getUTCFullYear()}_${String(at.getUTCMonth() + 1).padStart(2, '0')}`;

export type BankKind = 'bank' | 'payment_provider';

/**
 * Bank_type: id, type, date, order_id, order_no and status are read only. Our documented
 * additions (issue 29): currency_id (ISO 4217, written with a transfer, default EUR like an
 * order's), and, read only, match_rule (the rule that assigned the record, bank.match.ts) or
 * unassigned_reason (why it stays unassigned).
 */
export const bankType = Joi.object({
  id: readOnly(Joi.any()),
  type: readOnly(Joi.any()),
  date: readOnly(Joi.any()),
  transfer_date: datetime(),
  sender: text(255),
  subject: text(1000),
  order_id: readOnly(Joi.any()),
  order_no: readOnly(Joi.any()),
  amount: decimal(),
  status: readOnly(Joi.any()),
  // As Order_type's currency_id: 'eur' is EUR (the two were read differently).
  currency_id: Joi.string()
    .trim()
    .uppercase()
    .pattern(/^[A-Z]{3}$/)
    .description('ours (issue 29): ISO 4217 currency of the amount; default EUR. A transfer pays only an order of its currency.'),
  match_rule: readOnly(Joi.any()).description(`ours: the rule that assigned the record (${matchRules.join(', ')})`),
  unassigned_reason: readOnly(Joi.any()).description(`ours: why the record is not assigned (${unassignedReasons.join(', ')})`),
});

/** What POST bank/transfer/ needs: transfer_date and amount; sender and subject default to ''. */
export const bankCreateType = bankType.fork(['transfer_date', 'amount'], (field) => field.required());

export interface BankInput {
  transfer_date: Date;
  sender?: string;
  subject?: string;
  amount: string;
  currency_id?: string;
}

/** A stored record (numeric as string, timestamps as Date). */
export interface BankRow {
  internal_id: string;
  account_id: number;
  number: string;
  id: string;
  type: BankKind;
  created_at: Date;
  transfer_date: Date;
  sender: string;
  subject: string;
  amount: string;
  order_id: string | null;
  order_no: string | null;
  status: string | null;
  currency_id: string;
  payer_ref: string;
  /** The bank's own reference of an imported entry (one record per reference); null for a transfer posted by hand. */
  entry_ref: string | null;
  match_rule: string | null;
  unassigned_reason: string | null;
  portal_account_grant: number | null;
  /** The key of the bank's reversal of this transfer (bank-reversal.service.ts); null while not reversed. */
  reversed_by: string | null;
  /** The booking day of the reversal in reversed_by (migration 20261127_2200_bank_reversed_on); null while not reversed, and for transfers reversed before it. */
  reversed_on: Date | null;
  /** A statement credit's account IBAN, where its statement's account could be tied (bank-store.service.ts); else null. */
  account_iban: string | null;
  /** A statement credit's end-to-end id (EREF+, EndToEndId); null when none. */
  end_to_end_id: string | null;
  /** The other statement format's key of this booking, once an import of that format found it stored; else null. */
  entry_alias: string | null;
  /**
   * A transfer booked by hand that a statement's credit claimed: that credit's booking day (00:00
   * UTC; migration 20261128_0500_bank_claimed_on), the day every later tie reads; else null.
   */
  claimed_on: Date | null;
}

/** Bank_type as answered: order_id when linked, else order_no; never both. */
export function bankToApi(row: BankRow): Record<string, unknown> {
  return {
    id: row.id,
    type: row.type,
    date: row.created_at.toISOString(),
    transfer_date: row.transfer_date.toISOString(),
    sender: row.sender,
    subject: row.subject,
    ...(row.order_id !== null ? { order_id: row.order_id } : { order_no: row.order_no }),
    amount: row.amount,
    currency_id: row.currency_id,
    status: row.status,
    match_rule: row.match_rule,
    unassigned_reason: row.unassigned_reason,
  };
}
