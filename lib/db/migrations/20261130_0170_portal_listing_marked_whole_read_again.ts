import type { Knex } from 'knex';

/**
 * Amazon listings marked fulfilled by Amazon whole (portal_listing.fulfilled_by_channel true,
 * fulfilled_markets null) are read at Amazon once more, marketplace by marketplace. Before
 * fulfilled_markets (20261130_0040) every mark was whole: an AFN order in DE of a SKU FBA in DE and
 * the seller's own in FR marked the whole listing, so FR, the seller's offer, was sent no quantity
 * and sold on at its old one, and 0040 took each such mark to mean "every marketplace". Nothing
 * read them again: an AFN order or the listing check reads unmarked listings and those marked in
 * some marketplaces only, and the listing check runs after a list only.
 *
 * How: for a listing marked whole, fulfilment_read_at is now the time of the per-marketplace read
 * behind the mark (lib/portal-offer: markFulfilledBySku, markFulfilledByChannel, fulfilmentRead
 * write it); null, it has had none, and each order import of the portal account reads a few such
 * listings (readMarkedWhole, lib/portal-offer/channel-fulfilled.ts). Here the marks made before are
 * made so: their fulfilment_read_at (a read that showed the seller's own offer, before the mark)
 * is cleared. A mark made since 0040 is read once more too (the same answer, one read). Only
 * market_d's: Kaufland's units are its whole, and it has no such read.
 *
 * Only non-null times are written: running it again changes nothing but marks made in between.
 * One UPDATE: it holds only the row locks of the listings it writes.
 */
export async function markWholeMarksUnread(knex: Knex | Knex.Transaction): Promise<number> {
  const result = (await knex.raw(
    `UPDATE portal_listing SET fulfilment_read_at = NULL
      WHERE portal = 'market_d' AND status = 'listed' AND fulfilled_by_channel AND fulfilled_markets IS NULL AND fulfilment_read_at IS NOT NULL`,
  )) as { rowCount: number };
  return result.rowCount;
}

export async function up(knex: Knex): Promise<void> {
  await markWholeMarksUnread(knex);
}

/** Nothing: a cleared time costs one read of the listing, and the column stays (20261129_2161's down drops it). */
export async function down(): Promise<void> {}
