import type { Knex } from 'knex';
import { config } from '../../config';
import { db } from '../db/knex';
import { addManyToOutbox, OutboxJob } from '../queue/outbox';
import { queues as sharedQueues, QueueRegistry } from '../queue/queue.registry';
import { loadCiaInput as stockLoadCiaInput } from '../stock/stock-cia.repository';
import type { LoadCiaInput } from '../stock/cia-input';
import { computeOffers, dependents } from './cia-compute';
import { pushJob } from './cia-push-sweep';
import { ciaRepository, PortalAccountRef } from './cia.repository';

export interface AdjustOptions {
  /** Source of the item's data (default: lib/stock's loadCiaInput). */
  load?: LoadCiaInput;
  queues?: QueueRegistry;
  /** A reconcile tick: pushes again what is still waiting, refused quantities included. */
  tick?: string;
}

export interface AdjustResult {
  stock_id: number;
  portals: { portal: string; portal_account_id: number; quantity: number; acknowledged: number | null; push: boolean }[];
}

/** The portal accounts an offer goes to: market_d's list, else the account's one for that platform, else the default. */
function targetAccounts(portal: string, named: number[], accounts: PortalAccountRef[]): number[] {
  const own = new Set(accounts.map((a) => a.id));
  if (named.length > 0) return named.filter((id) => own.has(id));
  const forPlatform = accounts.filter((a) => a.platform === portal).map((a) => a.id);
  if (forPlatform.length > 0) return forPlatform;
  const fallback = accounts.find((a) => a.is_default) ?? accounts[0];
  return fallback ? [fallback.id] : [];
}

/** The adjustments of the dependent items, and the cia event when a quantity changed and cia.event has targets. */
function followUps(
  accountId: number,
  stockId: number,
  follow: number[],
  targets: string[],
  states: { portal: string; portal_account_id: number; desired_quantity: number }[],
): OutboxJob[] {
  const jobs: OutboxJob[] = follow.map((mainId) => ({ job: 'cia.adjust', payload: { accountId, stockId: mainId, reason: `dependent of ${stockId}` } }));
  if (targets.length > 0) {
    jobs.push({
      job: 'event.emit',
      payload: {
        accountId,
        section: 'stock',
        type: 'cia',
        recordId: String(stockId),
        data: { target: targets, quantity: states.map((s) => ({ portal: s.portal, portal_account_id: s.portal_account_id, quantity: s.desired_quantity })) },
      },
    });
  }
  return jobs;
}

/**
 * The cross-channel quantity adjustment of one item. Under a per-item lock it reads the item's
 * current data, sets the wanted quantity per (portal, portal account), and queues a push to
 * every target whose state the portal has not acknowledged yet. Pushes read the wanted
 * quantities when they run, so a burst of changes ends in pushes of the latest quantities
 * only. Dependent items (a variant's main, a set sub's mains) are adjusted next; cia.event
 * targets are notified. A reconcile (tick) also offers refused quantities once more.
 */
export async function adjustItem(accountId: number, stockId: number, options: AdjustOptions): Promise<AdjustResult> {
  const load = options.load ?? stockLoadCiaInput;
  const q = options.queues ?? sharedQueues();
  const states = await db().transaction(async (trx: Knex.Transaction) => {
    await ciaRepository.lockItem(trx, accountId, stockId);
    const input = await load(trx, accountId, stockId);
    const { states: current, accounts } = await ciaRepository.statesAndAccounts(trx, accountId, stockId);
    // Known from the states just read: most items of a reconcile have no refusal to forget.
    if (options.tick && current.some((s) => s.refused_seq !== '0')) await ciaRepository.forgetRefusals(trx, accountId, stockId);
    if (!input) {
      // A deleted item: whatever it still offers goes to 0.
      return ciaRepository.setDesired(
        trx,
        accountId,
        stockId,
        current,
        current.map((s) => ({ portal: s.portal, portalAccountId: s.portal_account_id, quantity: 0 })),
      );
    }
    const wanted = computeOffers(input).flatMap((offer) =>
      targetAccounts(offer.portal, offer.portalAccountIds, accounts).map((portalAccountId) => ({
        portal: offer.portal,
        portalAccountId,
        quantity: offer.quantity,
      })),
    );
    const rows = await ciaRepository.setDesired(trx, accountId, stockId, current, wanted);
    // Follow-ups go through the outbox, in this transaction: Postgres keeps them across a Redis restart.
    await addManyToOutbox(trx, accountId, followUps(accountId, stockId, dependents(input), rows.some((r) => r.changed) ? input.eventTargets : [], rows));
    return rows;
  });

  const pending = states.filter((s) => BigInt(s.acked_seq) < BigInt(s.desired_seq));
  // One push per target, coalesced: while a push of that target waits out its window, it takes
  // this change too; the first change of a window fixes when the call goes out. Only Redis
  // holds it: queueWaitingPushes derives it again from the states after a Redis restart.
  await q.addCoalesced(
    'portal.set_quantity',
    pending.map((s) => pushJob(accountId, s.portal, s.portal_account_id)),
    config().ciaPushWindowMs,
  );
  return {
    stock_id: stockId,
    portals: states.map((s) => ({
      portal: s.portal,
      portal_account_id: s.portal_account_id,
      quantity: s.desired_quantity,
      acknowledged: s.acked_quantity,
      push: BigInt(s.acked_seq) < BigInt(s.desired_seq),
    })),
  };
}
