import type { Knex } from 'knex';
import { transaction } from '../db';
import { resolvePathStockId, stockPortalRepository } from '../stock';
import type { Caller } from '../access';
import { domainError, MultiStatusItem, runItem } from '../errors';
import { log } from '../log';
import { addToOutbox } from '../queue';
import type { PortalUploadJob } from '../queue';
import { RegisteredAdapter, uploadPortals } from '../portals';
import type { PortalUploadInput, PortalUploadPart } from './portal-upload.type';
import { portalListingRepository } from './portal-listing.repository';
import { portalAccountRefRepository } from '../portal-account';

/** The account's portal accounts as a part resolves its portal_account_id against them. */
type PortalAccountBrief = Awaited<ReturnType<typeof portalAccountRefRepository.refs>>[number];

/** POST stock/{stock_id}/portal_upload/: all parts planned in one transaction, identical ones as one job. */
export async function portalUpload(caller: Caller, stockRef: string, upload: PortalUploadInput): Promise<MultiStatusItem[]> {
  return transaction(async (trx) => planPortalUpload(trx, caller, await resolvePathStockId(caller.accountId, stockRef, trx), upload), caller.requestId);
}

/**
 * Plans a portal upload in the request's transaction: one portal.upload job (outbox row) per
 * distinct accepted part, a 4xx per refused part (unknown portal account, action the portal does
 * not take, unknown lister or live listing). The item id is already resolved; the framework has
 * bounded the parts (maxPortalUploadParts, the route's `parts`).
 *
 * Parts that plan the same job (its whole payload: portal, action, resolved portal account, and
 * auction_a's lister, start, revise values and live listing) share one job, each answered 202
 * with its job_id (decision, README): a second job would do the same at the portal again, and
 * 200 copies of one list were 200 jobs on the queue every seller shares.
 */
export async function planPortalUpload(trx: Knex.Transaction, caller: Caller, stockId: number, upload: PortalUploadInput): Promise<MultiStatusItem[]> {
  const results: MultiStatusItem[] = [];
  const planned = new Map<string, string>();
  // The account's portal accounts, read once for all parts (was once per part).
  let refs: Promise<PortalAccountBrief[]> | undefined;
  const portalAccounts = () => (refs ??= portalAccountRefRepository.refs(trx, caller.accountId));
  for (const adapter of uploadPortals) {
    const portal = adapter.portal;
    const parts = upload[portal] ?? [];
    for (const [index, part] of parts.entries()) {
      const path = `portal_upload.${portal}[${index}]`;
      // A part writes only its outbox row, after every check: no savepoint; a fault fails the request.
      results.push(
        await runItem(
          trx,
          path,
          async () => {
            const job = await planPart(trx, caller, stockId, adapter, part, path, portalAccounts);
            // The payload is built in one field order (planPart), so equal jobs give equal keys.
            const key = JSON.stringify(job);
            let jobId = planned.get(key);
            if (jobId === undefined) {
              jobId = await addToOutbox(trx, caller.accountId, 'portal.upload', job);
              planned.set(key, jobId);
            }
            return { code: 202, fields: { job_id: jobId } };
          },
          { log, faults: 'throw' },
        ),
      );
    }
  }
  return results;
}

/**
 * One part's job. Each refusal names the part's field (`portal_upload.<portal>[i].<field>`), as
 * the parts of order/list/ and stock/list/ do: a 207 whose every part failed gathers their errors
 * in its root error[], where an error naming no field did not say which part it was.
 */
async function planPart(
  trx: Knex.Transaction,
  caller: Caller,
  stockId: number,
  adapter: RegisteredAdapter,
  part: PortalUploadPart,
  path: string,
  portalAccounts: () => Promise<PortalAccountBrief[]>,
): Promise<PortalUploadJob> {
  const portal = adapter.portal;
  if (!adapter.uploadActions.includes(part.action)) {
    throw domainError('unsupported_action', `${portal} takes ${adapter.uploadActions.join(' or ')}, not ${part.action}`, { field: `${path}.action` });
  }
  const portalAccountId = await portalAccountOf(await portalAccounts(), caller, part.portal_account_id, `${path}.portal_account_id`);
  const job: PortalUploadJob = { accountId: caller.accountId, stockId, portal, portalAccountId, action: part.action };
  if (portal !== 'auction_a') return job;
  const listerId = await listerOf(trx, caller.accountId, stockId, part.lister_id, `${path}.lister_id`);
  if (listerId !== undefined) job.listerId = listerId;
  if (part.start) job.start = part.start.toISOString();
  if (part.action === 'revise') {
    job.reviseValues = part.revise_values ?? [];
    job.liveId = await liveIdOf(trx, caller.accountId, stockId, portalAccountId, listerId ?? '', part.auction_a_live_id, `${path}.auction_a_live_id`);
  }
  return job;
}

/**
 * The portal account a part lists on: one of the account's, and for a client bound to one portal
 * account only that one (a listing acts on the channel account; the grant's other accounts are
 * absent to it, as their orders are).
 */
function portalAccountOf(rows: PortalAccountBrief[], caller: Caller, ref: PortalUploadPart['portal_account_id'], field: string): number {
  const id = ref === undefined ? caller.portalAccountId : ref === 'default' ? rows.find((r) => r.is_default)?.id : ref;
  const granted = caller.portalAccountGrant === 'all' || caller.portalAccountGrant === id;
  if (id === null || id === undefined || !rows.some((r) => r.id === id) || !granted) {
    throw domainError('unknown_portal_account', `portal account ${String(ref ?? 'default')} does not exist`, { field });
  }
  return id;
}

/** The lister of the item's auction_a[] entries: the one named, or the only one. */
async function listerOf(trx: Knex.Transaction, accountId: number, stockId: number, named: string | undefined, field: string): Promise<string | undefined> {
  const ids = await stockPortalRepository.listerIds(trx, accountId, stockId, 'auction_a');
  if (named !== undefined && named !== '0') {
    if (!ids.includes(named)) throw domainError('unknown_lister', `lister ${named} is not a lister of this item`, { field });
    return named;
  }
  if (named === undefined && ids.length > 1)
    throw domainError('ambiguous_lister', 'the item has several auction_a listers; name one with lister_id', { field });
  return ids[0];
}

/** The portal item id a revise addresses: AUCTIONA_<id>, a live-listing id, or the item's listing. */
async function liveIdOf(
  trx: Knex.Transaction,
  accountId: number,
  stockId: number,
  portalAccountId: number,
  listerId: string,
  live: string | undefined,
  field: string,
): Promise<string> {
  if (live !== undefined) {
    const portalItemId = live.toUpperCase().startsWith('AUCTIONA_') ? live.slice('AUCTIONA_'.length) : undefined;
    const row =
      portalItemId !== undefined
        ? await portalListingRepository.listingByPortalItemId(trx, accountId, stockId, portalAccountId, portalItemId)
        : await portalListingRepository.listingById(trx, accountId, portalAccountId, live);
    if (!row || row.stock_id !== stockId || !row.portal_item_id)
      throw domainError('unknown_live_listing', `live listing ${live} does not exist for this item`, { field });
    return row.portal_item_id;
  }
  const listing = await portalListingRepository.listing(trx, { accountId, stockId, portal: 'auction_a', portalAccountId, listerId });
  if (!listing?.portal_item_id || listing.status !== 'listed')
    throw domainError('no_live_listing', 'the item has no live auction_a listing to revise', { field });
  return listing.portal_item_id;
}
