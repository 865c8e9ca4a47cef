/**
 * name_amount's candidates: the orders a payer who named no order may be, because the sender's
 * name is the billing name and the amount is what the order still owes.
 *
 * Finding them reads every open order of the seller (the amount owed, invoice_amount -
 * paid_amount, is in no index: an index on it would make every payment a non-HOT update), so a
 * matching job reads them once for all its payers, at the first batch that needs them, and each
 * batch then reads its candidates afresh by id (what they owe now, after the job's earlier
 * batches and anyone else). An order that comes to owe a payer's amount only after that first
 * read is not found by this job; the periodic re-match (bank.rematch) finds it.
 */
import type { Knex } from 'knex';
import type { OrderScope } from '../access';
import { otherHandBookingsHolding, OtherHandBookingsHolding, toCents } from '../order';
import { bankRepository, MatchOrder, MatchRecord, UnassignedRange } from './bank.repository';
import { foldedWords, searchableWord } from './text-fold';

/**
 * A name compared by its words: case, umlaut spellings (ü/ue), accents and word order do not
 * matter; letters of every script count (text-fold.ts: a Cyrillic or Greek name is its words,
 * not nothing).
 */
export function nameKey(name: string): string {
  return foldedWords(name).split(' ').filter(Boolean).sort().join(' ');
}

type Payer = Pick<MatchRecord, 'amount' | 'currency_id' | 'sender'>;

/**
 * What a payer and an order must share: the amount (owed), the currency and the name. A name
 * without a letter or digit (`-`, `./.`, `?`) names nobody and has no key, found by a reviewer of
 * f8f6e9e: since the word '' reads every order owing an amount (a CJK payer's), a payer `./.`
 * paid an order of the billing name `-` that owed the amount, on the amount alone.
 */
const nameKeyOf = (currency: string, name: string | null | undefined): string | null => {
  const key = name ? nameKey(name) : '';
  return key ? `${currency}|${key}` : null;
};
const keyOf = (amount: string, currency: string, name: string | null | undefined): string | null => {
  const key = nameKeyOf(currency, name);
  return key ? `${toCents(amount)}|${key}` : null;
};
export const payerKey = (p: Payer): string | null => keyOf(p.amount, p.currency_id, p.sender);
export const orderKey = (o: MatchOrder): string | null => keyOf(o.owing, o.currency_id, o.name);
/**
 * What a payer and an order the seller booked by hand must share, whatever the order owes: the
 * currency and the name (the hand booking may be the payer's money, bank.match.ts).
 */
export const payerNameKey = (p: Payer): string | null => nameKeyOf(p.currency_id, p.sender);
export const handBookedKey = (o: MatchOrder): string | null => (o.paid_by_hand_at === null ? null : nameKeyOf(o.currency_id, o.name));

/** When the record was stored (none: by this very call) and when its bank booked it: what bookedByHand reads. */
export const timesOf = (record: Pick<MatchRecord, 'created_at' | 'transfer_date'>) => ({
  ...(record.created_at !== undefined ? { storedAt: new Date(record.created_at) } : {}),
  bookedAt: new Date(record.transfer_date),
});

/** The hand bookings on other orders that may hold one of the records (lib/order otherHandBookingsHolding). */
const handOf = (records: Pick<MatchRecord, 'amount' | 'created_at' | 'transfer_date'>[]): OtherHandBookingsHolding | null =>
  otherHandBookingsHolding(records.map((r) => ({ ...timesOf(r), amount: r.amount })));

/**
 * The query's (amount, word) pairs, each once: the longest word of the name that PostgreSQL folds
 * as nameKey does (text-fold.ts searchableWord) narrows the join; a name without one (CJK, Hindi,
 * Hebrew) gives the word '' and reads the orders owing its amount, whose names the caller
 * compares whole (payerKey, orderKey).
 */
function pairsOf(payers: Payer[]): { amount: string; word: string }[] {
  const pairs = new Map<string, { amount: string; word: string }>();
  for (const p of payers) {
    const key = nameKey(p.sender ?? '');
    if (!key) continue;
    const longest = key
      .split(' ')
      .filter(searchableWord)
      .reduce((a, b) => (b.length > a.length ? b : a), '');
    pairs.set(`${toCents(p.amount)} ${longest}`, { amount: p.amount, word: longest });
  }
  return [...pairs.values()];
}

export interface NameAmountCandidates {
  /**
   * Orders in scope that may be the payers of these records (the caller compares payerKey and
   * orderKey), and those the seller booked by hand whose hand booking may hold one of them
   * (payerNameKey and handBookedKey; the caller asks bookedByHandOnAnother).
   */
  ordersFor(trx: Knex.Transaction, scope: OrderScope, records: MatchRecord[]): Promise<MatchOrder[]>;
}

/** One read per call: a single transfer (POST bank/transfer/). */
export const candidatesPerCall: NameAmountCandidates = {
  ordersFor: (trx, scope, records) => bankRepository.ordersOwing(trx, scope, pairsOf(records), handOf(records)),
};

/**
 * For a matching job over a range of records: the first call reads the candidates of every
 * payer of the range still unassigned under the scope's grant, keyed by payerKey (and the
 * hand-booked orders by payerNameKey); each call reads its records' candidates by id.
 */
export function candidatesPerJob(range: UnassignedRange): NameAmountCandidates {
  type Keyed = { owing: Map<string, string[]>; handBooked: Map<string, string[]> };
  const known = new Map<string, Promise<Keyed>>();
  const idsByKey = async (trx: Knex.Transaction, scope: OrderScope): Promise<Keyed> => {
    const payers = await bankRepository.unassignedPayers(trx, scope, range);
    const orders = await bankRepository.ordersOwing(trx, scope, pairsOf(payers), handOf(payers));
    const keyed: Keyed = { owing: new Map(), handBooked: new Map() };
    // Pushed, not copied: a copy per order cost a payer's orders squared (5,000 orders of one buyer booked by hand).
    const add = (map: Map<string, string[]>, key: string | null, id: string) => {
      if (!key) return;
      const ids = map.get(key);
      if (ids) ids.push(id);
      else map.set(key, [id]);
    };
    for (const o of orders) {
      add(keyed.owing, orderKey(o), o.id);
      add(keyed.handBooked, handBookedKey(o), o.id);
    }
    return keyed;
  };
  return {
    async ordersFor(trx, scope, records) {
      const grant = String(scope.portalAccountGrant ?? 'all');
      if (!known.has(grant)) known.set(grant, idsByKey(trx, scope));
      const { owing, handBooked } = await known.get(grant)!;
      // Each payer's orders once: per record, a buyer of 5,000 orders booked by hand gave as many ids per record of theirs.
      const lists = new Set(records.flatMap((r) => [owing.get(payerKey(r) ?? ''), handBooked.get(payerNameKey(r) ?? '')]));
      const ids = new Set<string>();
      for (const list of lists) for (const id of list ?? []) ids.add(id);
      return bankRepository.ordersWithIds(trx, scope, [...ids]);
    },
  };
}
