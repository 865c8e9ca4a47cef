import type { Knex } from 'knex';
import { prepared } from './prepared';

/**
 * Writes of one transaction whose results nobody reads before it commits, sent together at its
 * end as one statement (data-modifying CTEs: WITH w0 AS (INSERT ...), w1 AS (UPDATE ...) SELECT 1).
 * Each statement costs a round trip, a write syscall on both sides and a Postgres parse and plan:
 * a POST order/ sent its customer's contact data, its lines, the stock quantities, the stock
 * history and the outbox rows as five statements, now as one.
 *
 * The writes all see the transaction as it was before the flush, not each other's effects, so
 * only independent writes may be deferred (other rows than the transaction changes meanwhile),
 * and nothing may read what they write before flush. A refused write fails the flush, which is
 * part of the same transaction: it rolls back like the write would have.
 */
/** A statement with ? bindings. */
export interface Statement {
  sql: string;
  bindings: readonly Knex.RawBinding[];
}

/** Bindings of the largest deferred statement that is prepared (a single order of a few lines). */
const maxPreparedBindings = 100;

export class DeferredWrites {
  private statements: Statement[] = [];

  /** A statement (with ? bindings, no RETURNING) to send at flush. */
  defer(sql: string, bindings: readonly Knex.RawBinding[]): void {
    this.statements.push({ sql, bindings });
  }

  /** A query builder's statement (an insert, say) to send at flush. */
  deferQuery(query: Knex.QueryBuilder): void {
    const { sql, bindings } = query.toSQL();
    this.defer(sql, bindings);
  }

  /**
   * Hands what was deferred to a statement that sends it as CTEs of its own (after its own
   * writes, in the order deferred), instead of a flush.
   */
  drain(): Statement[] {
    const statements = this.statements;
    this.statements = [];
    return statements;
  }

  /** Sends what was deferred, in the caller's transaction: one statement, or none. */
  async flush(trx: Knex.Transaction): Promise<void> {
    const statements = this.statements;
    this.statements = [];
    if (statements.length === 0) return;
    const sql = statements.length === 1 ? statements[0]!.sql : `WITH ${statements.map((s, i) => `w${i} AS (${s.sql})`).join(', ')} SELECT 1`;
    const bindings = statements.flatMap((s) => s.bindings);
    // One order's writes come in a few shapes: prepared. A batch's lists make a new text per size: not.
    const query = trx.raw(sql, bindings);
    await (bindings.length <= maxPreparedBindings ? query.options(prepared) : query);
  }
}
