/**
 * A portal_upload job whose portal account's call slot is far gives its worker back (lib/portal-offer
 * README, "A job whose slot is far gives its worker back"): the slot stays reserved for it, the
 * job is moved to delayed until then without spending a try, and comes back to use that slot, not
 * another. Before, it slept in its worker, so one seller's backlog at one portal account held the
 * queue's workers and every other seller's uploads and CIA pushes waited behind it.
 */
import { DelayedError, Job } from 'bullmq';
import { PortalSlotLater } from '../portals';
import type { PortalSlot, SlotTurn } from '../portals';

/**
 * What the job keeps in its BullMQ progress while it waits: the slot, the try it was reserved in
 * (a later try reserves its own: the slot went with the failed one), and what the job's earlier
 * part did (a push's batches sent before it gave its worker back).
 */
interface TurnProgress<C> {
  slot: PortalSlot;
  attempt: number;
  carried?: C;
}

/** A job's turn: the slot it holds, and what it carries over (set before each wait that may give the worker back). */
export interface JobTurn<C> extends SlotTurn {
  carried?: C;
}

function progressOf<C>(job: Job): TurnProgress<C> | undefined {
  const progress = job.progress as Partial<TurnProgress<C>> | number | null | undefined;
  if (typeof progress !== 'object' || progress === null || !progress.slot || progress.attempt !== job.attemptsMade) return undefined;
  return progress as TurnProgress<C>;
}

/**
 * Runs a job's work in a turn at its portal account's slots. Thrown PortalSlotLater: the slot
 * and what the turn carries go into the job's progress (one command), the job is moved to delayed
 * until the slot (one command; attempts unchanged), and DelayedError tells BullMQ the job was
 * moved. Without a lock token (a processor called outside a worker) the work sleeps as before.
 * A job whose slot is near costs nothing more than the slot's one script call.
 */
export async function inSlotTurn<C, R>(job: Job, token: string | undefined, work: (turn: JobTurn<C> | undefined) => Promise<R>): Promise<R> {
  if (!token) return work(undefined);
  const saved = progressOf<C>(job);
  const turn: JobTurn<C> = saved ? { held: saved.slot, ...(saved.carried !== undefined ? { carried: saved.carried } : {}) } : {};
  try {
    return await work(turn);
  } catch (err) {
    if (!(err instanceof PortalSlotLater)) throw err;
    const progress: TurnProgress<C> = { slot: err.slot, attempt: job.attemptsMade, ...(turn.carried !== undefined ? { carried: turn.carried } : {}) };
    await job.updateProgress(progress);
    await job.moveToDelayed(Date.now() + err.waitMs, token);
    throw new DelayedError();
  }
}
