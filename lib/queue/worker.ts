import { Job, UnrecoverableError, Worker } from 'bullmq';
import { config } from '../../config';
import { log } from '../log';
import { createRedis, whenReady } from '../redis';
import { onShutdown } from '../shutdown';
import { QueueName, queueNames } from './queues';

export type Processor = (job: Job) => Promise<unknown>;

/**
 * Redis must never evict keys under a queue: a dropped job is a lost stock update. Says what to
 * change when it would.
 */
export async function checkEvictionPolicy(): Promise<void> {
  const connection = createRedis('producer');
  connection.on('error', () => undefined);
  try {
    await whenReady(connection);
    const reply = await connection.config('GET', 'maxmemory-policy') as string[];
    const policy = reply[1];
    if (policy && policy !== 'noeviction') {
      log.error({ policy }, `Redis maxmemory-policy is ${policy}: set it to noeviction (redis-cli CONFIG SET maxmemory-policy noeviction, and in redis.conf) or queued jobs can be lost`);
    }
  } catch (err) {
    log.warn({ err: (err as Error).message }, 'could not read Redis maxmemory-policy (CONFIG may be disabled); make sure it is noeviction');
  } finally {
    connection.disconnect();
  }
}

/**
 * Starts the worker of a queue with its processors by job name. A job whose name has no
 * processor fails at once and is not retried: retrying cannot make it known.
 */
export async function startWorker(queue: QueueName, processors: Record<string, Processor>, concurrency = 4): Promise<Worker> {
  await checkEvictionPolicy();
  const connection = createRedis('worker');
  connection.on('error', (err) => log.warn({ err: err.message, queue }, 'redis connection error'));
  const worker = new Worker(queueNames[queue], async (job) => {
    const processor = processors[job.name];
    if (!processor) throw new UnrecoverableError(`queue ${queue} has no processor for job ${job.name}`);
    return processor(job);
  }, { connection, concurrency, autorun: true });
  worker.on('failed', (job, err) => log.warn({ queue, job_id: job?.id, job: job?.name, err: err.message }, 'job failed'));
  worker.on('error', (err) => log.warn({ queue, err: err.message }, 'worker error'));
  await worker.waitUntilReady();
  log.info({ queue, concurrency, env: config().env }, 'worker ready');
  onShutdown(`worker ${queue}`, async () => {
    await worker.close();
    connection.disconnect();
  });
  return worker;
}
