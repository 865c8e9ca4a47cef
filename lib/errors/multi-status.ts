/**
 * The one helper of every answer with HTTP 207 (Multistatus_type items): each item of a list
 * runs on its own in the list's transaction, and its outcome becomes one entry: its code and
 * fields, or the error[] of what it threw. A failed item leaves nothing behind because it runs
 * in a savepoint; an item that cannot fail after its first write may skip it (the fast path).
 */
import type { Knex } from 'knex';
import { inSavepoint, isConflictVictim } from '../db';
import type { Logger } from '../log';
import { DomainError, ErrorItem } from './domain-error';
import type { Warning } from './warning';

/** One entry of a 207 answer: the item's path and code, its own fields, its warnings and errors. */
export type MultiStatusItem = { path: string; code: number; warning?: Warning[]; error?: ErrorItem[] } & Record<string, unknown>;

/** What an item's work gives when it succeeds: its code (200, 201, 202) and its fields. */
export interface ItemDone {
  code: number;
  fields: Record<string, unknown>;
}

/** Runs work in a savepoint of the list's transaction; needed false takes the fast path (no savepoint). */
export type Savepoint = <T>(work: (trx: Knex.Transaction) => Promise<T>, needed?: boolean) => Promise<T>;

export interface ItemOptions {
  log: Logger;
  /** The item's warnings (they join its entry, failed or not). */
  warnings?: Warning[];
  /** Fields an entry keeps when the item fails (an order id already known). */
  failedFields?: Record<string, unknown>;
  /** A savepoint for every item, even those that said none is needed (the run after RunAgainSafely). */
  savepointAll?: boolean;
  /** A fault that is not a domain error: a logged 500 entry (default), or thrown to fail the request. */
  faults?: 'item' | 'throw';
}

/**
 * The list must run again from the start, safely (every item in a savepoint, no batching): an
 * item on the fast path failed after it wrote, or a batch at the end of the list failed.
 */
export class RunAgainSafely extends Error {}

const withWarnings = (warnings: Warning[] | undefined) => (warnings?.length ? { warning: warnings } : {});

/** The entry of an item that threw: a domain error's code and error[]; any other error a logged 500. */
export function failedItem(path: string, err: unknown, options: ItemOptions): MultiStatusItem {
  if (err instanceof DomainError) {
    return { path, code: err.status, ...options.failedFields, ...withWarnings(options.warnings), error: err.items() };
  }
  options.log.error({ err, path }, 'multi-status item failed');
  return {
    path,
    code: 500,
    ...options.failedFields,
    ...withWarnings(options.warnings),
    error: [{ error: 'internal_error', description: 'the item could not be processed', code: 500 }],
  };
}

/**
 * Runs one item in the list's transaction and returns its entry. A fault on the fast path
 * (the item wrote without a savepoint, so the transaction may hold half of it) throws
 * RunAgainSafely: the caller runs the list again with savepointAll (see runListSafely). A
 * deadlock or serialization victim (40P01, 40001) is thrown as it is, never an item's 500: the
 * race is no fault of the item or the client, so the whole request runs again; the caller's
 * transaction must be lib/db's inTransaction, which retries it (up to 3 times, then 503 retry_later).
 */
export async function runItem(
  trx: Knex.Transaction,
  path: string,
  work: (savepoint: Savepoint) => Promise<ItemDone>,
  options: ItemOptions,
): Promise<MultiStatusItem> {
  let guarded = true;
  const savepoint: Savepoint = (inner, needed = true) => {
    guarded = needed || options.savepointAll === true;
    return guarded ? inSavepoint(trx, inner) : inner(trx);
  };
  try {
    const { code, fields } = await work(savepoint);
    return { path, code, ...fields, ...withWarnings(options.warnings) };
  } catch (err) {
    if (err instanceof DomainError) return failedItem(path, err, options);
    // Before, the item that lost a deadlock answered 500 internal_error while the rest committed.
    if (isConflictVictim(err)) throw err;
    if (!guarded) throw new RunAgainSafely('an item on the fast path failed', { cause: err });
    if (options.faults === 'throw') throw err;
    return failedItem(path, err, options);
  }
}

/** Runs a list fast (run(false)); should it throw RunAgainSafely, rolls back and runs it again safely (run(true)). */
export async function runListSafely<R>(run: (safely: boolean) => Promise<R>, log: Logger): Promise<R> {
  try {
    return await run(false);
  } catch (err) {
    if (!(err instanceof RunAgainSafely)) throw err;
    log.warn({ err: err.cause, reason: err.message }, 'multi-status list runs again, every item in a savepoint');
    return run(true);
  }
}
