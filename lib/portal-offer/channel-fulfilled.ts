/**
 * Offers the channel fulfils since Kontor listed them, as the channel's orders show it (Amazon: an
 * order fulfilled by Amazon, AFN; the rule is lib/portals' amazon/fba-offers.ts): the live listing
 * recorded under the SKU is marked (portal_listing.fulfilled_by_channel), so no push sends it a
 * quantity again (PushAids channelFulfilled), and the seller gets one task per listing marked.
 */
import { db } from '../db';
import type { ChannelFulfilledOffer, PortalId } from '../portals';
import { stockPortalRepository } from '../stock';
import { createTaskOnce } from '../task';
import { portalListingRepository } from './portal-listing.repository';

/** Marks what a fetched page of orders shows (lib/order-import, after the page); answers how many listings were marked now. */
export async function recordChannelFulfilledOffers(
  accountId: number,
  portal: PortalId,
  portalAccountId: number,
  offers: ChannelFulfilledOffer[],
): Promise<number> {
  // Per SKU the latest order: the one most likely placed after Kontor's latest list.
  const latest = new Map<string, ChannelFulfilledOffer>();
  for (const o of offers) if (!latest.has(o.sku) || Date.parse(o.placedAt) > Date.parse(latest.get(o.sku)!.placedAt)) latest.set(o.sku, o);
  const marked = await portalListingRepository.markFulfilledBySku(db(), accountId, portal, portalAccountId, [...latest.values()]);
  for (const m of marked) {
    const offer = latest.get(m.portal_item_id)!;
    // An item whose group says so already (Kontor listed it FBA) has nothing to be told; read for the few marked now only.
    if (offer.saidBy && (await stockPortalRepository.listingItem(db(), accountId, m.stock_id, portal, m.lister_id))?.group[offer.saidBy] === true) continue;
    await createTaskOnce(
      accountId,
      {
        reference: { section: 'stock_lister', id: m.portal_item_id, platform: portal, stock_id: String(m.stock_id) },
        title: offer.title.slice(0, 255),
        text: `Stock item ${m.stock_id}, portal account ${portalAccountId}:\n${offer.text}`.slice(0, 20000),
        priority: 'high',
        portalAccountId,
      },
      // Once per listing and order: a marking that a list cleared and a later order sets again is told again.
      `channel-fulfilled-${m.id}-${offer.evidence}`,
    );
  }
  return marked.length;
}
