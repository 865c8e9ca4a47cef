/**
 * A quantity push whose outcome is unknown (README "A push whose outcome is unknown"): the call got
 * no answer in time, its connection was reset, or the portal answered a 5xx; the channel may apply
 * it after a newer push was acknowledged, and then offers the older quantity while CIA's state says
 * the newer one (nothing sends it again: the state is acknowledged). So its items are marked, and
 * once the late call can no longer land a delayed job has their latest quantities pushed once more.
 */
import { config } from '../../config';
import { ciaRepository, pushJob, PushTarget } from '../cia';
import { db } from '../db';
import { log } from '../log';
import { addKeyedToOutbox, queues } from '../queue';
import type { PushAgainJob } from '../queue';
import { portalPushUnknownRepository } from './portal-push-unknown.repository';

/** Jobs of one target due within the same second are one job (its key names the second). */
const dueStepMs = 1000;

/**
 * The items of a call whose outcome is unknown: marked, and a `portal.push_again` of their target
 * due when the call can no longer land, in one transaction (one row per item and one outbox row).
 * Due PORTAL_TIMEOUT_MS plus CIA_LATE_CALL_MARGIN_MS after now, rounded up to the second: the call
 * was sent at most the timeout before now, and the margin is how long a portal may go on with a
 * call its client left (README: the decision). Only on a failure; a failure to record it is logged
 * (the push's own error is what the job reports).
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
 * portal.push_again: the target's items marked due by `due` have their acknowledgement forgotten
 * (lib/cia `unknownAtChannel`: what the channel shows is not known, their sequence moves) and the
 * target's push is queued, so a push that reads them now, after the late call could land, sends
 * their latest quantity and is the only one that can acknowledge it. Under the target's lock, as
 * pushes are: no batch is out meanwhile, so none sent before is acknowledged over the forgetting.
 */
export async function pushAgainDue(job: PushAgainJob): Promise<{ stock_ids: number[] }> {
  const target: PushTarget = { portal: job.portal, portalAccountId: job.portalAccountId };
  const stockIds = await db().transaction(async (trx) => {
    await ciaRepository.lockTarget(trx, job.accountId, target);
    const due = await portalPushUnknownRepository.takeDue(trx, job.accountId, target, new Date(job.due));
    // Items whose state is gone (CIA no longer keeps them there) are not pushed.
    return due.length > 0 ? ciaRepository.unknownAtChannel(trx, job.accountId, target, due) : [];
  });
  // Queued even when this run took nothing: a retry after Redis refused the add finds the items taken already.
  await queues().addCoalesced('portal.set_quantity', [pushJob(job.accountId, job.portal, job.portalAccountId)], config().ciaPushWindowMs);
  return { stock_ids: stockIds };
}
