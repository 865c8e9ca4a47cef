import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { config } from '../../config';
import { createRedis } from '../redis';
import { JobName, JobPayloads, jobQueues } from './jobs';
import { jobOptions } from './job-options';
import { QueueName, queueNames } from './queues';

/**
 * The producer side of the queues: one Queue per name on one fail-fast connection, so an add
 * while Redis is away errors at once instead of hanging a request or the relay.
 */
export class QueueRegistry {
  private connection: Redis | undefined;
  private readonly queues = new Map<QueueName, Queue>();

  /** The Queue of a name (created on first use). */
  get(name: QueueName): Queue {
    let queue = this.queues.get(name);
    if (!queue) {
      if (!this.connection) {
        this.connection = createRedis('producer');
        this.connection.on('error', () => undefined);
      }
      queue = new Queue(queueNames[name], { connection: this.connection, prefix: config().queuePrefix });
      queue.on('error', () => undefined);
      this.queues.set(name, queue);
    }
    return queue;
  }

  /** Adds a job with its name's options; jobId makes the add idempotent (an existing id is kept). */
  async add<J extends JobName>(name: J, payload: JobPayloads[J], jobId: string, extra: { delay?: number } = {}): Promise<void> {
    await this.get(jobQueues[name]).add(name, payload, { ...jobOptions(name), ...extra, jobId });
  }

  /** Adds several jobs of one queue in one round trip (same rules as add). */
  async addMany<J extends JobName>(name: J, jobs: { payload: JobPayloads[J]; jobId: string }[]): Promise<void> {
    if (jobs.length === 0) return;
    await this.get(jobQueues[name]).addBulk(jobs.map((j) => ({ name, data: j.payload, opts: { ...jobOptions(name), jobId: j.jobId } })));
  }

  /**
   * Adds jobs that coalesce by key: while a job of the key waits, an add is absorbed by it;
   * while one runs, one more is kept to run after it (BullMQ deduplication, keepLastIfActive).
   * So jobs of one key never run side by side, and a change made while one runs is never lost.
   * For processors that read the latest state when they run.
   */
  async addCoalesced<J extends JobName>(name: J, jobs: { payload: JobPayloads[J]; key: string }[], extra: { delay?: number } = {}): Promise<void> {
    if (jobs.length === 0) return;
    await this.get(jobQueues[name]).addBulk(jobs.map((j) => ({
      name, data: j.payload, opts: { ...jobOptions(name), ...extra, deduplication: { id: j.key, keepLastIfActive: true } },
    })));
  }

  async close(): Promise<void> {
    for (const queue of this.queues.values()) await queue.close().catch(() => undefined);
    this.queues.clear();
    this.connection?.disconnect();
    this.connection = undefined;
  }
}

let shared: QueueRegistry | undefined;

/** The process's queues (web: job status; workers: follow-up jobs). */
export function queues(): QueueRegistry {
  shared ??= new QueueRegistry();
  return shared;
}

/** Closes the process's queues (shutdown, tests). */
export async function closeQueues(): Promise<void> {
  const current = shared;
  shared = undefined;
  await current?.close();
}
