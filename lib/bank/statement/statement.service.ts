/**
 * POST bank/statement/ and `kontor bank import`: a statement file stored as transfers in one
 * transaction (all or nothing), each entry once, and one bank.match job (through the outbox) for
 * the records it added. Storing is synchronous so the answer can count what was stored; the
 * matching, which pays orders, is the job.
 */
import type { Knex } from 'knex';
import { grantOf, OrderScope } from '../../access';
import { inTransaction } from '../../db';
import { insertTaskOnce } from '../../task';
import { applyReversalsIn } from '../bank-reversal.service';
import { storeEntriesIn, takeKeysAsStoredIn } from '../bank-store.service';
import { parseStatement } from './statement.parse';
import type { UnreadPayments } from './statement.type';

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

/**
 * A task for each batch entry with payments not read (ParsedStatement.unread: their booked amount
 * is not in the file), once per entry, high priority, of the importing client's portal account as
 * the import's other tasks (bank-reversal.service.ts). Decision (lib/bank README, CAMT
 * "Payments"): such a payment is left to the seller rather than the whole file refused (every
 * other credit of the day lost with it) or an amount guessed from another currency's.
 */
async function tellUnreadIn(trx: Knex.Transaction, scope: OrderScope, unread: UnreadPayments[]): Promise<void> {
  for (const batch of unread) {
    const count = `${batch.payments.length} payment${batch.payments.length === 1 ? '' : 's'}`;
    const payments = batch.payments.map((p) => `${p.payer || 'no payer named'} (${p.instructed} instructed), ${p.why}`).join('; ');
    const total = batch.amount ? `${batch.amount} ${batch.currency}` : batch.currency;
    const one = batch.payments.length === 1;
    const what = batch.reversal
      ? `Nothing was taken back for ${one ? 'it: if it reverses' : 'them: if one of them reverses'} a transfer that paid an order, lower that order's paid_amount by hand.`
      : `No transfer was stored for ${one ? 'it: book it' : 'them: book each'} by hand (POST bank/transfer/) with the amount the bank booked, as the bank statement or online banking shows it.`;
    await insertTaskOnce(
      trx,
      scope.accountId,
      {
        title: `Bank batch ${batch.reversal ? 'reversal' : 'credit'} of ${total}: ${count} not read`,
        text:
          `The statement's batch ${batch.reversal ? 'reversal of credits' : 'credit'} of ${total} booked on ${batch.day} (${batch.path}) holds ${count} ` +
          `whose booked amount the file does not give (no TxDtls/Amt or AmtDtls/TxAmt, only an instructed amount AmtDtls/InstdAmt, which is before the deduction of charges and may be in another currency): ${payments}. ${what}`,
        priority: 'high',
        reference: { section: 'bank' },
        portalAccountId: grantOf(scope),
      },
      `bank.unread:${scope.accountId}:${batch.key}`,
    );
  }
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
    await tellUnreadIn(trx, scope, parsed.unread ?? []);
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
