import type { Knex } from 'knex';
import { queueCiaAdjust } from '../stock';
import { ciaRepository, PushTarget } from './cia.repository';

/**
 * A channel order's lines that took the seller's stock were sold at that channel (portal and
 * portal account): eBay, Kaufland, Amazon and Shopify take sold units off the offer themselves
 * (README "What a channel sells itself"), so the channel shows CIA's last acknowledged quantity
 * less them. Recorded in the import's transaction: the adjustment its stock change queues (or the
 * push sweep) sends the wanted quantity again, also when it did not change (an item held at its
 * max_quantity, a sale undone elsewhere before the push). Lines taking no stock (fulfilled by the
 * channel or an app, unlinked) change nothing: the channel's own stock sold, not the offer CIA sets.
 */
export async function channelSold(trx: Knex.Transaction, accountId: number, target: PushTarget, lines: { stockId: number; units: number }[]): Promise<void> {
  await ciaRepository.soldAtChannel(
    trx,
    accountId,
    target,
    lines.filter((l) => l.units > 0),
  );
}

/**
 * A channel cancelled an imported order, or took units out of its lines, of which these items'
 * lines took the seller's stock (README "What a channel sells itself"). Whether the channel put
 * the units back on its own offer is its own (Shopify as the store restocks; the eBay, Amazon and
 * Kaufland contracts say nothing), so what it shows of them at that portal account is no longer
 * known. Decision: the acknowledged quantity is forgotten, not raised by the units. Raised, it
 * claims a give-back the channel may not have made (a Shopify cancellation without restock), and
 * eBay's revision planner takes it for what the listing shows: a stale read showing the wanted
 * quantity then skips the push (lib/portals "eBay quantities"). Unknown, the push always sends the
 * wanted quantity, at the cost of one call of an unchanged quantity. In the import's transaction.
 *
 * The push comes from the items' adjustment. `moved`: the items whose stock the change moved (a
 * live order cancelled or reduced), whose adjustment lib/stock queued with the movement. The
 * others (an order cancelled or shipped in Kontor already: its lines hold no stock, or the goods
 * left) moved nothing, so their adjustment is queued here, by lib/stock's rule for a quantity
 * change (queueCiaAdjust, outbox, same transaction), for those CIA keeps at that portal account;
 * before, their push waited for the sweep (60 s), or the reconcile when the state held an error.
 * Their quantity did not change: the adjustment pushes the targets not acknowledged (this one,
 * forgotten above), not the other channels, and their set mains are not adjusted.
 */
export async function channelCancelled(
  trx: Knex.Transaction,
  accountId: number,
  target: PushTarget,
  stockIds: number[],
  moved: ReadonlySet<number>,
): Promise<void> {
  const unknown = await ciaRepository.unknownAtChannel(trx, accountId, target, [...new Set(stockIds)]);
  await queueCiaAdjust(
    trx,
    accountId,
    unknown.filter((id) => !moved.has(id)),
    'channel cancelled',
    false,
  );
}
