/**
 * Offers the channel fulfils since Kontor listed them (Amazon: converted to FBA; the rule is
 * lib/portals' amazon/fba-offers.ts). An order the channel fulfilled (Amazon's AFN) only hints it:
 * the live listing recorded under the SKU is read at the channel (PortalAdapter.fulfilledByChannel,
 * one read per SKU), and marked (portal_listing.fulfilled_by_channel) only where the channel's
 * listing shows its own fulfilment, in the markets it shows it in where some only
 * (fulfilled_markets: Amazon FBA in DE, the seller's own offer in FR); then no push sends it a
 * quantity there again (PushAids channelFulfilledIn), and the seller gets one task per listing
 * marked. A listing marked in some markets is read again for an order of another.
 */
import { db } from '../db';
import { isPermanent } from '../errors';
import { log } from '../log';
import { adapterFor, waitForPortalSlot } from '../portals';
import type { ChannelFulfilledOffer, ChannelFulfilment, PortalId, PortalTarget } from '../portals';
import { stockPortalRepository } from '../stock';
import { createTaskOnce } from '../task';
import { MarkedListing, portalListingRepository } from './portal-listing.repository';

/**
 * Verifies and marks what a fetched page of orders hints (lib/order-import, after the page, within
 * its job); answers how many listings were marked now. A read the channel refuses for good is
 * logged and leaves the listing as it was (a later such order reads it again); one that fails for
 * now fails the import, whose retry reads the page and this again.
 */
export async function recordChannelFulfilledOffers(
  accountId: number,
  portal: PortalId,
  target: PortalTarget,
  offers: ChannelFulfilledOffer[],
): Promise<number> {
  const adapter = adapterFor(portal, target.connector);
  // Without a read of the listing the order is only a hint: nothing is marked.
  if (!adapter.fulfilledByChannel) return 0;
  // Per SKU the latest order: the one most likely placed after Kontor's latest list or read (the
  // task's); per SKU and market too: a listing marked in some markets is read for another's only.
  const latest = new Map<string, ChannelFulfilledOffer>();
  const perMarket = new Map<string, ChannelFulfilledOffer>();
  const later = (o: ChannelFulfilledOffer, than: ChannelFulfilledOffer | undefined) => !than || Date.parse(o.placedAt) > Date.parse(than.placedAt);
  for (const o of offers) {
    if (later(o, latest.get(o.sku))) latest.set(o.sku, o);
    const key = JSON.stringify([o.sku, o.market ?? null]);
    if (later(o, perMarket.get(key))) perMarket.set(key, o);
  }
  const unread = await portalListingRepository.unreadBySku(db(), accountId, portal, target.portalAccountId, [...perMarket.values()]);
  let marked = 0;
  for (const sku of new Set(unread.map((l) => l.portal_item_id))) {
    await waitForPortalSlot(portal, target.portalAccountId);
    // The read's start, not its end: an order placed while it was under way is read again.
    const readAt = new Date();
    let shown: ChannelFulfilment;
    try {
      shown = await adapter.fulfilledByChannel(target, sku);
    } catch (err) {
      if (!isPermanent(err)) throw err;
      log.warn({ err, accountId, portalAccountId: target.portalAccountId, sku }, 'the channel refused the read of a listing an order it fulfilled hints at');
      continue;
    }
    if (shown.channels.length > 0) {
      // Marked where recorded before the read began: a list since sent the seller's own offer.
      const now = await portalListingRepository.markFulfilledBySku(
        db(),
        accountId,
        portal,
        target.portalAccountId,
        [{ sku, placedAt: readAt.toISOString() }],
        shown.some?.markets ?? null,
      );
      for (const m of now) await tell(accountId, portal, target.portalAccountId, m, latest.get(sku)!, shown);
      marked += now.length;
    }
    // The seller's own offer, or marked so already: orders placed before this read say nothing more of it.
    await portalListingRepository.fulfilmentRead(db(), accountId, portal, target.portalAccountId, sku, readAt);
  }
  return marked;
}

/**
 * The seller's task of a listing marked now (or marked again elsewhere), once per listing and
 * order: a marking that a list cleared and a later order sets again is told again. Marked in some
 * markets only, the task says where, and that the others keep taking Kontor's quantity.
 */
async function tell(accountId: number, portal: PortalId, portalAccountId: number, m: MarkedListing, offer: ChannelFulfilledOffer, shown: ChannelFulfilment) {
  // An item whose group says so already (Kontor listed it FBA) has nothing to be told; read for the few marked now only.
  if (offer.saidBy && (await stockPortalRepository.listingItem(db(), accountId, m.stock_id, portal, m.lister_id))?.group[offer.saidBy] === true) return;
  const some = shown.some && offer.some;
  const where = shown.some
    ? ` in ${shown.some.markets.join(', ')}, and as the seller's own offer in ${shown.some.sellers.join(', ') || 'none of the others'}, which keep taking Kontor's quantity`
    : '';
  await createTaskOnce(
    accountId,
    {
      reference: { section: 'stock_lister', id: m.portal_item_id, platform: portal, stock_id: String(m.stock_id) },
      title: (some ? some.title : offer.title).slice(0, 255),
      text: `Stock item ${m.stock_id}, portal account ${portalAccountId}:\n${some ? some.text : offer.text}\nThe channel's listing shows it fulfilled by ${shown.channels.join(', ')}${where}.`.slice(
        0,
        20000,
      ),
      priority: 'high',
      portalAccountId,
    },
    `channel-fulfilled-${m.id}-${offer.evidence}`,
  );
}
