import type { Knex } from 'knex';
import { db } from '../db/knex';

export interface PortalAccountRow {
  id: number;
  account_id: number;
  name: string;
  platform: string | null;
  is_default: boolean;
  base_url: string | null;
  credentials: Record<string, unknown>;
}

/** Portal accounts of a seller account; every query is scoped by the account id. */
export const portalAccountRepository = {
  async insert(trx: Knex.Transaction, accountId: number, fields: { name: string; platform?: string | null; is_default?: boolean }): Promise<number> {
    const [row] = await trx('portal_account')
      .insert({ account_id: accountId, ...fields })
      .returning('id');
    return (row as { id: number }).id;
  },

  async list(accountId: number): Promise<PortalAccountRow[]> {
    return db()('portal_account').where({ account_id: accountId }).orderBy('id');
  },

  async get(accountId: number, id: number): Promise<PortalAccountRow | undefined> {
    return db()('portal_account').where({ account_id: accountId, id }).first();
  },

  /** Which of the ids are portal accounts of the account. */
  async ownIds(accountId: number, ids: number[]): Promise<Set<number>> {
    const rows = (await db()('portal_account').where({ account_id: accountId }).whereIn('id', ids).select('id')) as { id: number }[];
    return new Set(rows.map((r) => r.id));
  },

  async getDefault(accountId: number): Promise<PortalAccountRow | undefined> {
    return db()('portal_account').where({ account_id: accountId, is_default: true }).first();
  },
};
