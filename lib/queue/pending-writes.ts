import type { Knex } from 'knex';
import { prepared, Statement } from '../db';
import { OutboxJob, outboxInsert, requestIn } from './outbox';

/** Bindings of the largest pending statement that is prepared (a single order of a few lines). */
const maxPreparedBindings = 100;

/**
 * Writes of one transaction whose results nobody reads before it commits, sent together at its
 * end as one statement (data-modifying CTEs: WITH w0 AS (INSERT ...), w1 AS (UPDATE ...) SELECT 1),
 * with the outbox rows its writers gather (events, cia.adjust) as the last CTE: one INSERT, rows
 * in the order added. Each statement costs a round trip, a write syscall on both sides and a
 * Postgres parse and plan: a POST order/ sent its customer's contact data, its lines, the stock
 * quantities, the stock history and the outbox rows as five statements, now as one.
 *
 * The writes all see the transaction as it was before, not each other's effects, so only
 * independent writes may wait here (other rows than the transaction changes meanwhile), and
 * nothing may read what they write before `write`. A refused write fails `write`, which is part
 * of the same transaction: it rolls back like the write would have. Only for writes that cannot
 * be rolled back to a savepoint in between: a gathered row would outlive the rollback.
 */
export class PendingWrites {
  private statements: Statement[] = [];
  private jobs: OutboxJob[] = [];

  /** A statement (with ? bindings, no RETURNING) to send at write. */
  defer(sql: string, bindings: readonly Knex.RawBinding[]): void {
    this.statements.push({ sql, bindings });
  }

  /** A query builder's statement (an insert, say) to send at write. */
  deferQuery(query: Knex.QueryBuilder): void {
    const { sql, bindings } = query.toSQL();
    this.defer(sql, bindings);
  }

  /** Outbox rows, written after the statements, in the order added. */
  add(jobs: OutboxJob[]): void {
    this.jobs.push(...jobs);
  }

  /**
   * Hands the statements deferred so far to a statement that sends them as CTEs of its own (after
   * its own writes, in the order deferred), instead of write. The gathered jobs stay.
   */
  drain(): Statement[] {
    const statements = this.statements;
    this.statements = [];
    return statements;
  }

  /** Sends what is pending, in the caller's transaction: one statement, or none. */
  async write(trx: Knex.Transaction, accountId: number): Promise<void> {
    const statements = this.drain();
    if (this.jobs.length) statements.push(outboxInsert(accountId, this.jobs, requestIn(trx)));
    this.jobs = [];
    if (statements.length === 0) return;
    const sql = statements.length === 1 ? statements[0]!.sql : `WITH ${statements.map((s, i) => `w${i} AS (${s.sql})`).join(', ')} SELECT 1`;
    const bindings = statements.flatMap((s) => s.bindings);
    // One order's writes come in a few shapes: prepared. A batch's lists make a new text per size: not.
    const query = trx.raw(sql, bindings);
    await (bindings.length <= maxPreparedBindings ? query.options(prepared) : query);
  }
}
