/** Payment provider accounts of a seller (table payment_provider_account); scoped by account. */
import type { Knex } from 'knex';
import { db } from '../../db';
import { sealCredentials, whereNeedsResealing } from '../../secret';

export interface ProviderAccountRow {
  id: number;
  account_id: number;
  name: string;
  provider: string;
  base_url: string;
  /** client_id and client_secret, sealed (lib/secret): opened only by the sync, never answered or logged. */
  credentials: string | null;
  synced_until: Date | null;
  last_error: string | null;
  /** When the seller connected it: a permission refused within PayPal's grant delay of it is waited for. */
  created_at: Date;
}

// The row type of payment_provider_account for Knex (declared once here, lib/bank owns the table):
// an account is inserted without its id, and what has a default (provider, credentials, created_at) may be left out.
type ProviderAccountInsert = Pick<ProviderAccountRow, 'account_id' | 'name' | 'base_url'> & Partial<Omit<ProviderAccountRow, 'id'>>;
declare module 'knex/types/tables' {
  interface Tables {
    payment_provider_account: Knex.CompositeTableType<ProviderAccountRow, ProviderAccountInsert, Partial<ProviderAccountInsert>>;
  }
}

export const providerAccountRepository = {
  /** Inserts the account, then seals its credentials bound to the new row's id (lib/secret: a copy in another row does not open). */
  async insert(accountId: number, row: { name: string; provider: string; base_url: string; credentials: Record<string, string> }): Promise<number> {
    return db().transaction(async (trx) => {
      const [created] = await trx('payment_provider_account')
        .insert({ name: row.name, provider: row.provider, base_url: row.base_url, account_id: accountId })
        .returning('id');
      const id = created!.id;
      await trx('payment_provider_account')
        .where({ account_id: accountId, id })
        .update({ credentials: sealCredentials('payment_provider_account', row.credentials, id) });
      return id;
    });
  },

  async get(accountId: number, id: number): Promise<ProviderAccountRow | undefined> {
    return db()('payment_provider_account').where({ account_id: accountId, id }).first();
  },

  /** Every connected account (the scheduler queues one sync each). */
  async all(): Promise<{ id: number; account_id: number }[]> {
    return db()('payment_provider_account').select('id', 'account_id').orderBy('id');
  },

  /** A sync that ended: payments up to `until` are fetched; `note` (else none) is what the seller should know of it. */
  async setSynced(trx: Knex.Transaction, accountId: number, id: number, until: Date, note: string | null = null): Promise<void> {
    await trx('payment_provider_account').where({ account_id: accountId, id }).update({ synced_until: until, last_error: note });
  },

  async setError(accountId: number, id: number, message: string): Promise<void> {
    await db()('payment_provider_account').where({ account_id: accountId, id }).update({ last_error: message });
  },
};

/**
 * The payment provider accounts' side of `kontor credentials reseal` (lib/admin/credentials-reseal.ts,
 * run by bin/credentials-reseal.ts): an operator's command over every seller, so these two are not
 * scoped by account. Their values are bound to their row (kc2, lib/secret).
 */
export const providerAccountCredentialsRepository = {
  /** The rows whose credentials need sealing again (lib/secret's whereNeedsResealing). */
  async toReseal(keyId: string): Promise<{ id: number; credentials: string }[]> {
    const rows = await whereNeedsResealing(db()('payment_provider_account').select('id', 'credentials'), keyId);
    return rows.flatMap((row) => (row.credentials === null ? [] : [{ id: row.id, credentials: row.credentials }]));
  },

  /** Replaces a row's sealed credentials only if they are still those read (nobody connected the account again meanwhile); 1 if replaced, else 0. */
  async replaceSealed(id: number, read: string, sealed: string | null): Promise<number> {
    return db()('payment_provider_account').where({ id, credentials: read }).update({ credentials: sealed });
  },
};
