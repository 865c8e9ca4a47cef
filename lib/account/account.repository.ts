import type { Knex } from 'knex';
import { db } from '../db';

export interface AccountRow {
  id: number;
  login: string;
  password_hash: string;
  email: string | null;
  address: Record<string, string> | null;
  settings: Record<string, unknown>;
  /** The writer of each settings key (settings-owner.ts): an oauth_client id or "seller"; none for keys stored before. */
  settings_owner: Record<string, number | 'seller'>;
  is_banking_active: boolean;
  /** Whether quantity_available also subtracts the auction_a listed quantity (document 2); support may switch it off. */
  is_auction_a_quantity_subtracted: boolean;
  created_at: Date;
}

// The row type of account for Knex (declared once here, lib/account owns the table). Its JSON
// columns are written as JSON text, as this repository writes them; a new account needs only its
// login and password hash (the rest has defaults).
type AccountJson = 'address' | 'settings' | 'settings_owner';
type AccountWrite = Partial<Omit<AccountRow, 'id' | AccountJson>> & { address?: string | null; settings?: string; settings_owner?: string };
declare module 'knex/types/tables' {
  interface Tables {
    account: Knex.CompositeTableType<AccountRow, AccountWrite & Pick<AccountRow, 'login' | 'password_hash'>, AccountWrite>;
  }
}

/** The seller accounts (document 1: users). An account is its own tenant. */
export const accountRepository = {
  async insert(trx: Knex.Transaction, login: string, passwordHash: string): Promise<number> {
    const [row] = await trx('account').insert({ login, password_hash: passwordHash }).returning('id');
    return row!.id;
  },

  async findByLogin(login: string): Promise<AccountRow | undefined> {
    return db()('account').whereRaw('lower(login) = lower(?)', [login]).first();
  },

  /**
   * The account each login names (as findByLogin: logins are compared by PostgreSQL's lower(), the
   * unique index's), with the login as lower() folds it, in the order given; one statement. The
   * login throttle counts by that fold (lib/auth login-throttle.ts), so every spelling this lookup
   * takes for an account is one count by construction: JavaScript's toLowerCase folds otherwise
   * ('İ', U+0130, is 'i̇' to it, 'i' to lower()), and al\u0130ce was a fresh count for alice.
   */
  async findByLogins(logins: readonly string[]): Promise<{ folded: string; account: AccountRow | undefined }[]> {
    type Row = Omit<AccountRow, 'id'> & { id: number | null; login_folded: string; login_at: string };
    const { rows } = await db().raw<{ rows: Row[] }>(
      `SELECT lower(l.login) AS login_folded, l.at AS login_at, a.*
         FROM unnest(?::text[]) WITH ORDINALITY AS l(login, at)
         LEFT JOIN account a ON lower(a.login) = lower(l.login)
        ORDER BY l.at`,
      [[...logins]],
    );
    return rows.map(({ login_folded: folded, login_at: _at, id, ...row }) => ({ folded, account: id === null ? undefined : { ...row, id } }));
  },

  /** A new password hash (or the disabled mark), in the caller's transaction with the revocation of the login's tokens. */
  async setPasswordHash(trx: Knex.Transaction, accountId: number, passwordHash: string): Promise<void> {
    await trx('account').where({ id: accountId }).update({ password_hash: passwordHash });
  },

  /**
   * The login's password hash, its row share-locked until the caller's transaction ends: a token
   * or code written in that transaction is either seen by a later disable or password change
   * (they wait for the lock, then revoke it) or refused here (this read waits for theirs).
   */
  async lockPasswordHash(trx: Knex, accountId: number): Promise<string | undefined> {
    const row = await trx('account').where({ id: accountId }).forShare().first('password_hash');
    return row?.password_hash;
  },

  async get(accountId: number): Promise<AccountRow | undefined> {
    return db()('account').where({ id: accountId }).first();
  },

  async setAddress(accountId: number, address: Record<string, string>): Promise<void> {
    await db()('account')
      .where({ id: accountId })
      .update({ address: JSON.stringify(address) });
  },

  /** The account's settings and their writers, the row locked until the caller's transaction ends (a write of settings reads them so). */
  async lockSettings(trx: Knex.Transaction, accountId: number): Promise<Pick<AccountRow, 'settings' | 'settings_owner'> | undefined> {
    return trx('account').where({ id: accountId }).forUpdate().first('settings', 'settings_owner');
  },

  async updateSettings(trx: Knex.Transaction, accountId: number, settings: Record<string, unknown>, owners: AccountRow['settings_owner']): Promise<void> {
    await trx('account')
      .where({ id: accountId })
      .update({ settings: JSON.stringify(settings), settings_owner: JSON.stringify(owners) });
  },
};
