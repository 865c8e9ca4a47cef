import { config } from '../../config';
import { db } from '../db';
import { outboxRepository, queues } from '../queue';
import { ciaRepository } from './cia.repository';

/**
 * The periodic full reconcile: one cia.adjust per item with an active portal or a portal
 * state, each with an id derived from the tick (a second scheduler adds nothing twice). The
 * adjustments push only where the portal's acknowledged quantity differs from the wanted one.
 */
export async function reconcileAll(tick: string): Promise<{ items: number }> {
  let after = { accountId: 0, stockId: 0 };
  let items = 0;
  for (;;) {
    const page = await ciaRepository.itemsToReconcile(db(), after, 500);
    for (const item of page) {
      await queues().add('cia.adjust', { accountId: item.account_id, stockId: item.id, reason: 'reconcile' }, `rec-${tick}-${item.account_id}-${item.id}`);
    }
    items += page.length;
    const last = page[page.length - 1];
    if (!last || page.length < 500) return { items };
    after = { accountId: last.account_id, stockId: last.id };
  }
}

/** Removes finished outbox rows older than the job retention. */
export async function cleanupOutbox(): Promise<{ removed: number }> {
  return { removed: await outboxRepository.deleteFinishedBefore(db(), config().jobRetentionSeconds) };
}
