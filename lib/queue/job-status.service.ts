import type { Caller, Scope } from '../access';
import { dependencyUnavailable, forbidden, notFound } from '../errors';
import { finalStates } from './merged-jobs';
import { queues } from './queue.registry';
import { QueueName, queueNames } from './queues';
import { jobRepository, JobRow } from './job-status.repository';
import type { JobStatus } from './job-status.type';

const iso = (ms: number | Date | null | undefined): string | undefined => (ms === null || ms === undefined ? undefined : new Date(ms).toISOString());

function withoutUndefined(status: JobStatus): JobStatus {
  return Object.fromEntries(Object.entries(status).filter(([, v]) => v !== undefined)) as unknown as JobStatus;
}

/**
 * The scope a job's state and result need: the read scope of the data they show (a CIA or listing
 * job's the item's offers, a send_mit job's the buyer's address, a statement job's the payments),
 * as the GET of that data needs it (document 1, Authentication 5). By queue: a queue serves one
 * domain. A row of a queue not listed (none today) needs no more than a token.
 */
const readScopeOf: Record<QueueName, Scope> = {
  cia: 'stock_r',
  portal_upload: 'stock_r',
  bank: 'bank_r',
  mail: 'order_r',
  events: 'admin_r',
  order_import: 'order_r',
  invoice: 'order_r',
};

/**
 * The state of one of the caller's jobs: final states from the outbox row (they outlive
 * Redis), queued while the row waits for the relay, else what BullMQ says. 404 for a job of
 * another account, or (for a client bound to one portal account) one not started under that
 * portal account, exactly as for an unknown one.
 */
export async function jobStatus(caller: Caller, jobId: string): Promise<JobStatus> {
  const row = await jobRepository.get(caller, jobId);
  if (!row) throw notFound(`job ${jobId}`, 'job_id');
  const needed = readScopeOf[row.queue as QueueName];
  if (needed && !caller.scopes.has(needed)) throw forbidden(needed);
  const base: JobStatus = { id: row.job_id, state: 'queued', attempts: row.attempts_made ?? 0, created_date: row.created_at.toISOString() };
  if (row.state) {
    return withoutUndefined({
      ...base,
      state: row.state,
      result: row.state === 'completed' ? (row.result ?? undefined) : undefined,
      error: row.error ?? undefined,
      finished_date: iso(row.finished_at),
    });
  }
  if (!row.relayed_at) return base;
  return withoutUndefined(await fromQueue(row, base));
}

/**
 * Why a job waits without having failed (moved to delayed without spending a try: a send_mit
 * waiting for a store's fulfillment hold, lib/order send-mit-hold.ts): `progress.waiting` of its data.
 */
function waitingOf(data: unknown): string | undefined {
  const waiting = (data as { progress?: { waiting?: unknown } } | null)?.progress?.waiting;
  return typeof waiting === 'string' ? waiting : undefined;
}

async function fromQueue(row: JobRow, base: JobStatus): Promise<JobStatus> {
  if (!(row.queue in queueNames)) return base;
  try {
    const queue = queues().get(row.queue as QueueName);
    // State first, then the job: read the other way round, a job finishing in between would
    // show as failed without its reason.
    // A row relayed inside a merged job: that job's state, and this part's outcome.
    const id = row.relayed_as ?? row.job_id;
    const state = await queue.getJobState(id);
    const job = await queue.getJob(id);
    // Relayed but gone from Redis: the relay's repair sweep queues it again.
    if (!job || state === 'unknown') return base;
    const common = { ...base, attempts: job.attemptsMade, started_date: iso(job.processedOn) };
    if (state === 'completed' || state === 'failed') {
      const final = finalStates(job, row.job_id, state === 'failed').find((f) => f.jobId === row.job_id);
      if (final?.state === 'completed') return { ...common, state: 'completed', result: final.result ?? undefined, finished_date: iso(job.finishedOn) };
      return { ...common, state: 'failed', error: final?.error ?? job.failedReason, finished_date: iso(job.finishedOn) };
    }
    if (state === 'active') return { ...common, state: 'active', error: job.failedReason || undefined };
    return { ...common, state: 'queued', error: waitingOf(job.data) ?? (job.failedReason || undefined) };
  } catch {
    // Redis holds the only record of this job's state now: guessing "queued" could hide a
    // finished job, so the client is asked to come back.
    throw dependencyUnavailable('redis');
  }
}

/** Job ids in an answer: `job_id`, and the `job_id` of each part of a 207 `response[]`. */
function jobIdsIn(payload: Record<string, unknown>): string[] {
  const ids: string[] = [];
  if (typeof payload.job_id === 'string') ids.push(payload.job_id);
  if (Array.isArray(payload.response)) {
    for (const part of payload.response as unknown[]) {
      const id = part !== null && typeof part === 'object' ? (part as Record<string, unknown>).job_id : undefined;
      if (typeof id === 'string') ids.push(id);
    }
  }
  return ids;
}

/**
 * After a request answered job ids: a caller bound to one portal account is recorded as their
 * creator, before the answer goes out, so it (and any client bound to the same portal account)
 * can read them at GET job/{job_id}/. Callers granted every portal account see every job of the
 * account and need no record.
 */
export async function recordJobsAnswered(caller: Caller, payload: Record<string, unknown>): Promise<void> {
  if (caller.portalAccountGrant === 'all') return;
  await jobRepository.recordCreator(
    { accountId: caller.accountId, oauthClientId: caller.oauthClientId, portalAccountId: caller.portalAccountGrant },
    jobIdsIn(payload),
  );
}
