/**
 * send_mit at a Shopify store, decided from the order's fulfillment orders as read (pure: the
 * adapter reads, this decides, the adapter applies). fulfillmentCreate takes fulfillment orders
 * "associated with the same order and ... assigned to the same location" (admin_schema_2025-01.json),
 * so the lines to ship are grouped by assigned location, one fulfillmentCreate each.
 * Per status (FulfillmentOrderStatus):
 * - OPEN, IN_PROGRESS: fulfilled (what remains of the lines the shipment names);
 * - ON_HOLD: never released here (a hold is placed by a fraud or payment app or by the merchant,
 *   and is theirs to lift); its lines are held, and the send fails retryable naming them, after the
 *   rest went out;
 * - SCHEDULED with no fulfillAt (a pre-order: deferred until the merchant says) or one already
 *   past (Shopify opens it then; the seller shipping says it is due): opened (fulfillmentOrderOpen)
 *   and fulfilled; with a fulfillAt still ahead (a prepaid subscription's later delivery, which the
 *   store's admin shows as "no action required") left for its date: not this shipment;
 * - CLOSED, CANCELLED, INCOMPLETE: nothing to fulfil there.
 */
import { legacyId } from './order-mapping';
import { shopifyTrackingCompany } from './tracking-company';

export interface FulfillmentOrderLineRead {
  id: string;
  /** "The total number of units to be fulfilled": the line's units this fulfillment order was given (appLines). */
  totalQuantity: number;
  remainingQuantity: number;
  sku: string | null;
  lineItem: { id: string };
}

export interface FulfillmentOrderRead {
  id: string;
  status: string;
  fulfillAt: string | null;
  /** Location.fulfillmentService: null at the merchant's own location (appService). */
  assignedLocation: { location: { id: string; fulfillmentService: { serviceName: string; inventoryManagement: boolean } | null } | null };
  fulfillmentHolds: { reason: string }[];
  lines: FulfillmentOrderLineRead[];
}

/** One fulfillmentCreate's lineItemsByFulfillmentOrder entry. */
export interface FulfillmentGroup {
  fulfillmentOrderId: string;
  fulfillmentOrderLineItems: { id: string; quantity: number }[];
}

export interface ShipmentPlan {
  /** SCHEDULED fulfillment orders that are due: opened before the fulfillments are created. */
  open: string[];
  /** One fulfillmentCreate per assigned location, in the order they were read. */
  byLocation: { location: string; groups: FulfillmentGroup[] }[];
  /** Lines of ON_HOLD fulfillment orders the shipment names: not sent, the send retried. */
  held: { fulfillmentOrderId: string; reasons: string[]; lines: { sku: string; quantity: number }[] }[];
}

const fulfillable = new Set(['OPEN', 'IN_PROGRESS']);

/** Due: a SCHEDULED fulfillment order without a date, or whose date has come. */
const due = (fo: FulfillmentOrderRead, now: Date) => fo.status === 'SCHEDULED' && (fo.fulfillAt === null || Date.parse(fo.fulfillAt) <= now.getTime());

/**
 * What to send: of each line the shipment names (by Shopify line id, its quantity; all remaining
 * when it names none) what remains, taken from fulfillable fulfillment orders first, then counted
 * against held ones. A line split over several fulfillment orders is never sent above the
 * shipment's quantity. A retry finds fulfilled lines with nothing remaining and sends nothing again.
 */
export function planShipment(orders: FulfillmentOrderRead[], wanted: Map<string, number>, now: Date): ShipmentPlan {
  const budget = new Map(wanted);
  const take = (li: FulfillmentOrderLineRead): number => {
    if (wanted.size === 0) return li.remainingQuantity;
    const line = legacyId(li.lineItem.id);
    const quantity = Math.min(li.remainingQuantity, budget.get(line) ?? 0);
    budget.set(line, (budget.get(line) ?? 0) - quantity);
    return quantity;
  };
  const plan: ShipmentPlan = { open: [], byLocation: [], held: [] };
  const sendable = orders.filter((fo) => fulfillable.has(fo.status) || due(fo, now));
  for (const fo of sendable) {
    const items = fo.lines.flatMap((li) => {
      const quantity = take(li);
      return quantity > 0 ? [{ id: li.id, quantity }] : [];
    });
    if (items.length === 0) continue;
    if (fo.status === 'SCHEDULED') plan.open.push(fo.id);
    const location = fo.assignedLocation.location?.id ?? '';
    let batch = plan.byLocation.find((b) => b.location === location);
    if (!batch) plan.byLocation.push((batch = { location, groups: [] }));
    batch.groups.push({ fulfillmentOrderId: fo.id, fulfillmentOrderLineItems: items });
  }
  for (const fo of orders.filter((f) => f.status === 'ON_HOLD')) {
    const lines = fo.lines.flatMap((li) => {
      const quantity = take(li);
      return quantity > 0 ? [{ sku: li.sku ?? legacyId(li.lineItem.id), quantity }] : [];
    });
    if (lines.length) plan.held.push({ fulfillmentOrderId: fo.id, reasons: fo.fulfillmentHolds.map((h) => h.reason), lines });
  }
  return plan;
}

/**
 * The fulfilment app that ships a fulfillment order from the stock it keeps: its assigned
 * location's FulfillmentService when that "tracks product inventory and provides updates to
 * Shopify" (inventoryManagement), else undefined (the merchant's own location, or an app that
 * leaves the stock to the merchant: a location like the merchant's own, as CIA takes it).
 */
export function appService(fo: Pick<FulfillmentOrderRead, 'assignedLocation'>): string | undefined {
  const service = fo.assignedLocation.location?.fulfillmentService;
  return service?.inventoryManagement ? service.serviceName : undefined;
}

/**
 * The scopes that show Kontor the fulfillment orders of locations fulfilment services manage
 * (FulfillmentOrder, "API access scopes": "The `read_third_party_fulfillment_orders` and
 * `write_third_party_fulfillment_orders` access scopes grant access to fulfillment orders assigned
 * to locations managed by other fulfillment services"). Kontor's consent link asks the read one
 * (config/channel-apps.ts shopifyScopes); it never fulfils them.
 */
export const thirdPartyScopes = ['read_third_party_fulfillment_orders', 'write_third_party_fulfillment_orders'];

/** Statuses of a fulfillment order assigned to fulfil what remains of its lines (FulfillmentOrderStatus). */
const assigned = new Set(['OPEN', 'IN_PROGRESS', 'ON_HOLD', 'SCHEDULED']);

/**
 * Whether a fulfillment order holds units of a line for appLines (found by a reviewer of a424004):
 * units still to fulfil where it is assigned to fulfil them (OPEN, IN_PROGRESS, ON_HOLD: "can't be
 * initiated until the hold ... is released", SCHEDULED: "will be ready for fulfillment" later),
 * and units fulfilled there (totalQuantity beyond remainingQuantity: CLOSED "completed", or part of
 * an IN_PROGRESS one), which left from that location. Units of a CANCELLED ("cancelled by the
 * merchant") or INCOMPLETE ("cannot be completed as requested") one are fulfilled by nobody there:
 * a424004 counted every listed unit, so a fulfillment order the merchant cancelled at the warehouse
 * kept a line the seller's after the store gave it to an app. A fulfillment order closed by a move
 * (fulfillmentOrderMove's second scenario: "The existing fulfillment order is closed and line items
 * are recreated in a new fulfillment order") is not read at all (`displayable: true`, "fulfillment
 * orders that were closed after being combined or moved are hidden"): what it lists would read as
 * units fulfilled at the old location.
 */
function holdsUnits(fo: FulfillmentOrderRead, l: FulfillmentOrderLineRead): boolean {
  if (fo.status === 'CANCELLED' || fo.status === 'INCOMPLETE') return l.totalQuantity > l.remainingQuantity;
  return (assigned.has(fo.status) && l.remainingQuantity > 0) || l.totalQuantity > l.remainingQuantity;
}

/**
 * The order's lines a fulfilment app ships from the stock it keeps (decision, README "Orders a
 * fulfilment app ships"), by LineItem id, with the app's name. Per line, as Kontor's order has no
 * fulfilment location of its own: a line is the app's when it has units at an app's location
 * (appService) and none at another location. A line split between the seller's location and an
 * app's stays the seller's whole (its units take stock; send_mit fulfils only the seller's
 * fulfillment order). `orders` must be read with a token that sees every fulfillment order
 * (thirdPartyScopes): a line in none of them is the seller's, as Shopify creates an order's
 * fulfillment orders after it ("After an order is created, a background worker performs the order
 * routing process ... Once the order routing process is complete, one or more fulfillment orders
 * will be created"), so an order read at once has none yet; c037bab counted such units an app's, and
 * an order read before its routing was taken whole as the app's (found by a reviewer of c037bab).
 * A later read (the order's updatedAt moved) that shows the line at an app's location gives its
 * stock back (lib/order-import, "Lines a fulfilment app ships").
 */
export function appLines(lines: { id: string }[], orders: FulfillmentOrderRead[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of lines) {
    const at = orders.flatMap((fo) => fo.lines.filter((l) => l.lineItem.id === line.id && holdsUnits(fo, l)).map(() => appService(fo)));
    if (at.length === 0 || at.some((app) => app === undefined)) continue;
    out.set(
      line.id,
      at.find((name) => name !== undefined)!,
    );
  }
  return out;
}

/**
 * The order's lines the seller ships (ChannelOrderLine.fulfilled_by_seller), by LineItem id: units
 * held (holdsUnits) at a location that is not a fulfilment app's (appService), none at an app's.
 * A line in no fulfillment order holding units (cancelled, not routed yet) is in neither this nor
 * appLines. `orders` read as for appLines (thirdPartyScopes). Found by a reviewer of ea9c996: a line
 * moved back from the app's location to the merchant's (fulfillmentOrderMove; an INCOMPLETE one,
 * which fulfillmentOrderClose gives back "to the merchant, allowing them to move the fulfillment
 * order line items to another location and fulfill from there") stayed unlinked, taking no stock
 * while the seller ships it.
 */
export function sellerLines(lines: { id: string }[], orders: FulfillmentOrderRead[]): Set<string> {
  return new Set(
    lines
      .filter((line) => {
        const at = orders.flatMap((fo) => fo.lines.filter((l) => l.lineItem.id === line.id && holdsUnits(fo, l)).map(() => appService(fo)));
        return at.length > 0 && at.every((app) => app === undefined);
      })
      .map((line) => line.id),
  );
}

/**
 * The lines Shopify fulfils (units beyond nonFulfillableQuantity: not refunded, not a tip) that are
 * in no fulfillment order read: with a token lacking thirdPartyScopes in a store with an app-kept
 * location, such a line may be at the app's location ("An API client will only receive a subset of
 * the fulfillment orders which belong to an order if they don't have the necessary access scopes",
 * Order.fulfillmentOrders), or the order is not routed yet: Kontor cannot tell which.
 */
export function linesInNoFulfillmentOrder<L extends { id: string; quantity: number; nonFulfillableQuantity: number }>(
  lines: L[],
  orders: FulfillmentOrderRead[],
): L[] {
  return lines.filter(
    (line) => line.quantity > line.nonFulfillableQuantity && !orders.some((fo) => fo.lines.some((l) => l.lineItem.id === line.id && l.totalQuantity > 0)),
  );
}

/**
 * A shipment with nothing of the seller's to fulfil whose lines a fulfilment app holds (appService:
 * its fulfillment orders are left out of planShipment): the refusal naming them and the app, so a
 * send_mit does not say ok for a parcel Kontor never sent, nor add its tracking number to the
 * app's fulfilment. Undefined when the app holds none of them.
 */
export function appsLinesMessage(orderId: string, orders: FulfillmentOrderRead[], wanted: Map<string, number>): string | undefined {
  const theirs = orders.flatMap((fo) => {
    const app = appService(fo);
    const lines = fo.lines.filter((li) => li.remainingQuantity > 0 && (wanted.size === 0 || wanted.has(legacyId(li.lineItem.id))));
    return app && lines.length ? [`${lines.map((li) => `${li.remainingQuantity} x ${li.sku ?? legacyId(li.lineItem.id)}`).join(', ')} at ${app}`] : [];
  });
  return theirs.length
    ? `webshop (Shopify) order ${orderId}: the store routed ${theirs.join('; ')}, a fulfilment app that ships from the stock it keeps and fulfils them itself; Kontor fulfils only the lines at the seller's locations`
    : undefined;
}

/** The held lines in words, for the send's retryable failure (GET job/{id}/ shows it while it waits). */
export function heldMessage(orderId: string, held: ShipmentPlan['held']): string {
  const parts = held.map(
    (h) =>
      `fulfillment order ${legacyId(h.fulfillmentOrderId)} on hold${h.reasons.length ? ` (${h.reasons.join(', ')})` : ''}: ${h.lines.map((l) => `${l.quantity} x ${l.sku}`).join(', ')}`,
  );
  return `webshop (Shopify) order ${orderId}: ${parts.join('; ')}. The rest is fulfilled; these lines are sent once the store releases the hold (tried again)`;
}

/** How many tracking numbers of a fulfilment are read (trackingInfo(first:)): 50 fulfilments of 10 keep the query below Shopify's 1000 points. */
export const trackingInfoRead = 10;

/** A fulfilment of the order as read for a tracking number given after its lines were fulfilled. */
export interface FulfillmentRead {
  id: string;
  status: string;
  trackingInfo: { number: string | null; company: string | null; url?: string | null }[];
  /** "The location that the fulfillment was processed at": a fulfilment app's (appService) is the app's parcel. */
  location?: FulfillmentOrderRead['assignedLocation']['location'];
}

/** What to do with a tracking number when nothing of the order remains to fulfil. */
export type TrackingAddition =
  | { action: 'none'; reason: string }
  | { action: 'update'; fulfillmentId: string; numbers: string[]; urls: string[]; company: string | null }
  | { action: 'refuse'; message: string }
  | { action: 'apps'; fulfillments: { id: string; app: string }[] };

const sameCompany = (a: string | null, b: string) => (a ?? '').trim().toLowerCase() === b.trim().toLowerCase();
/** A carrier as the store shows it: the listed name of a deliverer (a fulfilment Kontor made before it sent listed names holds "dpdp"), else as written. */
const carrierShown = (name: string) => shopifyTrackingCompany(name) ?? name.trim();

/**
 * A tracking number for an order whose lines are all fulfilled (a code given by a later send_mit,
 * or a send_mit's second package): added to the order's latest fulfilment that did not fail
 * (fulfillmentTrackingInfoUpdate replaces its tracking, numbers, URLs and company, so the numbers
 * it has are kept and so are their URLs: a URL the store or a shipping app gave, which made the
 * number clickable for the buyer, was dropped when only numbers were sent), unless a fulfilment
 * carries it already. The new number goes with `url`, Kontor's tracking page of it, when Kontor
 * knows one. `urls` are matched to `numbers` by position; decision: numbers with a URL come first,
 * in their order, then those without (Shopify builds theirs from the company when it knows it),
 * so that no URL lands on another number. Shopify keeps one company per fulfilment, applied to all its
 * numbers ("The same tracking company will be applied to all tracking numbers specified",
 * FulfillmentTrackingInput.company): a number of another carrier than the numbers there is
 * refused rather than shown to the buyer under the wrong carrier. The company sent is the
 * deliverer's name in Shopify's list (tracking-company.ts), the fulfilment's own company kept
 * otherwise (as its listed name when it is a Kontor code an earlier send left, "dpdp" -> DPD).
 * Decision: several fulfilments (one per location) get the number on the latest only; Kontor does
 * not know which parcel left where. A fulfilment made at a fulfilment app's location (appService
 * of Fulfillment.location) is the app's parcel: never given the seller's number; when only the
 * app's are there, `apps` (the adapter refuses naming their lines), found by a reviewer of a424004.
 */
export function trackingAddition(fulfillments: FulfillmentRead[], number: string, carrier: string | undefined, url?: string): TrackingAddition {
  if (fulfillments.some((f) => f.trackingInfo.some((t) => t.number === number))) return { action: 'none', reason: 'the store has the tracking number' };
  const live = fulfillments.filter((f) => f.status === 'SUCCESS' || f.status === 'OPEN' || f.status === 'PENDING');
  // A fulfilment app's fulfilment is its parcel, never the seller's: a424004 refused send_mit for the
  // app's lines only while they remained to fulfil, and a token without the scope saw none of them.
  const appOf = (f: FulfillmentRead) => (f.location ? appService({ assignedLocation: { location: f.location } }) : undefined);
  const latest = live.filter((f) => appOf(f) === undefined).at(-1);
  const apps = live.flatMap((f) => {
    const app = appOf(f);
    return app ? [{ id: f.id, app }] : [];
  });
  if (!latest && apps.length) return { action: 'apps', fulfillments: apps };
  if (!latest) return { action: 'none', reason: 'nothing of the order is fulfilled' };
  // Read no further than trackingInfoRead: a full page may hide numbers the update would drop.
  if (latest.trackingInfo.length >= trackingInfoRead)
    return {
      action: 'refuse',
      message: `the store's fulfilment ${legacyId(latest.id)} has ${trackingInfoRead} or more tracking numbers; ${number} is not added (add it in the store's admin)`,
    };
  const numbers = latest.trackingInfo.map((t) => t.number).filter((n): n is string => Boolean(n));
  const stored = latest.trackingInfo.find((t) => t.company)?.company;
  const current = stored ? carrierShown(stored) : null;
  // The company sent: the listed name (tracking-company.ts), none for a deliverer Shopify does not list.
  const listed = shopifyTrackingCompany(carrier);
  const given = carrier?.trim() ? carrierShown(carrier) : undefined;
  // A listed carrier would name the numbers there too; an unlisted one goes without a company, so it
  // stands beside numbers of no named carrier but not under another's name.
  const clash = given !== undefined && (listed ? !sameCompany(current, listed) : current !== null && !sameCompany(current, given));
  if (numbers.length && clash)
    return {
      action: 'refuse',
      message: `the store's fulfilment ${legacyId(latest.id)} carries ${numbers.join(', ')} of ${current ?? 'no named carrier'}; Shopify keeps one carrier per fulfilment, so ${given} ${number} is not added (add it in the store's admin)`,
    };
  const entries = [
    ...latest.trackingInfo.filter((t): t is typeof t & { number: string } => Boolean(t.number)).map((t) => ({ number: t.number, url: t.url ?? null })),
    { number, url: url ?? null },
  ];
  const ordered = [...entries.filter((e) => e.url), ...entries.filter((e) => !e.url)];
  return {
    action: 'update',
    fulfillmentId: latest.id,
    numbers: ordered.map((e) => e.number),
    urls: ordered.flatMap((e) => (e.url ? [e.url] : [])),
    company: listed ?? current,
  };
}
