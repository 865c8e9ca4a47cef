import { Job, UnrecoverableError } from 'bullmq';
import { DomainError, isPermanent } from '../errors';
import type { JobName, JobPayloads, JobsOf } from './jobs';
import type { QueueName } from './queues';

/** A job of the catalog as its processor sees it. */
export type CatalogJob<J extends JobName> = Job<JobPayloads[J]>;

/**
 * Runs one job: its payload typed from the catalog, the job (id, attempts, updateData), and the
 * worker's lock token (BullMQ's `moveToDelayed(timestamp, token)`: a job that waits without spending a try).
 */
export type JobHandler<J extends JobName> = (data: JobPayloads[J], job: CatalogJob<J>, token?: string) => Promise<unknown>;

/** The processors of a queue by job name, as startWorker runs them. */
export type Processors<Q extends QueueName> = { readonly [J in JobsOf<Q>]: (job: CatalogJob<J>, token?: string) => Promise<unknown> };

/** A handler for every job name of the queue, and no other name (not even another queue's job). */
type Handlers<Q extends QueueName> = { [J in JobsOf<Q>]: JobHandler<J> } & { [J in Exclude<JobName, JobsOf<Q>>]?: never };

/**
 * Declares the processors of a queue against the job catalog (lib/queue/jobs.ts): the keys
 * must be exactly the job names jobQueues puts on the queue, and each handler gets its job's
 * payload type, so a processor needs no cast.
 */
export function defineProcessors<Q extends QueueName>(_queue: Q, handlers: NoInfer<Handlers<Q>>): Processors<Q> {
  const entries = Object.entries(handlers as Record<string, JobHandler<JobName>>);
  // The one place where names meet payloads at run time: the worker picks the handler by job.name.
  return Object.fromEntries(
    entries.map(([name, handle]) => [
      name,
      (job: Job, token?: string) =>
        handle(job.data, job, token).catch((err: unknown) => {
          throw jobFailure(err);
        }),
    ]),
  ) as Processors<Q>;
}

/**
 * The one mapping of a domain error to BullMQ: a permanent kind (invalid input, not found,
 * refused by a portal, forbidden, ...: see errorKinds) fails the job at once with
 * UnrecoverableError; the others (throttled, unavailable, a portal that did not answer) are
 * thrown as they are and retried with backoff (retryAfterSeconds, where given, sets the delay).
 */
export function jobFailure(err: unknown): unknown {
  if (err instanceof DomainError && isPermanent(err)) return new UnrecoverableError(err.message);
  return err;
}
