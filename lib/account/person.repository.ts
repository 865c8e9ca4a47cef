import type { Knex } from 'knex';
import { db } from '../db';

export interface PersonRow {
  id: number;
  account_id: number;
  name: string;
}

/** A row of person as stored (PersonRow and its creation time, which no caller reads). */
interface PersonTableRow extends PersonRow {
  created_at: Date;
}

// The row type of person for Knex (declared once here, lib/account owns the table).
declare module 'knex/types/tables' {
  interface Tables {
    person: Knex.CompositeTableType<PersonTableRow, Pick<PersonTableRow, 'account_id' | 'name'>, Partial<Omit<PersonTableRow, 'id'>>>;
  }
}

/** Persons (users of a seller account: assignees of tasks, causes of stock movements); scoped by account. */
export const personRepository = {
  async insert(trx: Knex.Transaction, accountId: number, name: string): Promise<number> {
    const [row] = await trx('person').insert({ account_id: accountId, name }).returning('id');
    return row!.id;
  },

  async list(accountId: number): Promise<PersonRow[]> {
    return db()('person').select('id', 'account_id', 'name').where({ account_id: accountId }).orderBy('id');
  },

  /** One person of the account; pass the transaction when inside one. */
  async get(accountId: number, id: number, knex: Knex | Knex.Transaction = db()): Promise<PersonRow | undefined> {
    return knex('person').select('id', 'account_id', 'name').where({ account_id: accountId, id }).first();
  },
};
