import { fetchPageSize } from './order-fetch-page';
import type { ChannelOrder, ChannelOrderPage } from './channel-order.type';
import { kauflandCarrier } from './kaufland/carriers';
import { KauflandSession, kauflandMessage, wasUnanswered } from './kaufland/kaufland-client';
import { channelOrder, KauflandOrder, KauflandOrderUnit } from './kaufland/order-mapping';
import { recordUnitCreation, unitCreation, unitListingDelayMs } from './kaufland/unit-creations';
import { idOfferOf, UnitData, unitData } from './kaufland/unit-mapping';
import { HttpPortalAdapter, pictures, portalInputError, shippedByChannelAtPortal, str } from './portal-http';
import type { ListingItem, PortalTarget, PushAids, QuantityOutcome, QuantityUpdate, Shipment } from './portal.type';
import { lowestPerListing } from './shared-listing';
import { portalRefused, portalUnavailable } from '../errors';

/** Kaufland's unit as GET /units and POST /units answer it (the fields Kontor reads). */
interface Unit {
  id_unit: number;
  id_offer: string | null;
  amount: number;
  /** FulfillmentType: fulfilled_by_kaufland is a unit Kaufland stocks in its own warehouse and ships (FBK). */
  fulfillment_type?: string;
  /** UnitStatuses: INCOMPLETE, AVAILABLE or ONHOLD; only the last two are written (WriteableUnitStatuses). */
  status?: string;
  listing_price?: number;
}

/**
 * Both fulfilment types, named on every unit and order-unit lookup: the contract's default of
 * GET /units' and GET /order-units' `fulfillment_type` is [fulfilled_by_merchant], so a unit
 * Kaufland fulfils was never found (a listing made a second unit of its id_offer beside it).
 * `fulfilled_by_kaufland` is deprecated in the contract but still listed.
 */
const bothFulfilments = ['fulfilled_by_merchant', 'fulfilled_by_kaufland'];
const byKaufland = (u: Unit) => u.fulfillment_type === 'fulfilled_by_kaufland';

/**
 * Decision (README "Units Kaufland fulfils"): a unit Kaufland fulfils holds the stock of
 * Kaufland's warehouse. Kontor sets no amount on it (that stock is not Kontor's to count) and
 * makes no unit of the seller's beside it (id_offer is the "Seller's unique ID for offer(s)": a
 * second unit of one id_offer offered the SKU twice, at Kontor's quantity). The seller sees why,
 * in the job or the CIA state; its orders are imported as fulfilled by the channel.
 */
function fulfilledByKaufland(s: KauflandSession, idOffer: string, idUnit: number, doing: string): string {
  return `market_e: Kaufland fulfils unit ${idUnit} of id_offer ${idOffer} in storefront ${s.storefront} from its own warehouse (fulfilled_by_kaufland); its amount is Kaufland's stock, so Kontor ${doing}`;
}
/** What a listing or revise of a unit Kaufland fulfils is refused with (fulfilledByKaufland's `doing`). */
const notListed = 'neither lists nor updates it; to sell the item from your own warehouse too, give it a SKU of its own';
/** What CIA's push of a unit Kaufland fulfils is refused with. */
const noAmount = 'sends it no amount';

/** A page of a list (CollectionApiResponse_*: Pagination's offset, limit and total are required). */
interface Page<T> {
  data: T[];
  pagination?: { total?: number };
}
type UnitPage = Page<Unit>;

/**
 * The id_offer a listed unit is held under, recorded with the listing (portal_listing.listed_sku):
 * an order unit names its unit only by it (OrderUnit has no id_unit), and the order import links
 * the sale to the item listed under it first (lib/portal-offer itemsListedUnder), as eBay's and
 * Amazon's. By the item's SKU alone a sale went astray: an item without a SKU is listed under its
 * stock id (idOfferOf), and its sale took the stock of another item whose SKU is that number, or
 * none; and UnitPatchRequest cannot change an id_offer, so after the seller changed the item's SKU
 * its unit's sales linked no item. A unit PATCHed by its id (one known, or the listing's recorded
 * `listedAs`) keeps the id_offer it was made with: Kaufland's answer names it, else the one
 * recorded before, else the id_offer sent.
 */
const heldUnder = (answered: Unit | undefined, item: ListingItem, unit: UnitData) => answered?.id_offer || item.listedSku || unit.id_offer;

/**
 * Whether a page of a list (GET /units, GET /shipping-groups) is the last, `next` the offset after
 * it: by Pagination.total, which the contract requires, else (an answer without it) a page
 * shorter than the `asked` limit. Not by
 * the page's length alone (found reviewing 748285e): `limit` is the "Desired size of result set",
 * and the answer's own Pagination.limit may be smaller; a short page taken as the last made the
 * storefront's listing count every unit seen (CIA refused the items beyond it, "list the item at
 * market_e first") and the lookup by id_offer miss the seller's unit (a listing POSTed a second).
 */
function lastPage<T>(page: Page<T>, next: number, asked = 100): boolean {
  const total = page.pagination?.total;
  if ((page.data ?? []).length === 0) return true;
  return typeof total === 'number' ? next >= total : page.data.length < asked;
}

/** Pages of 100 a unit lookup by id_offer reads at most (findUnit): its filter also answers other offers containing the id. */
const unitLookupPages = 100;

/** Order units per page of a fetch (the contract's maximum). */
const orderPageSize = 100;
/** GET /shipping-groups: the contract's largest page (limit at most 30). */
const shippingGroupsPage = 30;
/** POST /units/bulk: "SHOULD NOT have more than 150 units". */
const bulkMax = 150;
/** More unknown offers than this in one CIA batch: the storefront's units are listed instead of looked up one by one. */
const listAllAbove = 25;
/** Calls of one batch in flight at once (lookups, orders of a page): within the seller's rate, without a burst of hundreds. */
const concurrency = 8;

/** id_unit per (portal account, storefront, id_offer): CIA finds its units without a lookup each push (process-local; a 404 drops it). */
const unitIds = new Map<string, number>();
const unitKey = (s: KauflandSession, idOffer: string) => `${s.target.portalAccountId}|${s.storefront}|${idOffer}`;
/** id_unit of a unit Kaufland fulfils, per (portal account, storefront, id_offer) without a unit of the seller's: never sent an amount. */
const kauflandUnits = new Map<string, number>();
function rememberUnit(s: KauflandSession, idOffer: string, idUnit: number): void {
  if (unitIds.size > 200_000) unitIds.clear();
  unitIds.set(unitKey(s, idOffer), idUnit);
}
/**
 * A unit Kontor read: the seller's own is Kontor's to set; one Kaufland fulfils is kept apart,
 * never given an amount. That includes a unit Kontor listed (remembered, or recorded in
 * portal_listing) that Kaufland fulfils since (the seller moved it into Kaufland's fulfilment
 * programme, Unit.fulfillment_type): it is no longer taken for the seller's, and a recorded listing
 * naming it is not trusted again by this process (found by a reviewer of 980505e: it was sent
 * every quantity, each refused by Kaufland, with Kaufland's message rather than the reason an
 * FBK unit gets). Only another unit of the seller's beside it keeps the offer the seller's.
 */
function remember(s: KauflandSession, idOffer: string, unit: Unit): void {
  const key = unitKey(s, idOffer);
  if (!byKaufland(unit)) {
    kauflandIds.delete(goneKey(s, unit.id_unit));
    return rememberUnit(s, idOffer, unit.id_unit);
  }
  const sellers = unitIds.get(key);
  if (sellers !== undefined && sellers !== unit.id_unit) return;
  keptApart(s, idOffer, unit.id_unit);
}
/** A unit Kaufland fulfils: never taken for the seller's, never sent an amount, by this process. */
function keptApart(s: KauflandSession, idOffer: string, idUnit: number): void {
  const key = unitKey(s, idOffer);
  if (unitIds.get(key) === idUnit) unitIds.delete(key);
  if (kauflandIds.size > 200_000) kauflandIds.clear();
  kauflandIds.add(goneKey(s, idUnit));
  if (kauflandUnits.size > 200_000) kauflandUnits.clear();
  kauflandUnits.set(key, idUnit);
}
/**
 * Units Kaufland answered 404 for (deleted there): a recorded listing naming one is not trusted
 * again by this process, which looks the offer up instead (the first 404 after a restart costs one retry).
 */
const goneUnits = new Set<string>();
const goneKey = (s: KauflandSession, idUnit: number) => `${s.target.portalAccountId}|${idUnit}`;
/** Units Kontor saw Kaufland fulfil (goneKey): a recorded listing naming one is not taken for the seller's unit again. */
const kauflandIds = new Set<string>();
function forgetUnit(s: KauflandSession, idOffer: string, idUnit: number | undefined): void {
  unitIds.delete(unitKey(s, idOffer));
  if (idUnit === undefined) return;
  if (goneUnits.size > 200_000) goneUnits.clear();
  goneUnits.add(goneKey(s, idUnit));
}
/** The unit id a recorded listing names, unless Kaufland said it is gone or Kontor saw Kaufland fulfil it. */
function recordedUnit(s: KauflandSession, recorded: string | null | undefined): number | undefined {
  if (!recorded || !/^\d{1,15}$/.test(recorded)) return undefined;
  const id = Number(recorded);
  return goneUnits.has(goneKey(s, id)) || kauflandIds.has(goneKey(s, id)) ? undefined : id;
}

/** What a new process knows of Kaufland's units: nothing (tests play a restart or a second portal_upload process with it). */
export function forgetKauflandUnits(): void {
  unitIds.clear();
  goneUnits.clear();
  kauflandUnits.clear();
  kauflandIds.clear();
}

/**
 * A time as the Seller API's *_from_iso filters take it: "Should be in YYYY-MM-ddTHH:mm:ssZ
 * format" (seller-api-v2.openapi.json, GetOrderUnits' ts_updated_from_iso), whole seconds in UTC.
 * toISOString's milliseconds are not that format; the time is rounded down, so the window only
 * widens (an order unit changed in that second is read once more, never missed).
 */
export const kauflandTimestamp = (at: Date): string => `${at.toISOString().slice(0, 19)}Z`;

/**
 * The order's units with their `eco_fee` and `packaging_fee`, which the buyer pays on top of the
 * price (kaufland/order-mapping.ts): the contract names them on OrderUnit (GET /order-units, the
 * page) and OrderUnitDetails, not on OrderDetails' order units. Taken from the order details when
 * they carry them, else from the unit on the page, else read (GET /order-units/{id}: a unit of
 * the order not changed since the fetch's start, when another of its units was); read without
 * them, a later read of the order would lower the lines' prices the import set. A unit Kaufland
 * answers 404 for keeps its fees undefined: not known, rather than none (read as none, its line's
 * price fell below what the import set, and an unpaid order took the lower price); the mapping
 * marks the line `price_unread` and the import keeps its price. True when every unit's fees
 * were read.
 */
async function withUnitFees(s: KauflandSession, order: KauflandOrder, page: KauflandOrderUnit[]): Promise<boolean> {
  const listed = new Map(page.map((u) => [u.id_order_unit, u]));
  let whole = true;
  for (const u of order.order_units) {
    if (u.eco_fee !== undefined && u.packaging_fee !== undefined) continue;
    let known = listed.get(u.id_order_unit);
    if (!known) {
      const answer = await s.call<{ data: KauflandOrderUnit }>('GET', `/order-units/${u.id_order_unit}`);
      if (answer.status === 404) {
        whole = false;
        continue;
      }
      known = answer.body.data;
    }
    u.eco_fee ??= known?.eco_fee ?? null;
    u.packaging_fee ??= known?.packaging_fee ?? null;
  }
  return whole;
}

/** fn over items with at most `limit` in flight, results in order. */
async function mapLimited<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/**
 * Orders read whole, per (portal account, id_order), with each unit's ts_updated_iso then: a
 * fetch overlaps the one before (10 minutes, lib/order-import), so most orders on a page were
 * read whole before and none of their units changed since. Such an order is answered from here
 * instead of GET /orders/{id} again (a seller of 10 sales a second would otherwise read 6,000
 * orders per fetch, 60 s of Kaufland's 100 calls a second). Any unit changed, or not seen
 * before, reads the order again. Process-local, the oldest dropped beyond 20,000 orders.
 */
const ordersRead = new Map<string, { order: ChannelOrder; units: Map<number, string> }>();
const ordersReadMax = 20_000;
function rememberOrder(key: string, raw: KauflandOrder, order: ChannelOrder): void {
  ordersRead.delete(key);
  if (ordersRead.size >= ordersReadMax) ordersRead.delete(ordersRead.keys().next().value!);
  ordersRead.set(key, { order: structuredClone(order), units: new Map(raw.order_units.map((u) => [u.id_order_unit, u.ts_updated_iso])) });
}

const sentStates = new Set(['sent', 'sent_and_autopaid', 'received', 'returned', 'returned_paid']);
/** Sent and not back: the states an order unit takes a further shipment in (POST /shipments). */
const shipmentStates = new Set(['sent', 'sent_and_autopaid', 'received']);

/**
 * The fifth marketplace (Stock_market_e_type): document 2's real.de, today Kaufland Global
 * Marketplace. A portal account connected with `kaufland` speaks Kaufland's Marketplace Seller
 * API v2 (lib/portals/kaufland/; README "market_e is Kaufland"): units created, updated and
 * deleted by id_offer, CIA quantities as the units' amount (POST /units/bulk), send_mit through
 * the order units' send and shipments calls, orders from the order units changed since a time.
 * A target of no connector (the default account, which serves every portal) keeps the neutral
 * JSON dialect of portal-http.ts: Kaufland sets the amount of listed units only, and that account
 * is no Kaufland seller.
 */
export class MarketEAdapter extends HttpPortalAdapter {
  readonly portal = 'market_e' as const;
  override readonly uploadActions = ['list', 'delete'] as const;
  override readonly cia = { namedAccounts: false };
  override readonly categories = 'global' as const;

  protected mapListing(item: ListingItem): Record<string, unknown> {
    const g = item.group;
    return {
      ean: str(g, 'ean', item.ean),
      price: str(g, 'price', item.price),
      price_min: str(g, 'price_min'),
      comment: str(g, 'comment'),
      delivery_time: str(g, 'delivery_time'),
      location: str(g, 'location'),
      category_id: str(g, 'category_id'),
      name: str(g, 'name', item.name),
      images: pictures(g),
      quantity: item.quantityAvailable,
    };
  }

  protected override checkLimits(p: Record<string, unknown>): void {
    if (!p.ean) throw portalInputError(this.portal, 'an EAN (or isbn:...) is required');
    if (p.delivery_time && !/^([a-i]|\d+-\d+)$/.test(String(p.delivery_time))) throw portalInputError(this.portal, 'delivery_time must be a to i or X-Y');
    if ((p.images as string[]).length > 12) throw portalInputError(this.portal, 'at most 12 pictures');
  }

  /**
   * The unit of the item's id_offer: updated (PATCH) when Kaufland has one, else created (POST
   * /units by EAN). Kaufland takes no idempotency key; looking up by id_offer first makes a
   * retried listing update the unit instead of creating a second one. GET /units may show a new
   * unit only minutes later (its description), so the unit this process made or saw, else the one
   * Kontor recorded for the listing (`listedAs`, from another process or before a restart), is
   * PATCHed by its id first; a POST /units of the last minutes whose answer was not recorded
   * (kaufland/unit-creations.ts) gives its unit, or holds the listing back until GET /units shows it.
   * The unit's prices are in the storefront's currency: an item without a price in it is refused
   * before any call (unit-mapping.ts storefrontPrices; never the plain EUR price as CZK or PLN).
   */
  override async list(target: PortalTarget, item: ListingItem, key: string): Promise<{ portalItemId: string; listedSku?: string }> {
    if (target.connector !== 'kaufland') return super.list(target, item, key);
    const s = new KauflandSession(target);
    const { unit, shippingGroup } = unitData(item, s.storefront);
    const group = await this.shippingGroupId(s, shippingGroup);
    const listing = { ...this.patchOf(unit), ...group };
    const known = unitIds.get(unitKey(s, unit.id_offer)) ?? recordedUnit(s, item.listedAs);
    if (known !== undefined) {
      const patched = await this.patch(s, known, unit.id_offer, listing);
      if (patched.status !== 404) {
        await this.offHold(s, known, unit, patched.unit);
        rememberUnit(s, unit.id_offer, known);
        return { portalItemId: String(known), listedSku: heldUnder(patched.unit, item, unit) };
      }
      forgetUnit(s, unit.id_offer, known);
    }
    const existing = await this.findUnit(s, unit.id_offer);
    if (existing && byKaufland(existing)) throw portalRefused(fulfilledByKaufland(s, unit.id_offer, existing.id_unit, notListed));
    if (existing) {
      await this.offHold(s, existing.id_unit, unit, await this.patchUnit(s, existing.id_unit, unit.id_offer, listing));
      return { portalItemId: String(existing.id_unit), listedSku: unit.id_offer };
    }
    // A POST /units of this id_offer in the last minutes (any process): its unit, or a wait until GET /units would show it.
    const account = s.target.portalAccountId;
    const earlier = await this.createdUnit(s, unit.id_offer, 'the listing waits for it rather than create a second unit');
    if (earlier !== undefined) {
      const patched = await this.patch(s, earlier, unit.id_offer, listing);
      if (patched.status !== 404) {
        await this.offHold(s, earlier, unit, patched.unit);
        rememberUnit(s, unit.id_offer, earlier);
        return { portalItemId: String(earlier), listedSku: unit.id_offer };
      }
      forgetUnit(s, unit.id_offer, earlier);
    }
    await recordUnitCreation(account, s.storefront, unit.id_offer, { sentAt: Date.now() });
    let created: { status: number; body: { data?: Unit } };
    try {
      created = await s.call<{ data?: Unit }>('POST', '/units', { storefront: s.storefront }, { ...unit, ...group });
    } catch (err) {
      // Answered with a 4xx or 5xx (decision: Kaufland's 500 "Internal Server Error" is a request
      // that failed, and holding the listing 10 minutes after every 503 costs sellers more than the
      // rare unit made before one): no unit. A timeout or no answer may have made one: the record stays.
      if (!wasUnanswered(err)) await recordUnitCreation(account, s.storefront, unit.id_offer, null);
      throw err;
    }
    // A 404 is an answer too (createUnit documents none; Kaufland found something of the request
    // missing): no unit made, so nothing holds the next listing, and the job fails for good with
    // Kaufland's message. Before, it was taken as "answered without the new unit": the listing
    // was retried and held 10 minutes for a unit that never existed.
    if (created.status === 404) {
      await recordUnitCreation(account, s.storefront, unit.id_offer, null);
      throw portalRefused(`market_e (Kaufland) answered 404 to POST /units: ${kauflandMessage(created.body, 'not found')}`);
    }
    // A 2xx without id_unit: Kaufland made the unit (decision: a success is one) without naming it, so
    // the `sent` record stays and the retry waits until GET /units shows it rather than create a second.
    const idUnit = created.body.data?.id_unit;
    if (typeof idUnit !== 'number') throw portalUnavailable(`market_e (Kaufland) answered ${created.status} to POST /units without the new unit`);
    await recordUnitCreation(account, s.storefront, unit.id_offer, { idUnit });
    rememberUnit(s, unit.id_offer, idUnit);
    return { portalItemId: String(idUnit), listedSku: unit.id_offer };
  }

  /**
   * PATCH /units/{id_unit} with the whole mapping (price, minimum price, handling time, note,
   * warehouse, shipping group, amount). The price is in the storefront's currency or the revise is
   * refused before any call, as a listing is (unit-mapping.ts storefrontPrices): a PATCH of a cz
   * unit with the plain EUR number set it as CZK.
   */
  override async revise(target: PortalTarget, item: ListingItem, portalItemId: string, values: string[], key: string): Promise<void> {
    if (target.connector !== 'kaufland') return super.revise(target, item, portalItemId, values, key);
    const s = new KauflandSession(target);
    const { unit, shippingGroup } = unitData(item, s.storefront);
    const id = /^\d+$/.test(portalItemId) ? Number(portalItemId) : (await this.sellersUnit(s, unit.id_offer))?.id_unit;
    if (!id) throw portalRefused(`market_e: no Kaufland unit with id_offer ${unit.id_offer} in storefront ${s.storefront}; list it first`);
    await this.patchUnit(s, id, unit.id_offer, { ...this.patchOf(unit), ...(await this.shippingGroupId(s, shippingGroup)) });
  }

  /**
   * DELETE /units/{id_unit} (the portal item id, else the unit of the item's id_offer); a unit
   * already gone is ended. Without a recorded listing (its worker died after Kaufland answered POST
   * /units), the unit is the one this process made, else GET /units', else the one a POST /units of
   * the last minutes made (kaufland/unit-creations.ts): GET /units shows a new unit only minutes
   * later, and the delete found nothing, counted the listing ended and left the unit on sale.
   */
  override async end(
    target: PortalTarget,
    stockId: number,
    portalItemId: string | null,
    key: string,
    item?: Pick<ListingItem, 'sku' | 'group'>,
  ): Promise<void> {
    if (target.connector !== 'kaufland') return super.end(target, stockId, portalItemId, key);
    const s = new KauflandSession(target);
    const idOffer = idOfferOf({ sku: item?.sku ?? null, stockId });
    const id =
      portalItemId && /^\d+$/.test(portalItemId)
        ? Number(portalItemId)
        : (unitIds.get(unitKey(s, idOffer)) ??
          (await this.sellersUnit(s, idOffer))?.id_unit ??
          (await this.createdUnit(s, idOffer, 'the delete waits for it rather than leave it on sale')));
    if (id === undefined) return;
    // The unit's own type first (decision, README "Ending a unit Kaufland fulfils since"): one the
    // seller moved into Kaufland's fulfilment programme after Kontor listed it holds the stock of
    // Kaufland's warehouse, and DELETE /units/{id} took it from the seller. It is put ONHOLD
    // (UnitPatchRequest.status, WriteableUnitStatuses: off sale, kept with its stock) instead, with
    // the unit's own listing price as read (decision, README: PATCH asks for "a listing price
    // greater than zero" and does not say a status alone does without one; its own changes nothing).
    const read = await s.call<{ data?: Unit }>('GET', `/units/${id}`, { storefront: s.storefront });
    const found = read.status === 404 ? undefined : read.body.data;
    if (found && byKaufland(found)) {
      keptApart(s, idOffer, id);
      const price = typeof found.listing_price === 'number' && found.listing_price >= 1 ? { listing_price: found.listing_price } : {};
      const held = await s.call('PATCH', `/units/${id}`, { storefront: s.storefront }, { status: 'ONHOLD', ...price }, [400]);
      if (held.status === 400)
        throw portalRefused(
          `${fulfilledByKaufland(s, idOffer, id, 'does not delete it')}; Kaufland refused to put it on hold: ${kauflandMessage(held.body, 'no reason given')}. End it in the Seller Portal`,
        );
    } else if (read.status !== 404) await s.call('DELETE', `/units/${id}`, { storefront: s.storefront });
    unitIds.delete(unitKey(s, idOffer));
    await recordUnitCreation(s.target.portalAccountId, s.storefront, idOffer, null);
  }

  /**
   * CIA: each item's unit (remembered, else the one Kontor recorded for its listing, else GET
   * /units by id_offer), then its amount through POST /units/bulk, 150 units a call; each unit's
   * status_code decides: 2xx accepted, 429 and 5xx retry, 404 (a unit deleted at Kaufland) retry
   * after forgetting it, anything else refused with Kaufland's message. An item without a unit is
   * refused: Kaufland sets the amount of listed units only. The recorded unit comes before the
   * lookup because GET /units may show a new unit only minutes later (its description): a sale
   * in those minutes, pushed by a process that did not list the item, was refused and Kaufland
   * kept offering the listed amount.
   */
  override async setQuantities(target: PortalTarget, updates: QuantityUpdate[], key: string, aids?: PushAids): Promise<QuantityOutcome[]> {
    if (target.connector !== 'kaufland') return super.setQuantities(target, updates, key);
    const s = new KauflandSession(target);
    const outcomes = new Map<number, QuantityOutcome>();
    const { fulfilled: recordedKauflands, reread } = await this.recallRecorded(s, updates, aids);
    // What this push learnt of recorded listings, for portal_listing (README: "A unit Kontor listed that Kaufland fulfils since").
    const nowKauflands: { stockId: number; portalItemId: string }[] = [];
    const nowSellers: { stockId: number; portalItemId: string }[] = [];
    const unknown = updates.map(idOfferOf).filter((o) => !unitIds.has(unitKey(s, o)));
    // Many unknown offers (a first push after a restart): the storefront's units a page of 100 at a time, not a lookup each.
    const listedAll = unknown.length > listAllAbove ? await this.readAllUnits(s, new Set(unknown)) : false;
    await this.readRecorded(s, reread);
    const resolved = await mapLimited(updates, concurrency, async (u) => {
      const idOffer = idOfferOf(u);
      const id = unitIds.get(unitKey(s, idOffer)) ?? (listedAll ? undefined : (await this.sellersUnit(s, idOffer))?.id_unit);
      const kauflands = kauflandUnits.get(unitKey(s, idOffer));
      if (id === undefined && kauflands !== undefined && !recordedKauflands.has(u.stockId))
        nowKauflands.push({ stockId: u.stockId, portalItemId: String(kauflands) });
      if (id === undefined)
        outcomes.set(u.stockId, {
          stockId: u.stockId,
          outcome: 'refused',
          message:
            kauflands !== undefined
              ? fulfilledByKaufland(s, idOffer, kauflands, noAmount)
              : `market_e: no Kaufland unit with id_offer ${idOffer} in storefront ${s.storefront}; list the item at market_e first`,
        });
      return { u, idOffer, id };
    });
    const { sent: known, clashes } = lowestPerListing(
      resolved.filter((r): r is { u: QuantityUpdate; idOffer: string; id: number } => r.id !== undefined),
      (r) => String(r.id),
      'market_e (Kaufland)',
    );
    for (const clash of clashes) outcomes.set(clash.stockId, clash);
    // Decision (the contract is ambiguous): unit_data carries the amount alone. bulkUpdateUnits'
    // description says "you have to specify a listing price greater than zero", but
    // UnitPatchRequest requires no field and the example's refusal is of a listing_price of 0
    // ("listing_price must be greater than 0"). A CIA push knows no price (QuantityUpdate has
    // none), and sending back a remembered one would undo a price the seller or Smart Pricing
    // set at Kaufland since. If Kaufland refuses an amount alone, each unit comes back refused
    // with its message (never accepted silently).
    for (let i = 0; i < known.length; i += bulkMax) {
      const chunk = known.slice(i, i + bulkMax);
      const answer = await s.call<{ data: { id_unit: number; status_code: number; message?: string; errors?: { field: string; message: string }[] }[] }>(
        'POST',
        '/units/bulk',
        { storefront: s.storefront },
        chunk.map((r) => ({ id_unit: r.id, unit_data: { amount: Math.max(0, r.u.quantity) } })),
      );
      const byUnit = new Map((answer.body.data ?? []).map((d) => [d.id_unit, d]));
      for (const r of chunk) {
        const d = byUnit.get(r.id);
        const status = Number(d?.status_code ?? 0);
        if (status >= 200 && status < 300) {
          outcomes.set(r.u.stockId, { stockId: r.u.stockId, outcome: 'accepted' });
          if (recordedKauflands.has(r.u.stockId)) nowSellers.push({ stockId: r.u.stockId, portalItemId: String(r.id) });
          continue;
        }
        if (status === 404) forgetUnit(s, r.idOffer, r.id);
        const retry = !d || status === 404 || status === 429 || status >= 500;
        // Refused: the unit Kontor listed may be Kaufland's to fulfil since (remember): refused
        // as one, and no amount goes to it again (the next push finds it Kaufland's).
        const kauflands = !retry && (await this.fulfilledNow(s, r.idOffer, r.id));
        if (kauflands) nowKauflands.push({ stockId: r.u.stockId, portalItemId: String(r.id) });
        const message = kauflands
          ? fulfilledByKaufland(s, r.idOffer, r.id, noAmount)
          : `market_e (Kaufland) answered ${status || 'nothing'} for unit ${r.id} (id_offer ${r.idOffer}): ${kauflandMessage(d, 'no reason given')}`;
        // Missing from the answer, or its 5xx: Kaufland may have applied it (a 404 or 429 did not).
        if (retry) outcomes.set(r.u.stockId, { stockId: r.u.stockId, outcome: 'retry', message, ...(!d || status >= 500 ? { mayHaveLanded: true } : {}) });
        else outcomes.set(r.u.stockId, { stockId: r.u.stockId, outcome: 'refused', message });
      }
    }
    // Kept in the listing's record (only a listing recorded under that unit id is marked), so a
    // restart or another worker sends it no amount; a unit back to the seller's is cleared.
    if (nowKauflands.length > 0) await aids?.recordChannelFulfilled?.(nowKauflands, true);
    if (nowSellers.length > 0) await aids?.recordChannelFulfilled?.(nowSellers, false);
    return updates.map((u) => outcomes.get(u.stockId)!);
  }

  /**
   * send_mit: the first package marks each order unit (the lines' transaction ids) sent with the
   * carrier code and tracking number (PATCH /order-units/{id}/send); a further package adds its
   * tracking number to the sent units (POST /shipments). A unit already sent (marked so before
   * without a tracking number, by another send_mit, or by a retry of this one) gets the number as
   * a shipment too ("Add a shipment to an order unit which is already marked as sent"), so a code
   * given later reaches the buyer; a shipment already there (duplicate-action) is nothing to do.
   * A unit cancelled or returned is left alone. The order is read first (GET /orders/{id_order}):
   * one Kaufland fulfils from its own warehouse (fulfillment_type fulfilled_by_kaufland) is not
   * sent (shippedByChannelAtPortal): send_mit refuses such an order when the request comes, but
   * Kontor may learn it only after the request was taken, and a send from the seller would tell
   * the buyer of a second parcel. The contract names no refusal of it (decision, README.md).
   */
  override async markShipped(target: PortalTarget, shipment: Shipment, key: string): Promise<void> {
    if (target.connector !== 'kaufland') return super.markShipped(target, shipment, key);
    const s = new KauflandSession(target);
    const units = (shipment.lines ?? []).map((l) => l.transactionId).filter((id) => /^\d+$/.test(id));
    if (units.length === 0) throw portalInputError(this.portal, `order ${shipment.orderId} has no lines with a Kaufland order unit id (transaction_id)`);
    if (shipment.externalOrderId) {
      const order = await s.call<{ data: KauflandOrder }>('GET', `/orders/${encodeURIComponent(shipment.externalOrderId)}`);
      if (order.status !== 404 && order.body.data?.fulfillment_type === 'fulfilled_by_kaufland')
        throw shippedByChannelAtPortal(
          `order_id: Kaufland fulfils order ${shipment.externalOrderId} from its own warehouse (fulfilled_by_kaufland) and ships it itself; no order unit was marked sent`,
        );
    }
    const carrier = kauflandCarrier(shipment.carrier, shipment.trackingCode);
    const tracking = shipment.trackingCode ?? '';
    const first = (shipment.package?.index ?? 0) === 0;
    for (const id of units) {
      if (first) {
        const sent = await s.call('PATCH', `/order-units/${id}/send`, {}, { tracking_numbers: tracking, carrier_code: carrier }, [400]);
        if (sent.status === 404) throw portalRefused(`market_e: Kaufland has no order unit ${id} for this account`);
        // Marked sent, with the tracking number when there is one.
        if (sent.status !== 400) continue;
        const unit = await s.call<{ data: KauflandOrderUnit }>('GET', `/order-units/${id}`);
        const state = unit.body.data?.status ?? '';
        if (state !== 'cancelled' && !sentStates.has(state))
          throw portalRefused(`market_e (Kaufland) refused to mark order unit ${id} sent: ${kauflandMessage(sent.body, 'no reason given')}`);
        // Sent before: the tracking number is added as a shipment below; cancelled or back already: left alone.
        if (!shipmentStates.has(state)) continue;
      }
      if (!tracking) continue;
      const added = await s.call(
        'POST',
        '/shipments',
        {},
        { id_order_unit: Number(id), shipment_information: { tracking_number: tracking, carrier_code: carrier } },
        [400],
      );
      if (added.status === 404) throw portalRefused(`market_e: Kaufland has no order unit ${id} for this account`);
      if (added.status === 400 && (added.body as { type?: string }).type !== '/problems/duplicate-action')
        throw portalRefused(`market_e (Kaufland) refused the shipment ${tracking} of order unit ${id}: ${kauflandMessage(added.body, 'no reason given')}`);
    }
  }

  /**
   * Order units changed since a time (GET /order-units, ts_updated_from_iso, newest change first,
   * 100 a page, the cursor the next offset); each order named on the page is read whole (GET
   * /orders/{id_order}: all its units, buyer and addresses), so an order whose units span two
   * pages comes in complete; an order read whole before whose units on the page are unchanged is
   * answered from that read (ordersRead).
   */
  async fetchOrders(target: PortalTarget, modifiedSince: Date, cursor: string | null): Promise<ChannelOrderPage> {
    if (target.connector !== 'kaufland') throw portalInputError(this.portal, 'orders are fetched from portal accounts connected with kaufland');
    const s = new KauflandSession(target);
    const offset = cursor && /^\d+$/.test(cursor) ? Number(cursor) : 0;
    const page = await s.call<{ data: KauflandOrderUnit[]; pagination?: { total?: number } }>('GET', '/order-units', {
      storefront: s.storefront,
      // The contract's default is fulfilled_by_merchant alone: units Kaufland fulfils would never
      // be fetched, and a seller's hub would miss those sales (decision: both, while the contract
      // lists fulfilled_by_kaufland, deprecated; they take no stock, order-mapping.ts).
      fulfillment_type: bothFulfilments,
      ts_updated_from_iso: kauflandTimestamp(modifiedSince),
      sort: 'ts_updated:desc',
      limit: fetchPageSize(orderPageSize),
      offset,
    });
    const units = page.body.data ?? [];
    const ids = [...new Set(units.map((u) => u.id_order))];
    const orderKey = (id: string) => `${target.portalAccountId}|${s.storefront}|${id}`;
    // Unchanged since it was read whole: every unit of the order on this page as it was then.
    const unchanged = (id: string) => {
      const known = ordersRead.get(orderKey(id));
      return known && units.every((u) => u.id_order !== id || known.units.get(u.id_order_unit) === u.ts_updated_iso) ? known.order : undefined;
    };
    const orders = await mapLimited(ids, concurrency, async (id) => {
      const known = unchanged(id);
      if (known) return structuredClone(known);
      const answer = await s.call<{ data: KauflandOrder }>('GET', `/orders/${encodeURIComponent(id)}`);
      if (answer.status === 404) return undefined;
      const whole = await withUnitFees(s, answer.body.data, units);
      const order = channelOrder(answer.body.data);
      // A read missing a unit's fees is not kept: the next fetch reads the order again.
      if (whole) rememberOrder(orderKey(id), answer.body.data, order);
      else ordersRead.delete(orderKey(id));
      return order;
    });
    const read = offset + units.length;
    const total = page.body.pagination?.total ?? read;
    return { orders: orders.filter((o): o is ChannelOrder => o !== undefined), next: units.length > 0 && read < total ? String(read) : null };
  }

  /** GET /orders/{id_order}: one order with all its units (undefined when Kaufland no longer has it). */
  async fetchOrder(target: PortalTarget, externalOrderId: string, session?: KauflandSession): Promise<ChannelOrder | undefined> {
    const s = session ?? new KauflandSession(target);
    const answer = await s.call<{ data: KauflandOrder }>('GET', `/orders/${encodeURIComponent(externalOrderId)}`);
    if (answer.status === 404) return undefined;
    await withUnitFees(s, answer.body.data, []);
    return channelOrder(answer.body.data);
  }

  /**
   * Cancels order units at Kaufland (PATCH /order-units/{id}/cancel with one of its reasons): what
   * a seller's cancellation in Kontor sends; a unit already cancelled is left as it is.
   */
  async cancelOrderUnits(target: PortalTarget, orderUnitIds: string[], reason = 'GeneralAdjustment'): Promise<void> {
    const s = new KauflandSession(target);
    for (const id of orderUnitIds) {
      const answer = await s.call('PATCH', `/order-units/${encodeURIComponent(id)}/cancel`, {}, { reason }, [400]);
      if (answer.status === 404) throw portalRefused(`market_e: Kaufland has no order unit ${id} for this account`);
      if (answer.status === 400) {
        const unit = await s.call<{ data: KauflandOrderUnit }>('GET', `/order-units/${encodeURIComponent(id)}`);
        if (unit.body.data?.status === 'cancelled') continue;
        throw portalRefused(`market_e (Kaufland) refused to cancel order unit ${id}: ${kauflandMessage(answer.body, 'no reason given')}`);
      }
    }
  }

  /**
   * The units Kontor recorded for the listings of the items this process does not know yet, and
   * for those recorded as Kaufland's to fulfil (portal_listing.fulfilled_by_channel, one statement
   * a push). A unit recorded so is read (readRecorded, after any listing of the storefront's units)
   * and kept by its type now: Kaufland's, sent no amount; the seller's again, sent its amount (and
   * the record cleared, setQuantities); gone, forgotten. Answers the items recorded so and the
   * units to read. Before, only the process that read the unit's type
   * knew it: after a restart, or in another portal_upload worker, its recorded id was sent an
   * amount once more. The read is once per unit and process, not per push (checked by a reviewer
   * of 748285e): the unit read as Kaufland's is kept apart (kauflandIds), so recordedUnit names it
   * no more and the pushes after read only the lookup by id_offer any offer without a seller's
   * unit gets.
   */
  private async recallRecorded(
    s: KauflandSession,
    updates: QuantityUpdate[],
    aids: PushAids | undefined,
  ): Promise<{ fulfilled: Set<number>; reread: { idOffer: string; id: number }[] }> {
    const reread: { idOffer: string; id: number }[] = [];
    if (!aids) return { fulfilled: new Set(), reread };
    const fulfilled = (await aids.channelFulfilled?.(updates.map((u) => u.stockId))) ?? new Set<number>();
    const unknown = updates.filter((u) => fulfilled.has(u.stockId) || !unitIds.has(unitKey(s, idOfferOf(u))));
    if (unknown.length === 0) return { fulfilled, reread };
    const recorded = await aids.listedItems(unknown.map((u) => u.stockId));
    for (const u of unknown) {
      const id = recordedUnit(s, recorded.get(u.stockId));
      if (id === undefined) continue;
      if (fulfilled.has(u.stockId)) reread.push({ idOffer: idOfferOf(u), id });
      else rememberUnit(s, idOfferOf(u), id);
    }
    return { fulfilled, reread };
  }

  /**
   * The recorded units recallRecorded found marked Kaufland's to fulfil, read now: each by its id
   * (GET /units/{id_unit}, the only read that shows a unit made minutes ago), unless the push
   * listed the storefront's units (readAllUnits, many unknown offers) and that listing showed it
   * (batched, asked of its README: the contract's GET /units has no id_unit filter, so one GET
   * /units of the marked offers is not to be had, but a listing the push reads anyway tells each
   * marked unit's type as its own read does). A unit the listing left out is read by its id still.
   */
  private async readRecorded(s: KauflandSession, reread: { idOffer: string; id: number }[]): Promise<void> {
    const unread = reread.filter(({ idOffer, id }) => !unitIds.has(unitKey(s, idOffer)) && !kauflandIds.has(goneKey(s, id)));
    await mapLimited(unread, concurrency, async ({ idOffer, id }) => {
      const answer = await s.call<{ data?: Unit }>('GET', `/units/${id}`, { storefront: s.storefront });
      if (answer.status === 404 || !answer.body.data) return forgetUnit(s, idOffer, id);
      remember(s, idOffer, answer.body.data);
    });
  }

  /**
   * Pages through the storefront's units (GET /units, 100 a page) remembering each, until every
   * wanted id_offer is found or the units end (true: every unit was seen), at most 100 pages.
   */
  private async readAllUnits(s: KauflandSession, wanted: Set<string>): Promise<boolean> {
    for (let offset = 0, page = 0; page < 100; page++) {
      const answer = await s.call<UnitPage>('GET', '/units', { storefront: s.storefront, fulfillment_type: bothFulfilments, limit: 100, offset });
      const units = answer.body.data ?? [];
      for (const u of units) {
        if (u.id_offer === null) continue;
        remember(s, u.id_offer, u);
        wanted.delete(u.id_offer);
      }
      offset += units.length;
      if (lastPage(answer.body, offset)) return true;
      if (wanted.size === 0) return false;
    }
    return false;
  }

  /**
   * The unit a POST /units of the id_offer made in the last minutes (kaufland/unit-creations.ts,
   * any process), for when GET /units does not show it yet: its id_unit once Kaufland answered it
   * (unless Kaufland said it is gone since); for a call whose answer never came, a retryable
   * failure (`waits`: what the caller does instead) until GET /units would show a unit it made.
   */
  private async createdUnit(s: KauflandSession, idOffer: string, waits: string): Promise<number | undefined> {
    const earlier = await unitCreation(s.target.portalAccountId, s.storefront, idOffer);
    if (earlier && 'idUnit' in earlier) return goneUnits.has(goneKey(s, earlier.idUnit)) ? undefined : earlier.idUnit;
    const waitMs = earlier ? earlier.sentAt + unitListingDelayMs - Date.now() : 0;
    if (earlier && waitMs > 0)
      throw portalUnavailable(
        `market_e (Kaufland): a unit of id_offer ${idOffer} was requested (POST /units) at ${new Date(earlier.sentAt).toISOString()} without its answer reaching Kontor; GET /units shows a new unit only minutes later, so ${waits}`,
        waitMs,
      );
    return undefined;
  }

  /**
   * The unit of an id_offer in the account's storefront (GET /units?id_offer=, both fulfilment
   * types), remembered: the seller's own when there is one, else one Kaufland fulfils. The
   * contract calls the parameter "Provided ID of your stock" and does not say it matches exactly
   * (decision: read as a filter that may answer other offers too, as the sandbox plays it), so
   * each answered unit's id_offer is compared, page by page (100 a page) until a page is not
   * full: with `limit: 1` the one unit answered could be another offer's (KL-10 for KL), the
   * lookup found nothing and the listing made a second unit of KL. Every page is read (found by
   * a reviewer of 980505e: a stop after 10 pages missed a seller's own KL behind KL-0 to KL-999,
   * and POST /units made a second KL); a filter answering more than `unitLookupPages` full
   * pages is refused rather than taken as no unit (which would make one).
   */
  private async findUnit(s: KauflandSession, idOffer: string): Promise<Unit | undefined> {
    let kauflands: Unit | undefined;
    for (let offset = 0, page = 0; ; page++) {
      if (page === unitLookupPages)
        throw portalRefused(
          `market_e: GET /units?id_offer=${idOffer} in storefront ${s.storefront} answered more than ${offset} units (${unitLookupPages} pages) of other offers; Kontor cannot tell whether ${idOffer} has a unit and makes none (give the item a SKU fewer id_offers contain)`,
        );
      const answer = await s.call<UnitPage>('GET', '/units', {
        storefront: s.storefront,
        id_offer: idOffer,
        fulfillment_type: bothFulfilments,
        limit: 100,
        offset,
      });
      const units = answer.body.data ?? [];
      const exact = units.filter((u) => u.id_offer === idOffer);
      const own = exact.find((u) => !byKaufland(u));
      if (own) {
        remember(s, idOffer, own);
        return own;
      }
      kauflands ??= exact[0];
      offset += units.length;
      if (lastPage(answer.body, offset)) break;
    }
    if (kauflands) remember(s, idOffer, kauflands);
    return kauflands;
  }

  /** The seller's own unit of an id_offer (findUnit's, unless Kaufland fulfils it): what revise, end and CIA address. */
  private async sellersUnit(s: KauflandSession, idOffer: string): Promise<Unit | undefined> {
    const unit = await this.findUnit(s, idOffer);
    return unit && !byKaufland(unit) ? unit : undefined;
  }

  /** PATCH /units/{id_unit} of a unit Kaufland must have (its 404 is refused): the unit as Kaufland answers it. */
  private async patchUnit(s: KauflandSession, id: number, idOffer: string, patch: Record<string, unknown>): Promise<Unit | undefined> {
    const patched = await this.patch(s, id, idOffer, patch);
    if (patched.status === 404) throw portalRefused(`market_e: Kaufland has no unit ${id} in storefront ${s.storefront}`);
    return patched.unit;
  }

  /**
   * A listing puts a held unit back on sale (UnitPatchRequest.status AVAILABLE, found by a reviewer
   * of 748285e: end puts a unit Kaufland fulfils ONHOLD, and once it was the seller's again a
   * listing PATCHed it without a status, recorded it listed and sent it amounts while Kaufland kept
   * it off sale). Only a unit Kaufland answered ONHOLD (decision, README "A listing puts a held
   * unit on sale"): the contract says nothing of AVAILABLE written to an INCOMPLETE unit
   * (UnitStatuses, not WriteableUnitStatuses: Kaufland's own verdict on the unit), so it is sent
   * to no other unit; sent with every listing, a refusal of it failed the listing of a unit the
   * mapping's PATCH had updated. The listing price goes with it, the listing's own: the PATCH's
   * description asks for "a listing price greater than zero" and does not say whether a status
   * alone does without one. revise sends no status (a hold the seller set in the Seller Portal on
   * a live listing stays); a new unit (POST /units) takes none.
   */
  private async offHold(s: KauflandSession, id: number, unit: UnitData, answered: Unit | undefined): Promise<void> {
    if (answered?.status !== 'ONHOLD') return;
    await this.patchUnit(s, id, unit.id_offer, { status: 'AVAILABLE', listing_price: unit.listing_price });
  }

  /**
   * PATCH /units/{id_unit}: the answer's status (2xx, or 404 for a unit gone) and the unit it
   * answers (ApiResponse_Unit_). A 400 is refused, as one of a unit Kaufland fulfils when it is
   * one now (fulfilledNow), else with Kaufland's message.
   */
  private async patch(s: KauflandSession, id: number, idOffer: string, patch: Record<string, unknown>): Promise<{ status: number; unit?: Unit }> {
    const answer = await s.call<{ data?: Unit }>('PATCH', `/units/${id}`, { storefront: s.storefront }, patch, [400]);
    if (answer.status !== 400) return { status: answer.status, unit: answer.status === 404 ? undefined : answer.body?.data };
    if (await this.fulfilledNow(s, idOffer, id)) throw portalRefused(fulfilledByKaufland(s, idOffer, id, notListed));
    throw portalRefused(`market_e (Kaufland) answered 400 to PATCH /units/${id}: ${kauflandMessage(answer.body, 'Bad Request')}`);
  }

  /**
   * Whether Kaufland fulfils the unit now (GET /units/{id_unit}, fulfillment_type), asked when
   * Kaufland refuses what Kontor sent a unit it took for the seller's: a unit the seller moved
   * into Kaufland's fulfilment programme after Kontor listed it. The contract names no refusal of
   * an amount for such a unit (the sandbox's is ours: 400 action-not-allowed), so the unit's own
   * fulfillment_type decides, not the refusal's wording. One Kaufland fulfils is remembered as such.
   */
  private async fulfilledNow(s: KauflandSession, idOffer: string, id: number): Promise<boolean> {
    const answer = await s.call<{ data?: Unit }>('GET', `/units/${id}`, { storefront: s.storefront });
    const unit = answer.status === 404 ? undefined : answer.body.data;
    if (!unit || !byKaufland(unit)) return false;
    remember(s, idOffer, unit);
    return true;
  }

  /** UnitPatchRequest takes neither the EAN, the id_offer nor the condition (they are the unit's identity). */
  private patchOf(unit: UnitData): Record<string, unknown> {
    const { ean: _e, id_offer: _o, condition: _c, ...patch } = unit;
    return patch;
  }

  /**
   * id_shipping_group of the group's shipping_group_id: a number as it is, a name looked up at GET
   * /shipping-groups, page by page (its limit is at most 30: a seller's 31st group was "no shipping
   * group named" before), until found or the groups end (at most 20 pages).
   */
  private async shippingGroupId(s: KauflandSession, group: string | null): Promise<{ id_shipping_group?: number }> {
    if (!group) return {};
    if (/^\d{1,12}$/.test(group)) return { id_shipping_group: Number(group) };
    const wanted = group.trim().toLowerCase();
    for (let offset = 0, page = 0; page < 20; page++) {
      const answer = await s.call<Page<{ id_shipping_group: number; name: string }>>('GET', '/shipping-groups', {
        storefront: s.storefront,
        limit: shippingGroupsPage,
        offset,
      });
      const groups = answer.body.data ?? [];
      const found = groups.find((g) => g.name.trim().toLowerCase() === wanted);
      if (found) return { id_shipping_group: found.id_shipping_group };
      // To Pagination.total (lastPage): a page shorter than the 30 asked is not the last by itself.
      offset += groups.length;
      if (lastPage(answer.body, offset, shippingGroupsPage)) break;
    }
    throw portalInputError(this.portal, `Kaufland has no shipping group named ${group} in storefront ${s.storefront}`);
  }
}
