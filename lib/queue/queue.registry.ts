import crypto from 'node:crypto';
import { Queue } from 'bullmq';
import { createRedis, RedisClient, whenReady } from '../redis';
import { JobName, JobPayloads, jobQueues } from './jobs';
import { jobOptions } from './job-options';
import { bullPrefix, QueueName, queueNames } from './queues';

/**
 * The producer side of the queues: one Queue per name on one fail-fast connection, so an add
 * while Redis is away errors at once instead of hanging a request or the relay.
 */
export class QueueRegistry {
  private connection: RedisClient | undefined;
  private readonly queues = new Map<QueueName, Queue>();
  /** addCoalesced: until when a delayed job this process created covers a key's changes. */
  private readonly covered = new Map<string, number>();

  /** The producer connection the queues share (created on first use). */
  client(): RedisClient {
    if (!this.connection) {
      this.connection = createRedis('producer');
      this.connection.on('error', () => undefined);
    }
    return this.connection;
  }

  /** The Queue of a name (created on first use). */
  get(name: QueueName): Queue {
    let queue = this.queues.get(name);
    if (!queue) {
      const created = new Queue(queueNames[name], { connection: this.client(), prefix: bullPrefix(name) });
      created.on('error', () => undefined);
      this.queues.set(name, created);
      // A Queue keeps the outcome of its first checks (BullMQ asks INFO once) for its whole life:
      // one that timed out (on a cluster, a node still connecting; a stalled event loop) would
      // fail every later add at once. Such a Queue is dropped; the next add makes a new one.
      created.waitUntilReady().catch(() => {
        if (this.queues.get(name) !== created) return;
        this.queues.delete(name);
        void created.close().catch(() => undefined);
      });
      queue = created;
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
   *
   * With a delay, the job an add creates cannot start before the delay is over, so it will read
   * any change made until then: further adds of the key are skipped until shortly before that (a
   * margin for the clocks of other hosts). The same holds for a delayed job that absorbed the
   * add: its id carries the time it was due at when it was added (a job made from a kept add
   * when the running one finished starts even later), so its due time needs no round trip. A
   * job already due says nothing about when it starts (it may be running): no skip then.
   */
  async addCoalesced<J extends JobName>(name: J, jobs: { payload: JobPayloads[J]; key: string }[], delayMs = 0): Promise<void> {
    const now = Date.now();
    const due = jobs.filter((j) => (this.covered.get(j.key) ?? 0) <= now);
    if (due.length === 0) return;
    const ids = due.map((j) => `${j.key}-due${now + delayMs}-${crypto.randomUUID()}`);
    const added = await this.get(jobQueues[name]).addBulk(
      due.map((j, i) => ({
        name,
        data: j.payload,
        opts: { ...jobOptions(name), delay: delayMs, jobId: ids[i], deduplication: { id: j.key, keepLastIfActive: true } },
      })),
    );
    const margin = Math.min(50, delayMs / 2);
    added.forEach((job, i) => {
      const until = dueOf(job.id) - margin;
      if (until > now) this.covered.set(due[i]!.key, until);
      else this.covered.delete(due[i]!.key);
    });
    if (this.covered.size > 100000) for (const [key, until] of this.covered) if (until <= now) this.covered.delete(key);
  }

  /**
   * Whether Redis answers a PING on the producer connection within ms (default 2000): the
   * connection ready (a new one waits for that), the answer come. Never throws.
   */
  async answers(ms = 2000): Promise<boolean> {
    const connection = this.client();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    });
    const pinged = whenReady(connection, ms)
      .then(() => connection.ping())
      .then(
        (answer) => answer === 'PONG',
        () => false,
      );
    try {
      return await Promise.race([pinged, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    for (const queue of this.queues.values()) await queue.close().catch(() => undefined);
    this.queues.clear();
    this.connection?.disconnect();
    this.connection = undefined;
  }
}

/** When a job of addCoalesced was due as it was added (ms), from its id; 0 for other ids. */
function dueOf(jobId: string | undefined): number {
  const match = /-due(\d+)-/.exec(jobId ?? '');
  return match ? Number(match[1]) : 0;
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
