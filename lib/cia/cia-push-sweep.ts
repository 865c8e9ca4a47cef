import type { Knex } from 'knex';
import { config } from '../../config';
import type { JobPayloads, QueueRegistry } from '../queue';
import { ciaRepository } from './cia.repository';

/**
 * Queues a push for every target with a state the portal has not acknowledged, derived from
 * Postgres alone: push jobs live only in Redis, and a Redis restart without persistence loses
 * them. Adds coalesce per target, so a target whose push still waits gets nothing twice.
 * `settledSeconds`: only states unchanged for that long and without an error (the periodic
 * sweep: a fresh change has its push in hand; a failed one waits for its retry or the
 * reconcile). Without it (after a restart), every waiting state. Returns how many targets.
 */
/** The coalesced push job of one target (one key per target: its pushes never run side by side). */
export function pushJob(accountId: number, portal: string, portalAccountId: number): { payload: JobPayloads['portal.set_quantity']; key: string } {
  return { payload: { accountId, portal, portalAccountId }, key: `push-${accountId}-${portal}-${portalAccountId}` };
}

export async function queueWaitingPushes(knex: Knex, queues: QueueRegistry, settledSeconds?: number): Promise<number> {
  const targets = await ciaRepository.waitingTargets(knex, settledSeconds);
  for (let i = 0; i < targets.length; i += 500) {
    await queues.addCoalesced(
      'portal.set_quantity',
      targets.slice(i, i + 500).map((t) => pushJob(t.account_id, t.portal, t.portal_account_id)),
      config().ciaPushWindowMs,
    );
  }
  return targets.length;
}
