/** Pending payments of a provider account (table payment_provider_pending); scoped by account. */
import type { Knex } from 'knex';
import { db } from '../../db';
import type { PendingPayment } from './provider-payment';

interface PendingRow {
  transaction_id: string;
  transaction_date: Date;
  amount: string;
  currency_id: string;
  sender: string;
}

/** A row of payment_provider_pending as stored: PendingRow, whose it is, and when it was first seen and last asked for. */
interface PendingTableRow extends PendingRow {
  account_id: number;
  payment_provider_account_id: number;
  first_seen_at: Date;
  checked_at: Date;
}

// The row type of payment_provider_pending for Knex (declared once here, lib/bank owns the table):
// the sender and the two times have defaults and may be left out of an insert.
type PendingDefaults = 'sender' | 'first_seen_at' | 'checked_at';
type PendingInsert = Omit<PendingTableRow, PendingDefaults> & Partial<Pick<PendingTableRow, PendingDefaults>>;
declare module 'knex/types/tables' {
  interface Tables {
    payment_provider_pending: Knex.CompositeTableType<PendingTableRow, PendingInsert, Partial<PendingInsert>>;
  }
}

const toPending = (r: PendingRow): PendingPayment => ({
  transactionId: r.transaction_id,
  transactionDate: r.transaction_date,
  amount: r.amount,
  currency: r.currency_id,
  sender: r.sender,
});

export const providerPendingRepository = {
  /** Every pending payment of the provider account, least recently checked first. */
  async all(accountId: number, providerAccountId: number): Promise<PendingPayment[]> {
    const rows = await db()('payment_provider_pending')
      .where({ account_id: accountId, payment_provider_account_id: providerAccountId })
      .orderBy([{ column: 'checked_at' }, { column: 'transaction_id' }])
      .select('transaction_id', 'transaction_date', 'amount', 'currency_id', 'sender');
    return rows.map(toPending);
  },

  /** Remembers pending payments; one already remembered keeps its first-seen time. */
  async remember(trx: Knex.Transaction, accountId: number, providerAccountId: number, payments: PendingPayment[]): Promise<void> {
    if (!payments.length) return;
    await trx('payment_provider_pending')
      .insert(
        payments.map((p) => ({
          account_id: accountId,
          payment_provider_account_id: providerAccountId,
          transaction_id: p.transactionId,
          transaction_date: p.transactionDate,
          amount: p.amount,
          currency_id: p.currency,
          sender: p.sender,
        })),
      )
      .onConflict(['payment_provider_account_id', 'transaction_id'])
      .ignore();
  },

  async forget(trx: Knex.Transaction, accountId: number, providerAccountId: number, transactionIds: string[]): Promise<void> {
    if (!transactionIds.length) return;
    await trx('payment_provider_pending')
      .where({ account_id: accountId, payment_provider_account_id: providerAccountId })
      .whereIn('transaction_id', transactionIds)
      .delete();
  },

  async checked(trx: Knex.Transaction, accountId: number, providerAccountId: number, transactionIds: string[], at: Date): Promise<void> {
    if (!transactionIds.length) return;
    await trx('payment_provider_pending')
      .where({ account_id: accountId, payment_provider_account_id: providerAccountId })
      .whereIn('transaction_id', transactionIds)
      .update({ checked_at: at });
  },
};
