import type { Knex } from 'knex';
import { config } from '../../config';
import { db, transaction } from '../db';
import { noLongerExists } from '../errors';
import { addKeyedToOutbox } from '../queue';
import type { ListingCheckJob, PortalUploadJob } from '../queue';
import { adapterFor, PortalId, waitForPortalSlot } from '../portals';
import type { ListingCheck, RegisteredAdapter, SlotTurn } from '../portals';
import { portalTargetRepository } from '../portal-account';
import { createTaskOnce } from '../task';
import { ciaHasTheLastWord } from './cia-last-word';
import { ListingKey, portalListingRepository } from './portal-listing.repository';

/**
 * A listing the portal accepted for processing only (Amazon's ACCEPTED) is checked later: a
 * portal.listing_check job on the portal_upload queue, due MARKET_D_LISTING_CHECK_MS after the
 * upload and again after each pending check, at most MARKET_D_LISTING_CHECKS times. It is an
 * outbox row (`addKeyedToOutbox`) of the caller's transaction, the one that records the upload's
 * outcome: Redis keeps no data here, and a check kept only there was lost with it, so a
 * suppressed listing went untold; the row is added again after such a loss, for the time it was
 * due. Its key (the BullMQ id) comes from the upload job's id and the check's number, so a
 * retried upload adds no second one. Answers whether the portal's listings are checked.
 */
export async function scheduleListingCheck(trx: Knex.Transaction, adapter: RegisteredAdapter, job: PortalUploadJob, uploadJobId: string): Promise<boolean> {
  if (!adapter.checkListing) return false;
  await addCheck(trx, { ...pick(job), uploadJobId, check: 1 });
  return true;
}

const pick = ({ accountId, stockId, portal, portalAccountId, listerId }: PortalUploadJob) => ({
  accountId,
  stockId,
  portal,
  portalAccountId,
  ...(listerId !== undefined ? { listerId } : {}),
});

async function addCheck(trx: Knex.Transaction, check: ListingCheckJob): Promise<void> {
  await addKeyedToOutbox(
    trx,
    check.accountId,
    'portal.listing_check',
    check,
    `listing-check-${check.uploadJobId}-${check.check}`,
    config().marketDListingCheckMs,
  );
}

/**
 * portal.listing_check: what the portal shows of the listing now. A problem, or a listing still
 * not sold after the last check, gives the seller one task per submission (the task's source is
 * the upload job's id: a retried or repeated check makes none twice); a live listing nothing; a
 * pending one another check while some are left. A listing ended (or listed as another item) since
 * is not checked: the check belongs to what that upload sent. Once it is no longer pending (or at
 * the last check) CIA has the last word again, once per submission: the listing's own quantity
 * may have been applied after CIA's (lib/portals README, "A listing and CIA's quantity behind it").
 */
export async function runListingCheck(job: ListingCheckJob, turn?: SlotTurn): Promise<Record<string, unknown>> {
  const portal = job.portal as PortalId;
  const knex = db();
  const key: ListingKey = { accountId: job.accountId, stockId: job.stockId, portal, portalAccountId: job.portalAccountId, listerId: job.listerId ?? '' };
  const listing = await portalListingRepository.listing(knex, key);
  if (!listing?.portal_item_id || listing.status !== 'listed') return { check: job.check, state: 'ended' };
  const target = await portalTargetRepository.target(knex, job.accountId, job.portalAccountId);
  if (!target) throw noLongerExists(`portal account ${job.portalAccountId}`);
  const adapter = adapterFor(portal, target.connector);
  if (!adapter.checkListing) return { check: job.check, state: 'not checked' };
  await waitForPortalSlot(portal, job.portalAccountId, undefined, turn);
  const found = await adapter.checkListing(target, listing.portal_item_id);
  const last = job.check >= config().marketDListingChecks;
  if (found.state === 'pending' && !last) {
    // The payload's own fields only: the job's data also names its outbox row (outbox_job_id).
    const { accountId, stockId, portalAccountId, listerId, uploadJobId } = job;
    const next = { accountId, stockId, portal, portalAccountId, ...(listerId !== undefined ? { listerId } : {}), uploadJobId, check: job.check + 1 };
    await transaction((trx) => addCheck(trx, next));
    return { check: job.check, state: 'pending', summary: found.summary };
  }
  // The channel fulfils the offer (Amazon: FBA, lib/portals amazon/fba-offers.ts), as this read
  // shows anyway: the listing is marked before CIA's quantity goes again below, so the push sends
  // it none (it would make the offer the seller's to ship); the push's refusal tells the seller.
  // Where it does so in some markets only (fulfilledIn: FBA in DE, the seller's own in FR), it is
  // marked there, and the others go on taking the quantity.
  if (found.fulfilledByChannel)
    await portalListingRepository.markFulfilledByChannel(
      knex,
      job.accountId,
      portal,
      job.portalAccountId,
      [{ stockId: job.stockId, portalItemId: listing.portal_item_id }],
      true,
      found.fulfilledIn ?? null,
    );
  // Processed (or the last check): CIA's quantity goes once more, over the listing's. Amazon names
  // no order between the put and CIA's patch sent right after it (both only "accepted for
  // processing"), and a put applied last made its own quantity (read when it was listed) win.
  await ciaHasTheLastWord(job, `${job.uploadJobId}-processed`, `${job.portal} listing processed`);
  const fba = found.fulfilledByChannel ? { fulfilled_by_channel: found.fulfilledByChannel } : {};
  if (found.state === 'live') return { check: job.check, state: 'live', ...fba };
  const task = await createTaskOnce(
    job.accountId,
    { ...taskOf(job, listing.portal_item_id, found), portalAccountId: job.portalAccountId },
    `listing-check-${job.uploadJobId}`,
  );
  return { check: job.check, state: found.state, summary: found.summary, ...fba, ...(task !== undefined ? { task_id: task } : {}) };
}

/** The seller's task (document 2 Task_type): the item at that portal, the problem in the title, the portal's codes and messages in the text. */
function taskOf(job: ListingCheckJob, portalItemId: string, found: ListingCheck) {
  const waited = duration(job.check * config().marketDListingCheckMs);
  const title = found.state === 'problem' ? `${job.portal}: ${found.summary}` : `${job.portal}: ${found.summary} ${waited} after listing`;
  const text = [
    `The ${job.portal} listing of stock item ${job.stockId} (SKU ${portalItemId}, portal account ${job.portalAccountId}) was accepted for processing, ` +
      `and portal_upload job ${job.uploadJobId} completed; ${waited} later the portal does not sell it as listed:`,
    ...found.details,
    'CIA keeps sending quantities to this offer, but buyers cannot buy it until this is mended (the item’s market_d data, or Seller Central) and the item is listed again.',
  ].join('\n');
  return {
    reference: { section: 'stock_lister', id: portalItemId, platform: job.portal, stock_id: String(job.stockId) },
    title: title.slice(0, 255),
    text: text.slice(0, 20000),
    priority: 'high',
  };
}

const duration = (ms: number) => (ms >= 60000 ? `${Math.round(ms / 60000)} min` : ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`);
