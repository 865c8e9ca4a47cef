/**
 * POST bank/statement/ and `kontor bank import`: a statement file stored as transfers in one
 * transaction (all or nothing), each entry once, and one bank.match job (through the outbox) for
 * the records it added. Storing is synchronous so the answer can count what was stored; the
 * matching, which pays orders, is the job.
 */
import type { Knex } from 'knex';
import { inTransaction } from '../../db/transaction';
import { addToOutbox } from '../../queue/outbox';
import { bankRepository, duplicateKey } from '../bank.repository';
import { bankIdOf } from '../bank.type';
import { parseStatement } from './statement.parse';
import type { StatementEntry } from './statement.type';

export interface StatementImported {
  format: string;
  statements: number;
  /** Booked credits in the file. */
  entries: number;
  stored: number;
  /** Entries stored by an earlier import (same bank reference, or the duplicate rule). */
  duplicates: number;
  debits: number;
  unbooked: number;
  /** The bank.match job of the stored records; null when nothing new was stored. */
  jobId: string | null;
}

/** Entries not stored yet (by reference, else by the duplicate rule), each once even within the file. */
async function newEntries(trx: Knex.Transaction, accountId: number, entries: StatementEntry[]): Promise<StatementEntry[]> {
  const columns = (e: StatementEntry) => ({ transfer_date: e.transferDate, sender: e.sender, subject: e.subject, amount: e.amount });
  const refs = await bankRepository.storedReferences(trx, accountId, 'bank', entries.flatMap((e) => (e.reference ? [e.reference] : [])));
  const dups = await bankRepository.storedDuplicates(trx, accountId, 'bank', entries.filter((e) => !e.reference).map(columns));
  const seen = new Set<string>();
  return entries.filter((e) => {
    const key = e.reference ? `ref ${e.reference}` : `dup ${duplicateKey(columns(e))}`;
    if (seen.has(key) || (e.reference ? refs.has(e.reference) : dups.has(duplicateKey(columns(e))))) return false;
    seen.add(key);
    return true;
  });
}

export async function importStatement(accountId: number, bytes: Buffer): Promise<StatementImported> {
  const parsed = await parseStatement(bytes);
  return inTransaction(async (trx) => {
    const last = await bankRepository.lockCounter(trx, accountId);
    const fresh = await newEntries(trx, accountId, parsed.entries);
    const now = new Date();
    await bankRepository.insertMany(trx, accountId, fresh.map((e, i) => ({
      number: last + 1 + i, id: bankIdOf(last + 1 + i, now), type: 'bank' as const, entry_ref: e.reference,
      transfer_date: e.transferDate, sender: e.sender, subject: e.subject, amount: e.amount, order_no: null, status: null,
    })));
    let jobId: string | null = null;
    if (fresh.length) {
      await bankRepository.setCounter(trx, accountId, last + fresh.length);
      jobId = await addToOutbox(trx, accountId, 'bank.match', { accountId, fromNumber: last + 1, toNumber: last + fresh.length });
    }
    return {
      format: parsed.format, statements: parsed.statements, entries: parsed.entries.length, stored: fresh.length,
      duplicates: parsed.entries.length - fresh.length, debits: parsed.debits, unbooked: parsed.unbooked, jobId,
    };
  });
}
