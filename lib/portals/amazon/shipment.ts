/**
 * send_mit at Amazon (confirmShipment of Orders v0): Amazon's carrier code of document 2's
 * shipping.deliverer, and the items of each package.
 */
import type { Shipment } from '../portal.type';
import type { Order2026, OrderPackage } from './orders-2026';

/**
 * Amazon's CarrierCode values for document 2's common deliverers (Seller Central's shipping
 * confirmation template, "carrier-code (CarrierCode field in API)", and the CarrierCode list of
 * Amazon's amzn-base.xsd): DHL, Deutsche Post, UPS, Hermes Logistik Gruppe, DPD, TNT, GLS. Any
 * other deliverer goes as `Other` with its name as carrierName ("Required when carrierCode is Other").
 */
const carrierCodes: Record<string, string> = {
  dhl: 'DHL',
  post: 'Deutsche Post',
  'deutsche post': 'Deutsche Post',
  ups: 'UPS',
  hermes: 'Hermes Logistik Gruppe',
  dpd: 'DPD',
  dpdp: 'DPD',
  tnt: 'TNT',
  gls: 'GLS',
  glsp: 'GLS',
};

/**
 * PackageDetail.shipDate ("Must be in ISO 8601 date/time format", ordersV0.json): send_mit's date
 * (YYYY-MM-DD: noon UTC of that day; or a full ISO time), never later than now (decision): noon
 * UTC of today is hours ahead for a seller confirming in the morning in Europe, a day ahead for
 * one in the evening in America, and a package is not shipped in the future (eBay's
 * ebayShippedDate keeps to the same rule). Now when send_mit gives none or one that cannot be read.
 */
export function amazonShipDate(date: string | undefined, now = new Date()): string {
  const parsed = new Date(date && /^\d{4}-\d{2}-\d{2}$/.test(date) ? `${date}T12:00:00Z` : (date ?? now));
  // Whole seconds, as the contract's examples and Seller Central write it ("2026-11-24T12:00:00Z").
  return (Number.isNaN(parsed.getTime()) || parsed > now ? now : parsed).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** carrierCode (and carrierName for Other) of a deliverer. */
export function amazonCarrier(deliverer: string | undefined): { carrierCode: string; carrierName?: string } {
  const code = deliverer ? carrierCodes[deliverer.trim().toLowerCase()] : undefined;
  if (code) return { carrierCode: code };
  return { carrierCode: 'Other', carrierName: deliverer?.trim() || 'Other' };
}

/**
 * The items of package `index` of `count` (one per tracking code): packageReferenceId is its
 * position (1, 2 ...: "Only positive numeric values", unique within the order). Kontor does not
 * record which line went into which parcel: one package carries every line; several share the
 * lines out in order (line j in package j mod count), so that each line is confirmed once with its
 * whole quantity. A package left without a line (more codes than lines) carries none: Amazon needs
 * at least one item, so it is not sent (answered undefined).
 */
export function packageOf(shipment: Shipment): { packageReferenceId: string; orderItems: { orderItemId: string; quantity: number }[] } | undefined {
  const { index, count } = shipment.package ?? { index: 0, count: 1 };
  const orderItems = (shipment.lines ?? []).filter((_l, j) => j % count === index).map((l) => ({ orderItemId: l.transactionId, quantity: l.quantity }));
  return orderItems.length ? { packageReferenceId: String(index + 1), orderItems } : undefined;
}

const sameNumber = (a: string | undefined, b: string) => (a ?? '').replace(/\s+/g, '').toUpperCase() === b.replace(/\s+/g, '').toUpperCase();

/** The package of the order Amazon holds with this tracking number (a retry, or the seller repeating send_mit), if any. */
export const heldPackage = (held: OrderPackage[], trackingNumber: string): OrderPackage | undefined =>
  held.find((k) => sameNumber(k.trackingNumber, trackingNumber));

/**
 * The packageReferenceId to confirm a package under: its position, unless a package of another
 * tracking number holds it (a send_mit before this one), then the next number after the highest
 * Amazon holds, as the id must be unique within the order ("A unique identifier for this package
 * within the context of the order"); a retry of this package was found by its tracking number before.
 */
export function freeReference(preferred: string, held: OrderPackage[]): string {
  if (!held.some((k) => k.packageReferenceId === preferred)) return preferred;
  const highest = Math.max(0, ...held.map((k) => Number(k.packageReferenceId)).filter(Number.isSafeInteger));
  return String(highest + 1);
}

/**
 * The units of each item Amazon has left to ship: `fulfillment.quantityUnfulfilled` ("The number
 * of units of this item that remain to be processed and shipped", data set FULFILLMENT); without
 * it, the units ordered less those in the order's packages that were not cancelled (none for an
 * item whose cancellation was executed: its unshipped units are gone).
 */
export function leftToShip(order: Order2026): Map<string, number> {
  const packed = new Map<string, number>();
  // A CANCELLED package ("Package shipment termination before delivery": a label the seller
  // cancelled) shipped nothing: its units are still to ship.
  const live = (order.packages ?? []).filter((k) => k.packageStatus?.status !== 'CANCELLED');
  for (const i of live.flatMap((k) => k.packageItems ?? [])) packed.set(i.orderItemId, (packed.get(i.orderItemId) ?? 0) + i.quantity);
  return new Map(
    order.orderItems.map((item) => {
      const unfulfilled = item.fulfillment?.quantityUnfulfilled;
      if (typeof unfulfilled === 'number') return [item.orderItemId, Math.max(0, unfulfilled)];
      if (item.cancellation?.cancellationExecution) return [item.orderItemId, 0];
      return [item.orderItemId, Math.max(0, item.quantityOrdered - (packed.get(item.orderItemId) ?? 0))];
    }),
  );
}

/**
 * A package's items trimmed to what Amazon has left to ship of each: units confirmed before (a
 * previous send_mit, or confirmed in Seller Central or by another tool) are not claimed again, as
 * Amazon refuses a confirmation of more than is unshipped (confirmShipment's 400, "Request has
 * missing or invalid parameters") and the package's other units would go unconfirmed with it.
 * Kontor lines of one order item (a line the seller split, both keeping its transaction_id) are
 * claimed as one item, their units summed, and the sum is trimmed: trimmed line by line, each
 * stayed within what is left while together they claimed more. An item Amazon does not list is
 * kept as it is (Amazon's answer names it). Empty: nothing of the package is left to ship.
 */
export function trimToLeft(items: { orderItemId: string; quantity: number }[], left: ReadonlyMap<string, number>): { orderItemId: string; quantity: number }[] {
  const claimed = new Map<string, number>();
  for (const i of items) claimed.set(i.orderItemId, (claimed.get(i.orderItemId) ?? 0) + i.quantity);
  return [...claimed]
    .map(([orderItemId, quantity]) => ({ orderItemId, quantity: Math.min(quantity, left.get(orderItemId) ?? quantity) }))
    .filter((i) => i.quantity > 0);
}
