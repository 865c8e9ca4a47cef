import type { Knex } from 'knex';
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
