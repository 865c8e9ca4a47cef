import type { Knex } from 'knex';

/** An outbox row as the relay reads it. */
export interface OutboxRow {
  id: string;
  job_id: string;
  account_id: number;
  queue: string;
  job_name: string;
  payload: Record<string, unknown>;
}

/** SQL of the relay. Rows of every account: the relay is infrastructure, not a tenant request. */
export const outboxRepository = {
  /** Takes pending rows in order; rows another relay holds are skipped, not waited for. */
  async lockPending(trx: Knex.Transaction, limit: number): Promise<OutboxRow[]> {
    return trx('outbox')
      .select('id', 'job_id', 'account_id', 'queue', 'job_name', 'payload')
      .whereNull('relayed_at')
      .orderBy('id')
      .limit(limit)
      .forUpdate()
      .skipLocked();
  },

  async markRelayed(trx: Knex.Transaction, ids: string[]): Promise<void> {
    await trx('outbox').whereIn('id', ids).update({ relayed_at: trx.fn.now() });
  },

  /**
   * Relayed rows without a final state, relayed between the two ages (seconds) and after the
   * id cursor: candidates for repair, walked in id order.
   */
  async lockUnfinished(trx: Knex.Transaction, olderThanSeconds: number, youngerThanSeconds: number, afterId: string, limit: number): Promise<OutboxRow[]> {
    return trx('outbox')
      .select('id', 'job_id', 'account_id', 'queue', 'job_name', 'payload')
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

  /** Records a job's final state (completed or failed after its last try). */
  async recordFinal(knex: Knex, jobId: string, fields: { state: 'completed' | 'failed'; result?: unknown; error?: string; attemptsMade: number }): Promise<void> {
    await knex('outbox').where({ job_id: jobId }).update({
      state: fields.state,
      result: fields.result === undefined ? null : JSON.stringify(fields.result),
      error: fields.error ?? null,
      attempts_made: fields.attemptsMade,
      finished_at: knex.fn.now(),
    });
  },

  /** Removes finished rows older than the retention; returns how many. */
  async deleteFinishedBefore(knex: Knex, retentionSeconds: number): Promise<number> {
    return knex('outbox').whereNotNull('finished_at')
      .where('finished_at', '<', knex.raw('now() - make_interval(secs => ?)', [retentionSeconds]))
      .delete();
  },
};
