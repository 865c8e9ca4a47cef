/**
 * POST bank/statement/ and `kontor bank import`: a statement file stored as transfers in one
 * transaction (all or nothing), each entry once, and one bank.match job (through the outbox) for
 * the records it added. Storing is synchronous so the answer can count what was stored; the
 * matching, which pays orders, is the job.
 */
import { grantOf, OrderScope } from '../../access';
import { inTransaction } from '../../db';
import { applyReversalsIn } from '../bank-reversal.service';
import { storeEntriesIn, takeKeysAsStoredIn } from '../bank-store.service';
import { parseStatement } from './statement.parse';

export interface StatementImported {
  format: string;
  statements: number;
  /** Booked credits in the file. */
  entries: number;
  stored: number;
  /** Entries stored by an earlier import (same bank reference, or the duplicate rule). */
  duplicates: number;
  debits: number;
  /** Returns and reversals of the holder's own payments: money back, not a customer's payment. */
  returns: number;
  unbooked: number;
  /** The bank.match job of the stored records; null when nothing new was stored. */
  jobId: string | null;
}

/** The records pay only orders the caller's grant covers (a client bound to a portal account: its orders). */
export async function importStatement(scope: OrderScope, bytes: Buffer): Promise<StatementImported> {
  const parsed = await parseStatement(bytes);
  // The credits first, then the reversals (bank-reversal.service.ts): a credit and its reversal
  // in one file meet. storeEntriesIn takes the bank counter lock, the first lock of both.
  const stored = await inTransaction(async (trx) => {
    await takeKeysAsStoredIn(trx, scope.accountId, [...parsed.entries, ...parsed.reversals]);
    const credits = await storeEntriesIn(trx, scope.accountId, 'bank', parsed.entries, null, grantOf(scope));
    // With the credits' amounts: a reversal kept from an earlier import may fit one of them.
    await applyReversalsIn(
      trx,
      scope,
      parsed.reversals,
      parsed.entries.map((e) => e.amount),
    );
    return credits;
  }, scope.requestId);
  return {
    format: parsed.format,
    statements: parsed.statements,
    entries: parsed.entries.length,
    stored: stored.stored,
    duplicates: stored.duplicates,
    debits: parsed.debits,
    returns: parsed.returns,
    unbooked: parsed.unbooked,
    jobId: stored.jobId,
  };
}
