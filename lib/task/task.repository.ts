import type { Knex } from 'knex';
import { orderGrantQueries, OrderScope } from '../access';
import { customerRepository } from '../customer';
import { db } from '../db';
import { runSearch, SearchRequest, SearchSpec } from '../http';
import { taskType } from './task.type';

export interface TaskRow {
  id: number;
  account_id: number;
  reference_section: string | null;
  reference_id: string | null;
  reference_platform: string | null;
  reference_stock_id: string | null;
  person_id: number | null;
  title: string;
  text: string;
  appointment_date: Date | null;
  priority: string;
  is_completed: boolean;
  modified_date: Date;
  /** The portal account a task the service raised belongs to; null: the seller's (README). */
  portal_account_id: number | null;
}

export type TaskColumns = Partial<Omit<TaskRow, 'id' | 'account_id' | 'modified_date'>>;

/** Task_filter_type: id[] (integers) and is_completed (false: only open tasks). */
export const taskSearch: SearchSpec<TaskRow> = {
  filters: {
    id: { column: 'id', type: 'integer' },
    is_completed: { column: 'is_completed', type: 'bool' },
  },
  key: {
    column: 'id',
    parse: (minId) => (/^\d{1,10}$/.test(minId) && Number(minId) <= 2147483647 ? Number(minId) : undefined),
    idOf: (row) => String(row.id),
  },
  type: taskType,
  alwaysSelected: ['id'],
};

/**
 * The tasks a caller sees: all of the account for the seller and clients granted all. A client
 * bound to a portal account (document 1, Authentication 5) sees:
 * - a task of an order only when the order is that portal account's, and of a customer only when it
 *   sees the customer (such a task carries their data: an event action task fills its text from
 *   the buyer's address);
 * - a task the service raised for a portal account (portal_account_id: an order fetch refused, a
 *   listing check, its own statement import) only when it is its own;
 * - a bank task only when it raised it: the seller's imports' and the payment providers' name
 *   records (payers, amounts, counts) that its bank searches leave out.
 * Other tasks of no order stay visible.
 */
function visibleTo(q: Knex.QueryBuilder, scope: OrderScope): Knex.QueryBuilder {
  q.where('task.account_id', scope.accountId);
  if (scope.portalAccountGrant === 'all') return q;
  const granted = orderGrantQueries()
    .ordersOfPortalAccount(db(), 'granted_order', scope.portalAccountGrant)
    .whereRaw('granted_order.account_id = task.account_id AND granted_order.id = task.reference_id');
  // A customer task carries the customer's data as well (an event action task on customer
  // created fills its text from Customer_type): seen only when the customer is (README).
  const customer = customerRepository.inScope(db(), scope).whereRaw('customer.number = task.reference_id');
  const grant = scope.portalAccountGrant;
  return q
    .where((own) => own.whereNull('task.portal_account_id').orWhere('task.portal_account_id', grant))
    .where((w) =>
      w
        .whereNull('task.reference_section')
        .orWhere((b) => b.where('task.reference_section', 'bank').where('task.portal_account_id', grant))
        .orWhereNotIn('task.reference_section', ['order', 'customer', 'bank'])
        .orWhere((o) => o.where('task.reference_section', 'order').whereExists(granted))
        .orWhere((c) => c.where('task.reference_section', 'customer').whereExists(customer)),
    );
}

/** Tasks of a seller account; every query is scoped by the account id (and a client's grant). */
export const taskRepository = {
  search<Item extends Record<string, unknown>>(scope: OrderScope, search: SearchRequest, toApi: (row: TaskRow) => Item) {
    return runSearch(visibleTo(db()('task'), scope), taskSearch, search, toApi);
  },

  async insert(trx: Knex.Transaction, accountId: number, columns: TaskColumns): Promise<number> {
    const [row] = await trx('task')
      .insert({ ...columns, account_id: accountId })
      .returning('id');
    return (row as { id: number }).id;
  },

  /** Inserts a task created by a job; a second insert for the same job adds nothing (returns undefined). */
  async insertOnce(trx: Knex.Transaction, accountId: number, columns: TaskColumns, sourceJobId: string): Promise<number | undefined> {
    const [row] = await trx('task')
      .insert({ ...columns, account_id: accountId, source_job_id: sourceJobId })
      .onConflict('source_job_id')
      .ignore()
      .returning('id');
    return (row as { id: number } | undefined)?.id;
  },

  /** One task the caller sees, locked for an update. */
  async getForUpdate(trx: Knex.Transaction, scope: OrderScope, id: number): Promise<TaskRow | undefined> {
    return visibleTo(trx('task'), scope).where('task.id', id).forUpdate('task').first();
  },

  /**
   * Whether the order (section order) or customer (section customer) a task names is one the scope
   * sees: visibleTo's rule, for a task before it is stored.
   */
  async referenceSeen(trx: Knex.Transaction, scope: OrderScope, section: 'order' | 'customer', id: string): Promise<boolean> {
    const query =
      section === 'order'
        ? scope.portalAccountGrant === 'all'
          ? null
          : orderGrantQueries()
              .ordersOfPortalAccount(trx, 'granted_order', scope.portalAccountGrant)
              .where({ 'granted_order.account_id': scope.accountId, 'granted_order.id': id })
        : customerRepository.inScope(trx, scope).where('customer.number', id);
    return query === null || Boolean(await query.first());
  },

  async update(trx: Knex.Transaction, accountId: number, id: number, columns: TaskColumns): Promise<void> {
    await trx('task')
      .where({ account_id: accountId, id })
      .update({ ...columns, modified_date: trx.fn.now() });
  },
};
