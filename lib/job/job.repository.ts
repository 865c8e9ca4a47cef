import { db } from '../db/knex';

/** What the outbox knows of a job. */
export interface JobRow {
  job_id: string;
  queue: string;
  job_name: string;
  created_at: Date;
  relayed_at: Date | null;
  /** The merged job carrying this row (lib/queue/merged-jobs.ts), else null. */
  relayed_as: string | null;
  state: 'completed' | 'failed' | null;
  result: unknown;
  error: string | null;
  attempts_made: number | null;
  finished_at: Date | null;
}

/** Jobs of an account (outbox rows); another account's job is never found. */
export const jobRepository = {
  async get(accountId: number, jobId: string): Promise<JobRow | undefined> {
    return db()('outbox')
      .select('job_id', 'queue', 'job_name', 'created_at', 'relayed_at', 'relayed_as', 'state', 'result', 'error', 'attempts_made', 'finished_at')
      .where({ account_id: accountId, job_id: jobId })
      .first();
  },
};
