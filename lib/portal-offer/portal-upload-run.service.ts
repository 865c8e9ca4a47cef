import { ciaActiveAt } from '../cia';
import { db, transaction } from '../db';
import { domainError, noLongerExists } from '../errors';
import type { PortalUploadJob } from '../queue';
import { adapterFor, partialListingOf, PortalId, waitForPortalSlot } from '../portals';
import type { SlotTurn } from '../portals';
import { portalTargetRepository } from '../portal-account';
import { stockPortalRepository } from '../stock';
import { ciaHasTheLastWord } from './cia-last-word';
import { scheduleListingCheck } from './portal-listing-check.service';
import { ListingKey, portalListingRepository } from './portal-listing.repository';
import { leftListings } from './portal-push.service';
import { endVariants, listVariation, variationListingOf } from './portal-variation.service';

/**
 * Runs one part of a portal upload in the worker: list (returns the portal's item id), revise
 * the named values of a live offer, or end it. The job id is the idempotency key, so a retry
 * after a lost answer has the effect of one call.
 */
export async function runPortalUpload(job: PortalUploadJob, jobId: string, turn?: SlotTurn): Promise<Record<string, unknown>> {
  const portal = job.portal as PortalId;
  const knex = db();
  const key: ListingKey = { accountId: job.accountId, stockId: job.stockId, portal, portalAccountId: job.portalAccountId, listerId: job.listerId ?? '' };
  const target = await portalTargetRepository.target(knex, job.accountId, job.portalAccountId);
  if (!target) throw noLongerExists(`portal account ${job.portalAccountId}`);
  const adapter = adapterFor(portal, target.connector);
  // Before anything is sent: a far slot gives the worker back here (portal-slot-turn.ts), with nothing done.
  await waitForPortalSlot(portal, job.portalAccountId, undefined, turn);
  if (job.action === 'delete') {
    const listing = await portalListingRepository.listing(knex, key);
    // Channels that address offers by SKU (eBay) need the item's SKU; a deleted item has none left.
    const item = await stockPortalRepository.listingItem(knex, job.accountId, job.stockId, portal, job.listerId);
    // The SKU the live listing was made under (eBay holds it by that, whatever the item's SKU is
    // now); a deleted item's listing is ended by it too. Not an ended record's: another item may
    // be listed under that SKU since.
    const listedSku = listing?.status === 'listed' ? listing.listed_sku : null;
    const ending = item ? { ...item, listedSku } : listedSku ? { sku: null, group: {}, listedSku } : item;
    await adapter.end(target, job.stockId, job.liveId ?? listing?.portal_item_id ?? null, jobId, ending);
    await portalListingRepository.saveListing(knex, key, null, 'ended');
    // A variation main's listing is its variants': they end with it.
    const variants = await endVariants(target, adapter, job, jobId, key, item && { ...item, listedSku });
    return { action: 'delete', portal, ...(variants.length ? { variants } : {}) };
  }
  const item = await stockPortalRepository.listingItem(knex, job.accountId, job.stockId, portal, job.listerId);
  if (!item) throw noLongerExists(`stock item ${job.stockId}`);
  // A variation main offers nothing of its own (lib/cia): its variants are listed, under their SKUs.
  const variation = await variationListingOf(job, { ...item, ...(job.start ? { start: job.start } : {}) });
  if (variation) return listVariation(target, adapter, job, jobId, key, variation);
  // A variation main's listing the item left (made plain or moved while it was listed), where its
  // one eBay offer may still sell: a list or a revise of it would write onto that listing.
  const left = [...((await leftListings(knex, job.accountId, { portal, portalAccountId: job.portalAccountId }, [job.stockId])).get(job.stockId) ?? [])];
  if (job.action === 'revise') {
    const listing = await portalListingRepository.listing(knex, key);
    const portalItemId = job.liveId ?? listing?.portal_item_id;
    if (!portalItemId) throw domainError('no_live_listing', `${portal}: item ${job.stockId} has no live offer to revise`);
    // A listing only some of the account's markets took is revised in those (Amazon: elsewhere a patch makes an offer of nothing).
    const liveIn = listing?.status === 'listed' && listing.markets ? { liveIn: listing.markets } : {};
    const listedSku = listing?.status === 'listed' ? listing.listed_sku : null;
    await adapter.revise(target, { ...item, leftListings: left, listedSku, ...liveIn }, portalItemId, job.reviseValues ?? [], jobId);
    // A revise writes no outcome of its own: the check is its transaction's only row.
    if (adapter.checkListing) await transaction((trx) => scheduleListingCheck(trx, adapter, job, jobId));
    // A revise carries the item's own quantity too (eBay replaces whole records: the inventory
    // item's quantity "should be included again ... or the available quantity data will be lost",
    // and updateOffer writes availableQuantity), not the one CIA offers there (max_quantity, -1):
    // CIA has the last word, as after a list and a variant's revise. Without it, the channel sold
    // the item's whole quantity while CIA's acknowledgement still named its own, so nothing set it back.
    await ciaHasTheLastWord(job, jobId, 'portal revised');
    return { action: 'revise', portal, portal_item_id: portalItemId };
  }
  const listing = await portalListingRepository.listing(knex, key);
  const listedAs = listing?.status === 'listed' ? listing.portal_item_id : null;
  const listedSku = listing?.status === 'listed' ? listing.listed_sku : null;
  const ciaActive = (await ciaActiveAt(job.accountId, { portal, portalAccountId: job.portalAccountId }, [job.stockId])).has(job.stockId);
  // This job's earlier try listed it in some markets (a retry after a refusal or a 429 in another): not submitted again.
  const listedBefore = listing?.status === 'listed' && listing.markets && listing.markets_job === jobId ? { listedBefore: listing.markets } : {};
  let listed: { portalItemId: string; markets?: string[]; listedSku?: string };
  try {
    listed = await adapter.list(
      target,
      { ...item, listedAs, listedSku, ciaActive, leftListings: left, ...listedBefore, ...(job.start ? { start: job.start } : {}) },
      jobId,
    );
  } catch (err) {
    const markets = await recordPartialListing(key, listing, jobId, err);
    // Live where it was taken, with the quantity the put carried (the item's own): CIA's there
    // too, as after a whole list (one adjustment per set of markets the job's tries recorded).
    if (markets) await ciaHasTheLastWord(job, `${jobId}-in-${markets.join('-')}`, 'portal listed in some markets');
    throw err;
  }
  const { portalItemId } = listed;
  // Accepted for processing only (Amazon): whether the portal sells it is checked later, a
  // check recorded with the listing, in one transaction.
  await transaction(async (trx) => {
    await portalListingRepository.saveListing(trx, key, portalItemId, 'listed', null, listed.listedSku ?? null);
    await scheduleListingCheck(trx, adapter, job, jobId);
  });
  // The listing carried its own quantity: CIA (max_quantity, variants, sets) has the last word.
  await ciaHasTheLastWord(job, jobId, 'portal listed');
  return { action: 'list', portal, portal_item_id: portalItemId, ...(listed.markets ? { markets: listed.markets } : {}) };
}

/**
 * A list that some of the account's markets took and another refused (or did not answer) fails,
 * but the listing is live where it was taken (Amazon: one put per marketplace): recorded listed
 * there, with this job, so the seller sees it, CIA's quantities and a revise name only those
 * markets, an end ends it by its SKU, and the job's retry submits the others only. A listing that
 * was live in every market before stays so (a refused update leaves the older listing where it
 * was); one live in some adds those taken now. Answers the markets where the put was taken and
 * the listing is live (undefined: none), for CIA to set its quantity there.
 */
async function recordPartialListing(
  key: ListingKey,
  before: Awaited<ReturnType<typeof portalListingRepository.listing>>,
  jobId: string,
  err: unknown,
): Promise<string[] | undefined> {
  const partial = partialListingOf(err);
  if (!partial) return undefined;
  const wasLive = before?.status === 'listed';
  // Live everywhere before: the refused update left the older listing (and CIA's quantity) where it was refused; where it was taken, the put carried the item's own.
  if (wasLive && !before.markets) return partial.markets;
  const markets = [...new Set([...(wasLive ? before.markets! : []), ...partial.markets])];
  await portalListingRepository.saveListing(db(), key, partial.portalItemId, 'listed', { markets, job: jobId });
  return markets;
}
