/**
 * Outbox rows the relay carries as one BullMQ job: the rows of one account and one mergeable
 * job name that a relay pass takes together become one job of the merged name (jobs.ts). Each
 * BullMQ job costs its own scripts and stream events in Redis and its own pass through the
 * worker; at a sale rate of tens per second the cia.adjust of each sale was most of the cia
 * queue's work, and its event.emit (order created) one BullMQ add of the relay per sale. Each row stays a job of its own for the outbox: its part of the merged job
 * carries its job id, gets its own final state (the processor answers one outcome per part),
 * and its row names the merged job (relayed_as) for GET job/{job_id}/ and the repair sweep.
 */
import crypto from 'node:crypto';
import type { JobsOptions } from 'bullmq';
import type { FinalState, OutboxRow } from './outbox.repository';
import type { JobName, MergedPart } from './jobs';
import { jobOptions } from './job-options';
import type { QueueName } from './queues';

/** Mergeable job name -> the job that carries several of them. */
export const mergedJobs: Partial<Record<JobName, JobName>> = { 'cia.adjust': 'cia.adjust_many', 'event.emit': 'event.emit_many' };

/** Most parts in one merged job: a retry redoes every part. */
export const maxParts = 100;

/** What a merged job's processor answers: each part's outcome by its job id. */
export interface MergedResult {
  parts: Record<string, { state: 'completed'; result: unknown } | { state: 'failed'; error: string }>;
}

/** One BullMQ add of a relay pass. */
export interface PlannedJob {
  queue: QueueName;
  name: string;
  data: unknown;
  opts: JobsOptions;
}

/** The BullMQ id of a merged job: from its parts' ids, so relaying the same rows again adds it once. */
export function mergedJobId(jobIds: string[]): string {
  return `many-${crypto.createHash('sha256').update(jobIds.join(',')).digest('hex').slice(0, 40)}`;
}

const isMergedName = (name: string): boolean => Object.values(mergedJobs).includes(name as JobName);

/**
 * The adds of a relay pass, in row order: each row its own job, except rows of a mergeable name
 * that share an account with others of this pass (up to maxParts together), which go as one
 * merged job at the place of the first. `carried`: which job carries which row when its id is not
 * the row's job_id (a merged job, or a keyed row's own job under its key).
 *
 * A row with a delay left (due_at) is added delayed by what is left, a row with a key under its
 * key: both go as jobs of their own. A keyed job's data names its row (`outbox_job_id`), so its
 * worker records its final state there (`outboxJobIdOf`).
 */
export function planJobs(rows: (OutboxRow & { queue: QueueName })[], merge: boolean): { jobs: PlannedJob[]; carried: { id: string; as: string }[] } {
  const groups = new Map<string, OutboxRow[][]>();
  if (merge) {
    for (const row of rows) {
      if (!mergedJobs[row.job_name as JobName] || row.job_key || row.delay_ms) continue;
      const key = `${row.account_id} ${row.job_name}`;
      const list = groups.get(key) ?? [[]];
      if (list[list.length - 1]!.length === maxParts) list.push([]);
      list[list.length - 1]!.push(row);
      groups.set(key, list);
    }
  }
  const groupOf = new Map<string, OutboxRow[]>();
  for (const list of groups.values()) for (const group of list) if (group.length > 1) for (const row of group) groupOf.set(row.id, group);
  const jobs: PlannedJob[] = [];
  const carried: { id: string; as: string }[] = [];
  for (const row of rows) {
    const group = groupOf.get(row.id);
    if (!group) {
      // A job's timestamp is when its row was written, so a job relayed late (a backlog, Redis
      // restarted) still tells when its event happened (events' occurred_at). Not for a delayed
      // row: BullMQ runs a delayed job at timestamp + delay, and its delay is what is left of it.
      const delay = row.delay_ms ? { delay: row.delay_ms } : row.created_at ? { timestamp: row.created_at.getTime() } : {};
      if (row.job_key) {
        jobs.push({
          queue: row.queue,
          name: row.job_name,
          data: { ...row.payload, outbox_job_id: row.job_id },
          opts: { ...jobOptions(row.job_name as JobName), jobId: row.job_key, ...delay },
        });
        carried.push({ id: row.id, as: row.job_key });
      } else
        jobs.push({ queue: row.queue, name: row.job_name, data: row.payload, opts: { ...jobOptions(row.job_name as JobName), jobId: row.job_id, ...delay } });
      continue;
    }
    if (group[0] !== row) continue;
    const name = mergedJobs[row.job_name as JobName]!;
    const jobId = mergedJobId(group.map((r) => r.job_id));
    const parts: MergedPart<Record<string, unknown>>[] = group.map((r) => ({
      jobId: r.job_id,
      data: r.payload,
      ...(r.created_at ? { queuedAt: r.created_at.getTime() } : {}),
    }));
    jobs.push({ queue: row.queue, name, data: { accountId: row.account_id, parts }, opts: { ...jobOptions(name), jobId } });
    carried.push(...group.map((r) => ({ id: r.id, as: jobId })));
  }
  return { jobs, carried };
}

/** The outbox row's job id of a BullMQ job: the one its data names (a keyed row's, planJobs), else its own id. */
export function outboxJobIdOf(job: { id?: string; data: unknown }): string {
  const named = (job.data as { outbox_job_id?: unknown } | null | undefined)?.outbox_job_id;
  return typeof named === 'string' ? named : (job.id ?? '');
}

/** A finished BullMQ job as the final-state paths see it. */
export interface FinishedJob {
  name: string;
  data: unknown;
  returnvalue: unknown;
  failedReason?: string;
  attemptsMade: number;
}

/**
 * The final states a finished job gives outbox rows: one per part of a merged job (failed as a
 * whole: every part failed), else the job's own under its id (`jobId`).
 */
export function finalStates(job: FinishedJob, jobId: string, failed: boolean): ({ jobId: string } & FinalState)[] {
  const { attemptsMade } = job;
  if (!isMergedName(job.name)) {
    return [
      failed
        ? { jobId, state: 'failed', error: job.failedReason ?? '', attemptsMade }
        : { jobId, state: 'completed', result: job.returnvalue ?? null, attemptsMade },
    ];
  }
  const parts = (job.data as { parts?: { jobId: string }[] }).parts ?? [];
  const outcomes = (job.returnvalue as MergedResult | null | undefined)?.parts ?? {};
  return parts.map(({ jobId: id }): { jobId: string } & FinalState => {
    const outcome = outcomes[id];
    if (failed || !outcome) return { jobId: id, state: 'failed', error: job.failedReason ?? 'no outcome for this part', attemptsMade };
    return outcome.state === 'completed'
      ? { jobId: id, state: 'completed', result: outcome.result ?? null, attemptsMade }
      : { jobId: id, state: 'failed', error: outcome.error, attemptsMade };
  });
}
