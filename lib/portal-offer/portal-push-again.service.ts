/**
 * A quantity push whose outcome is unknown (README "A push whose outcome is unknown"): the call got
 * no answer in time after it was written, its connection was reset, or the portal answered a 5xx;
 * the channel may apply it after a newer push was acknowledged, and then offers the older quantity
 * while CIA's state says the newer one (nothing sends it again: the state is acknowledged). So its
 * items are marked, and once the late call can no longer land a delayed job has their latest
 * quantities pushed once more: once per episode, so a portal that stays down is not called again
 * at every deadline.
 */
import type { Knex } from 'knex';
import { config } from '../../config';
import { CiaStateRow, ciaRepository, pushJob, PushTarget } from '../cia';
import { db } from '../db';
import { log } from '../log';
import { addKeyedToOutbox, queues } from '../queue';
import type { PushAgainJob } from '../queue';
import { portalPushUnknownRepository } from './portal-push-unknown.repository';

/** Jobs of one target due within the same second are one job (its key names the second). */
const dueStepMs = 1000;

/**
 * Of the items of a failed call that may still land (lib/errors `mayHaveLanded`, or an item's
 * `mayHaveLanded` retry), those to mark: all but the ones in an episode pushed again already,
 * i.e. taken by portal.push_again before this call was sent (read here, under the target's lock
 * the failed batch holds: no push again takes anything while its call is out) and not
 * acknowledged since (the state this batch read has no acknowledged quantity: the push again
 * forgot it, and only an acknowledgement sets it again). Such a push is the push again's own, or
 * another before the item was taken anywhere: its failure falls back to the job's tries and the
 * reconcile (its last_error), as a failed push did before push again existed. Reads only when an
 * item's acknowledgement is unknown; a read that fails marks them all.
 */
export async function toPushAgain(trx: Knex.Transaction, accountId: number, target: PushTarget, landed: CiaStateRow[]): Promise<number[]> {
  const unacked = landed.filter((s) => s.acked_quantity === null).map((s) => s.stock_id);
  const episodes = await portalPushUnknownRepository.pushedAgain(trx, accountId, target, unacked).catch(() => new Set<number>());
  return landed.map((s) => s.stock_id).filter((id) => !episodes.has(id));
}

/**
 * The items of a call whose outcome is unknown (chosen by `toPushAgain`): marked, and a
 * `portal.push_again` of their target due when the call can no longer land, in one transaction
 * (one row per item and one outbox row). Due PORTAL_TIMEOUT_MS plus CIA_LATE_CALL_MARGIN_MS after
 * now, rounded up to the second: the call was sent at most the timeout before now, and the margin
 * is how long a portal may go on with a call its client left (README: the decision). Only on a
 * failure; a failure to record it is logged (the push's own error is what the job reports).
 */
export async function pushAgainLater(accountId: number, target: PushTarget, stockIds: number[]): Promise<void> {
  if (stockIds.length === 0) return;
  const c = config();
  const dueMs = Math.ceil((Date.now() + c.portalTimeoutMs + c.ciaLateCallMarginMs) / dueStepMs) * dueStepMs;
  const due = new Date(dueMs);
  const job: PushAgainJob = { accountId, portal: target.portal, portalAccountId: target.portalAccountId, due: due.toISOString() };
  try {
    await db().transaction(async (trx) => {
      await portalPushUnknownRepository.mark(trx, accountId, target, stockIds, due);
      // The same second's failures of a target share the job: it takes every item marked due by then.
      await addKeyedToOutbox(
        trx,
        accountId,
        'portal.push_again',
        job,
        `push-again-${accountId}-${target.portal}-${target.portalAccountId}-${dueMs}`,
        Math.max(0, dueMs - Date.now()),
      );
    });
  } catch (err) {
    log.error({ err, accountId, ...target, stockIds: stockIds.slice(0, 20) }, 'a push with an unknown outcome could not be marked to be sent again');
  }
}

/**
 * portal.push_again: the target's items marked due by `due` and not taken yet are taken (they stay,
 * as their episode's mark), have their acknowledgement forgotten (lib/cia `unknownAtChannel`: what
 * the channel shows is not known, their sequence moves) and the target's push is queued, so a push
 * that reads them now, after the late call could land, sends their latest quantity and is the only
 * one that can acknowledge it. Under the target's lock, as pushes are: no batch is out meanwhile,
 * so none sent before is acknowledged over the forgetting. Nothing taken (a later failure moved
 * the items on to its own job, or they were taken already): no push, so a job whose items went on
 * does not call the portal. The push is queued before the take commits: a Redis that refuses it
 * rolls the take back and the job's retry takes them again; the push, under the lock, reads them
 * only after the commit.
 */
export async function pushAgainDue(job: PushAgainJob): Promise<{ stock_ids: number[] }> {
  const target: PushTarget = { portal: job.portal, portalAccountId: job.portalAccountId };
  const stockIds = await db().transaction(async (trx) => {
    await ciaRepository.lockTarget(trx, job.accountId, target);
    const due = await portalPushUnknownRepository.takeDue(trx, job.accountId, target, new Date(job.due));
    // Items whose state is gone (CIA no longer keeps them there) are not pushed.
    const forgotten = due.length > 0 ? await ciaRepository.unknownAtChannel(trx, job.accountId, target, due) : [];
    if (forgotten.length > 0)
      await queues().addCoalesced('portal.set_quantity', [pushJob(job.accountId, job.portal, job.portalAccountId)], config().ciaPushWindowMs);
    return forgotten;
  });
  return { stock_ids: stockIds };
}
