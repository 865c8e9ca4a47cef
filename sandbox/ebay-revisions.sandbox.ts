/**
 * The sandbox eBay's revision limit: "Each listing can be revised up to 250 times in one calendar
 * day. If this revision threshold is reached, the seller will be blocked from revising the item
 * until the next calendar day" (sell_inventory_v1: bulkUpdatePriceQuantity, updateOffer,
 * createOrReplaceInventoryItem). Counted per listing (a published offer's listing id) on the
 * sandbox clock's calendar day in Pacific time, the day of eBay's daily limits
 * (lib/portals/ebay/ebay-day.ts, where the reading is explained).
 *
 * The refusal (ours; the contract names neither an error id nor a text for it): the operation's
 * documented user error, 25002, with a text naming the limit; in bulkUpdatePriceQuantity the
 * entry's statusCode 400 with errors[], the listing keeps its quantity.
 *
 * Controls: POST /_sandbox/ebay/revisions {listing_id | portal_account + sku, count} sets today's
 * count (so a test need not send 250 revisions); GET /_sandbox/ebay/revisions?portal_account=
 * lists them; POST /_sandbox/ebay/clock {now: ISO 8601 | null} moves the sandbox eBay's clock.
 */
import type express from 'express';
import { ebayDay } from '../lib/portals/ebay/ebay-day';
import type { SandboxState } from './sandbox.app';
import { Body, EbayOfferRecord, EbayState, error } from './ebay-state.sandbox';

/** eBay's revisions of one listing per calendar day. */
export const dailyRevisionLimit = 250;

/** Today's revisions of a listing (0 when its count is of an earlier day). */
export function revisionsToday(ebay: EbayState, listingId: string): number {
  const seen = ebay.revisions.get(listingId);
  return seen && seen.day === ebayDay(ebay.now()) ? seen.count : 0;
}

/**
 * Revises the published listings among `offers`, all or none: the error body when one of them
 * has had its revisions of the day, else undefined (each counted once more).
 */
export function revise(ebay: EbayState, offers: EbayOfferRecord[]): ReturnType<typeof error> | undefined {
  const listings = [...new Set(offers.filter((o) => o.status === 'PUBLISHED' && o.listingId).map((o) => o.listingId!))];
  const blocked = listings.find((l) => revisionsToday(ebay, l) >= dailyRevisionLimit);
  if (blocked)
    return error(
      25002,
      `A user error has occurred. Listing ${blocked} has been revised ${dailyRevisionLimit} times in this calendar day, the most allowed: it can be revised again on the next calendar day.`,
    );
  const day = ebayDay(ebay.now());
  for (const l of listings) ebay.revisions.set(l, { day, count: revisionsToday(ebay, l) + 1 });
  return undefined;
}

export function mountRevisionControls(app: express.Express, state: SandboxState): void {
  const ebay = state.ebay;
  app.post('/_sandbox/ebay/revisions', (req: express.Request, res: express.Response) => {
    const body = (req.body ?? {}) as Body;
    const count = Number(body.count);
    const listings = body.listing_id
      ? [String(body.listing_id)]
      : ebay.offersOf(String(body.portal_account ?? ''), String(body.sku ?? '')).flatMap((o) => (o.listingId ? [o.listingId] : []));
    if (!Number.isInteger(count) || count < 0 || listings.length === 0) {
      res.status(400).json({ message: 'count (0 or more) and listing_id, or portal_account and sku of a listed offer, are required' });
      return;
    }
    const day = ebayDay(ebay.now());
    for (const l of listings) ebay.revisions.set(l, { day, count });
    res.json({ revisions: listings.map((listing_id) => ({ listing_id, day, count })) });
  });
  app.get('/_sandbox/ebay/revisions', (req: express.Request, res: express.Response) => {
    const account = typeof req.query.portal_account === 'string' ? req.query.portal_account : undefined;
    const own = [...ebay.offers.values()].filter((o) => o.listingId && (!account || o.account === account));
    res.json({
      day: ebayDay(ebay.now()),
      revisions: own.map((o) => ({ listing_id: o.listingId, sku: o.sku, count: revisionsToday(ebay, o.listingId!) })),
    });
  });
  app.post('/_sandbox/ebay/clock', (req: express.Request, res: express.Response) => {
    const at = (req.body as Body | undefined)?.now;
    if (at !== null && (typeof at !== 'string' || Number.isNaN(Date.parse(at)))) {
      res.status(400).json({ message: 'now: an ISO 8601 time, or null for the real clock' });
      return;
    }
    ebay.clockOffsetMs = at === null ? 0 : Date.parse(at) - Date.now();
    res.json({ now: new Date(ebay.now()).toISOString(), day: ebayDay(ebay.now()) });
  });
}
