import type { Knex } from 'knex';
import { publicRequestId, requestOf } from '../db';
import { currentRequestId } from '../log';
import { causedJobs, currentEventCause } from './event-cause';
import { JobName, JobPayloads, jobQueues } from './jobs';

/**
 * The channel the relay LISTENs on. A trigger on outbox inserts notifies it (migration
 * 20261122_0601_outbox_notify); NOTIFY is delivered only when the transaction commits.
 */
export const outboxChannel = 'kontor_outbox';

/**
 * Records a side effect in the caller's transaction: it becomes a job only if the transaction
 * commits, and it is not lost if Redis is down at that moment. Returns the job id (a UUID),
 * which async endpoints answer as job_id and the relay uses as the BullMQ job id.
 */
export async function addToOutbox<J extends JobName>(trx: Knex.Transaction, accountId: number, job: J, payload: JobPayloads[J]): Promise<string> {
  const [row] = await trx('outbox')
    .insert({ account_id: accountId, queue: jobQueues[job], job_name: job, payload: withRequest(job, payload, requestIn(trx)) })
    .returning('job_id');
  return row!.job_id;
}

/**
 * A job a worker schedules for later, recorded in a transaction of its own work (the one that
 * writes the outcome it follows from, where there is one), so that it outlives a Redis that lost
 * its data: the relay adds it, and the repair re-adds it (lib/queue-recovery). `key` is its BullMQ
 * job id, unique per queue (outbox_job_key): a retried job that schedules the same follow-up adds
 * no second row, and answers undefined. `delayMs` fixes when it is due (due_at, by Postgres's
 * clock): the relay, and a re-add after a loss, add it with the delay left. Returns the row's job id.
 */
export async function addKeyedToOutbox<J extends JobName>(
  trx: Knex.Transaction,
  accountId: number,
  job: J,
  payload: JobPayloads[J],
  key: string,
  delayMs = 0,
): Promise<string | undefined> {
  const { rows } = (await trx.raw(
    `INSERT INTO outbox (account_id, queue, job_name, payload, job_key, due_at)
     VALUES (?, ?, ?, ?::jsonb, ?, now() + make_interval(secs => ?))
     ON CONFLICT (queue, job_key) WHERE job_key IS NOT NULL DO NOTHING
     RETURNING job_id`,
    [accountId, jobQueues[job], job, withRequest(job, payload, requestIn(trx)), key, delayMs / 1000],
  )) as { rows: { job_id: string }[] };
  return rows[0]?.job_id;
}

/**
 * One job of addManyToOutbox: its name and its payload; `requestId` when it is queued for
 * another request than the one in hand (a merged job's part).
 */
export type OutboxJob = { [J in JobName]: { job: J; payload: JobPayloads[J]; requestId?: string } }[JobName];

/**
 * addToOutbox for several jobs at once: one INSERT (rows in the order given), whatever the
 * number of jobs. Returns the job ids in the order of `jobs`.
 */
export async function addManyToOutbox(trx: Knex.Transaction, accountId: number, jobs: OutboxJob[]): Promise<string[]> {
  if (jobs.length === 0) return [];
  const { sql, bindings } = outboxInsert(accountId, jobs, requestIn(trx));
  const { rows } = (await trx.raw(`${sql} RETURNING id, job_id`, bindings)) as { rows: { id: string; job_id: string }[] };
  // Ids follow the insert order; RETURNING is not promised to.
  return rows.sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1)).map((r) => r.job_id);
}

/** The one INSERT of outbox rows, in the order given, queued for the request `requestId` (`requestIn`). */
export function outboxInsert(accountId: number, jobs: OutboxJob[], requestId: string | undefined): { sql: string; bindings: Knex.RawBinding[] } {
  return {
    sql: `INSERT INTO outbox (account_id, queue, job_name, payload)
     SELECT ?, t.queue, t.job_name, t.payload::jsonb
     FROM unnest(?::text[], ?::text[], ?::text[]) WITH ORDINALITY AS t(queue, job_name, payload, n)
     ORDER BY t.n`,
    bindings: [accountId, jobs.map((j) => jobQueues[j.job]), jobs.map((j) => j.job), jobs.map((j) => withRequest(j.job, j.payload, j.requestId ?? requestId))],
  };
}

/**
 * The request the jobs a transaction queues are for: the API call the web opened it for
 * (lib/db `transaction`), else the job in hand's (startWorker runs each job under its own).
 */
export function requestIn(trx: Knex.Transaction): string | undefined {
  return requestOf(trx) ?? currentRequestId();
}

/**
 * A job's data as stored: its payload and, when the job is queued on behalf of a request (the
 * API call, or a job that was itself queued by one), that request_id, so workers log it and
 * webhook deliveries send it. An event raised while an event handler's action runs carries the
 * chain of handlers that caused it (`cause`, event-cause.ts), so dispatch can end a chain of
 * handlers triggering each other.
 */
function withRequest(job: JobName, payload: object, requestId: string | undefined): string {
  const cause = causedJobs.has(job) && !('cause' in payload) ? currentEventCause() : undefined;
  // A request's key (a caller's requestId, lib/db commit-marks.ts) leaves the process as the request id the client knows.
  return JSON.stringify({ ...payload, ...(requestId ? { request_id: publicRequestId(requestId) } : {}), ...(cause ? { cause } : {}) });
}
