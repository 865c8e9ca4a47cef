/**
 * send_mit at Amazon (confirmShipment of Orders v0): Amazon's carrier code of document 2's
 * shipping.deliverer, and the items of each package.
 */
import type { Shipment } from '../portal.type';
import type { OrderPackage } from './orders-2026';

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
