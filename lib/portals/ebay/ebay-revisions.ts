/**
 * eBay's revision limit: "Each listing can be revised up to 250 times in one calendar day. If
 * this revision threshold is reached, the seller will be blocked from revising the item until
 * the next calendar day" (sell_inventory_v1, bulkUpdatePriceQuantity and updateOffer). A CIA
 * push that revises a listing beyond it is refused, and eBay keeps offering the old quantity
 * until the next day: if that is too high, the oversell CIA exists to prevent. So each push
 * plans its listings' revisions against Kontor's count of the day (RevisionLedger) and this
 * budget (decisions: lib/portals/README.md, "eBay quantities").
 */
import type { RevisionLedger, Revisions } from '../portal.type';
import { ebayDay, nextEbayDay } from './ebay-day';

/** eBay's revisions of one listing per calendar day. */
export const dailyRevisions = 250;
/** The last revisions of a listing's day, kept for decreases: an increase is held once a listing has used the rest. */
export const keptForDecreases = 25;

/**
 * One SKU of a push: the quantity wanted, its live fixed-price listings with what getOffers says
 * each offers now, and what eBay last took from Kontor for it (`taken`; null or absent: not known).
 */
export interface RevisionAsk {
  sku: string;
  wanted: number;
  listings: { listingId: string; availableQuantity?: number | undefined }[];
  taken?: number | null | undefined;
}

/** A SKU to send: the quantity wanted (`last`: it takes its listing's last revision of the day). */
export interface SendPlan {
  send: number;
  last: boolean;
}

/** What to do with a SKU: send it, or answer without sending. */
export type RevisionPlan = SendPlan | { outcome: 'accepted' } | { outcome: 'held'; message: string; until: Date };

type Direction = 'decrease' | 'increase' | 'same';

/**
 * Against what the listings may offer now: what getOffers shows and what eBay last took from
 * Kontor. Any of them above the wanted quantity (or a listing whose quantity eBay did not show)
 * makes a decrease: a decrease is never held, so in doubt the quantity goes out.
 *
 * `same` (nothing sent) only when the read shows the wanted quantity and that is also what eBay
 * last took from Kontor, with no try since. sell_inventory_v1 promises no read after a write
 * (getOffers' availableQuantity "indicates the quantity ... that will be available"; nothing says
 * it shows the latest bulkUpdatePriceQuantity), so a read may still show the quantity from before
 * Kontor's last write: read alone, a decrease back to that quantity was skipped and the listing
 * kept offering the units that were gone. The read showing the wanted quantity with Kontor's
 * last write unknown goes out as a decrease (never held).
 */
function direction(ask: RevisionAsk): Direction {
  const taken = ask.taken ?? undefined;
  if (ask.listings.some((l) => l.availableQuantity === undefined || l.availableQuantity > ask.wanted)) return 'decrease';
  if (taken !== undefined && taken > ask.wanted) return 'decrease';
  if (ask.listings.some((l) => l.availableQuantity! < ask.wanted) || (taken !== undefined && taken < ask.wanted)) return 'increase';
  return taken === ask.wanted ? 'same' : 'decrease';
}

/** The count below which a revision may still be made: all 250 for a decrease, the rest less the kept ones otherwise. */
const ceilingOf = (d: Direction) => (d === 'decrease' ? dailyRevisions : dailyRevisions - keptForDecreases);

/** When a held quantity may go out: the next eBay day, and the seller's readable reason. */
export function heldUntilTomorrow(now: number, message: string): { outcome: 'held'; message: string; until: Date } {
  const until = nextEbayDay(now);
  return { outcome: 'held', message: `${message}; it goes out from ${until.toISOString()} (midnight Pacific time, eBay's next day)`, until };
}

function planOne(ask: RevisionAsk, counted: Revisions[], now: number): RevisionPlan {
  const used = Math.max(...counted.map((c) => c.count));
  const listings = ask.listings.map((l) => l.listingId).join(', ');
  if (counted.every((c) => c.granted)) return { send: ask.wanted, last: used >= dailyRevisions };
  if (used >= dailyRevisions)
    return heldUntilTomorrow(now, `eBay listing ${listings} has had its ${dailyRevisions} revisions of today: ${ask.wanted} for SKU ${ask.sku} is held`);
  return heldUntilTomorrow(
    now,
    `eBay listing ${listings} has had ${used} of its ${dailyRevisions} revisions of today, and the last ${keptForDecreases} are kept for decreases: the increase to ${ask.wanted} for SKU ${ask.sku} is held`,
  );
}

/**
 * Plans a push's SKUs against the day's count, in one reservation (one statement): each SKU's
 * listings are counted when all are below the SKU's ceiling. A SKU without live listings
 * revises nothing and is sent. Without a ledger every SKU is sent (eBay's refusal still holds it).
 */
export async function planRevisions(ledger: RevisionLedger | undefined, now: number, asks: RevisionAsk[]): Promise<Map<string, RevisionPlan>> {
  const plans = new Map<string, RevisionPlan>();
  const listed = asks.filter((a) => ledger && a.listings.length > 0);
  // What every listing offers already, and eBay last took from Kontor, is not revised (a CIA
  // reconcile, a change undone before its push): sending it would spend a revision on nothing.
  // An eBay sale coming back from CIA as the quantity eBay has lowered is sent (one revision):
  // the read cannot be told from one made before Kontor's last write (direction).
  const counted = listed.filter((a) => direction(a) !== 'same');
  for (const ask of listed.filter((a) => !counted.includes(a))) plans.set(ask.sku, { outcome: 'accepted' });
  for (const ask of asks.filter((a) => !listed.includes(a))) plans.set(ask.sku, { send: ask.wanted, last: false });
  if (counted.length === 0) return plans;
  const directions = new Map(counted.map((a) => [a.sku, direction(a)]));
  const ceilings = new Map<string, number>();
  // A listing named by two SKUs cannot happen (an offer has one SKU); the lower ceiling would win.
  for (const a of counted)
    for (const l of a.listings) ceilings.set(l.listingId, Math.min(ceilings.get(l.listingId) ?? Infinity, ceilingOf(directions.get(a.sku)!)));
  const revisions = await ledger!.reserve(
    ebayDay(now),
    [...ceilings].map(([listing, ceiling]) => ({ listing, ceiling })),
  );
  for (const ask of counted) {
    const own = ask.listings.map((l) => revisions.get(l.listingId) ?? { granted: false, count: dailyRevisions });
    plans.set(ask.sku, planOne(ask, own, now));
  }
  return plans;
}

/**
 * The quantity a planned revision sends. Decision: the last revision of a listing's day sends 0
 * when more than 0 is wanted, and the item is held until the next day: after it nothing can
 * correct the listing downwards, and a hot seller's stock keeps falling; 0 is the one quantity
 * that cannot oversell, at the cost of the listing's sales for the rest of the day.
 */
export const sentQuantity = (plan: SendPlan) => (plan.last ? 0 : plan.send);

/**
 * eBay's refusal of a revision beyond the day's limit. The Inventory API names no error id for it
 * (bulkUpdatePriceQuantity documents only 25002 "Any User error. {additionalInfo}" for a 400),
 * so its text is read: a revision limit or "calendar day" in a refusal. The sandbox answers
 * 25002 with such a text (sandbox/ebay-inventory.sandbox.ts).
 */
export function revisionLimitRefused(status: number, text: string): boolean {
  return status >= 400 && status < 500 && /revis/i.test(text) && /(250|calendar day|per day|today|daily|threshold)/i.test(text);
}
