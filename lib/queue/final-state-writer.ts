import type { Knex } from 'knex';
import { log } from '../log';
import { FinalState, outboxRepository } from './outbox.repository';

/**
 * Writes the final states of a worker's outbox jobs to their rows in batches: one statement per
 * short interval instead of one per job, which at a high job rate is a large share of a
 * worker's database round trips. A state not yet written when the process dies is written by
 * the relay's repair sweep from BullMQ. Until a state is written, GET job/{job_id}/ reads it from
 * BullMQ, so clients do not see the delay.
 */
export class FinalStateWriter {
  private pending: ({ jobId: string } & FinalState)[] = [];
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly knex: () => Knex,
    private readonly intervalMs = 100,
    private readonly maxBatch = 500,
  ) {}

  record(jobId: string, state: FinalState): void {
    this.pending.push({ jobId, ...state });
    if (this.pending.length >= this.maxBatch) void this.flush();
    else
      this.timer ??= setTimeout(() => {
        void this.flush();
      }, this.intervalMs);
  }

  /** Writes what is pending; resolves when every write begun so far is done. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.pending;
    this.pending = [];
    if (batch.length > 0) {
      this.writing = this.writing
        .then(() => outboxRepository.recordFinals(this.knex(), batch))
        .catch((err: Error) => {
          log.warn({ err: err.message, jobs: batch.length }, 'could not record job results; the repair sweep will');
        });
    }
    return this.writing;
  }
}
