import type { Client, QueryResult } from 'pg';

/**
 * A COMMIT whose answer never came (the connection dropped, the web's query_timeout passed:
 * knex.ts boundStatements, lost-answer.ts) may have committed: PostgreSQL may have made the
 * transaction durable and lost only the way back. Such an error is marked here, apart from a
 * failure before COMMIT (nothing done) and from an error PostgreSQL answered to COMMIT itself (a
 * deferred constraint, a serialization failure: rolled back). The error object stays the one pg
 * threw, so every other reader (workers' retries, the 503 mapping) sees what it saw before.
 *
 * A transaction opened for an API request (transaction(work, requestId)) reads its transaction
 * id in its BEGIN, one simple-protocol message `BEGIN; SELECT txid_current()`: no statement and
 * no round trip more (issue 32 counts them: 7 for a returning buyer's one-line POST order/). With
 * the id, txid_status() on another connection says whether the lost COMMIT committed. Only such
 * transactions: the id is assigned at BEGIN, which makes a read-only transaction write a commit
 * record; the request's transactions write anyway.
 */
const beginText = 'BEGIN;';
const commitText = 'COMMIT;';
const beginReadingId = 'BEGIN; SELECT txid_current()::text AS xid';

/** A lost COMMIT: the transaction's id when its BEGIN read it. */
export interface LostCommit {
  xid: string | undefined;
}

/** What PostgreSQL says of a transaction id; undefined when it cannot say (too old) or was not asked. */
export type CommitOutcome = 'committed' | 'aborted' | 'in progress' | undefined;

const readsId = new WeakSet<Client>();
const openId = new WeakMap<Client, string>();
const commitMarks = new WeakMap<Client, string>();
const lostCommits = new WeakMap<object, LostCommit>();

/** The lost COMMIT an error reports, if it is one whose outcome is unknown. */
export function lostCommitOf(err: unknown): LostCommit | undefined {
  return typeof err === 'object' && err !== null ? lostCommits.get(err) : undefined;
}

/** The outcome is known after all (txid_status said aborted): the error is a plain failure again. */
export function forgetLostCommit(err: unknown): void {
  if (typeof err === 'object' && err !== null) lostCommits.delete(err);
}

/**
 * The next BEGIN on the connection reads the transaction's id (until doneReadingId); with `mark`
 * (commit-marks.ts), its COMMIT is sent as `<mark>; COMMIT;`, one message: the mark is written
 * within the transaction, and holds its row's lock only while COMMIT runs (a duplicate request's
 * claim of its Idempotency-Key, which waits for that lock, is not held up by the request's work).
 */
export function readIdOnBegin(connection: Client, mark?: string): void {
  readsId.add(connection);
  if (mark !== undefined) commitMarks.set(connection, mark);
}

export function doneReadingId(connection: Client): void {
  readsId.delete(connection);
  openId.delete(connection);
  commitMarks.delete(connection);
}

/**
 * An error of COMMIT that PostgreSQL did not answer as a rollback: none from the server (a
 * connection lost, pg's read timeout, a socket error), or the server ending the session
 * (class 08, 57P01-03 shutdown or termination: a pg_terminate_backend can arrive after the
 * commit record, while it waits on a synchronous standby), or a system fault (58, XX). By
 * SQLSTATE, not severity: the severity is in the server's language.
 */
function outcomeUnknown(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code) || /^(08|57P|58|XX)/.test(code);
}

type Callback = (err: Error | null, result: unknown) => void;

/**
 * Installed on every connection of the pools (knex.ts): BEGIN reads the id where asked, COMMIT's
 * failures whose outcome is unknown are marked. Such a connection is disposed at once, before
 * the callback: Knex learns of a dead connection only from its later `end` event, and a
 * statement sent right after (the release of an Idempotency-Key) was handed the same connection
 * and failed with "Connection terminated".
 */
export function watchCommits(connection: Client): void {
  const query = connection.query.bind(connection) as (...args: unknown[]) => unknown;
  const watched = (...args: unknown[]): unknown => {
    const config = args[0];
    const text = typeof config === 'object' && config !== null ? (config as { text?: unknown }).text : config;
    const last = args.length - 1;
    const callback = args[last];
    if (typeof callback !== 'function') return query(...args);
    if (text === beginText) {
      openId.delete(connection);
      if (!readsId.has(connection) || typeof config !== 'object') return query(...args);
      args[0] = { ...(config as object), text: beginReadingId };
      args[last] = (err: Error | null, results: QueryResult[] | undefined) => {
        const xid: unknown = results?.[1]?.rows[0]?.xid;
        if (!err && typeof xid === 'string') openId.set(connection, xid);
        (callback as Callback)(err, results?.[0]);
      };
    } else if (text === commitText) {
      const xid = openId.get(connection);
      openId.delete(connection);
      const mark = commitMarks.get(connection);
      if (mark !== undefined && typeof config === 'object') args[0] = { ...(config as object), text: `${mark}; ${commitText}` };
      const marked = args[0] !== config;
      args[last] = (err: Error | null, result: unknown) => {
        if (err && outcomeUnknown(err)) {
          lostCommits.set(err, { xid });
          (connection as unknown as { __knex__disposed?: unknown }).__knex__disposed ??= err.message;
        } else if (err && marked) {
          // The mark failed (a lock wait cancelled): PostgreSQL skipped the COMMIT after it and the
          // transaction stays open, aborted, and Knex sends no ROLLBACK after a failed COMMIT. The
          // connection is disposed (PostgreSQL rolls back when it closes), never handed out again.
          (connection as unknown as { __knex__disposed?: unknown }).__knex__disposed ??= err.message;
        }
        (callback as Callback)(err, marked && Array.isArray(result) ? (result as unknown[])[result.length - 1] : result);
      };
    }
    return query(...args);
  };
  connection.query = watched as Client['query'];
}
