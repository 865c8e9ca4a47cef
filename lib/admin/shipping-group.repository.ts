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

/** Narrows a query to one portal account's groups and those of all accounts (portal_account_id NULL); undefined: no narrowing. */
function visibleIn(query: Knex.QueryBuilder, portalAccountId: number | undefined): Knex.QueryBuilder {
  if (portalAccountId === undefined) return query;
  return query.where((q) => q.whereNull('portal_account_id').orWhere('portal_account_id', portalAccountId));
}

/** Shipping groups of a seller account; every query is scoped by the account id. */
export const shippingGroupRepository = {
  async insert(trx: Knex.Transaction, row: Omit<ShippingGroupRow, 'id'>): Promise<number> {
    const [inserted] = await trx('shipping_group')
      .insert({ ...row, ships_to: JSON.stringify(row.ships_to) })
      .returning('id');
    return (inserted as { id: number }).id;
  },

  /** The account's groups; with `portalAccountId`, only that portal account's and those of all accounts (NULL). */
  async list(accountId: number, portalAccountId?: number): Promise<ShippingGroupRow[]> {
    return visibleIn(db()('shipping_group').select(columns).where({ account_id: accountId }), portalAccountId).orderBy('id');
  },

  async get(accountId: number, id: number, portalAccountId?: number): Promise<ShippingGroupRow | undefined> {
    return visibleIn(db()('shipping_group').select(columns).where({ account_id: accountId, id }), portalAccountId).first();
  },

  /** The ids among the given that are shipping groups of the account (stock shipping.group_id[] check). */
  async existingIds(accountId: number, ids: number[], knex: Knex | Knex.Transaction = db()): Promise<number[]> {
    if (ids.length === 0) return [];
    return (await knex('shipping_group').where({ account_id: accountId }).whereIn('id', ids).select('id')).map((r: { id: number }) => r.id);
  },
};
