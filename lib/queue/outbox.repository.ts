import type { Knex } from 'knex';
import { prepared } from '../db';

/** An outbox row as the relay reads it. */
export interface OutboxRow {
  id: string;
  job_id: string;
  account_id: number;
  queue: string;
  job_name: string;
  payload: Record<string, unknown>;
  /**
   * The BullMQ job that carries this row when its id is not the row's job_id: the merged job
   * (lib/queue/merged-jobs.ts), or the row's job_key; null: its own job under its job_id.
   */
  relayed_as?: string | null;
  /** The BullMQ id of a job scheduled under a key (`addKeyedToOutbox`); null: the job_id. */
  job_key?: string | null;
  /** What is left of its delay as the row is read, in ms (from due_at); null: due at once. */
  delay_ms?: number | null;
  /** When the row was written (its transaction's start): when what the job tells of happened. */
  created_at?: Date;
}

/** A row of outbox as stored: OutboxRow, when it was written, due and relayed, and the job's final state. */
interface OutboxTableRow extends Omit<OutboxRow, 'delay_ms'> {
  relayed_as: string | null;
  job_key: string | null;
  due_at: Date | null;
  created_at: Date;
  relayed_at: Date | null;
  state: 'completed' | 'failed' | null;
  result: unknown;
  error: string | null;
  attempts_made: number | null;
  finished_at: Date | null;
}

// The row type of outbox for Knex (declared once here, lib/queue owns the table). The payload is
// written as JSON text (lib/queue/outbox.ts's withRequest) or as SQL (jsonb_set), the times as SQL
// too; a row is inserted with its account, queue, job name and payload (its id and job id have defaults).
type OutboxWrite = { [K in keyof OutboxTableRow]?: (K extends 'payload' ? string : OutboxTableRow[K]) | Knex.Raw };
declare module 'knex/types/tables' {
  interface Tables {
    outbox: Knex.CompositeTableType<OutboxTableRow, OutboxWrite & Pick<OutboxWrite, 'account_id' | 'queue' | 'job_name' | 'payload'>, OutboxWrite>;
  }
}

/** A job's final state as its outbox row keeps it. */
export interface FinalState {
  state: 'completed' | 'failed';
  result?: unknown;
  error?: string;
  attemptsMade: number;
}

/**
 * The delay a row's job has left, by Postgres's clock (one clock for the row's writer and every
 * relay host): the relay adds the job with it, and so does the repair after Redis lost its data,
 * so a job due in five minutes neither runs at once nor waits five minutes more.
 */
const delayLeft = `CASE WHEN due_at > clock_timestamp() THEN ceil(extract(epoch FROM due_at - clock_timestamp()) * 1000)::integer END AS delay_ms`;

/** SQL of the relay. Rows of every account: the relay is infrastructure, not a tenant request. */
export const outboxRepository = {
  /**
   * Marks the oldest pending rows relayed and returns them in order, in one statement; rows
   * another relay holds are skipped, not waited for. The caller's transaction rolls the mark
   * back when the jobs cannot be added.
   */
  async takePending(trx: Knex.Transaction, limit: number): Promise<OutboxRow[]> {
    const { rows } = (await trx
      .raw(
        `
      UPDATE outbox SET relayed_at = now()
      WHERE id IN (SELECT id FROM outbox WHERE relayed_at IS NULL ORDER BY id LIMIT ? FOR UPDATE SKIP LOCKED)
      RETURNING id, job_id, account_id, queue, job_name, payload, job_key, created_at, ${delayLeft}`,
        [limit],
      )
      .options(prepared)) as { rows: OutboxRow[] };
    return rows.sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
  },

  /**
   * Relayed rows without a final state, relayed between the two ages (seconds) and after the
   * id cursor: candidates for repair, walked in id order.
   */
  async lockUnfinished(trx: Knex.Transaction, olderThanSeconds: number, youngerThanSeconds: number, afterId: string, limit: number): Promise<OutboxRow[]> {
    return trx('outbox')
      .select('id', 'job_id', 'account_id', 'queue', 'job_name', 'payload', 'relayed_as', 'job_key', 'created_at', trx.raw(delayLeft))
      .whereNull('state')
      .whereNotNull('relayed_at')
      .where('id', '>', afterId)
      .where('relayed_at', '<', trx.raw(`now() - make_interval(secs => ?)`, [olderThanSeconds]))
      .where('relayed_at', '>', trx.raw(`now() - make_interval(secs => ?)`, [youngerThanSeconds]))
      .orderBy('id')
      .limit(limit)
      .forUpdate()
      .skipLocked();
  },

  /**
   * Names the merged job that carries each row (one statement), or clears it for rows added as
   * jobs of their own again.
   */
  async markCarried(trx: Knex.Transaction, carried: { id: string; as: string | null }[]): Promise<void> {
    if (carried.length === 0) return;
    await trx
      .raw(`UPDATE outbox o SET relayed_as = nullif(v.relayed_as, '') FROM unnest(?::bigint[], ?::text[]) AS v(id, relayed_as) WHERE o.id = v.id`, [
        carried.map((c) => c.id),
        carried.map((c) => c.as ?? ''),
      ])
      .options(prepared);
  },

  /** Keeps a job's progress in its row's payload (what a job re-added after a Redis loss resumes from). */
  async saveProgress(knex: Knex, jobId: string, progress: object): Promise<void> {
    // Only outbox jobs have a row (their id is its UUID).
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(jobId)) return;
    await knex('outbox')
      .where({ job_id: jobId })
      .update({ payload: knex.raw(`jsonb_set(payload, '{progress}', ?::jsonb)`, [JSON.stringify(progress)]) });
  },

  /**
   * The progress an outbox job kept (saveProgress), its row locked until the caller's transaction
   * ends: a step that writes and marks itself done in one transaction reads here whether an
   * earlier try of the job did so already. Undefined for a job without a row or progress.
   */
  async lockProgress(trx: Knex.Transaction, jobId: string): Promise<Record<string, unknown> | undefined> {
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(jobId)) return undefined;
    const row = (await trx('outbox').where({ job_id: jobId }).forUpdate().first(trx.raw(`payload->'progress' AS progress`))) as
      { progress: Record<string, unknown> | null } | undefined;
    return row?.progress ?? undefined;
  },

  /** Records a job's final state (completed or failed after its last try). */
  async recordFinal(knex: Knex, jobId: string, fields: FinalState): Promise<void> {
    await outboxRepository.recordFinals(knex, [{ jobId, ...fields }]);
  },

  /** Records the final states of several jobs in one statement. */
  async recordFinals(knex: Knex, finals: ({ jobId: string } & FinalState)[]): Promise<void> {
    if (finals.length === 0) return;
    const values = finals.map(() => '(?::uuid, ?, ?::jsonb, ?, ?::integer)').join(', ');
    await knex.raw(
      `
      UPDATE outbox o SET state = v.state, result = v.result, error = v.error, attempts_made = v.attempts_made, finished_at = now()
      FROM (VALUES ${values}) AS v(job_id, state, result, error, attempts_made)
      WHERE o.job_id = v.job_id`,
      finals.flatMap((f) => [f.jobId, f.state, f.result === undefined ? null : JSON.stringify(f.result), f.error ?? null, f.attemptsMade]),
    );
  },

  /** Removes finished rows older than the retention; returns how many. */
  async deleteFinishedBefore(knex: Knex, retentionSeconds: number): Promise<number> {
    return knex('outbox')
      .whereNotNull('finished_at')
      .where('finished_at', '<', knex.raw('now() - make_interval(secs => ?)', [retentionSeconds]))
      .delete();
  },

  /** How many rows are not yet relayed to BullMQ (the operator's gauge kontor_outbox_pending). */
  async pendingCount(knex: Knex): Promise<number> {
    const [row] = await knex('outbox').whereNull('relayed_at').count({ count: '*' });
    return Number(row?.count ?? 0);
  },
};
