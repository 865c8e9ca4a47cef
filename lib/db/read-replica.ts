/**
 * Reads that tolerate lag (searches) on the streaming replica of DATABASE_READ_URL, guarded:
 * while the replica lags beyond DATABASE_READ_MAX_LAG_MS, or does not answer, they run on the
 * primary. Everything else reads the primary (read-your-writes).
 */
import type { Knex } from 'knex';
import { config } from '../../config';
import { log } from '../log';
import { readPool } from './knex';

/** The replica's lag is measured at most this often per process; requests in between share it. */
const checkEveryMs = 1000;

interface ReplicaState {
  /** The pool measured (closeDb makes a new one: a new pool is measured afresh). */
  pool: Knex;
  checkedAt: number;
  usable: boolean;
  /** The measurement under way, shared by the requests that arrive meanwhile. */
  checking?: Promise<boolean>;
}

let state: ReplicaState | undefined;

/**
 * The standby's lag in ms: 0 when it has replayed all it received from a live WAL stream (an
 * idle primary sends nothing, and the last replay then grows old without any lag); otherwise
 * the age of the last transaction replayed (Infinity if none yet). Not in recovery: a primary,
 * no lag. Without pg_read_all_stats the WAL receiver's status is hidden and the age is used.
 */
async function lagMs(pool: Knex): Promise<number> {
  const result = (await pool.raw(
    `select case
       when not pg_is_in_recovery() then 0
       when pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn()
         and exists (select 1 from pg_stat_wal_receiver where status = 'streaming') then 0
       else coalesce(extract(epoch from now() - pg_last_xact_replay_timestamp()) * 1000, 'Infinity'::numeric)
     end as lag_ms`,
  )) as { rows: { lag_ms: string }[] };
  return Number(result.rows[0]?.lag_ms ?? Infinity);
}

function settle(pool: Knex, usable: boolean, reason: Record<string, unknown>): boolean {
  const before = state?.pool === pool ? state.usable : undefined;
  // Logged on a change only: the guard runs every second.
  if (before !== usable) {
    if (usable) log.info(reason, 'read replica in use for searches');
    else log.warn(reason, 'read replica not used: searches read the primary');
  }
  state = { pool, checkedAt: Date.now(), usable };
  return usable;
}

/** Whether the replica may answer now: measured at most once a second, never throws. */
async function replicaUsable(pool: Knex): Promise<boolean> {
  if (state?.pool === pool) {
    if (state.checking) return state.checking;
    if (Date.now() - state.checkedAt < checkEveryMs) return state.usable;
  }
  const maxLagMs = config().databaseReadMaxLagMs;
  const checking = lagMs(pool).then(
    (lag) => settle(pool, lag <= maxLagMs, { lagMs: Number.isFinite(lag) ? Math.round(lag) : null, maxLagMs }),
    (err: Error) => settle(pool, false, { err: err.message }),
  );
  state = { pool, checkedAt: state?.pool === pool ? state.checkedAt : 0, usable: state?.pool === pool && state.usable, checking };
  return checking;
}

/** A builder made on a transaction must stay on it (its reads see the transaction's writes). */
function inTransaction(builder: Knex.QueryBuilder): boolean {
  return (builder as unknown as { client: { transacting?: boolean } }).client.transacting === true;
}

/**
 * Runs a read that tolerates lag: on the replica when one is configured, answers and is within
 * the lag bound; otherwise (or when the replica fails this query) on the primary, as built.
 */
export async function readTolerantOfLag<T>(builder: Knex.QueryBuilder): Promise<T> {
  const pool = readPool();
  if (!pool || inTransaction(builder) || !(await replicaUsable(pool))) return (await builder) as T;
  let connection: unknown;
  try {
    connection = await pool.client.acquireConnection();
  } catch (err) {
    settle(pool, false, { err: (err as Error).message });
    return (await builder) as T;
  }
  try {
    // Compiled as for the primary (same dialect), run on the replica's connection.
    return (await builder.clone().connection(connection)) as T;
  } catch (err) {
    // A replica that went away, or a query cancelled by a conflict with recovery: the primary
    // answers instead; an error of the query itself fails there again and is reported as usual.
    settle(pool, false, { err: (err as Error).message });
    return (await builder) as T;
  } finally {
    await pool.client.releaseConnection(connection);
  }
}
