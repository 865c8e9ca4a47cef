import type { Knex } from 'knex';
import { db } from '../db';

export interface ShippingGroupRow {
  id: number;
  account_id: number;
  portal_account_id: number | null;
  name: string;
  type_id: number;
  ships_to: Record<string, boolean | string>;
  price_first: string;
  price_more: string;
  cash_surcharge: string;
  currency: string;
}

const columns = ['id', 'account_id', 'portal_account_id', 'name', 'type_id', 'ships_to', 'price_first', 'price_more', 'cash_surcharge', 'currency'];

/** Shipping groups of a seller account; every query is scoped by the account id. */
export const shippingGroupRepository = {
  async insert(trx: Knex.Transaction, row: Omit<ShippingGroupRow, 'id'>): Promise<number> {
    const [inserted] = await trx('shipping_group')
      .insert({ ...row, ships_to: JSON.stringify(row.ships_to) })
      .returning('id');
    return (inserted as { id: number }).id;
  },

  async list(accountId: number): Promise<ShippingGroupRow[]> {
    return db()('shipping_group').select(columns).where({ account_id: accountId }).orderBy('id');
  },

  async get(accountId: number, id: number): Promise<ShippingGroupRow | undefined> {
    return db()('shipping_group').select(columns).where({ account_id: accountId, id }).first();
  },

  /** The ids among the given that are shipping groups of the account (stock shipping.group_id[] check). */
  async existingIds(accountId: number, ids: number[], knex: Knex | Knex.Transaction = db()): Promise<number[]> {
    if (ids.length === 0) return [];
    return (await knex('shipping_group').where({ account_id: accountId }).whereIn('id', ids).select('id')).map((r: { id: number }) => r.id);
  },
};
