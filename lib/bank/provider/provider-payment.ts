/**
 * What a sync does with what PayPal listed, as a pure rule (no database, no HTTP): which
 * payments to store, which to remember as pending, which pending ones to forget. The sync
 * service reads, calls this, and applies the plan in one transaction.
 */
import { fromCents, toCents } from '../../order';
import { clip, StatementEntry } from '../statement/statement.type';
import type { PayPalTransaction } from './paypal.client';

/**
 * How long a pending payment is asked for again, from its date: 30 days. PayPal's help pages
 * give an eCheck up to 6 business days in the US (faq3265), 4 to 7 "but sometimes longer" in
 * Canada (help285), and a declined one is tried again within 3 business days before it is
 * cancelled: about two and a half weeks at worst. 30 days leaves that a margin and keeps a
 * payment's window within one 31-day search span. Beyond it the seller is told (a task).
 */
export const pendingWatchMs = 30 * 86_400_000;

/**
 * transaction_status (OpenAPI of reporting_transactions_v1): S completed, P pending (waits for
 * another payment process such as an ACH transfer), D denied, V reversed. A status missing or
 * unknown counts as pending: asked for again until it is one of these, never stored or dropped
 * unseen.
 */
export type PaymentState = 'completed' | 'pending' | 'failed';

export function stateOf(status: string | undefined): PaymentState {
  if (status === 'S') return 'completed';
  if (status === 'D' || status === 'V') return 'failed';
  return 'pending';
}

/** A payment received (positive amount), read from a listed transaction. */
export interface ProviderPayment {
  entry: StatementEntry;
  state: PaymentState;
}

/** A listed transaction that is money received but cannot be kept: logged and counted, never stored. */
export interface Unreadable {
  transactionId: string;
  reason: string;
}

/**
 * Whether a listed transaction is a payment a buyer made. transaction_event_code (the OpenAPI's
 * five characters, explained by PayPal's "Transaction event codes" page) T00nn is a PayPal
 * account-to-account payment (T0006 Express Checkout, T0007 Website Payments, T0011 mobile ...);
 * the other groups credit the balance without a buyer: T02nn currency conversion, T03nn bank
 * deposit (a top-up), T11nn reversals, T15nn holds and their release, T21nn reserves. Stored as
 * payments, those became transfers without payer, and a released hold a second transfer of a sale
 * already paid. A transaction without a code is kept as before: dropping money unseen is worse.
 */
const isBuyerPayment = (code: string | undefined) => code === undefined || /^T00\d\d$/.test(code);

/**
 * A payment received, or why it cannot be kept, or null for what is not money received from a
 * buyer (refunds, fees and withdrawals are negative; conversions, top-ups, reversals, releases by
 * their event code). A payment without a currency is not stored: PayPal's money always carries
 * currency_code, and guessing one (EUR) would let a USD payment pay a EUR order.
 */
export function paymentOf(t: PayPalTransaction): ProviderPayment | Unreadable | null {
  const info = t.transaction_info ?? {};
  const value = info.transaction_amount?.value ?? '';
  const id = info.transaction_id ?? '';
  if (!isBuyerPayment(info.transaction_event_code)) return null;
  // PayPal's currencies have at most two decimals (HUF, JPY and TWD none).
  if (!/^-?\d{1,12}(\.\d{1,2})?$/.test(value)) return { transactionId: id, reason: `amount "${value}" is not a decimal of at most 2 places` };
  if (toCents(value) <= 0n) return null;
  const date = new Date(info.transaction_initiation_date ?? '');
  const currency = info.transaction_amount?.currency_code ?? '';
  if (!id) return { transactionId: '', reason: 'no transaction_id' };
  if (!Number.isFinite(date.getTime())) return { transactionId: id, reason: 'no valid transaction_initiation_date' };
  if (!/^[A-Z]{3}$/.test(currency)) return { transactionId: id, reason: 'no ISO 4217 currency_code' };
  const name = t.payer_info?.payer_name;
  const sender = name?.alternate_full_name ?? [name?.given_name, name?.surname].filter(Boolean).join(' ');
  const subject = [info.invoice_id, info.transaction_subject, info.transaction_note, info.custom_field].filter(Boolean).join(' ');
  return {
    state: stateOf(info.transaction_status),
    entry: {
      reference: id,
      transferDate: date,
      sender: clip(sender, 255),
      subject: clip(subject, 1000),
      amount: fromCents(toCents(value)),
      currency,
      payerReferences: [],
    },
  };
}

/** A payment remembered as pending (table payment_provider_pending). */
export interface PendingPayment {
  transactionId: string;
  transactionDate: Date;
  amount: string;
  currency: string;
  sender: string;
}

export interface SyncPlan {
  /** Completed payments: stored (each once, by transaction id) and matched. */
  store: StatementEntry[];
  /** Pending payments seen for the first time: remembered. */
  remember: PendingPayment[];
  /** Remembered ones that completed or failed: forgotten. */
  resolved: string[];
  /** Remembered ones asked for and still pending: their check time moves on. */
  stillPending: string[];
  /** Remembered (or new) ones pending beyond pendingWatchMs: forgotten, and the seller told. */
  givenUp: PendingPayment[];
  /** Denied or reversed payments seen (nothing stored). */
  failed: string[];
  unreadable: Unreadable[];
}

/** The state of a payment listed more than once (PayPal may list an id twice): failed before completed before pending. */
function strongest(a: PaymentState, b: PaymentState): PaymentState {
  const rank: Record<PaymentState, number> = { failed: 3, completed: 2, pending: 1 };
  return rank[a] >= rank[b] ? a : b;
}

const pendingOf = (e: StatementEntry): PendingPayment => ({
  transactionId: e.reference!,
  transactionDate: e.transferDate,
  amount: e.amount,
  currency: e.currency,
  sender: e.sender,
});

/**
 * The plan of one sync: `listed` is everything PayPal answered (the window and the pending
 * payments asked for by id), `known` the pending payments remembered before, `asked` the ids of
 * those asked for by id.
 */
export function planSync(listed: PayPalTransaction[], known: PendingPayment[], asked: string[], now: Date): SyncPlan {
  const byId = new Map<string, ProviderPayment>();
  const unreadable: Unreadable[] = [];
  for (const t of listed) {
    const payment = paymentOf(t);
    if (payment === null) continue;
    if (!('entry' in payment)) {
      unreadable.push(payment);
      continue;
    }
    const seen = byId.get(payment.entry.reference!);
    byId.set(payment.entry.reference!, seen ? { entry: seen.entry, state: strongest(seen.state, payment.state) } : payment);
  }
  const knownIds = new Map(known.map((k) => [k.transactionId, k]));
  const expired = (p: PendingPayment) => now.getTime() - p.transactionDate.getTime() > pendingWatchMs;
  const plan: SyncPlan = { store: [], remember: [], resolved: [], stillPending: [], givenUp: [], failed: [], unreadable };
  for (const [id, { entry, state }] of byId) {
    if (state !== 'pending') {
      if (state === 'completed') plan.store.push(entry);
      else plan.failed.push(id);
      if (knownIds.has(id)) plan.resolved.push(id);
    } else if (!knownIds.has(id)) {
      (expired(pendingOf(entry)) ? plan.givenUp : plan.remember).push(pendingOf(entry));
    }
  }
  const settled = new Set([...plan.resolved]);
  for (const k of known) {
    if (settled.has(k.transactionId)) continue;
    if (expired(k)) plan.givenUp.push(k);
    else if (asked.includes(k.transactionId) || byId.has(k.transactionId)) plan.stillPending.push(k.transactionId);
  }
  return plan;
}
