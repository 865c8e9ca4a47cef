import { UnrecoverableError } from 'bullmq';
import { ciaRepository } from '../cia/cia.repository';
import { db } from '../db/knex';
import { adapterFor } from './portal.registry';
import type { PortalId } from './portal.types';
import { waitForPortalSlot } from './portal-rate-limit';
import { portalTargetRepository } from './portal-target.repository';

export interface PushResult {
  quantity?: number;
  seq?: string;
  /** Nothing to send: the portal already acknowledged the wanted quantity. */
  skipped?: boolean;
}

/**
 * Sends the wanted quantity of one (item, portal, portal account) to the portal. Under the
 * push lock it reads the latest wanted quantity, sends it with an idempotency key of its
 * sequence, and records the acknowledgement; pushes of one state never overlap, so an older
 * quantity never arrives after a newer one. Already acknowledged: nothing is sent.
 */
export async function pushQuantity(accountId: number, stockId: number, portal: PortalId, portalAccountId: number): Promise<PushResult> {
  const before = await ciaRepository.state(db(), accountId, stockId, portal, portalAccountId);
  // Checked before taking a call slot: the many jobs of a burst must not use up the rate limit.
  if (!before || BigInt(before.acked_seq) >= BigInt(before.desired_seq)) return { skipped: true };
  await waitForPortalSlot(portal, portalAccountId);
  try {
    return await db().transaction(async (trx) => {
      await ciaRepository.lockPush(trx, before.id);
      const state = await ciaRepository.state(trx, accountId, stockId, portal, portalAccountId);
      if (!state || BigInt(state.acked_seq) >= BigInt(state.desired_seq)) return { skipped: true };
      const target = await portalTargetRepository.target(trx, accountId, portalAccountId);
      if (!target) throw new UnrecoverableError(`portal account ${portalAccountId} no longer exists`);
      await adapterFor(portal).setQuantity(target, stockId, state.desired_quantity, `cia-${state.id}-${state.desired_seq}`);
      await ciaRepository.ack(trx, state.id, state.desired_seq, state.desired_quantity);
      return { quantity: state.desired_quantity, seq: state.desired_seq };
    });
  } catch (err) {
    await ciaRepository.recordError(db(), before.id, (err as Error).message).catch(() => undefined);
    throw err;
  }
}
