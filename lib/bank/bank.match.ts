/**
 * Which open order a bank record pays, and the assignment itself, for a batch of records at a
 * time (POST bank/transfer/ is a batch of one; an import's bank.match job and the re-match walk
 * batches of thousands with two order queries each). A record is assigned when exactly one order
 * fits at the first level that finds any, in this order:
 *   1. its payment_provider_transaction_id (a provider payment's own id),
 *   2. an order id (<number>_<YYYY>_<MM>) in the subject,
 *   3. an order number in the subject, 4. an invoice number in the subject,
 *   5. the amount owed together with the sender's name against the customer's billing name.
 * Several fitting orders, or none: the record stays unassigned with order_no as its reference.
 */
import type { Knex } from 'knex';
import type { OrderScope } from '../access/caller';
import { payOrdersIn } from '../order/order-payment.service';
import { bankRepository, MatchOrder, MatchRecord } from './bank.repository';

/** Order references in a subject, in the order they appear: full order ids, and bare numbers. */
export function subjectReferences(subject: string): { ids: string[]; numbers: string[] } {
  const ids = [...subject.matchAll(/(?<![\d_])([1-9]\d{0,14})_(\d{4})_(\d{2})(?![\d_])/g)].map((m) => m[0]);
  // A number inside a decimal or a date (12.50, 21.11.2026) is not a reference; one ending a sentence is.
  const numbers = [...subject.matchAll(/(?<![\d_]|\d[.,])([1-9]\d{0,14})(?![\d_]|[.,]\d)/g)].map((m) => m[1]!);
  return { ids, numbers };
}

/** A name compared by its words: case, umlaut spellings (ü/ue), accents and word order do not matter. */
export function nameKey(name: string): string {
  const spelled = name.toLowerCase().replace(/ä/g, 'ae').replace(/ö/g, 'oe').replace(/ü/g, 'ue').replace(/ß/g, 'ss');
  return spelled
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .sort()
    .join(' ');
}

interface Refs {
  ids: string[];
  numbers: string[];
  providerId: string | null;
}

const refsOf = (r: MatchRecord): Refs => ({ ...subjectReferences(r.subject), providerId: r.type === 'payment_provider' ? r.entry_ref : null });

/** The fitting orders of one record, level by level; the first level with any fit decides. */
function fits(refs: Refs, orders: MatchOrder[]): MatchOrder[] {
  const levels: ((o: MatchOrder) => boolean)[] = [
    (o) => refs.providerId !== null && o.payment_provider_transaction_id === refs.providerId,
    (o) => refs.ids.includes(o.id),
    (o) => refs.numbers.includes(o.number),
    (o) => o.invoice_number !== null && refs.numbers.includes(o.invoice_number),
  ];
  for (const level of levels) {
    const hit = orders.filter(level);
    if (hit.length) return hit;
  }
  return [];
}

export interface Assignment {
  record: MatchRecord;
  orderId: string | null;
  orderNo: string | null;
}

/** Decides the order of each record (no writes): two queries for the whole batch. */
export async function decide(trx: Knex.Transaction, scope: OrderScope, records: MatchRecord[]): Promise<Assignment[]> {
  const refs = records.map(refsOf);
  const named = await bankRepository.referencedOrders(trx, scope, {
    ids: [...new Set(refs.flatMap((r) => r.ids))],
    numbers: [...new Set(refs.flatMap((r) => r.numbers))],
    providerIds: refs.flatMap((r) => (r.providerId ? [r.providerId] : [])),
  });
  const index = indexBy(named, (o) => [
    o.id,
    `n${o.number}`,
    ...(o.invoice_number ? [`i${o.invoice_number}`] : []),
    ...(o.payment_provider_transaction_id ? [`p${o.payment_provider_transaction_id}`] : []),
  ]);
  const unfit: Assignment[] = [];
  const result: Assignment[] = records.map((record, i) => {
    const r = refs[i]!;
    const candidates = [
      ...new Set([...r.ids, ...r.numbers.flatMap((n) => [`n${n}`, `i${n}`]), ...(r.providerId ? [`p${r.providerId}`] : [])].flatMap((k) => index.get(k) ?? [])),
    ];
    const hit = fits(r, candidates);
    const assignment = { record, orderId: hit.length === 1 ? hit[0]!.id : null, orderNo: r.ids[0] ?? r.numbers[0] ?? null };
    if (!hit.length && record.sender !== '') unfit.push(assignment);
    return assignment;
  });
  await byAmountAndName(trx, scope, unfit);
  return result;
}

/** Level 5 for the records no reference fits: one query for their amounts. */
async function byAmountAndName(trx: Knex.Transaction, scope: OrderScope, unreferenced: Assignment[]): Promise<void> {
  if (!unreferenced.length) return;
  const owing = await bankRepository.ordersOwing(trx, scope, [...new Set(unreferenced.map((a) => a.record.amount))]);
  const index = indexBy(
    owing.filter((o) => o.name),
    (o) => [`${Number(o.owing).toFixed(2)}|${nameKey(o.name!)}`],
  );
  const taken = new Set<string>();
  for (const a of unreferenced) {
    const hit = index.get(`${Number(a.record.amount).toFixed(2)}|${nameKey(a.record.sender)}`) ?? [];
    // An order owing this amount is paid by one record of the batch only.
    if (hit.length === 1 && !taken.has(hit[0]!.id)) {
      a.orderId = hit[0]!.id;
      taken.add(hit[0]!.id);
    }
  }
}

function indexBy<T>(items: T[], keys: (item: T) => string[]): Map<string, T[]> {
  const map = new Map<string, T[]>();
  for (const item of items) for (const key of keys(item)) map.set(key, [...(map.get(key) ?? []), item]);
  return map;
}

const describe = (r: MatchRecord) =>
  r.type === 'payment_provider'
    ? `payment ${r.amount} received: payment provider ${r.entry_ref ?? ''} (bank id ${r.id})`
    : `payment ${r.amount} received: bank transfer ${r.id}${r.sender ? ` from ${r.sender}` : ''}`;

/**
 * Assigns the records to the orders decided and pays those orders (orders domain), in the
 * caller's transaction; records left unassigned keep their reference in order_no. Only orders in
 * the scope are candidates (a client bound to a portal account pays only its orders). Answers the
 * numbers of the records assigned.
 */
export async function assignIn(trx: Knex.Transaction, scope: OrderScope, records: MatchRecord[]): Promise<Set<string>> {
  const { accountId } = scope;
  const decided = await decide(trx, scope, records);
  const paying = decided.filter((a) => a.orderId !== null);
  const paid = await payOrdersIn(
    trx,
    scope,
    paying.map((a) => ({ orderId: a.orderId!, amount: a.record.amount, history: describe(a.record) })),
  );
  const rows = decided.map((a) => {
    const orderId = a.orderId !== null && paid.has(a.orderId) ? a.orderId : null;
    return { number: a.record.number, order_id: orderId, order_no: orderId ? null : a.orderNo };
  });
  await bankRepository.setAssignments(trx, accountId, rows);
  return new Set(rows.filter((r) => r.order_id !== null).map((r) => r.number));
}
