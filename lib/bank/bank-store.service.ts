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
 * format's name).
 */
async function newEntries(trx: Knex.Transaction, accountId: number, type: BankKind, entries: StatementEntry[]): Promise<StatementEntry[]> {
  const columns = (e: StatementEntry) => ({ transfer_date: e.transferDate, sender: e.sender, subject: e.subject, amount: e.amount });
  const refs = await bankRepository.storedReferences(
    trx,
    accountId,
    type,
    entries.flatMap((e) => (e.reference ? [e.reference, ...(e.legacyReference ? [e.legacyReference] : [])] : [])),
  );
  const dups = await bankRepository.storedDuplicates(trx, accountId, type, entries.filter((e) => !e.reference).map(columns));
  const stored = (e: StatementEntry) =>
    e.reference ? refs.has(e.reference) || (!!e.legacyReference && refs.has(e.legacyReference)) : dups.has(duplicateKey(columns(e)));
  const seen = new Set<string>();
  return entries.filter((e) => {
    const key = e.reference ? `ref ${e.reference}` : `dup ${duplicateKey(columns(e))}`;
    if (seen.has(key) || stored(e)) return false;
    seen.add(key);
    return true;
  });
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
  const jobId = await addToOutbox(trx, accountId, 'bank.match', { accountId, fromNumber: last + 1, toNumber: last + fresh.length });
  return { stored: fresh.length, duplicates: entries.length - fresh.length, jobId };
}
