import type { Knex } from 'knex';
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

/** Tasks of a seller account; every query is scoped by the account id. */
export const taskRepository = {
  search<Item extends Record<string, unknown>>(accountId: number, search: SearchRequest, toApi: (row: TaskRow) => Item) {
    return runSearch(db()('task').where({ account_id: accountId }), taskSearch, search, toApi);
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

  /** One task of the account, locked for an update. */
  async getForUpdate(trx: Knex.Transaction, accountId: number, id: number): Promise<TaskRow | undefined> {
    return trx('task').where({ account_id: accountId, id }).forUpdate().first();
  },

  async update(trx: Knex.Transaction, accountId: number, id: number, columns: TaskColumns): Promise<void> {
    await trx('task')
      .where({ account_id: accountId, id })
      .update({ ...columns, modified_date: trx.fn.now() });
  },
};
