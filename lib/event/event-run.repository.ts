import type { Knex } from 'knex';

/** The (event, handler) pairs already queued; written in the transaction that writes the event.run outbox row. */
export const eventRunRepository = {
  /** The run jobs already queued for an event, by handler id (an event.emit that runs again). */
  async jobsOf(trx: Knex.Transaction, eventId: string): Promise<Map<number, string>> {
    const rows = (await trx('event_run').where({ event_id: eventId }).select('handler_id', 'job_id')) as { handler_id: number; job_id: string }[];
    return new Map(rows.map((r) => [r.handler_id, r.job_id]));
  },

  /**
   * Records the queued pairs in one statement. A pair queued meanwhile by a concurrent pass of
   * the same event violates the key and rolls the whole transaction back; the job then retries
   * and finds the pairs.
   */
  async insert(trx: Knex.Transaction, eventId: string, runs: { handlerId: number; jobId: string }[]): Promise<void> {
    if (runs.length) await trx('event_run').insert(runs.map((r) => ({ event_id: eventId, handler_id: r.handlerId, job_id: r.jobId })));
  },

  /** Removes pairs older than the job retention (their run jobs are gone too); returns how many. For the outbox clean-up. */
  async deleteBefore(knex: Knex, retentionSeconds: number): Promise<number> {
    return knex('event_run')
      .where('created_at', '<', knex.raw('now() - make_interval(secs => ?)', [retentionSeconds]))
      .delete();
  },
};
