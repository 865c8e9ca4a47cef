/**
 * Offers the channel fulfils since Kontor listed them (Amazon: converted to FBA; the rule is
 * lib/portals' amazon/fba-offers.ts). An order the channel fulfilled (Amazon's AFN) only hints it:
 * the live listing recorded under the SKU is read at the channel (PortalAdapter.fulfilledByChannel,
 * one read per SKU), and marked (portal_listing.fulfilled_by_channel) only where the channel's
 * listing shows its own fulfilment, in the markets it shows it in where some only
 * (fulfilled_markets: Amazon FBA in DE, the seller's own offer in FR); then no push sends it a
 * quantity there again (PushAids channelFulfilledIn), and the seller gets one task per listing
 * marked. A listing marked in some markets is read again for an order of another; one marked in
 * all before markets were told apart is read again once, at an order import (readMarkedWhole).
 */
import { db } from '../db';
import { isPermanent } from '../errors';
import { log } from '../log';
import { adapterFor, waitForPortalSlot } from '../portals';
import type { ChannelFulfilledOffer, ChannelFulfilment, PortalId, PortalTarget, RegisteredAdapter } from '../portals';
import { stockPortalRepository } from '../stock';
import { createTaskOnce } from '../task';
import { ciaHasTheLastWord } from './cia-last-word';
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
    const read = await readAndMark(accountId, portal, target, adapter.fulfilledByChannel.bind(adapter), sku);
    if (!read) continue;
    for (const m of read.marked) await tell(accountId, portal, target.portalAccountId, m, latest.get(sku)!, read.shown);
    marked += read.marked.length;
  }
  return marked;
}

/**
 * How many listings marked whole before markets were told apart one order import reads again at
 * most (each one read, one more per marketplace where it shows both kinds: Amazon's getListingsItem
 * plan is 5/s after a burst of 10; market_d's import runs every 3 minutes): a seller with many
 * such listings has them read over a few imports rather than one import held for minutes.
 */
export const markedWholePerImport = 20;

/**
 * Listings the channel was shown to fulfil in all their markets before Kontor told markets apart
 * (portal_listing.fulfilled_markets, migration 20261130_0040, which took every mark so far to mean
 * all of them): an AFN order in DE of a SKU Amazon fulfils in DE and the seller in FR marked the
 * whole listing, so FR, the seller's offer, was sent no quantity and sold on at its old one.
 * Neither an AFN order nor the listing check reads a listing marked whole, and none may come (the
 * check runs after a list only; DE's FBA offer may not sell): each order import of the portal
 * account (lib/order-import, after its pages; the schedule runs it for every connected account)
 * reads a few of them once (markedWholeUnread; migration 20261130_0170 made the old marks so).
 * Shown fulfilled by the channel in some markets only, the listing is marked there, the seller
 * told (the adapter's words, markedWholeRead) and CIA's quantity sent again at once (the others'
 * was refused); in all (or not at all, or refused for good), the mark stays as it is and the read
 * is remembered (`fulfilment_read_at`), so it is not read again. A read failing for now (429,
 * 5xx) leaves it and the rest to the next import: the import itself is done. Answers how many
 * listings it marked anew.
 */
export async function readMarkedWhole(accountId: number, portal: PortalId, target: PortalTarget): Promise<number> {
  const adapter = adapterFor(portal, target.connector);
  if (!adapter.fulfilledByChannel || !adapter.markedWholeRead) return 0;
  const listings = await portalListingRepository.markedWholeUnread(db(), accountId, portal, target.portalAccountId, markedWholePerImport);
  let marked = 0;
  for (const sku of new Set(listings.map((l) => l.portal_item_id))) {
    let read: Awaited<ReturnType<typeof readAndMark>>;
    try {
      read = await readAndMark(accountId, portal, target, adapter.fulfilledByChannel.bind(adapter), sku, true);
    } catch (err) {
      log.warn(
        { err, accountId, portalAccountId: target.portalAccountId, sku },
        'the read again of a listing marked fulfilled by the channel failed; the next order import reads it',
      );
      break;
    }
    if (!read) continue;
    const offer = adapter.markedWholeRead(sku, read.readAt.toISOString());
    for (const m of read.marked) {
      await tell(accountId, portal, target.portalAccountId, m, offer, read.shown);
      // The markets left to the seller were refused Kontor's quantity since the mark: sent now.
      if (read.shown.some)
        await ciaHasTheLastWord(
          { accountId, stockId: m.stock_id, portal, portalAccountId: target.portalAccountId },
          `marked-read-${m.id}-${read.readAt.getTime()}`,
          `${portal} listing fulfilled by the channel in some markets only`,
        );
    }
    marked += read.marked.length;
  }
  return marked;
}

/**
 * One read of the live listings recorded under a SKU at the channel (through the portal account's
 * slot), and the marks it makes: fulfilled by the channel where it shows so (in the markets it
 * shows, where some only), each listing recorded before the read began (a list since sent the
 * seller's own offer); the read remembered (fulfilmentRead) either way. A read the channel refuses
 * for good is logged and answers undefined, remembered where `rememberRefusal` (a later order may
 * read it again otherwise); one failing for now is thrown.
 */
async function readAndMark(
  accountId: number,
  portal: PortalId,
  target: PortalTarget,
  fulfilledByChannel: NonNullable<RegisteredAdapter['fulfilledByChannel']>,
  sku: string,
  rememberRefusal = false,
): Promise<{ shown: ChannelFulfilment; marked: MarkedListing[]; readAt: Date } | undefined> {
  await waitForPortalSlot(portal, target.portalAccountId);
  // The read's start, not its end: an order placed while it was under way is read again.
  const readAt = new Date();
  let shown: ChannelFulfilment;
  try {
    shown = await fulfilledByChannel(target, sku);
  } catch (err) {
    if (!isPermanent(err)) throw err;
    log.warn({ err, accountId, portalAccountId: target.portalAccountId, sku }, 'the channel refused the read of who fulfils a listing');
    if (rememberRefusal) await portalListingRepository.fulfilmentRead(db(), accountId, portal, target.portalAccountId, sku, readAt);
    return undefined;
  }
  // Marked where recorded before the read began: a list since sent the seller's own offer.
  const marked =
    shown.channels.length > 0
      ? await portalListingRepository.markFulfilledBySku(
          db(),
          accountId,
          portal,
          target.portalAccountId,
          [{ sku, placedAt: readAt.toISOString() }],
          shown.some?.markets ?? null,
        )
      : [];
  // The seller's own offer, or marked so already: orders placed before this read say nothing more of it.
  await portalListingRepository.fulfilmentRead(db(), accountId, portal, target.portalAccountId, sku, readAt);
  return { shown, marked, readAt };
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
