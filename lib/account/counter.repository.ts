import type { Knex } from 'knex';
import type { Statement } from '../db';
import { prepared } from '../db';

/** The account's running numbers: order numbers, invoice numbers and customer numbers. */
export type CounterKind = 'order' | 'invoice' | 'customer';

/** Per-account counters (table order_counter); scoped by account. */
export const counterRepository = {
  /**
   * The next value of a per-account counter. The UPSERT locks the counter row until the
   * transaction ends, so no two transactions get the same value.
   */
  async next(trx: Knex.Transaction, accountId: number, kind: CounterKind): Promise<number> {
    return counterRepository.take(trx, accountId, kind, 1);
  },

  /**
   * Reserves `count` consecutive values in one statement and returns the first (count 0 only
   * takes the counter's lock, for a batch that reserves later under it).
   */
  async take(trx: Knex.Transaction, accountId: number, kind: CounterKind, count: number): Promise<number> {
    const { sql, bindings } = counterRepository.takeStatement(accountId, kind, count);
    const result = await trx.raw(sql, bindings).options(prepared);
    return Number((result.rows as { first: string }[])[0]!.first);
  },

  /**
   * take as a statement to embed (a CTE whose one row's `first` is the first reserved value), so
   * that a write takes the counter's lock in its own statement instead of one before it.
   */
  takeStatement(accountId: number, kind: CounterKind, count: number): Statement {
    return {
      sql: `INSERT INTO order_counter (account_id, kind, last_value) VALUES (?, ?, ?)
       ON CONFLICT (account_id, kind) DO UPDATE SET last_value = order_counter.last_value + ?
       RETURNING last_value - ? + 1 AS first`,
      bindings: [accountId, kind, count, count, count],
    };
  },

  /** The counter's current value (0 before its first use) as a one-row SELECT (column last_value), to embed in a WITH. */
  valueStatement(accountId: number, kind: CounterKind): Statement {
    return {
      sql: 'SELECT COALESCE((SELECT last_value FROM order_counter WHERE account_id = ? AND kind = ?), 0) AS last_value',
      bindings: [accountId, kind],
    };
  },

  /** Moves the counter up to `value` (never down), as a statement to run or defer; the row exists (taken before). */
  raiseStatement(accountId: number, kind: CounterKind, value: number): Statement {
    return { sql: 'UPDATE order_counter SET last_value = GREATEST(last_value, ?) WHERE account_id = ? AND kind = ?', bindings: [value, accountId, kind] };
  },
};
