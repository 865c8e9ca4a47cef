import { hostname } from 'node:os';
import { DelayedError, Job, UnrecoverableError, Worker } from 'bullmq';
import { config } from '../../config';
import { db } from '../db';
import { log, withRequestId } from '../log';
import { jobRunDuration } from '../metrics';
import { createRedis, isCluster, whenReady } from '../redis';
import { onShutdown } from '../shutdown';
import { FinalStateWriter } from './final-state-writer';
import { portalBackoff, portalRetryDelay } from './job-options';
import { finalStates, outboxJobIdOf } from './merged-jobs';
import type { Processors } from './processors';
import { bullPrefix, QueueName, queueNames } from './queues';

/** Outbox job ids are UUIDs; jobs added by workers and the scheduler carry other ids. */
const outboxJobId = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function requestIdOf(job: Job): string | undefined {
  const id = (job.data as { request_id?: unknown } | undefined)?.request_id;
  return typeof id === 'string' ? id : undefined;
}

/**
 * Redis must never evict keys under a queue: a dropped job is a lost stock update. Says what to
 * change when it would.
 */
export async function checkEvictionPolicy(): Promise<void> {
  const connection = createRedis('producer');
  connection.on('error', () => undefined);
  try {
    await whenReady(connection);
    // On a cluster every master holds queue keys: each must be noeviction.
    const nodes = isCluster(connection) ? connection.nodes('master') : [connection];
    for (const node of nodes) {
      const reply = (await node.config('GET', 'maxmemory-policy')) as string[];
      const policy = reply[1];
      if (!policy || policy === 'noeviction') continue;
      log.error(
        { policy, node: `${node.options.host ?? ''}:${node.options.port ?? ''}` },
        `Redis maxmemory-policy is ${policy}: set it to noeviction (redis-cli CONFIG SET maxmemory-policy noeviction, and in redis.conf) or queued jobs can be lost`,
      );
    }
  } catch (err) {
    log.warn({ err: (err as Error).message }, 'could not read Redis maxmemory-policy (CONFIG may be disabled); make sure it is noeviction');
  } finally {
    connection.disconnect();
  }
}

/** The configured concurrency of a queue's worker process. */
export function concurrencyOf(queue: QueueName): number {
  const c = config();
  if (queue === 'cia') return c.ciaWorkerConcurrency;
  if (queue === 'portal_upload') return c.portalUploadWorkerConcurrency;
  return c.workerConcurrency;
}

export interface WorkerOptions {
  /** Jobs run at once (default: concurrencyOf(queue)). */
  concurrency?: number;
  /** Lock of a job in hand; a killed worker's job is taken up again once it expires (default WORKER_LOCK_MS). */
  lockDuration?: number;
  /** How often stalled jobs are looked for (default WORKER_LOCK_MS). */
  stalledInterval?: number;
  /** Skip the eviction-policy check (tests start many workers). */
  skipEvictionCheck?: boolean;
  /** Register the worker for closing on SIGTERM (default true). */
  registerShutdown?: boolean;
}

/**
 * Starts the worker of a queue with its processors by job name. A job whose name has no
 * processor fails at once and is not retried: retrying cannot make it known. The final state of
 * an outbox job (completed, or failed after its last try) is written to its outbox row, so
 * GET job/{job_id}/ answers it after Redis dropped the job.
 */
export async function startWorker<Q extends QueueName>(queue: Q, processors: Processors<Q>, options: WorkerOptions = {}): Promise<Worker> {
  const byName: Partial<Record<string, (job: Job, token?: string) => Promise<unknown>>> = processors;
  if (!options.skipEvictionCheck) await checkEvictionPolicy();
  const concurrency = options.concurrency ?? concurrencyOf(queue);
  const connection = createRedis('worker');
  connection.on('error', (err) => log.warn({ err: err.message, queue }, 'redis connection error'));
  const finals = new FinalStateWriter(db);
  // The jobs in hand, named in the log if the process reaches its stop bound with them (lib/shutdown.ts).
  const inHand = new Map<string, Job>();
  const worker = new Worker(
    queueNames[queue],
    async (job, token) => {
      const processor = byName[job.name];
      if (!processor) throw new UnrecoverableError(`queue ${queue} has no processor for job ${job.name}`);
      // Log lines of the job and the jobs it queues carry the request that queued it (lib/queue/outbox.ts).
      const end = jobRunDuration.startTimer({ queue, job: job.name });
      const key = token ?? String(job.id);
      inHand.set(key, job);
      try {
        const result = await withRequestId(requestIdOf(job), () => processor(job, token));
        end({ outcome: 'completed' });
        return result;
      } catch (err) {
        // A job moved to delayed by its processor (a hold, a far portal slot) did not fail.
        end({ outcome: err instanceof DelayedError ? 'delayed' : 'failed' });
        throw err;
      } finally {
        inHand.delete(key);
      }
    },
    {
      connection,
      prefix: bullPrefix(queue),
      // Each job records the worker that ran it (job.processedBy): host and pid, which hosts did what.
      name: `${hostname()}:${process.pid}`,
      concurrency,
      autorun: true,
      lockDuration: options.lockDuration ?? config().workerLockMs,
      stalledInterval: options.stalledInterval ?? config().workerLockMs,
      maxStalledCount: 3,
      settings: {
        backoffStrategy: (attemptsMade, type, err) => (type === portalBackoff ? portalRetryDelay(attemptsMade, err) : -1),
      },
    },
  );
  // A merged job gives each of its parts (outbox rows) its own final state.
  const record = (job: Job, returnvalue: unknown, failedReason: string | undefined) => {
    const failed = failedReason !== undefined;
    for (const { jobId, ...final } of finalStates(
      { name: job.name, data: job.data, returnvalue, failedReason, attemptsMade: job.attemptsMade },
      outboxJobIdOf(job),
      failed,
    ))
      if (outboxJobId.test(jobId)) finals.record(jobId, final);
  };
  worker.on('completed', (job, result) => record(job, result, undefined));
  worker.on('failed', (job, err) => {
    if (!job) return;
    const final = err instanceof UnrecoverableError || err.name === 'UnrecoverableError' || job.attemptsMade >= (job.opts.attempts ?? 1);
    log.warn({ queue, job_id: job.id, job: job.name, req_id: requestIdOf(job), attempt: job.attemptsMade, final, err: err.message }, 'job failed');
    if (final) record(job, undefined, err.message);
  });
  worker.on('error', (err) => log.warn({ queue, err: err.message }, 'worker error'));
  await worker.waitUntilReady();
  log.info({ queue, concurrency, env: config().env }, 'worker ready');
  if (options.registerShutdown ?? true) {
    onShutdown(
      `worker ${queue}`,
      async () => {
        // close() lets the jobs in hand finish; a job that outlives the stop bound (SHUTDOWN_TIMEOUT_MS)
        // is named in the log and taken up again by another worker once its lock expires.
        await worker.close();
        await finals.flush();
        connection.disconnect();
      },
      () => [...inHand.values()].map((job) => ({ queue, job_id: job.id, job: job.name, ...(requestIdOf(job) ? { req_id: requestIdOf(job) } : {}) })),
    );
  }
  return worker;
}
