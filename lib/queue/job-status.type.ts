/** Job status as API clients read it (GET job/{job_id}/). */
export interface JobStatus {
  id: string;
  /** queued (in the outbox or waiting, also between retries), active, completed, failed (after the last try). */
  state: 'queued' | 'active' | 'completed' | 'failed';
  /** The job's result, once completed. */
  result?: unknown;
  /** The last error: the final one when failed, the one being retried while queued again. */
  error?: string;
  /** Tries made so far. */
  attempts: number;
  created_date: string;
  started_date?: string;
  finished_date?: string;
}
