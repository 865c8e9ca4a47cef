/**
 * Stores received payments (statement entries, payment-provider payments) as bank records in the
 * caller's transaction: each once (the bank's or provider's own reference, else document 1's
 * duplicate rule), numbered in one go under the account's bank counter lock, and one bank.match
 * job through the outbox for the records added.
 */
import type { Knex } from 'knex';
import { addToOutbox } from '../queue';
import { bankRepository, duplicateKey } from './bank.repository';
import { bankIdOf, BankKind } from './bank.type';
import type { StatementEntry } from './statement/statement.type';

export interface Stored {
  stored: number;
  duplicates: number;
  jobId: string | null;
}

/**
 * Entries not stored yet, each once even within the batch. A statement entry is stored already
 * when its key is, or the key it had before keys named the booking instead of its position
 * (`legacyReference`, statement/entry-key.ts): a file imported before that change is still
 * recognised when imported again. Only the new key is stored, so a key of before matches only
 * records stored before the change (the two forms never equal: the new one starts with its
 * format's name). A key of before counts only when its record has the entry's payer or text:
 * it held the entry's position, which another payment of the same amount and day may take in a
 * later version of the statement (that payment was lost as a duplicate).
 */
async function newEntries(trx: Knex.Transaction, accountId: number, type: BankKind, entries: StatementEntry[]): Promise<StatementEntry[]> {
  const columns = (e: StatementEntry) => ({ transfer_date: e.transferDate, sender: e.sender, subject: e.subject, amount: e.amount });
  const refs = await bankRepository.storedReferences(
    trx,
    accountId,
    type,
    entries.flatMap((e) => (e.reference ? [e.reference] : [])),
  );
  const legacy = await bankRepository.storedByReference(
    trx,
    accountId,
    type,
    entries.flatMap((e) => (e.reference && e.legacyReference ? [e.legacyReference] : [])),
  );
  // A key of before names a position (with the amount and day): another payer's payment of that
  // amount at that place in a later version of the statement has it too. It is this entry only
  // when the record stored under it has the entry's payer or its text (see sameBooking).
  const storedBefore = (e: StatementEntry) => {
    const record = e.legacyReference ? legacy.get(e.legacyReference) : undefined;
    return !!record && sameBooking(record, e);
  };
  const dups = await bankRepository.storedDuplicates(trx, accountId, type, entries.filter((e) => !e.reference).map(columns));
  const stored = (e: StatementEntry) => (e.reference ? refs.has(e.reference) || storedBefore(e) : dups.has(duplicateKey(columns(e))));
  const seen = new Set<string>();
  return entries.filter((e) => {
    const key = e.reference ? `ref ${e.reference}` : `dup ${duplicateKey(columns(e))}`;
    if (seen.has(key) || stored(e)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * Whether a record stored under an entry's key of before is that entry: the same payer or the
 * same text, blanks and case aside, either one enough. Not both, and not as written: how Kontor
 * reads a payer and a text out of :86: or RmtInf changed between versions (line joining, labels
 * dropped), so a record stored by an older version may differ in one of them; two payments of
 * different payers with different texts are never one. With neither a payer nor a text on
 * either side there is nothing to tell them apart, and the key decides as before.
 */
function sameBooking(record: { sender: string; subject: string }, e: StatementEntry): boolean {
  const fold = (text: string) => text.replace(/\s+/g, '').toLowerCase();
  const [rs, rt, es, et] = [fold(record.sender), fold(record.subject), fold(e.sender), fold(e.subject)];
  if (!rs && !rt && !es && !et) return true;
  return (rs !== '' && rs === es) || (rt !== '' && rt === et);
}

/**
 * Stores the entries not stored yet. `grant` is the portal account of the caller's authorization
 * (null: all portal accounts): the matching job pays only orders it covers.
 */
export async function storeEntriesIn(
  trx: Knex.Transaction,
  accountId: number,
  type: BankKind,
  entries: StatementEntry[],
  status: string | null = null,
  grant: number | null = null,
): Promise<Stored> {
  const last = await bankRepository.lockCounter(trx, accountId);
  const fresh = await newEntries(trx, accountId, type, entries);
  const now = new Date();
  await bankRepository.insertMany(
    trx,
    accountId,
    fresh.map((e, i) => ({
      number: last + 1 + i,
      id: bankIdOf(last + 1 + i, now),
      type,
      entry_ref: e.reference,
      transfer_date: e.transferDate,
      sender: e.sender,
      subject: e.subject,
      amount: e.amount,
      order_no: null,
      status,
      currency_id: e.currency,
      payer_ref: e.payerReferences.join(' '),
      portal_account_grant: grant,
    })),
  );
  if (!fresh.length) return { stored: 0, duplicates: entries.length, jobId: null };
  await bankRepository.setCounter(trx, accountId, last + fresh.length);
  const jobId = await addToOutbox(trx, accountId, 'bank.match', { accountId, fromNumber: last + 1, toNumber: last + fresh.length, portalAccountGrant: grant });
  return { stored: fresh.length, duplicates: entries.length - fresh.length, jobId };
}
