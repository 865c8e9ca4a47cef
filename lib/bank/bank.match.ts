/**
 * Which order a bank record pays, the way reconciliation engines decide it (Odoo's reconciliation
 * models, JTL-Wawi's and Billbee's payment matching): candidates, then rules, then a decision
 * with its reason. A batch of records at a time (POST bank/transfer/ is a batch of one; an
 * import's bank.match job and the re-match walk batches of thousands with two order queries each).
 *
 * Candidates are the orders the payer's references name (bank-reference.ts: the remittance text
 * and the structured references, never a name, IBAN, BIC or booking code), rule by rule, the
 * strongest first:
 *   provider_id     the provider payment's own id is the order's payment_provider_transaction_id
 *   order_id        an order id `<number>_<YYYY>_<MM>`
 *   invoice_number  a number behind an invoice prefix (`RE-12`, `Rechnung Nr. 12`)
 *   order_number    a number behind an order prefix (`Bestellung 12`, `Order #12`)
 *   number          a number word, read as an order or an invoice number whatever its prefix
 *   name_amount     the sender's name is the billing name and the amount is what is owed
 * A record pays an order only if it fits: the order is not cancelled, its currency is the
 * record's, and the amount is not more than it still owes (a part payment leaves it partly paid,
 * document 1 rule 2). A bare number is weak evidence: it pays only the exact amount owed. The
 * first rule that names an order decides: exactly one fitting order is paid; several fitting are
 * `ambiguous`; several named and none fitting are `several_orders` (one transfer paying them
 * together); a named order that does not fit gives the reason (`overpayment`,
 * `currency_mismatch`, `order_cancelled`, `amount_mismatch`). A strong reference that decides
 * against paying is final (the payer meant that order); when only bare numbers or nothing at all
 * was named, name_amount is tried before the record stays unassigned (`no_match` when nothing was
 * named). Within a batch, what earlier records paid is taken off what an order owes. Money the
 * seller may have booked by hand on an order (bookedByHand) pays that order by no rule, nor, by
 * name and amount, another order of the payer (byNameAndAmount).
 */
import type { Knex } from 'knex';
import type { OrderScope } from '../access';
import { bookedByHand, bookedByHandOnAnother, PayerHandBookings, PaymentMisfit, payOrdersIn, toCents } from '../order';
import { candidatesPerCall, handBookedKey, NameAmountCandidates, orderKey, payerKey, payerNameKey, timesOf } from './bank-name-amount';
import { firstReference, PayerReferences, payerReferencesOf } from './bank-reference';
import { Assigned, bankRepository, MatchOrder, MatchRecord } from './bank.repository';

import type { MatchRule, UnassignedReason } from './bank.type';
export type { MatchRule, UnassignedReason };

interface Refs extends PayerReferences {
  providerId: string | null;
}

const refsOf = (r: MatchRecord): Refs => ({
  ...payerReferencesOf(r.subject, r.payer_ref),
  providerId: r.type === 'payment_provider' ? r.entry_ref : null,
});

/** One rule: the orders it names for a record, and whether it is strong (its verdict is final). */
interface Rule {
  rule: MatchRule;
  strong: boolean;
  names: (refs: Refs, o: MatchOrder) => boolean;
}

const rules: Rule[] = [
  { rule: 'provider_id', strong: true, names: (r, o) => r.providerId !== null && o.payment_provider_transaction_id === r.providerId },
  { rule: 'order_id', strong: true, names: (r, o) => r.orderIds.includes(o.id) },
  { rule: 'invoice_number', strong: true, names: (r, o) => o.invoice_number !== null && r.invoiceNumbers.includes(o.invoice_number) },
  { rule: 'order_number', strong: true, names: (r, o) => r.orderNumbers.includes(o.number) },
  {
    // Any number word, a prefixed one too (a payer writes "Rechnung 12" for order 12 when that is
    // what the seller's invoice shows), read as either kind.
    rule: 'number',
    strong: false,
    names: (r, o) => {
      const any = [...r.bareNumbers, ...r.invoiceNumbers, ...r.orderNumbers];
      return any.includes(o.number) || (o.invoice_number !== null && any.includes(o.invoice_number));
    },
  },
];

export interface Decision {
  record: MatchRecord;
  orderId: string | null;
  rule: MatchRule | null;
  reason: UnassignedReason | null;
  /** The first reference written, kept while unassigned. */
  orderNo: string | null;
}

/** What orders still owe within a batch, in cents: earlier records of the batch are taken off. */
class Owing {
  private readonly cents = new Map<string, bigint>();
  of(o: MatchOrder): bigint {
    let owed = this.cents.get(o.id);
    if (owed === undefined) this.cents.set(o.id, (owed = toCents(o.owing)));
    return owed;
  }
  pay(o: MatchOrder, amount: bigint): void {
    this.cents.set(o.id, this.of(o) - amount);
  }
}

/** The record's amount in cents, read once per record. */
const amountCents = new WeakMap<MatchRecord, bigint>();
function centsOf(record: MatchRecord): bigint {
  let cents = amountCents.get(record);
  if (cents === undefined) amountCents.set(record, (cents = toCents(record.amount)));
  return cents;
}

/**
 * The seller booked the record's money on the order by hand (document 1, order rule 1): stored
 * before the hand booking, or booked by its bank on or before the hand booking's day, a statement
 * imported later too, and not more than the money booked by hand (lib/order order-paid-by-hand.ts,
 * the one rule; lib/bank/README.md, "A payment booked by hand on the order"), so no rule pays it again.
 */
const byHand = (record: MatchRecord, o: MatchOrder): boolean => bookedByHand(o, { ...timesOf(record), amount: record.amount });

/** Why the record cannot pay the order (null: it fits). `exact`: a bare number pays only the amount owed. */
function misfit(record: MatchRecord, o: MatchOrder, owing: Owing, exact: boolean): UnassignedReason | null {
  if (o.is_cancelled) return 'order_cancelled';
  if (o.currency_id !== record.currency_id) return 'currency_mismatch';
  if (byHand(record, o)) return 'booked_by_hand';
  const amount = centsOf(record);
  const owed = owing.of(o);
  if (amount > owed) return 'overpayment';
  return exact && amount !== owed ? 'amount_mismatch' : null;
}

type Verdict = { orderId: string; rule: MatchRule } | { reason: UnassignedReason; final: boolean } | null;

/** The first rule that names an order gives the verdict; null when no rule names one. */
function byReferences(record: MatchRecord, refs: Refs, candidates: MatchOrder[], owing: Owing): Verdict {
  for (const { rule, strong, names } of rules) {
    const named = candidates.filter((o) => names(refs, o));
    if (!named.length) continue;
    const fitting = named.filter((o) => misfit(record, o, owing, !strong) === null);
    if (fitting.length === 1) return { orderId: fitting[0]!.id, rule };
    // Several orders named and none fits alone: the payer paid them together (10.00 + 15.00 in one
    // transfer of 25.00), which `overpayment` of the first misnamed; the seller splits it by hand.
    const reason = fitting.length > 1 ? 'ambiguous' : named.length > 1 ? 'several_orders' : misfit(record, named[0]!, owing, !strong)!;
    return { reason, final: strong };
  }
  return null;
}

/**
 * Decides the order of each record (no writes): one query for the orders the references name,
 * one for name_amount's candidates of the records references did not decide.
 */
export async function decide(
  trx: Knex.Transaction,
  scope: OrderScope,
  records: MatchRecord[],
  nameAmount: NameAmountCandidates = candidatesPerCall,
): Promise<Decision[]> {
  const refs = records.map(refsOf);
  const named = await referencedBy(trx, scope, refs);
  const index = indexBy(named, (o) => [
    `id ${o.id}`,
    `n ${o.number}`,
    ...(o.invoice_number ? [`n ${o.invoice_number}`] : []),
    ...(o.payment_provider_transaction_id ? [`p ${o.payment_provider_transaction_id}`] : []),
  ]);
  const owing = new Owing();
  const open: { decision: Decision; reason: UnassignedReason }[] = [];
  const decisions = records.map((record, i) => {
    const r = refs[i]!;
    const keys = [...r.orderIds.map((id) => `id ${id}`), ...[...r.invoiceNumbers, ...r.orderNumbers, ...r.bareNumbers].map((n) => `n ${n}`)];
    if (r.providerId) keys.push(`p ${r.providerId}`);
    const candidates = [...new Set(keys.flatMap((k) => index.get(k) ?? []))];
    const verdict = byReferences(record, r, candidates, owing);
    const decision: Decision = { record, orderId: null, rule: null, reason: null, orderNo: firstReference(r) };
    if (verdict && 'orderId' in verdict) {
      Object.assign(decision, verdict);
      owing.pay(
        candidates.find((o) => o.id === verdict.orderId)!,
        centsOf(record),
      );
    } else if (verdict?.final) decision.reason = verdict.reason;
    else open.push({ decision, reason: verdict?.reason ?? 'no_match' });
    return decision;
  });
  if (open.length)
    await byNameAndAmount(
      open,
      owing,
      await nameAmount.ordersFor(
        trx,
        scope,
        open.map((o) => o.decision.record),
      ),
    );
  return decisions;
}

/** The orders in scope the records' references name, open or not: one query for the batch. */
function referencedBy(trx: Knex.Transaction, scope: OrderScope, refs: Refs[]): Promise<MatchOrder[]> {
  const all = <K extends keyof PayerReferences>(key: K) => [...new Set(refs.flatMap((r) => r[key]))];
  return bankRepository.referencedOrders(trx, scope, {
    ids: all('orderIds'),
    numbers: [...new Set([...all('orderNumbers'), ...all('bareNumbers'), ...all('invoiceNumbers')])],
    providerIds: refs.flatMap((r) => (r.providerId ? [r.providerId] : [])),
  });
}

/**
 * name_amount for the records references did not decide, among their candidates. Money the
 * seller may have booked by hand on an order the payer named by a bare number (the weak verdict
 * `booked_by_hand`, bookedByHand), or on another order of the payer's name whatever it owes now
 * (bookedByHandOnAnother: that money is this amount, or the seller had the record in view), pays
 * no other order: it stays unassigned as booked_by_hand. Before a969e8e only the orders owing the
 * amount were asked, and an order booked by hand in full owes nothing: of two orders of 20.00 of
 * Petra Part, her 20.00 booked by hand on one paid the other too (found by a reviewer). Each
 * payer's hand-booked orders are reduced once (PayerHandBookings) and each record asks that
 * once: asking every order for every record took seconds for a buyer of thousands of orders
 * booked by hand (found by a reviewer of a969e8e).
 */
function byNameAndAmount(open: { decision: Decision; reason: UnassignedReason }[], owing: Owing, candidates: MatchOrder[]): void {
  const index = indexBy(candidates, keyed(orderKey));
  const handBooked = new Map([...indexBy(candidates, keyed(handBookedKey))].map(([key, orders]) => [key, new PayerHandBookings(orders)]));
  for (const { decision, reason } of open) {
    const { record } = decision;
    if (reason === 'booked_by_hand' || handBooked.get(payerNameKey(record) ?? '')?.holds({ ...timesOf(record), amount: record.amount })) {
      decision.reason = 'booked_by_hand';
      continue;
    }
    const hit = index.get(payerKey(record) ?? '') ?? [];
    // Exactly the amount still owed (an earlier record of the batch may have paid it already).
    const fitting = hit.filter((o) => misfit(record, o, owing, true) === null);
    if (fitting.length === 1) {
      Object.assign(decision, { orderId: fitting[0]!.id, rule: 'name_amount' });
      owing.pay(fitting[0]!, centsOf(record));
    } else decision.reason = fitting.length > 1 ? 'ambiguous' : hit.some((o) => byHand(record, o)) ? 'booked_by_hand' : reason;
  }
}

/**
 * The orders in scope whose hand booking may be the record's money, as the matching holds it
 * booked_by_hand for them: those its references name, in its currency (bookedByHand), and of its
 * payer's by name whatever they owe, each that name and amount would pay (owing the amount:
 * bookedByHand) or another (bookedByHandOnAnother). Read again when the bank reverses the record
 * (bank-reversal.service.ts tells the seller which order's paid_amount to lower).
 */
export async function handBookedOrdersOf(trx: Knex.Transaction, scope: OrderScope, record: MatchRecord): Promise<MatchOrder[]> {
  const named = (await referencedBy(trx, scope, [refsOf(record)])).filter((o) => o.currency_id === record.currency_id && byHand(record, o));
  const name = payerNameKey(record);
  const payers = (await candidatesPerCall.ordersFor(trx, scope, [record])).filter(
    (o) =>
      name !== null &&
      handBookedKey(o) === name &&
      (bookedByHandOnAnother(o, { ...timesOf(record), amount: record.amount }) || (orderKey(o) === payerKey(record) && byHand(record, o))),
  );
  const orders = new Map([...named, ...payers].map((o) => [o.id, o]));
  return [...orders.values()];
}

/** An order's one key (none: null) as indexBy takes it. */
const keyed =
  (key: (o: MatchOrder) => string | null) =>
  (o: MatchOrder): string[] => {
    const k = key(o);
    return k ? [k] : [];
  };

function indexBy<T>(items: T[], keys: (item: T) => string[]): Map<string, T[]> {
  const map = new Map<string, T[]>();
  // Pushed, not copied: a copy per item cost a key's items squared (5,000 orders of one buyer).
  for (const item of items)
    for (const key of keys(item)) {
      const list = map.get(key);
      if (list) list.push(item);
      else map.set(key, [item]);
    }
  return map;
}

const describe = (r: MatchRecord) =>
  r.type === 'payment_provider'
    ? `payment ${r.amount} received: payment provider ${r.entry_ref ?? ''} (bank id ${r.id})`
    : `payment ${r.amount} received: bank transfer ${r.id}${r.sender ? ` from ${r.sender}` : ''}`;

/** The orders domain's verdict under its row locks, in the bank's reasons: an order deleted since the decision is no match. */
function reasonOf(misfit: PaymentMisfit | undefined): UnassignedReason {
  return misfit === undefined || misfit === 'order_missing' ? 'no_match' : misfit;
}

/**
 * Assigns the records to the orders decided and pays those orders (orders domain), in the
 * caller's transaction, and stores each record's rule or reason. Only orders in the scope are
 * candidates (a client bound to a portal account pays only its orders). The orders domain checks
 * the fit again under its row locks: a payment that no longer fits (the order was paid or
 * cancelled meanwhile) leaves its record unassigned. Answers the outcome of every record.
 */
export async function assignIn(
  trx: Knex.Transaction,
  scope: OrderScope,
  records: MatchRecord[],
  nameAmount: NameAmountCandidates = candidatesPerCall,
): Promise<Assigned[]> {
  const decided = await decide(trx, scope, records, nameAmount);
  const paying = decided.filter((d) => d.orderId !== null);
  const misfits = await payOrdersIn(
    trx,
    scope,
    paying.map((d) => ({
      key: d.record.number,
      orderId: d.orderId!,
      amount: d.record.amount,
      currency: d.record.currency_id,
      history: describe(d.record),
      ...timesOf(d.record),
    })),
  );
  const rows = decided.map((d): Assigned => {
    const misfit = d.orderId === null ? undefined : misfits.get(d.record.number);
    const isPaid = d.orderId !== null && misfit === undefined;
    return {
      number: d.record.number,
      order_id: isPaid ? d.orderId : null,
      order_no: isPaid ? null : d.orderNo,
      match_rule: isPaid ? d.rule : null,
      unassigned_reason: isPaid ? null : (d.reason ?? reasonOf(misfit)),
    };
  });
  await bankRepository.setAssignments(trx, scope.accountId, rows);
  return rows;
}
