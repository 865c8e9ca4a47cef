import type { Knex } from 'knex';
import type { OrderScope } from '../access';
import { db, transaction } from '../db';
import { domainError, invalidField, notFound } from '../errors';
import type { SearchRequest } from '../http';
import { personRepository } from '../account';
import { TaskColumns, taskRepository, TaskRow } from './task.repository';
import type { TaskInput } from './task.type';

/** Task_type as answered. */
export function taskToApi(row: TaskRow) {
  const reference: Record<string, string> = { section: row.reference_section ?? '', id: row.reference_id ?? '' };
  if (row.reference_section === 'stock_lister') {
    reference.platform = row.reference_platform ?? '';
    reference.stock_id = row.reference_stock_id ?? '';
  }
  return {
    id: row.id,
    reference,
    person_id: row.person_id === null ? '' : String(row.person_id),
    title: row.title,
    text: row.text,
    appointment_date: row.appointment_date ? row.appointment_date.toISOString() : '',
    modified_date: row.modified_date.toISOString(),
    priority: row.priority,
    is_completed: row.is_completed,
  };
}

/** GET task/: Task_filter_type and pagination, of the tasks the caller sees (a bound client: not other portal accounts' orders'). */
export function searchTasks(scope: OrderScope, search: SearchRequest) {
  return taskRepository.search(scope, search, taskToApi);
}

/**
 * The columns a task input sets. A stock_lister reference needs platform and stock_id; the
 * assignee must be a person of the account. Errors name the field under `task.`.
 */
async function columnsOf(trx: Knex.Transaction, accountId: number, task: TaskInput, current?: TaskRow): Promise<TaskColumns> {
  const columns: TaskColumns = {};
  if (task.reference) {
    const r = task.reference;
    if (r.section !== undefined) columns.reference_section = r.section || null;
    if (r.id !== undefined) columns.reference_id = r.id || null;
    if (r.platform !== undefined) columns.reference_platform = r.platform || null;
    if (r.stock_id !== undefined) columns.reference_stock_id = r.stock_id || null;
  }
  const section = columns.reference_section !== undefined ? columns.reference_section : current?.reference_section;
  // Document 2 gives reference.platform and reference.stock_id only "when section is
  // stock_lister", and a task answers them only then: sent with another section they would be
  // stored and never shown, so they are a 400 naming the field (as an unknown field is).
  if (section !== 'stock_lister') {
    for (const field of ['platform', 'stock_id'] as const) {
      if (task.reference?.[field])
        throw invalidField(`task.reference.${field}`, `task.reference.${field} is only for section stock_lister (the section is ${section || 'empty'})`);
    }
    // A stock_lister task moved to another section drops them too: kept unseen, they came back
    // when it was moved to stock_lister again without them, which a create refuses (below).
    columns.reference_platform = null;
    columns.reference_stock_id = null;
  }
  if (section === 'stock_lister') {
    const platform = columns.reference_platform !== undefined ? columns.reference_platform : current?.reference_platform;
    const stockId = columns.reference_stock_id !== undefined ? columns.reference_stock_id : current?.reference_stock_id;
    if (!platform) throw invalidField('task.reference.platform', 'task.reference.platform is required when section is stock_lister');
    if (!stockId) throw invalidField('task.reference.stock_id', 'task.reference.stock_id is required when section is stock_lister');
  }
  if (task.person_id !== undefined) {
    if (task.person_id === '') columns.person_id = null;
    else if (!(await personRepository.get(accountId, task.person_id, trx))) {
      // Document 1, Errors: a contained object with a given id that does not exist is a 404.
      throw domainError('not_found', `task.person_id ${task.person_id} is not a person of this account (admin/person/)`, { field: 'task.person_id' });
    } else columns.person_id = task.person_id;
  }
  if (task.title !== undefined) columns.title = task.title;
  if (task.text !== undefined) columns.text = task.text;
  if (task.appointment_date !== undefined) columns.appointment_date = task.appointment_date === '' ? null : task.appointment_date;
  if (task.priority !== undefined) columns.priority = task.priority;
  if (task.is_completed !== undefined) columns.is_completed = task.is_completed;
  return columns;
}

/** Creates a task in the caller's transaction (also used by the event action task). */
export async function insertTask(trx: Knex.Transaction, accountId: number, task: TaskInput): Promise<number> {
  return taskRepository.insert(trx, accountId, await columnsOf(trx, accountId, task));
}

/**
 * A task the service raises: Task_type's fields, and the portal account it belongs to when it
 * concerns one (a client bound to another portal account does not see it: task.repository visibleTo).
 */
export type RaisedTask = TaskInput & { portalAccountId?: number | null };

const raisedColumnsOf = async (trx: Knex.Transaction, accountId: number, { portalAccountId, ...task }: RaisedTask): Promise<TaskColumns> => ({
  ...(await columnsOf(trx, accountId, task)),
  portal_account_id: portalAccountId ?? null,
});

/**
 * Creates a task in the caller's transaction once per key (a key unique across accounts, e.g.
 * naming the account): a repeat of what gave it (a statement imported again) creates none.
 */
export async function insertTaskOnce(trx: Knex.Transaction, accountId: number, task: RaisedTask, key: string): Promise<number | undefined> {
  return taskRepository.insertOnce(trx, accountId, await raisedColumnsOf(trx, accountId, task), key);
}

/** Creates a task for a job (an event action task, an import's problem); a re-run of the job creates none twice. */
export async function createTaskOnce(accountId: number, task: RaisedTask, sourceJobId: string): Promise<number | undefined> {
  return db().transaction(async (trx) => taskRepository.insertOnce(trx, accountId, await raisedColumnsOf(trx, accountId, task), sourceJobId));
}

/**
 * A client bound to one portal account names in reference.id only an order of that portal account
 * when the section is order, and only a customer it sees (one with an order of that portal
 * account) when the section is customer (document 1, Authentication 5; README "Portal account
 * grant"): otherwise it could plant a task, with its own title and text, on another portal
 * account's order or customer, which that account's users read as the record's task while the
 * client itself cannot see it. Another's record, an absent one and no id at all answer the same
 * 404 on task.reference.id, and nothing is stored. The seller's own tokens and clients granted
 * all stay unchecked (reference.id is not checked against the other domains: README).
 */
async function checkReference(trx: Knex.Transaction, scope: OrderScope, columns: TaskColumns, current?: TaskRow): Promise<void> {
  if (scope.portalAccountGrant === 'all') return;
  const section = columns.reference_section !== undefined ? columns.reference_section : current?.reference_section;
  if (section !== 'order' && section !== 'customer') return;
  const id = columns.reference_id !== undefined ? columns.reference_id : current?.reference_id;
  if (!id || !(await taskRepository.referenceSeen(trx, scope, section, id))) throw notFound(`${section} ${id ?? ''}`.trimEnd(), 'task.reference.id');
}

/**
 * The portal account a task a client bound to one writes belongs to (README "A task a bound client
 * writes"): a task it creates is its portal account's, and a task of the seller's (none) it moves
 * into section bank becomes its portal account's. Else visibleTo hid it from the very client that
 * wrote it: a bank task of no portal account is the seller's, seen only by callers granted all, so
 * the client was answered 201 (200) and then never found the task, and completing it was a 404.
 * The seller and clients granted all write tasks of no portal account, as before.
 */
function ownerOf(scope: OrderScope, columns: TaskColumns, current?: TaskRow): Pick<TaskColumns, 'portal_account_id'> {
  const grant = scope.portalAccountGrant;
  if (grant === 'all') return {};
  if (!current) return { portal_account_id: grant };
  const section = columns.reference_section !== undefined ? columns.reference_section : current.reference_section;
  return section === 'bank' && current.portal_account_id === null ? { portal_account_id: grant } : {};
}

/** POST task/: creates a task, or updates (completes) the task whose id is given, if the caller sees it (else 404). */
export async function saveTask(scope: OrderScope, task: TaskInput, id = task.id): Promise<{ id: number; created: boolean }> {
  const { accountId } = scope;
  // With the request's id: a COMMIT whose answer is lost can be asked after (lib/db transaction).
  return transaction(async (trx) => {
    if (id === undefined) {
      const columns = await columnsOf(trx, accountId, task);
      await checkReference(trx, scope, columns);
      return { id: await taskRepository.insert(trx, accountId, { ...columns, ...ownerOf(scope, columns) }), created: true };
    }
    const current = await taskRepository.getForUpdate(trx, scope, id);
    if (!current) throw notFound(`task ${id}`, 'task_id');
    const columns = await columnsOf(trx, accountId, task, current);
    await checkReference(trx, scope, columns, current);
    await taskRepository.update(trx, accountId, id, { ...columns, ...ownerOf(scope, columns, current) });
    return { id, created: false };
  }, scope.requestId);
}
