import type { Knex } from 'knex';
import { db } from '../db/knex';
import type { HandlerCondition } from './event-handler.type';

export interface EventHandlerRow {
  id: number;
  account_id: number;
  section: string;
  type: string;
  action: string;
  required: Record<string, string>;
  condition: HandlerCondition[];
  is_active: boolean;
  signing_secret: string;
  modified: Date;
}

/** Event handlers of a seller account; every query is scoped by the account id. */
export const eventHandlerRepository = {
  async insert(trx: Knex.Transaction, row: Omit<EventHandlerRow, 'id' | 'modified' | 'is_active'>): Promise<number> {
    const [inserted] = await trx('event_handler')
      .insert({ ...row, required: JSON.stringify(row.required), condition: JSON.stringify(row.condition) })
      .returning('id');
    return (inserted as { id: number }).id;
  },

  async list(accountId: number): Promise<EventHandlerRow[]> {
    return db()('event_handler').where({ account_id: accountId }).orderBy('id');
  },

  async get(accountId: number, id: number): Promise<EventHandlerRow | undefined> {
    return db()('event_handler').where({ account_id: accountId, id }).first();
  },

  /** Deletes one handler; false when the account has none with that id. */
  async delete(trx: Knex.Transaction, accountId: number, id: number): Promise<boolean> {
    return (await trx('event_handler').where({ account_id: accountId, id }).delete()) > 0;
  },

  /** The active handlers of an account for one event type. */
  async activeFor(accountId: number, section: string, type: string): Promise<EventHandlerRow[]> {
    return db()('event_handler').where({ account_id: accountId, section, type, is_active: true }).orderBy('id');
  },
};
