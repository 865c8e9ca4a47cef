/**
 * What the sandbox eBay holds (per portal account: consents, tokens, inventory items, inventory
 * locations, offers, orders, feedback) and how it computes what a buyer sees: the listing
 * quantity of an offer, per eBay's documentation (see listingQuantity).
 */
import type { Request } from 'express';
import type { components as Fulfillment } from 'ebay-api/lib/types/restful/specs/sell_fulfillment_v1_oas3';
import type { QuantityEvent, SandboxOffer, SandboxState } from './sandbox.app';

export type EbayOrder = Fulfillment['schemas']['Order'];
export type Body = Record<string, unknown>;

export interface Consent {
  account: string;
  clientId: string;
  clientSecret: string;
  revoked: boolean;
  /** The scopes granted (consents of the authorization-code grant); a refresh may ask for these or fewer. */
  scopes?: string[];
}

export interface EbayOfferRecord {
  offerId: string;
  account: string;
  sku: string;
  body: Body;
  status: 'UNPUBLISHED' | 'PUBLISHED';
  listingId?: string;
  /** The body before its latest bulkUpdatePriceQuantity: what a lagging read answers (ebay-stale-reads.sandbox.ts). */
  readBefore?: Body;
}

export interface Fulfilment {
  fulfillmentId: string;
  lineItems: { lineItemId: string; quantity: number }[];
  shipmentTrackingNumber?: string;
  shippingCarrierCode?: string;
  shippedDate?: string;
}

export interface LegacyListing {
  listingId: string;
  account: string;
  sku?: string;
  format: 'FIXED_PRICE' | 'AUCTION';
  quantity: number;
  price: string;
  currency: string;
  title: string;
  /** Made with business policies (eBay migrates no listing with legacy payment, return or shipping fields). */
  businessPolicies: boolean;
  /** The listing's description and pictures, which a multiple-variation listing's inventory item group takes when migrated. */
  description: string;
  pictures?: string[];
  /** Item specifics shared by every variation (a multiple-variation listing's group takes them as its common aspects). */
  aspects?: Record<string, string[]>;
  /** A multiple-variation listing's variations (the Trading API's Item.Variations); absent for a single-variation listing. */
  variations?: LegacyVariation[];
}

/** One variation of a multiple-variation listing: its own SKU, quantity and price, and its value of each aspect it varies by. */
export interface LegacyVariation {
  sku?: string;
  quantity: number;
  price: string;
  aspects: Record<string, string>;
}

export class EbayState {
  consents = new Map<string, Consent>();
  tokens = new Map<string, string>();
  inventory = new Map<string, Body>();
  /** The Content-Language an inventory item was last written in, by key(account, sku): getInventoryItem answers it as its locale. */
  locales = new Map<string, string>();
  offers = new Map<string, EbayOfferRecord>();
  /** Inventory item groups (createOrReplaceInventoryItemGroup) by key(account, inventoryItemGroupKey), as sent. */
  groups = new Map<string, Body>();
  /** The listing id publishOfferByInventoryItemGroup last made of a group, by key(account, inventoryItemGroupKey). */
  groupListings = new Map<string, string>();
  /**
   * withdrawOffer calls on a member offer of a published multiple-variation listing (the contract
   * names withdrawOfferByInventoryItemGroup for that listing and documents no refusal): tests assert none.
   */
  memberWithdrawals: { account: string; offerId: string; sku: string; groupKey: string }[] = [];
  /** Inventory locations by account, then merchantLocationKey. */
  locations = new Map<string, Map<string, Body>>();
  /** Accounts told to start without the default location (POST /_sandbox/ebay/locations {portal_account, none: true}). */
  withoutLocations = new Set<string>();
  /** fulfilledByEbay: eBay ships the order from its own warehouse (its fulfilment program, which getOrders shows once the order is paid). */
  orders = new Map<string, { account: string; order: EbayOrder; fulfillments: Fulfilment[]; fulfilledByEbay?: boolean }>();
  /** Listings made in Seller Hub or through the Trading API (POST /_sandbox/ebay/legacy_listings), until bulkMigrateListing takes them over. */
  legacy = new Map<string, LegacyListing>();
  feedback: { account: string; body: Body; feedbackId: string }[] = [];
  /** Revisions per listing id on its latest calendar day (ebay-revisions.sandbox.ts). */
  revisions = new Map<string, { day: string; count: number }>();
  /** Reads of a SKU (by key(account, sku)) still to answer its offers as before their latest write (ebay-stale-reads.sandbox.ts). */
  staleReads = new Map<string, number>();
  /** The sandbox eBay's clock, ahead of (or behind) the real one by this much (POST /_sandbox/ebay/clock). */
  clockOffsetMs = 0;
  counter = 0;
  /**
   * A fixture for suites that use eBay as one CIA target among others without listing there
   * (test/fleet startSandbox): the seller holds an inventory item of every SKU a
   * bulkUpdatePriceQuantity names (made in Seller Hub or by another tool), so an unknown SKU's
   * quantity makes one. Off by default, where the contract's eBay refuses a SKU it holds no
   * inventory item of (ebay-inventory.sandbox.ts priceQuantity). Kept over reset: the suite's
   * choice, not the state.
   */
  itemsMadeElsewhere = false;

  /** The sandbox eBay's time (ms): what its calendar day is read from. */
  now(): number {
    return Date.now() + this.clockOffsetMs;
  }

  reset(): void {
    this.consents.clear();
    this.tokens.clear();
    this.inventory.clear();
    this.locales.clear();
    this.offers.clear();
    this.groups.clear();
    this.groupListings.clear();
    this.memberWithdrawals = [];
    this.locations.clear();
    this.withoutLocations.clear();
    this.orders.clear();
    this.legacy.clear();
    this.feedback = [];
    this.revisions.clear();
    this.staleReads.clear();
    this.clockOffsetMs = 0;
  }

  next(): number {
    this.counter += 1;
    return this.counter;
  }

  /**
   * An account's inventory locations. Every sandbox seller starts with one enabled location,
   * `default` (as a seller who set one up before connecting); withoutLocations start empty.
   */
  locationsOf(account: string): Map<string, Body> {
    let own = this.locations.get(account);
    if (!own) {
      own = new Map();
      if (!this.withoutLocations.has(account))
        own.set('default', {
          merchantLocationKey: 'default',
          name: 'Sandbox warehouse',
          merchantLocationStatus: 'ENABLED',
          locationTypes: ['WAREHOUSE'],
          location: { address: { postalCode: '51147', country: 'DE' } },
        });
      this.locations.set(account, own);
    }
    return own;
  }

  offersOf(account: string, sku: string): EbayOfferRecord[] {
    return [...this.offers.values()].filter((o) => o.account === account && o.sku === sku);
  }
}

export const portal = 'auction_a';
export const key = (account: string, sku: string) => `${account}|${sku}`;
export const error = (errorId: number, message: string, domain = 'API_INVENTORY', category = 'REQUEST') => ({
  errors: [{ errorId, domain, category, message }],
});

/** The inventory item's ship-to-home quantity. */
export const itemQuantity = (item: Body | undefined): number =>
  Number((item?.availability as { shipToLocationAvailability?: { quantity?: unknown } } | undefined)?.shipToLocationAvailability?.quantity ?? 0);

export function setItemQuantity(ebay: EbayState, account: string, sku: string, quantity: number): void {
  const item = ebay.inventory.get(key(account, sku)) ?? {};
  const availability = (item.availability ?? {}) as Body;
  ebay.inventory.set(key(account, sku), { ...item, availability: { ...availability, shipToLocationAvailability: { quantity } } });
}

/**
 * What a buyer sees of an offer. Fixed price: the lower of the offer's availableQuantity (when
 * set) and the item's quantity (eBay "Inventory API: bulk updates" and knowledge base 5100 say
 * "the lower of the two"; the OAS file says availableQuantity "overrides" the item's: only a
 * quantity set at both levels is right under both, and the lower of the two is the reading
 * that catches a quantity set at one level only). Auction: one unit (the auction offer takes
 * no availableQuantity, error 25762), none when the item has none.
 */
export function listingQuantity(ebay: EbayState, offer: EbayOfferRecord): number {
  const item = itemQuantity(ebay.inventory.get(key(offer.account, offer.sku)));
  if (offer.body.format === 'AUCTION') return Math.min(1, item);
  const own = offer.body.availableQuantity;
  return typeof own === 'number' ? Math.max(0, Math.min(own, item)) : item;
}

function emit(state: SandboxState, account: string, sku: string, quantity: number, via: QuantityEvent['via']): void {
  state.ackCount += 1;
  const event: QuantityEvent = { seq: state.ackCount, portal, portalAccount: account, sku, quantity, at: Date.now(), via };
  state.acks.push(event);
  if (state.acks.length > 100000) state.acks.splice(0, state.acks.length - 100000);
  state.events.emit('quantity', event);
}

/**
 * The shared view of a SKU (GET /_sandbox/quantities, /_sandbox/offers) after a change: the
 * fixed-price listing's quantity (the auction's when it is the only one live), inactive when
 * the SKU has offers and none is live, and the item's own quantity when it has no offer yet (a
 * quantity CIA pushed before the listing). `via` records the change as an ack.
 */
export function refreshListing(state: SandboxState, account: string, sku: string, via?: QuantityEvent['via']): SandboxOffer {
  const ebay = state.ebay;
  const offers = ebay.offersOf(account, sku);
  const live = offers.filter((o) => o.status === 'PUBLISHED');
  const shown = live.find((o) => o.body.format !== 'AUCTION') ?? live[0];
  const quantity = shown ? listingQuantity(ebay, shown) : offers.length ? 0 : itemQuantity(ebay.inventory.get(key(account, sku)));
  const id = `${portal}|${account}|${sku}`;
  const current = state.offers.get(id);
  const view: SandboxOffer = {
    portal,
    portalAccount: account,
    sku,
    itemId: shown?.listingId ?? current?.itemId ?? '',
    quantity,
    active: offers.length === 0 || shown !== undefined,
    // offer: the one shown (else the SKU's first); offers: every live one.
    listing: {
      inventoryItem: ebay.inventory.get(key(account, sku)),
      offer: (shown ?? offers[0])?.body,
      offers: live.map((o) => ({ offerId: o.offerId, ...o.body })),
    },
    updatedAt: new Date().toISOString(),
  };
  state.offers.set(id, view);
  if (via) emit(state, account, sku, view.active ? quantity : 0, via);
  return view;
}

/** The portal account a bearer token names, or undefined (eBay's 401). */
export function accountOf(ebay: EbayState, req: Request): string | undefined {
  const token = (req.get('Authorization') ?? '').replace(/^Bearer /, '');
  const own = /^sandbox-account-(\d+)$/.exec(token);
  return own ? own[1] : ebay.tokens.get(token);
}
