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
import { toCents } from '../order';
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
const keyOf = (amount: string, currency: string, name: string | null | undefined): string | null => {
  const key = name ? nameKey(name) : '';
  return key ? `${toCents(amount)}|${currency}|${key}` : null;
};
export const payerKey = (p: Payer): string | null => keyOf(p.amount, p.currency_id, p.sender);
export const orderKey = (o: MatchOrder): string | null => keyOf(o.owing, o.currency_id, o.name);

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
  /** Orders in scope that may be the payers of these records (the caller compares payerKey and orderKey). */
  ordersFor(trx: Knex.Transaction, scope: OrderScope, records: MatchRecord[]): Promise<MatchOrder[]>;
}

/** One read per call: a single transfer (POST bank/transfer/). */
export const candidatesPerCall: NameAmountCandidates = {
  ordersFor: (trx, scope, records) => bankRepository.ordersOwing(trx, scope, pairsOf(records)),
};

/**
 * For a matching job over a range of records: the first call reads the candidates of every
 * payer of the range still unassigned under the scope's grant, keyed by payerKey; each call
 * reads its records' candidates by id.
 */
export function candidatesPerJob(range: UnassignedRange): NameAmountCandidates {
  const known = new Map<string, Promise<Map<string, string[]>>>();
  const idsByKey = async (trx: Knex.Transaction, scope: OrderScope) => {
    const orders = await bankRepository.ordersOwing(trx, scope, pairsOf(await bankRepository.unassignedPayers(trx, scope, range)));
    const byKey = new Map<string, string[]>();
    for (const o of orders) {
      const key = orderKey(o);
      if (key) byKey.set(key, [...(byKey.get(key) ?? []), o.id]);
    }
    return byKey;
  };
  return {
    async ordersFor(trx, scope, records) {
      const grant = String(scope.portalAccountGrant ?? 'all');
      if (!known.has(grant)) known.set(grant, idsByKey(trx, scope));
      const byKey = await known.get(grant)!;
      const ids = new Set(records.flatMap((r) => byKey.get(payerKey(r) ?? '') ?? []));
      return bankRepository.ordersWithIds(trx, scope, [...ids]);
    },
  };
}
