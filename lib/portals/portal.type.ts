import type { ObjectSchema } from 'joi';
import type { ChannelFulfilledOffer, ChannelOrderPage } from './channel-order.type';
import type { Connector } from './connector';

/** Where and as whom an adapter calls: from the portal account (sandbox URL when it has none). */
export interface PortalTarget {
  portalAccountId: number;
  /**
   * How the account is reached: its channel's real API or the generic JSON dialect
   * (adapterFor(portal, connector)); left out: each portal's own adapter (an account of no
   * platform, or a hand-made target).
   */
  connector?: Connector;
  baseUrl: string;
  /**
   * The portal account's credentials, opened (lib/secret) only by portal-target.repository:
   * client_id/client_secret, refresh_token (ebay, amazon_sp), seller_id and marketplace_id
   * (amazon_sp). Never logged, never answered.
   */
  credentials: Record<string, unknown>;
}

/** A stock item as an adapter maps it: master data and the item's field group for this portal. */
export interface ListingItem {
  stockId: number;
  name: string;
  sku: string | null;
  ean: string | null;
  price: string | null;
  quantityAvailable: number;
  /** The portal field group (for lister groups: the entry of the lister in question), {} when none. */
  group: Record<string, unknown>;
  /** portal_upload's start (ISO, UTC): when the listing becomes active; absent: at once. */
  start?: string;
  /**
   * The portal's item id of the item's live listing at this portal account as Kontor recorded it
   * (portal_upload's list): a channel whose own lookup lags (Kaufland's GET /units) updates that
   * offer instead of creating a second one.
   */
  listedAs?: string | null;
  /**
   * The key the channel holds the item's recorded live listing under, where it addresses listings
   * by that (eBay: the inventory item's SKU, a variation main's group key), as the list made it
   * (portal_listing.listed_sku): a seller may have changed the item's SKU since. Absent or null:
   * the item's SKU now.
   */
  listedSku?: string | null;
  /**
   * The multiple-variation listings (portal item ids) the item is recorded on but left (made
   * plain or moved while its main was listed; lib/portal-offer leftListings, as PushAids'). Asked
   * by auction_a, where the item's one fixed-price offer may still sell on such a listing; absent: none.
   */
  leftListings?: string[];
  /**
   * A variant's values of what its main varies by (its variation.specifics: size M, ...), when
   * it is listed as a variant of its main; absent for any other listing.
   */
  specifics?: { name: string; value: string }[];
  /**
   * Whether CIA keeps the item's quantity at this portal account (lib/cia `ciaActiveAt`, read by
   * portal_upload); absent: taken as kept. A portal refuses a listing whose channel does not stop
   * selling at the quantity (Shopify: untracked, or continue selling when out of stock) only when
   * it is kept: with CIA off the merchant's preorder item is listed (lib/portals README).
   */
  ciaActive?: boolean;
  /**
   * Markets (Amazon marketplace ids) this upload job's earlier try listed the item in, which
   * another market refused or did not answer (lib/portals partial-listing.ts): its retry submits
   * the others only. Absent: none.
   */
  listedBefore?: string[];
  /** The markets the item's recorded live listing is in where not every one of the account took it; absent: all. A revise names these only. */
  liveIn?: string[];
}

/**
 * A variation main as a portal_upload lists it (lib/portal-offer): the main's listing data and
 * its variants, each under its own SKU with its own quantity. The main's own quantity is in no
 * part of it (lib/cia README: a variation main with variants offers nothing of its own).
 */
export interface VariationListing {
  /** The main: the listing's common data (title, description, pictures, category); quantityAvailable is never sent. */
  main: ListingItem;
  /** What the variants differ in: the main's variation.specifics_set, each name with its values. */
  variesBy: { name: string; values: string[] }[];
  /** The variants in id order, each with its specifics and its field group over the main's (lib/portal-offer). */
  variants: ListingItem[];
}

/** One item's quantity in a batch (CIA), with the item's own idempotency key. */
export interface QuantityUpdate {
  stockId: number;
  quantity: number;
  key: string;
  /** The item's master SKU, and its field group of this portal (first lister entry for lister groups): channels address items by SKU. */
  sku: string | null;
  group: Record<string, unknown>;
  /**
   * The quantity the portal last took from Kontor for this item, when nothing was tried since
   * (null: not known: none taken since it was listed, or a later try failed, was refused or held,
   * and may or may not have reached the portal). What a portal's read cannot be trusted to show
   * (eBay's getOffers may answer from before Kontor's last write: lib/portals README "eBay quantities").
   */
  taken?: number | null;
}

/**
 * What the portal said of one item of a batch: taken, refused for good (its data), to be sent
 * again later (the portal's 429 or 5xx for that item), or held: not sent now, by the portal's
 * own limit, to be sent again from `until` on (eBay's 250 revisions of a listing a day) without
 * failing the push or calling the portal meanwhile.
 */
export type QuantityOutcome =
  | { stockId: number; outcome: 'accepted' }
  | { stockId: number; outcome: 'refused'; message: string }
  | {
      stockId: number;
      outcome: 'retry';
      message: string;
      /**
       * The portal may still apply what was sent of the item (its 5xx, the item missing from an
       * answered call, a call of it that failed after it was written: lib/errors `mayHaveLanded`),
       * and lib/portal-offer pushes it once more when that can no longer land. Absent: not applied
       * (a 429, a 408, a wait for the portal's rate limit, a call never sent).
       */
      mayHaveLanded?: boolean;
    }
  | { stockId: number; outcome: 'held'; message: string; until: Date };

/** A listing's revisions counted today, after a reservation: granted (counted now) or not (the count it already had). */
export interface Revisions {
  granted: boolean;
  count: number;
}

/**
 * The revisions Kontor made of each listing on a channel's calendar day, kept across restarts
 * (a contract of this layer, implemented by lib/portal-offer on the push's transaction). One
 * statement per call: a push batch reserves its listings' revisions before sending them.
 */
export interface RevisionLedger {
  /**
   * Counts one revision of each listing whose count that day is below its ceiling; answers per
   * listing whether it was counted and its count then. A listing not seen that day starts at 0.
   */
  reserve(day: string, asks: { listing: string; ceiling: number }[]): Promise<Map<string, Revisions>>;
  /** The channel refused a listing's revision for the day: its count becomes `limit` (no more that day). */
  spend(day: string, listings: string[], limit: number): Promise<void>;
}

/** What a CIA push lends an adapter from Kontor's records, on the push's transaction (lib/portal-offer). */
export interface PushAids {
  /** Where a portal that limits revisions per listing and day (auction_a) counts them. */
  ledger: RevisionLedger;
  /**
   * The portal's item ids of these items' live listings at the target, as portal_upload recorded
   * them (by stock id; items without one are absent, and so are listings only some of the
   * account's markets took: listedMarkets answers those). One statement, asked only by an adapter
   * that cannot find a listing by its own lookup (Kaufland's GET /units lags minutes behind).
   */
  listedItems(stockIds: number[]): Promise<Map<number, string>>;
  /**
   * The markets (Amazon marketplace ids) of these items' live listings that only some of the
   * account's markets took, as portal_upload recorded them (portal_listing.markets; by stock id,
   * others absent), with the portal's item id the listing was made under (Amazon: its SKU, which
   * the item's own may differ from since): Kontor put them there, so where Amazon may still be
   * processing the put (404) the adapter need not ask. One statement.
   */
  listedMarkets?(stockIds: number[]): Promise<Map<number, { markets: string[]; portalItemId: string | null }>>;
  /**
   * The multiple-variation listings (portal item ids) these items are recorded on but left: a
   * variation main's listing whose main is not the item's main any more (it was made plain,
   * moved, or its main lost it). By stock id; absent: none. Asked by auction_a, whose offer of a
   * variant that left stays on the main's eBay listing (lib/portals README).
   */
  leftListings?(stockIds: number[]): Promise<Map<number, Set<string>>>;
  /**
   * The keys these items' live listings are held under at the channel (portal_listing.listed_sku:
   * eBay's SKU as the list made it), by stock id, each with its lister; listings recorded without
   * one are absent. One statement, asked by auction_a: a seller may have changed an item's SKU
   * since it was listed, and eBay holds the listing under the old one.
   */
  listedSkus?(stockIds: number[]): Promise<Map<number, { listerId: string; sku: string }[]>>;
  /**
   * The items whose live listing the channel fulfils from its own warehouse since Kontor listed it
   * (portal_listing.fulfilled_by_channel: a Kaufland unit the seller moved into Kaufland's
   * fulfilment programme; an Amazon listing converted to FBA, as Amazon's listing read after an AFN
   * order, or the listing check, showed it), as recorded (recordChannelFulfilled, lib/portal-offer), by stock id. One
   * statement. What one process learnt, every process and a restart know.
   */
  channelFulfilled?(stockIds: number[]): Promise<Set<number>>;
  /**
   * The same marks with where they hold (portal_listing.fulfilled_markets): by stock id, the
   * markets (Amazon marketplace ids) the channel fulfils the listing in where it does so in some
   * of them only, null where in all; unmarked items absent. One statement. Asked by market_d, whose
   * seller may have Amazon fulfil a SKU in DE and ship it from their own warehouse in FR: FR goes
   * on taking Kontor's quantity.
   */
  channelFulfilledIn?(stockIds: number[]): Promise<Map<number, string[] | null>>;
  /**
   * Records that these items' live listings (each named by its portal item id; one recorded under
   * another id is left) are fulfilled by the channel now, or the seller's again. One statement, on
   * the push's transaction.
   */
  recordChannelFulfilled?(listings: { stockId: number; portalItemId: string }[], fulfilled: boolean): Promise<void>;
}

/** Who fulfils a listing's offer, as the channel shows it (PortalAdapter.fulfilledByChannel). */
export interface ChannelFulfilment {
  /** The channel's own fulfilment networks (AMAZON_EU ...); empty: the seller's own offer, or no listing held. */
  channels: string[];
  /**
   * Where the channel fulfils it in some of the listing's markets only (Amazon marketplace ids):
   * those, and the others (the seller's own offers). Absent: in every one.
   */
  some?: { markets: string[]; sellers: string[] };
}

/**
 * What a portal shows of a listing some time after taking it (checkListing): sold as listed
 * (`live`), not decided yet (`pending`: the portal is still processing, or shows it not sold
 * without saying why), or not sold as listed (`problem`: the portal names what is wrong).
 * `summary` says it in a few words (a task's title), `details` the portal's own codes and
 * messages, one line each.
 */
export interface ListingCheck {
  state: 'live' | 'pending' | 'problem';
  summary: string;
  details: string[];
  /**
   * The channel fulfils the offer from its own warehouse, as the listing read shows (Amazon: its
   * fulfilment network codes, AMAZON_EU ...): lib/portal-offer marks the listing so (CIA sends it
   * no quantity). Absent: the seller's own offer, or not told.
   */
  fulfilledByChannel?: string;
  /** With fulfilledByChannel: the markets (Amazon marketplace ids) it does so in, where some of the listing's only; absent: in all. */
  fulfilledIn?: string[];
}

export interface Shipment {
  orderId: string;
  transactionId?: string;
  carrier?: string;
  trackingCode?: string;
  /** The carrier's tracking page of trackingCode when Kontor knows it (shipping.link, lib/order's trackingLinks); channels that keep a URL per number get it. */
  trackingUrl?: string;
  /** The channel's order id (external_order_id): real channels confirm their own order, not ours. */
  externalOrderId?: string;
  /** The order's lines with a channel line id (transaction_id) and their quantities: what the package holds. */
  lines?: { transactionId: string; quantity: number }[];
  /** The shipping date of send_mit (YYYY-MM-DD or ISO 8601). */
  shipDate?: string;
  /** Which of send_mit's packages this is (one per tracking code, index from 0) and how many there are. */
  package?: { index: number; count: number };
}

/** An action of POST stock/{stock_id}/portal_upload/ (Stock_portal_upload_type). */
export type UploadAction = 'list' | 'revise' | 'delete';

/**
 * What the rest of the service needs to know of a portal, declared by its adapter; the
 * registries (portal.registry.ts) are derived from these, so a new portal is one adapter file.
 */
export interface PortalFacts {
  /** The neutral portal id of documents 1 and 2 (auction_a, market_e, ...). */
  readonly portal: string;
  /** Actions its entry of Stock_portal_upload_type takes; empty: not in portal_upload. */
  readonly uploadActions: readonly UploadAction[];
  /** The Joi type of one part of its portal_upload entry. */
  readonly uploadPart: ObjectSchema;
  /**
   * Its cia.<portal> group on a stock item (Stock_cia_portal_type), or null: CIA leaves it
   * alone. namedAccounts: the group names the portal accounts to push to (portal_account_id[]).
   */
  readonly cia: { readonly namedAccounts: boolean } | null;
  /** Where its categories live: global (GET system/stock/category/), own (per account, stock/category/), or none. */
  readonly categories: 'global' | 'own' | 'none';
  /** Shape of its Stock_type group: one object, a list (webshop: one per shop), or listers (entries carry lister_id). */
  readonly fieldGroup: 'object' | 'list' | 'listers';
  /** Most items one setQuantities call carries (the portal's own limit of its bulk call). */
  readonly maxQuantityBatch: number;
  /**
   * The highest quantity the portal takes for one offer; CIA offers no more (lib/cia
   * computeOffers). Absent: 2^31 - 1 (lib/cia `maxOfferQuantity`): the int32 of eBay's
   * availableQuantity and Kaufland's amount, and the highest wanted quantity Kontor records.
   */
  readonly maxQuantity?: number;
}

/**
 * One portal behind one interface. Every call carries an idempotency key: the same key sent
 * twice has the effect of one call. Errors: portal_unavailable (429, 5xx, network) is
 * retried with backoff; portal_refused (4xx, data the portal refuses) fails the job.
 */
export interface PortalAdapter extends PortalFacts {
  /** Lists (or updates) an offer; returns the portal's item id. */
  /** markets: where the portal account sells in several (Amazon marketplaces), those holding the listing now. */
  /** listedSku: the key the channel holds the listing under, where it addresses it by that (eBay's SKU); recorded with the listing. */
  list(target: PortalTarget, item: ListingItem, key: string): Promise<{ portalItemId: string; markets?: string[]; listedSku?: string }>;
  /**
   * Only portals whose contract has a listing of variants of its own (eBay's inventory item
   * group): lists (or updates) a variation main's variants as one listing; answers its id, and the
   * keys the channel holds it under (the group's, each variant's SKU by stock id). Without
   * it, lib/portal-offer lists each variant by `list` as an offer of its own.
   */
  listVariations?(
    target: PortalTarget,
    listing: VariationListing,
    key: string,
  ): Promise<{ portalItemId: string; listedSku?: string; variantSkus?: Map<number, string> }>;
  /**
   * With `listVariations`: ends the listing of variants it made, as one (eBay's
   * withdrawOfferByInventoryItemGroup), never offer by offer. Nothing live to end is no error.
   */
  endVariations?(target: PortalTarget, listing: VariationListing, key: string): Promise<void>;
  /**
   * Only portals that answer a listing before processing it (Amazon's ACCEPTED): what the listing
   * of that portal item id shows now. Present: portal_upload checks each list and revise later.
   */
  checkListing?(target: PortalTarget, portalItemId: string): Promise<ListingCheck>;
  /**
   * Who fulfils the offer of a listing Kontor recorded, as the channel's listing shows it now
   * (Amazon: getListingsItem's fulfillmentAvailability, amazon/fba-offers.ts), and where.
   * Asked only to verify what an order hints (ChannelOrderPage.channelFulfilled), never per push.
   */
  fulfilledByChannel?(target: PortalTarget, portalItemId: string): Promise<ChannelFulfilment>;
  /**
   * With `fulfilledByChannel`: the offer (the seller's task words) of a listing Kontor marked
   * fulfilled by the channel in all its markets before it told markets apart, read again once at
   * `readAt` (lib/portal-offer readMarkedWhole); absent: such listings are not read again.
   */
  markedWholeRead?(portalItemId: string, readAt: string): ChannelFulfilledOffer;
  /** Revises the named fields of a live offer (document 2, revise_values; all when empty). */
  revise(target: PortalTarget, item: ListingItem, portalItemId: string, values: string[], key: string): Promise<void>;
  /** Ends an offer; item (its SKU and field group, when the item still exists) for channels that address offers by SKU. */
  end(target: PortalTarget, stockId: number, portalItemId: string | null, key: string, item?: Pick<ListingItem, 'sku' | 'group' | 'listedSku'>): Promise<void>;
  /**
   * Sets the quantities the portal offers for several items in one call (CIA), as the bulk
   * inventory calls of real marketplaces do; answers each item's outcome in the given order.
   * `aids`: Kontor's records an adapter may need (revisions counted, listings recorded).
   */
  setQuantities(target: PortalTarget, updates: QuantityUpdate[], key: string, aids?: PushAids): Promise<QuantityOutcome[]>;
  /** Reports an order as shipped (send_mit). */
  markShipped(target: PortalTarget, shipment: Shipment, key: string): Promise<void>;
  /** Rates the buyer of an order positively; only portals with automatic rating (auction_a, document 1 rule 5). */
  rateBuyer?(target: PortalTarget, orderId: string, key: string): Promise<void>;
  /**
   * Orders the channel changed since a time, one page at a time (cursor null for the first);
   * only channels whose orders Kontor imports (auction_a: eBay, market_d: Amazon, market_e: Kaufland, webshop: Shopify).
   */
  fetchOrders?(target: PortalTarget, modifiedSince: Date, cursor: string | null): Promise<ChannelOrderPage>;
}
