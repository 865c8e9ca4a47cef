import type { QuantityOutcome, QuantityUpdate } from './portal.type';

/**
 * Updates of a push that land on one listing of the portal: two stock items with one master
 * SKU, which the portal holds as one unit or one variant. Kaufland refuses a units/bulk call
 * naming a unit twice, whole ("SHOULD NOT contain duplicate units"), and Shopify's
 * inventorySetQuantities refuses an inventory item twice (NO_DUPLICATE_INVENTORY_ITEM_ID_GROUP_ID_PAIR),
 * so one such pair stopped every other item of the push; eBay and Amazon took whichever quantity
 * came last. Used by all four real channels' quantity pushes. A listing takes one quantity: the
 * lowest of its items' goes, so that it never offers more than either item holds (nothing sold
 * twice); the other items are refused naming the clash, which only the seller can end by giving
 * each item its own SKU.
 */
export function lowestPerListing<T extends { u: QuantityUpdate }>(
  updates: T[],
  listingOf: (update: T) => string,
  portal: string,
): { sent: T[]; clashes: QuantityOutcome[] } {
  const keyed = updates.map((update) => ({ update, listing: listingOf(update) }));
  const lowest = new Map<string, QuantityUpdate>();
  for (const { update, listing } of keyed) {
    const held = lowest.get(listing);
    if (!held || update.u.quantity < held.quantity) lowest.set(listing, update.u);
  }
  const sent: T[] = [];
  const clashes: QuantityOutcome[] = [];
  for (const { update, listing } of keyed) {
    const kept = lowest.get(listing) ?? update.u;
    if (kept === update.u) sent.push(update);
    else
      clashes.push({
        stockId: update.u.stockId,
        outcome: 'refused',
        message: `${portal}: stock items ${kept.stockId} and ${update.u.stockId} share one listing (SKU ${update.u.sku ?? update.u.stockId}); the lower quantity, ${kept.quantity} of item ${kept.stockId}, was sent: give each item its own SKU`,
      });
  }
  return { sent, clashes };
}
