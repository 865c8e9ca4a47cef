import type { components as Inventory } from 'ebay-api/lib/types/restful/specs/sell_inventory_v1_oas3';
import type { components as Fulfillment } from 'ebay-api/lib/types/restful/specs/sell_fulfillment_v1_oas3';
import { now } from '../clock';
import { Joi, datetime, list, portalAccountRef, text } from '../http';
import type { ChannelOrderPage } from './channel-order.type';
import { ebayCall, ebayErrorText, type EbayError } from './ebay/ebay-http';
import {
  EbayInventoryItemGroup,
  EbayListing,
  ebayListing,
  ebaySku,
  ebaySkuRefusal,
  formatOf,
  inventoryItemGroupOf,
  isAuction,
  siteOf,
} from './ebay/ebay-listing.mapping';
import { channelOrderOf, EbayOrder, EbayOrderPage, fulfilledByEbay } from './ebay/ebay-order.mapping';
import { EbayInventoryItemRead, inventoryItemGroupOver, inventoryItemOver, offerOver } from './ebay/ebay-replacement';
import { withCancelRequests } from './ebay/ebay-cancel-requests';
import { rateEbayBuyer } from './ebay/ebay-feedback';
import { ebayDay } from './ebay/ebay-day';
import { dailyRevisions, heldUntilTomorrow, planRevisions, revisionLimitRefused, SendPlan, sentQuantity } from './ebay/ebay-revisions';
import { ebayCarrierCode, ebayShippedDate, ebayTrackingNumber, PackageLine, packageShare, unfulfilled } from './ebay/ebay-shipment';
import { portalRefused } from '../errors';
import { fetchPageSize } from './order-fetch-page';
import { portalInputError, shippedByChannelAtPortal } from './portal-http';
import type {
  ListingItem,
  PortalAdapter,
  PortalTarget,
  PushAids,
  QuantityOutcome,
  QuantityUpdate,
  RevisionLedger,
  Shipment,
  VariationListing,
} from './portal.type';
import { lowestPerListing } from './shared-listing';

type Offer = Inventory['schemas']['EbayOfferDetailsWithAll'];
type PriceQuantityResponse = Inventory['schemas']['PriceQuantityResponse'];
type ShippingFulfillment = Fulfillment['schemas']['ShippingFulfillment'];
type InventoryLocation = Inventory['schemas']['InventoryLocationResponse'];
type MigrateListingResponse = Inventory['schemas']['MigrateListingResponse'];

/** The seller's warehouse, from which a first eBay inventory location is made at connect. */
export interface Warehouse {
  name: string;
  street?: string;
  zip: string;
  city: string;
  country_iso2: string;
}

/**
 * One listing of a takeover: every SKU and offer eBay made of it (one for a single-variation
 * listing, one per variation of a multiple-variation listing) and the key of the inventory item
 * group eBay made of a multiple-variation listing (null for another), or eBay's reason for
 * refusing it.
 */
export type TakeOver = { listingId: string; items: { sku: string; offerId: string | null }[]; groupKey: string | null } | { listingId: string; error: string };

const reviseValues = ['price', 'title', 'desc', 'sku', 'specs', 'widerruf', 'subtitle', 'pic', 'shipping', 'quantity', 'cat'] as const;
/** revise_values carried by the inventory item; the others by the offer (quantity by both). */
const itemValues = new Set(['title', 'desc', 'sku', 'specs', 'subtitle', 'pic', 'quantity']);
const offerValues = new Set(['price', 'widerruf', 'shipping', 'cat', 'quantity']);

/** Stock_portal_upload_auction_a_type. */
const uploadPart = Joi.object({
  action: Joi.string().valid('list', 'revise').required(),
  portal_account_id: portalAccountRef(),
  lister_id: Joi.alternatives(
    Joi.number()
      .integer()
      .min(0)
      .custom((v: number) => String(v)),
    text(32),
  ),
  // Document 2: "start date (for list)"; eBay schedules it as the offer's listingStartDate. Free
  // text was taken and dropped, so a listing meant for Monday went live at once.
  start: datetime(),
  revise_values: list(Joi.string().valid(...reviseValues)),
  auction_a_live_id: Joi.alternatives(
    Joi.number()
      .integer()
      .min(1)
      .custom((v: number) => String(v)),
    Joi.string().trim().max(64),
  ),
});

const inventory = '/sell/inventory/v1';
const fulfillment = '/sell/fulfillment/v1';
const auctionDurations = ['DAYS_1', 'DAYS_3', 'DAYS_5', 'DAYS_7', 'DAYS_10'];

/**
 * The merchant location of each portal account found at eBay (getInventoryLocations), when its
 * credentials name none; kept per refresh token too, so an account connected again to another
 * eBay account looks again.
 */
const locations = new Map<string, string>();
const locationOf = (target: PortalTarget) => `${target.portalAccountId} ${String((target.credentials as { refresh_token?: unknown }).refresh_token ?? '')}`;

/**
 * The first auction portal: eBay, through its public REST Sell APIs (Inventory for listings and
 * quantities, Fulfillment for shipments and orders) and the Commerce Feedback API for the
 * automatic rating. The mapping of Stock_auction_a_type lives in ebay/ebay-listing.mapping.ts.
 */
export class AuctionAAdapter implements PortalAdapter {
  readonly portal = 'auction_a' as const;
  readonly uploadActions = ['list', 'revise'] as const;
  readonly uploadPart = uploadPart;
  readonly cia = { namedAccounts: false };
  readonly categories = 'global' as const;
  readonly fieldGroup = 'listers' as const;
  /** bulkUpdatePriceQuantity takes at most 25 SKUs per call. */
  readonly maxQuantityBatch = 25;

  /**
   * Lists an item: its inventory item, its offer (created, or updated when the SKU has one),
   * published; answers eBay's listing id and the SKU it is held under. An item live at eBay
   * (`listedSku`, its record) is listed again under the SKU its listing was made under, as revise
   * does: under the item's SKU now, a seller who changed it got a second listing beside the first,
   * which sold on at its old quantity. Unless that listing is not live at eBay any more (ended in
   * Seller Hub: Kontor ends no auction_a listing on a client's request): then the item is listed
   * under its SKU now, the way to sell under a new SKU.
   */
  async list(target: PortalTarget, item: ListingItem, _key: string): Promise<{ portalItemId: string; listedSku: string }> {
    const addressed = await this.stillListed(target, item);
    const unlocated = listedListing(addressed);
    this.checkLimits(unlocated, true);
    await this.refuseSkus(target, [unlocated.sku]);
    await this.refuseLeftListing(target, unlocated, item.leftListings);
    const listing = await this.listing(target, addressed);
    await this.putInventoryItem(target, listing);
    const existing = await this.findOffer(target, listing.sku, listing.offer.marketplaceId, listing.offer.format);
    const offerId = existing?.offerId ?? (await this.createOffer(target, listing));
    if (existing?.offerId) await this.updateOffer(target, existing, listing);
    // An offer that is live already is revised by updateOffer; publishing it again is not needed.
    if (existing?.status === 'PUBLISHED' && existing.listing?.listingId) return { portalItemId: existing.listing.listingId, listedSku: listing.sku };
    const published = await ebayCall<{ listingId?: string }>(target, {
      method: 'POST',
      path: `${inventory}/offer/${encodeURIComponent(offerId)}/publish`,
    });
    if (!published.body.listingId) throw portalInputError(this.portal, `eBay published offer ${offerId} without a listing id`);
    return { portalItemId: published.body.listingId, listedSku: listing.sku };
  }

  /**
   * The item as `list` addresses it: with its record's `listedSku` while eBay holds a published
   * offer of the entry's format under that SKU on its marketplace (getOffers, asked only when the
   * SKU changed since), else without it.
   */
  private async stillListed(target: PortalTarget, item: ListingItem): Promise<ListingItem> {
    const now = ebayListing(item);
    if (!item.listedSku || item.listedSku === now.sku) return item;
    const live = (await this.offersOf(target, item.listedSku, now.offer.marketplaceId)).some((o) => o.status === 'PUBLISHED' && o.format === now.offer.format);
    return live ? item : { ...item, listedSku: null };
  }

  /**
   * Lists a variation main as one multiple-variation listing (sell_inventory_v1, inventory item
   * groups): each variant's inventory item (its own quantity) and fixed-price offer under its own
   * SKU, created or replaced; then the group of their SKUs under the main's SKU, which carries no
   * quantity (InventoryItemGroup has none); then publishOfferByInventoryItemGroup, which publishes
   * them as one listing and answers its id. The main's own quantity goes nowhere. Also a revise of
   * the main (every call replaces the whole record, and publishing the group again updates its
   * listing). eBay lists variations at a fixed price only.
   */
  async listVariations(
    target: PortalTarget,
    variation: VariationListing,
    _key: string,
  ): Promise<{ portalItemId: string; listedSku: string; variantSkus: Map<number, string> }> {
    const groupKey = groupKeyOf(variation);
    // inventoryItemGroupKey: "Max Length: 50" (createOrReplaceInventoryItemGroup), as a SKU; eBay
    // refused the group only after every variant's item and offer were made.
    if (groupKey.length > 50)
      throw portalInputError(this.portal, `the main's SKU ${groupKey} is longer than eBay's 50 characters (its inventory item group key)`);
    if (variation.variants.some((v) => isAuction(v.group)))
      throw portalInputError(this.portal, `stock item ${variation.main.stockId}: eBay lists variations at a fixed price only, not as an auction (type_id 1)`);
    const unlocated = variation.variants.map((v) => ebayListing(v));
    for (const l of unlocated) this.checkLimits(l, true, true);
    this.checkGroup(
      inventoryItemGroupOf(
        variation,
        unlocated.map((l) => l.sku),
      ),
      variation.main.stockId,
    );
    await this.refuseSkus(
      target,
      unlocated.map((l) => l.sku),
    );
    // The group key is the main's SKU and takes the same rule (decision, README "SKU characters"):
    // refused unless eBay holds an inventory item group of it already (a multiple-variation listing
    // taken over: bulkMigrateListing makes its Inventory Item Group), found by getInventoryItemGroup.
    await this.refuseSkus(target, [groupKey], (key) => this.inventoryItemGroup(target, key), "the main's SKU (the listing's inventory item group key): ");
    const groupOf = inventoryItemGroupOf(
      variation,
      unlocated.map((l) => l.sku),
    );
    // What InventoryItemGroup requires "before the first offer of the group is published", checked
    // before any call: its description, and an image (the group's, else every member item's).
    if (!groupOf.description)
      throw portalInputError(
        this.portal,
        `stock item ${variation.main.stockId}: eBay publishes a variation listing only with a description (the main's auction_a description)`,
      );
    if (!groupOf.imageUrls?.length && unlocated.some((l) => !l.inventoryItem.product.imageUrls?.length))
      throw portalInputError(
        this.portal,
        `stock item ${variation.main.stockId}: eBay publishes a variation listing only with a picture (the main's auction_a picture.url)`,
      );
    const location = await this.locationKey(target);
    const listings = variation.variants.map((v) => ebayListing(v, location));
    const clash = listings.find((l) => l.sku === groupKey);
    if (clash) throw portalInputError(this.portal, `a variant of stock item ${variation.main.stockId} has the main's SKU ${groupKey}: give each its own`);
    // Read once: its members (zeroLeaving, singleListings) and what its replacement keeps (ebay-replacement.ts).
    const currentGroup = await this.inventoryItemGroup(target, groupKey);
    const members = (currentGroup?.variantSKUs ?? []).map(String);
    const existing = await Promise.all(listings.map((l) => this.findOffer(target, l.sku, l.offer.marketplaceId, l.offer.format)));
    const { single, released } = await this.singleListings(
      target,
      groupKey,
      listings,
      existing,
      members,
      variation.variants.map((v) => v.leftListings),
    );
    for (const [i, listing] of listings.entries()) {
      await this.putInventoryItem(target, listing);
      const offer = existing[i];
      if (offer?.offerId) await this.updateOffer(target, offer, listing);
      else await this.createOffer(target, listing);
    }
    // A variant listed on its own before it joined the main: createOrReplaceInventoryItemGroup
    // refuses a SKU "already listed as a single SKU listing" (25704); that listing ends (withdrawOffer,
    // "used to end a single-variation listing"), the variant sells on the main's listing.
    for (const offerId of single) await ebayCall(target, { method: 'POST', path: `${inventory}/offer/${encodeURIComponent(offerId)}/withdraw` });
    const site = siteOf(variation.main.group);
    for (const [other, skus] of released) await this.releaseFromGroup(target, other, skus, site.language);
    // The main listed on its own before it had variants: its listing under the main's SKU (the group
    // key, no member) stays live beside the group's, and nothing pushes a quantity under a main's SKU
    // any more (lib/cia isVariationMain), so it sold on at its last quantity. It ends here, every
    // format and marketplace (withdrawOffer), as `end` would; the main sells through its variants.
    const mainOffers = (await this.offersOf(target, groupKey)).filter((o) => o.status === 'PUBLISHED' && o.offerId);
    for (const o of mainOffers) await ebayCall(target, { method: 'POST', path: `${inventory}/offer/${encodeURIComponent(o.offerId!)}/withdraw` });
    await this.zeroLeaving(target, members, new Set(listings.map((l) => l.sku)), listings[0]?.offer.marketplaceId ?? site.marketplaceId);
    await ebayCall(target, {
      method: 'PUT',
      path: `${inventory}/inventory_item_group/${encodeURIComponent(groupKey)}`,
      headers: { 'Content-Language': site.language },
      body: inventoryItemGroupOver(currentGroup, groupOf),
    });
    const published = await ebayCall<{ listingId?: string }>(target, {
      method: 'POST',
      path: `${inventory}/offer/publish_by_inventory_item_group`,
      body: { inventoryItemGroupKey: groupKey, marketplaceId: listings[0]?.offer.marketplaceId ?? site.marketplaceId },
    });
    if (!published.body.listingId) throw portalInputError(this.portal, `eBay published inventory item group ${groupKey} without a listing id`);
    return {
      portalItemId: published.body.listingId,
      listedSku: groupKey,
      variantSkus: new Map(variation.variants.map((v, i) => [v.stockId, listings[i]!.sku])),
    };
  }

  /**
   * The group's members that the replacement leaves out (a variant that left the main, or was
   * deleted) get availableQuantity 0 on their live fixed-price offer first: a SKU removed from the
   * group leaves the listing ("if a SKU value is removed from the inventory item group, the
   * corresponding product variation will be removed from the eBay listing as well",
   * createOrReplaceInventoryItemGroup), but not a variation that has sold there: "the deleteOffer
   * will not remove the product variation from the listing if that variation has one or more
   * sales ... the seller can alternately just set the available quantity of that product variation
   * to 0 ... and then remove that product variation from the inventory item group" (deleteOffer).
   * Kontor ends such a variant's record with the replacement (portal-variation.service.ts), so a
   * variation eBay kept stayed buyable at its last quantity under the main's listing, pushed by
   * nothing of the main's. The members are read from the group itself (the call's advice: "run a
   * getInventoryItemGroup call ... to see all of its current values/settings/members before
   * attempting to update the record"); none on a first list (25705, no group). A refusal of the
   * zero for one SKU does not hold the main's listing back (without a sale the group's
   * replacement still takes the variation off).
   */
  private async zeroLeaving(target: PortalTarget, current: string[], members: Set<string>, marketplaceId: string): Promise<void> {
    const leaving = current.filter((sku) => !members.has(sku));
    const requests: { sku: string; offers: { offerId: string; availableQuantity: number }[] }[] = [];
    for (const sku of leaving) {
      const live = (await this.offersOf(target, sku, marketplaceId)).filter((o) => o.status === 'PUBLISHED' && o.format !== 'AUCTION' && o.offerId);
      if (live.length) requests.push({ sku, offers: live.map((o) => ({ offerId: o.offerId!, availableQuantity: 0 })) });
    }
    for (let i = 0; i < requests.length; i += this.maxQuantityBatch)
      await ebayCall(target, {
        method: 'POST',
        path: `${inventory}/bulk_update_price_quantity`,
        body: { requests: requests.slice(i, i + this.maxQuantityBatch) },
      });
  }

  /**
   * A plain item's listing whose fixed-price offer still sells on a multiple-variation listing the
   * item left (`leftListings`, Kontor's records) is refused before any call writes. eBay has one
   * offer per SKU, marketplace and format (createOffer's 25002), so the item gets no listing of its
   * own beside that variation: `list` revised the main's listing with the item's quantity
   * (updateOffer) and Kontor recorded the main's listing as the item's own, sold on at that quantity
   * until CIA's next push set 0. Withdrawing the offer is no way out: withdrawOffer "is used to end a
   * single-variation listing", and what it does to a variation of a multiple-variation listing is
   * not documented (it may end the main's whole listing).
   */
  private async refuseLeftListing(target: PortalTarget, listing: EbayListing, left: string[] | undefined): Promise<void> {
    if (!left?.length) return;
    const offer = (await this.offersOf(target, listing.sku, listing.offer.marketplaceId)).find(
      (o) => o.status === 'PUBLISHED' && o.listing?.listingId && left.includes(o.listing.listingId),
    );
    if (offer) throw this.leftListingRefusal(listing.sku, offer.listing!.listingId!, await this.groupsOf(target, listing.sku));
  }

  /**
   * The refusal of a SKU whose offer sells on a variation main's listing it left, naming that
   * listing and the seller's way out (decision, by sell_inventory_v1): while the SKU is in that
   * main's group, listing the main again without it takes the variation off
   * (createOrReplaceInventoryItemGroup), unless it has sold there; a variation with sales stays
   * (deleteOffer: eBay "will not remove the product variation from the listing if that variation has
   * one or more sales"; Kontor set it to 0, the note's workaround) until that listing ends
   * (withdrawOfferByInventoryItemGroup, Seller Hub).
   */
  private leftListingRefusal(sku: string, listingId: string, groups: string[]): Error {
    const way = groups.length
      ? `list the main of inventory item group ${groups[0]} again without it (eBay then takes the variation off, unless it has sold there), or end listing ${listingId}`
      : `eBay keeps it there because it has sold there (deleteOffer) until that listing ends: end listing ${listingId} at eBay (Seller Hub: Kontor plans no end of a listing at auction_a)`;
    return portalInputError(
      this.portal,
      `SKU ${sku} is still a variation of eBay listing ${listingId}, a variation main's listing it left: eBay has one fixed-price offer per SKU and ends a single variation of such a listing by no documented call (withdrawOffer ends a single-variation listing); ${way}, then list it again`,
    );
  }

  /**
   * Refuses a SKU eBay would refuse as a new inventory item's (ebaySkuRefusal: a character other
   * than a letter, a digit or "-") unless eBay holds an inventory item of it already (getInventoryItem
   * answers it), before anything is written. Decision (README "SKU characters"): a SKU eBay holds is
   * one it took (a listing made through Seller Hub or the Trading API and taken over, whose SKU
   * bulkMigrateListing keeps as it was, or one Kontor listed before the check), and its live
   * listing is revised, listed again and counted under it; refused before the look-up, its seller
   * could no longer revise a listing that sells. Only SKUs the rule names cost the look-up.
   * `held` is that look-up (an inventory item group for a group key, the main's SKU); `what`
   * names the SKU's role in the message.
   */
  private async refuseSkus(
    target: PortalTarget,
    skus: string[],
    held: (sku: string) => Promise<object | undefined> = (sku) => this.inventoryItem(target, sku),
    what = '',
  ): Promise<void> {
    for (const sku of skus) {
      const refused = ebaySkuRefusal(sku);
      if (refused && !(await held(sku))) throw portalInputError(this.portal, `${what}${refused}`);
    }
  }

  /** The SKU's inventory item at eBay (getInventoryItem), or undefined when eBay holds none. */
  private async inventoryItem(target: PortalTarget, sku: string): Promise<(EbayInventoryItemRead & { groupIds?: string[] }) | undefined> {
    const item = await ebayCall<EbayInventoryItemRead & { groupIds?: string[] }>(target, {
      method: 'GET',
      path: `${inventory}/inventory_item/${encodeURIComponent(sku)}`,
      accept: [400, 404],
    });
    return item.status < 400 ? item.body : undefined;
  }

  /** The inventory item groups a SKU's item is in at eBay (getInventoryItem groupIds); none for an unknown item. */
  private async groupsOf(target: PortalTarget, sku: string): Promise<string[]> {
    return ((await this.inventoryItem(target, sku))?.groupIds ?? []).map(String);
  }

  /** The inventory item group of a key at eBay (getInventoryItemGroup), or undefined when eBay holds none (25705, before its first list). */
  private async inventoryItemGroup(target: PortalTarget, groupKey: string): Promise<(Record<string, unknown> & { variantSKUs?: string[] }) | undefined> {
    const current = await ebayCall<Record<string, unknown> & { variantSKUs?: string[] }>(target, {
      method: 'GET',
      path: `${inventory}/inventory_item_group/${encodeURIComponent(groupKey)}`,
      accept: [400, 404],
    });
    return current.status < 400 ? current.body : undefined;
  }

  /**
   * The published offers of variants that are no member of the group at eBay: each is a listing of
   * its own (withdrawn before the group is replaced, 25704) unless its inventory item is in another
   * group (InventoryItem.groupIds), which eBay refuses as "already a member of another group"
   * (25703): a variant moved from a main still listed with it. Refused before any call writes,
   * naming that group; withdrawing its offer would take its variation off the other main's listing.
   * A variant with an unpublished offer in another group (`released`, by group) sells on no listing
   * of that group: a main's ended listing leaves its group and every member in it at eBay
   * (withdrawOfferByInventoryItemGroup "does not delete the inventory item group object"), so a
   * variant moved on from it was refused 25703 for good, also once that main was deleted. A
   * variant whose published offer is on a main's listing it left (`left`, by variant) is refused too
   * (leftListingRefusal): eBay kept its variation there because it sold, and withdrawOffer was sent to it.
   */
  private async singleListings(
    target: PortalTarget,
    groupKey: string,
    listings: EbayListing[],
    offers: (Offer | undefined)[],
    members: string[],
    left: (string[] | undefined)[],
  ): Promise<{ single: string[]; released: Map<string, string[]> }> {
    const single: string[] = [];
    const released = new Map<string, string[]>();
    // The group's own listing, as its members' offers show it: a variation eBay kept there out of the
    // group (it had sold, zeroLeaving) that joins again is on it already, no listing of its own.
    const groupListings = new Set(offers.filter((o, i) => o?.listing?.listingId && members.includes(listings[i]!.sku)).map((o) => o!.listing!.listingId));
    for (const [i, listing] of listings.entries()) {
      const offer = offers[i];
      // A variant without an offer was never listed by Kontor, so in no group Kontor made.
      if (!offer?.offerId || members.includes(listing.sku)) continue;
      const published = offer.status === 'PUBLISHED';
      if (published && offer.listing?.listingId && groupListings.has(offer.listing.listingId)) continue;
      const others = (await this.groupsOf(target, listing.sku)).filter((g) => g !== groupKey);
      if (published && others.length)
        throw portalInputError(
          this.portal,
          `SKU ${listing.sku} is a variation of eBay's inventory item group ${others[0]} (another main's listing), which eBay refuses in a second group: list that main again without it, or end its listing, first`,
        );
      // In no group, but on a variation main's listing the variant left (variants[].leftListings):
      // eBay kept its variation there out of the group because it sold there (zeroLeaving). That is
      // no listing of its own, which withdrawOffer ends; refused before any write, as above.
      if (published && offer.listing?.listingId && left[i]?.includes(offer.listing.listingId))
        throw this.leftListingRefusal(listing.sku, offer.listing.listingId, others);
      if (published) single.push(offer.offerId);
      for (const other of others) released.set(other, [...(released.get(other) ?? []), listing.sku]);
    }
    return { single, released };
  }

  /**
   * Takes SKUs whose offers are unpublished out of another main's group: the group replaced without
   * them (read first, as the call advises; no variation of its listing goes, theirs are not on it),
   * or deleted (deleteInventoryItemGroup) when they were all its members, as a group needs one. That
   * main's next list replaces its group from its variants anyway (listVariations).
   */
  private async releaseFromGroup(target: PortalTarget, groupKey: string, skus: string[], language: string): Promise<void> {
    const path = `${inventory}/inventory_item_group/${encodeURIComponent(groupKey)}`;
    const current = await ebayCall<Record<string, unknown> & { variantSKUs?: string[] }>(target, { method: 'GET', path, accept: [400, 404] });
    if (current.status >= 400) return;
    const rest = (current.body.variantSKUs ?? []).map(String).filter((sku) => !skus.includes(sku));
    if (rest.length === 0) {
      await ebayCall(target, { method: 'DELETE', path, accept: [400, 404] });
      return;
    }
    // The group as eBay holds it, less its members that leave (and the key, the answer's only: ebay-replacement.ts).
    await ebayCall(target, {
      method: 'PUT',
      path,
      headers: { 'Content-Language': language },
      body: inventoryItemGroupOver(current.body, { variantSKUs: rest }),
    });
  }

  /**
   * Ends a variation main's multiple-variation listing: one withdrawOfferByInventoryItemGroup under
   * the group's key (the main's eBay SKU, as listVariations made it) on the variants' marketplace.
   * sell_inventory_v1: withdrawOffer "is used to end a single-variation listing"; for "a
   * multiple-variation listing that is associated with an inventory item group" the group call,
   * which leaves the group and every member offer, unpublished, for a later publish. Its only
   * documented refusal, 400 25725 "No offer found", means nothing of the group is live there: the
   * listing is as ended as asked (as `end` of a SKU without a published offer).
   */
  async endVariations(target: PortalTarget, variation: VariationListing, _key: string): Promise<void> {
    const groupKey = groupKeyOf(variation);
    const first = variation.variants[0];
    const marketplaceId = first ? ebayListing(first).offer.marketplaceId : siteOf(variation.main.group).marketplaceId;
    const answer = await ebayCall(target, {
      method: 'POST',
      path: `${inventory}/offer/withdraw_by_inventory_item_group`,
      body: { inventoryItemGroupKey: groupKey, marketplaceId },
      accept: [400],
    });
    const errors = (answer.body as { errors?: [] } | undefined)?.errors;
    if (answer.status === 400 && !/25725|no offer found/i.test(ebayErrorText(errors) ?? '')) {
      throw portalInputError(this.portal, `withdrawOfferByInventoryItemGroup ${groupKey}: ${ebayErrorText(errors) ?? 'bad request'}`);
    }
  }

  /**
   * Revises a live listing. eBay's calls replace the whole inventory item or offer, so each
   * sends eBay's record with Kontor's mapping over it (ebay/ebay-replacement.ts); revise_values
   * choose which of the two is sent (all when empty).
   */
  async revise(target: PortalTarget, item: ListingItem, portalItemId: string, values: string[], _key: string): Promise<void> {
    const unlocated = listedListing(item);
    const now = ebaySku(item.group, item.sku, item.stockId);
    // The SKU is the inventory item's key (createOrReplaceInventoryItem's path) and the offer's,
    // which updateOffer cannot change: a listing made under one SKU stays under it. Decision: a
    // revise of a listing whose item's SKU changed since revises it under the SKU it was listed
    // by; one that names sku (revise_values) is refused before anything is written, saying how to
    // sell under the new SKU (end the listing at eBay, then list: `list` takes the new SKU once the
    // old one's listing is not live), as Kontor cannot carry it to eBay.
    if (values.includes('sku') && unlocated.sku !== now)
      throw portalInputError(
        this.portal,
        `eBay listing ${portalItemId} was made under SKU ${unlocated.sku}, which is its inventory item's key at eBay and cannot change to ${now}: revise it without sku (it stays under ${unlocated.sku}), or end it at eBay (Seller Hub: Kontor plans no end of a listing at auction_a) and list item ${item.stockId} again to sell under ${now}`,
      );
    this.checkLimits(unlocated, false);
    await this.refuseSkus(target, [unlocated.sku]);
    // An item made plain while its main was listed keeps its record (and its offer) on the main's
    // listing: revised as a plain item, updateOffer put its quantity and price onto that listing.
    await this.refuseLeftListing(target, unlocated, item.leftListings);
    const listing = await this.listing(target, item);
    const all = values.length === 0;
    if (all || values.some((v) => itemValues.has(v))) await this.putInventoryItem(target, listing);
    if (all || values.some((v) => offerValues.has(v))) {
      const offer = await this.findOffer(target, listing.sku, listing.offer.marketplaceId, listing.offer.format);
      if (!offer?.offerId) throw portalInputError(this.portal, `no offer for SKU ${listing.sku} to revise (listing ${portalItemId})`);
      await this.updateOffer(target, offer, listing);
    }
  }

  /**
   * Ends a listing: withdraws the published offer of the entry's format under the SKU the listing
   * was made under (`listedSku`, else the item's SKU now); the inventory item and the offer stay
   * for a later listing.
   */
  async end(
    target: PortalTarget,
    stockId: number,
    _portalItemId: string | null,
    _key: string,
    item?: Pick<ListingItem, 'sku' | 'group' | 'listedSku'>,
  ): Promise<void> {
    const sku = item?.listedSku || ebaySku(item?.group ?? {}, item?.sku ?? null, stockId);
    const offer = await this.findOffer(target, sku, undefined, formatOf(item?.group ?? {}));
    if (!offer?.offerId || offer.status !== 'PUBLISHED') return;
    await ebayCall(target, { method: 'POST', path: `${inventory}/offer/${encodeURIComponent(offer.offerId)}/withdraw` });
  }

  /**
   * CIA: bulkUpdatePriceQuantity, one request per SKU setting the quantity at both levels (eBay
   * "Inventory API: bulk updates": the item's shipToLocationAvailability and each published
   * fixed-price offer's availableQuantity, found by getOffers; auction offers take none); each
   * SKU's worst statusCode and errors decide its outcome. eBay revises a listing at most 250
   * times a day: with the push's revision ledger (`aids.ledger`) the revisions are budgeted (ebay/ebay-revisions.ts), and a
   * refusal for the day's limit holds the item until the next day.
   */
  async setQuantities(target: PortalTarget, updates: QuantityUpdate[], _key: string, aids?: PushAids): Promise<QuantityOutcome[]> {
    const outcomes: QuantityOutcome[] = [];
    for (let i = 0; i < updates.length; i += this.maxQuantityBatch)
      outcomes.push(...(await this.quantityBatch(target, updates.slice(i, i + this.maxQuantityBatch), aids)));
    return outcomes;
  }

  /**
   * send_mit: one shipping fulfillment per package (send_mit calls once per tracking code) with
   * the package's share of the units of the order's lines that Kontor's order holds (all of
   * eBay's when it names none), each line's units spread over the packages so that each line is
   * fulfilled once in all (ebay-shipment.ts packageShare), and no more than eBay has left
   * unfulfilled; the tracking number with eBay's code of the deliverer (the contract makes them
   * mutually dependent); shippedDate from send_mit's date (ebay-shipment.ts).
   * The order's fulfillments are read first: a package whose tracking number eBay holds is a
   * retry (or the seller's repeat) and is done; one whose units eBay has all fulfilled already is
   * done without a tracking number and refused with one (the Fulfillment API adds no number to a
   * fulfilled line: the code would be dropped while the part said ok). An order eBay fulfils
   * itself (fulfilledByEbay, the rule the import reads: program.fulfillmentProgram.fulfilledBy EBAY,
   * which eBay shows only once the order is paid, or a FULFILLED_BY_EBAY instruction) is not sent: eBay ships and confirms it. send_mit refuses such an
   * order when the request comes; Kontor may learn it only now (imported unpaid, paid since), and
   * then answers shippedByChannelAtPortal (status_conflict naming order_id), with which send_mit's
   * job fails for good before the order is marked shipped or the buyer mailed (lib/order). It was
   * portal_refused: the order was marked shipped with platform_status error and the mail went.
   */
  async markShipped(target: PortalTarget, shipment: Shipment, _key: string): Promise<void> {
    const order = await this.order(target, shipment.orderId);
    if (fulfilledByEbay(order))
      throw shippedByChannelAtPortal(
        `order_id: eBay fulfils order ${shipment.orderId} from its own warehouse (eBay fulfilment program, fulfilledBy EBAY) and ships it itself; no shipping fulfillment was created`,
      );
    const lines = orderLines(order, shipment);
    const { index, count } = shipment.package ?? { index: 0, count: 1 };
    const parcel = packageShare(lines, index, count);
    const trackingNumber = shipment.trackingCode ? ebayTrackingNumber(shipment.trackingCode) : '';
    if (parcel.length === 0)
      throw portalInputError(
        this.portal,
        `order ${shipment.orderId}: tracking code ${shipment.trackingCode ?? ''} has no unit left to carry (more tracking codes than units)`,
      );
    const existing =
      (
        await ebayCall<{ fulfillments?: ShippingFulfillment[] }>(target, {
          method: 'GET',
          path: `${fulfillment}/order/${encodeURIComponent(shipment.orderId)}/shipping_fulfillment`,
        })
      ).body.fulfillments ?? [];
    if (trackingNumber && existing.some((f) => f.shipmentTrackingNumber === trackingNumber)) return;
    const shipped = new Map<string, number>();
    for (const l of existing.flatMap((f) => f.lineItems ?? []))
      if (l.lineItemId) shipped.set(l.lineItemId, (shipped.get(l.lineItemId) ?? 0) + (l.quantity ?? 1));
    const lineItems = unfulfilled(parcel, lines, shipped);
    if (lineItems.length === 0) {
      if (!trackingNumber) return;
      throw portalRefused(
        `auction_a: eBay has the units of this package of order ${shipment.orderId} fulfilled already (${existing.map((f) => f.shipmentTrackingNumber ?? f.fulfillmentId).join(', ')}); the Fulfillment API fulfils a line at most its quantity and adds no tracking number to it, so ${trackingNumber} was not sent (add it in Seller Hub)`,
      );
    }
    await ebayCall(target, {
      method: 'POST',
      path: `${fulfillment}/order/${encodeURIComponent(shipment.orderId)}/shipping_fulfillment`,
      body: {
        lineItems,
        shippedDate: ebayShippedDate(shipment.shipDate),
        ...(trackingNumber ? { shippingCarrierCode: ebayCarrierCode(shipment.carrier), trackingNumber } : {}),
      },
    });
  }

  /** The automatic rating (document 1, order rule 5): positive feedback for the order's line items (ebay/ebay-feedback.ts). */
  async rateBuyer(target: PortalTarget, orderId: string, _key: string): Promise<void> {
    await rateEbayBuyer(target, await this.order(target, orderId));
  }

  /**
   * Takes over listings made in Seller Hub or through the Trading API, which the Inventory API
   * cannot address until migrated (bulkMigrateListing, at most 5 a call): each becomes an
   * inventory item and offer under its SKU, so CIA and revisions reach it by SKU. Listings made
   * through the Inventory API need no migration: list and CIA find their offers by SKU. eBay
   * migrates only fixed-price listings with a SKU and business policies; the others are
   * answered with eBay's reason and stay as they are. A multiple-variation listing answers every
   * variation's SKU and offer (MigrateListingResponse.inventoryItems: "multiple SKU values and
   * offer IDs will be returned for multiple-variation listings") and the key of the inventory
   * item group eBay made of it (inventoryItemGroupKey, "only returned for a multiple-variation
   * listing"); only the first SKU was read before, so the other variations kept eBay's quantity.
   */
  async takeOver(target: PortalTarget, listingIds: string[]): Promise<TakeOver[]> {
    const out: TakeOver[] = [];
    for (let i = 0; i < listingIds.length; i += 5) {
      const batch = listingIds.slice(i, i + 5);
      const answer = await ebayCall<{ responses?: MigrateListingResponse[] }>(target, {
        method: 'POST',
        path: `${inventory}/bulk_migrate_listing`,
        body: { requests: batch.map((listingId) => ({ listingId })) },
      });
      const byId = new Map((answer.body.responses ?? []).map((r) => [r.listingId, r]));
      for (const listingId of batch) {
        const r = byId.get(listingId);
        const items = (r?.inventoryItems ?? []).flatMap((i) => (i.sku ? [{ sku: i.sku, offerId: i.offerId ?? null }] : []));
        out.push(
          r && Number(r.statusCode) < 300 && items.length
            ? { listingId, items, groupKey: r.inventoryItemGroupKey || null }
            : { listingId, error: ebayErrorText(r?.errors) ?? `auction_a did not answer for listing ${listingId}` },
        );
      }
    }
    return out;
  }

  /**
   * Orders eBay changed since a time (getOrders by lastmodifieddate), 200 a page; the cursor is the
   * next offset. An order with a cancellation request (IN_PROGRESS) is read with getOrder too, as
   * only it names the requests (ebay/ebay-cancel-requests.ts).
   */
  async fetchOrders(target: PortalTarget, modifiedSince: Date, cursor: string | null): Promise<ChannelOrderPage> {
    const limit = fetchPageSize(200);
    const offset = cursor && /^\d+$/.test(cursor) ? Number(cursor) : 0;
    const page = await ebayCall<EbayOrderPage>(target, {
      method: 'GET',
      path: `${fulfillment}/order`,
      query: { filter: `lastmodifieddate:[${modifiedSince.toISOString()}..]`, limit: String(limit), offset: String(offset) },
    });
    const orders = page.body.orders ?? [];
    const more = orders.length > 0 && (page.body.next !== undefined || offset + orders.length < (page.body.total ?? 0));
    const read = await withCancelRequests(target.portalAccountId, orders, (orderId) => this.order(target, orderId));
    return { orders: read.map(channelOrderOf), next: more ? String(offset + orders.length) : null };
  }

  // --- eBay calls ---------------------------------------------------------------------------

  private async listing(target: PortalTarget, item: ListingItem): Promise<EbayListing> {
    return listedListing(item, await this.locationKey(target));
  }

  /**
   * The merchant location an offer needs to be published (and updateOffer must repeat): the
   * account's merchant_location_key, else its first enabled inventory location at eBay,
   * remembered per account; none fails the job saying what to do.
   */
  private async locationKey(target: PortalTarget): Promise<string> {
    const own = (target.credentials as { merchant_location_key?: unknown }).merchant_location_key;
    if (typeof own === 'string' && own !== '') return own;
    return this.merchantLocation(target);
  }

  /**
   * At connect (or the first listing): the account's first enabled inventory location at eBay
   * (getInventoryLocations); when it has none and the seller's warehouse address is given, one
   * is created from it (createInventoryLocation, key "kontor-warehouse"); else the job fails
   * saying what to do. The key is remembered per portal account.
   */
  async merchantLocation(target: PortalTarget, warehouse?: Warehouse): Promise<string> {
    const known = locations.get(locationOf(target));
    if (known) return known;
    const answer = await ebayCall<{ locations?: InventoryLocation[] }>(target, { method: 'GET', path: `${inventory}/location`, query: { limit: '100' } });
    let found = (answer.body.locations ?? []).find((l) => l.merchantLocationKey && l.merchantLocationStatus !== 'DISABLED')?.merchantLocationKey;
    if (!found && warehouse) {
      found = 'kontor-warehouse';
      await ebayCall(target, {
        method: 'POST',
        path: `${inventory}/location/${found}`,
        body: {
          name: warehouse.name,
          locationTypes: ['WAREHOUSE'],
          merchantLocationStatus: 'ENABLED',
          location: {
            address: {
              ...(warehouse.street ? { addressLine1: warehouse.street } : {}),
              postalCode: warehouse.zip,
              city: warehouse.city,
              country: warehouse.country_iso2,
            },
          },
        },
      });
    }
    if (!found)
      throw portalInputError(
        this.portal,
        "the eBay account has no enabled inventory location: eBay publishes no offer without one; create one (Seller Hub, or connect the account again with the warehouse address) or set the portal account's merchant_location_key",
      );
    locations.set(locationOf(target), found);
    return found;
  }

  /**
   * createOrReplaceInventoryItem of the listing's item. An item eBay holds is replaced whole ("all
   * fields that are currently defined for the inventory item record are required ... it is
   * advised that the seller run a getInventoryItem call"): it is read first and sent with
   * Kontor's mapping over it (ebay/ebay-replacement.ts), so what the seller set at eBay stays.
   * A new item (404) is created from the mapping alone.
   */
  private async putInventoryItem(target: PortalTarget, listing: EbayListing): Promise<void> {
    const current = await this.inventoryItem(target, listing.sku);
    await ebayCall(target, {
      method: 'PUT',
      path: `${inventory}/inventory_item/${encodeURIComponent(listing.sku)}`,
      headers: { 'Content-Language': listing.language },
      body: inventoryItemOver(current, listing.inventoryItem),
    });
  }

  /** The SKU's offer of a format on a marketplace (getOffers by sku: an auction and a fixed-price offer are two), or undefined. */
  private async findOffer(target: PortalTarget, sku: string, marketplaceId?: string, format?: string): Promise<Offer | undefined> {
    return (await this.offersOf(target, sku, marketplaceId)).find((o) => !format || o.format === format);
  }

  /** All offers of a SKU (getOffers by sku; eBay answers 404 or 400 25713 for none). */
  private async offersOf(target: PortalTarget, sku: string, marketplaceId?: string): Promise<Offer[]> {
    const found = await this.offersOrRefusal(target, sku, marketplaceId);
    if ('refused' in found) throw portalInputError(this.portal, found.refused);
    return found.offers;
  }

  /** getOffers of a SKU: its offers (none for eBay's 404, or 400 25713), or eBay's refusal of the SKU itself. */
  private async offersOrRefusal(target: PortalTarget, sku: string, marketplaceId?: string): Promise<{ offers: Offer[] } | { refused: string }> {
    const answer = await ebayCall<{ offers?: Offer[]; errors?: EbayError[] }>(target, {
      method: 'GET',
      path: `${inventory}/offer`,
      query: { sku, ...(marketplaceId ? { marketplace_id: marketplaceId } : {}) },
      // eBay answers 404 (or 400, errorId 25713) for a SKU without offers.
      accept: [404, 400],
    });
    const reason = ebayErrorText(answer.body.errors);
    if (answer.status === 400 && !/25713|not available/i.test(reason ?? '')) return { refused: `getOffers for SKU ${sku}: ${reason ?? 'bad request'}` };
    return { offers: answer.status >= 400 ? [] : (answer.body.offers ?? []) };
  }

  private async createOffer(target: PortalTarget, listing: EbayListing): Promise<string> {
    const created = await ebayCall<{ offerId?: string }>(target, {
      method: 'POST',
      path: `${inventory}/offer`,
      headers: { 'Content-Language': listing.language },
      body: listing.offer,
    });
    if (!created.body.offerId) throw portalInputError(this.portal, `eBay created no offer for SKU ${listing.sku}`);
    return created.body.offerId;
  }

  /**
   * updateOffer of an offer eBay holds (`current`, as getOffers answered it where Kontor found
   * it: no read of its own). It "does a complete replacement of the existing offer object, so all
   * fields that make up the current offer object are required": eBay's offer goes back with
   * Kontor's mapping over it (ebay/ebay-replacement.ts), without its keys (sku, marketplaceId,
   * format cannot change) and read-only fields.
   */
  private async updateOffer(target: PortalTarget, current: Offer, listing: EbayListing): Promise<void> {
    await ebayCall(target, {
      method: 'PUT',
      path: `${inventory}/offer/${encodeURIComponent(current.offerId!)}`,
      headers: { 'Content-Language': listing.language },
      body: offerOver(current, listing.offer),
    });
  }

  /**
   * One bulkUpdatePriceQuantity of at most 25 SKUs. Each SKU's live fixed-price offers (getOffers)
   * are its listings: their revisions of the day are planned first (ebay/ebay-revisions.ts), so
   * an increase near the end of a listing's budget is held and a decrease still goes out.
   *
   * An offer on a variation main's listing that the item left (`aids.leftListings`: made plain or
   * moved while the main was listed) takes none of its quantity: its variation sells on the main's
   * listing, which is not the item's any more, until the main is listed again, and for good when
   * it sold there (eBay keeps such a variation, deleteOffer's note). It gets availableQuantity 0
   * once (where it shows more), as listVariations sets a leaving member, and the item's quantity
   * goes to its inventory item only (lib/portal-offer README).
   */
  private async quantityBatch(target: PortalTarget, updates: QuantityUpdate[], aids?: PushAids): Promise<QuantityOutcome[]> {
    const ledger = aids?.ledger;
    // The SKU each quantity goes to: the one its live listing was made under (Kontor's record, read
    // once for the batch), else the item's SKU now. By the item's SKU alone, an item whose SKU the
    // seller changed after listing had its quantity refused (eBay holds no inventory item of the new
    // SKU, 25002) while its listing sold on at its old quantity. Two items on one SKU are counted
    // by the SKU sent. The listing is the one of the lister whose entry CIA read (u.group); an item
    // listed under its main's lister (a variant without an entry of its own) by its one SKU there.
    const recorded = aids?.listedSkus ? await aids.listedSkus(updates.map((u) => u.stockId)) : new Map<number, { listerId: string; sku: string }[]>();
    const recordedSku = (u: QuantityUpdate) => {
      const listings = recorded.get(u.stockId) ?? [];
      const own = listings.find((r) => r.listerId === String(u.group.lister_id ?? ''));
      const one = new Set(listings.map((r) => r.sku)).size === 1 ? listings[0] : undefined;
      return (own ?? one)?.sku;
    };
    const skuOf = (u: QuantityUpdate) => recordedSku(u) ?? ebaySku(u.group, u.sku, u.stockId);
    const { sent: named, clashes } = lowestPerListing(
      updates.map((u) => ({ u, sku: skuOf(u) })),
      (r) => r.sku,
      'auction_a (eBay)',
    );
    // A SKU eBay refuses to look up (getOffers' 400 25709 "Invalid value for {fieldName}") is its
    // item's refusal: thrown, it failed the whole batch, and every later push took the same first
    // waiting items again, so none of the account's other items reached eBay.
    const lookups = await Promise.all(named.map(({ sku }) => this.offersOrRefusal(target, sku)));
    const refusedLookups = named.flatMap(({ u }, i) => {
      const found = lookups[i]!;
      return 'refused' in found ? [{ stockId: u.stockId, outcome: 'refused' as const, message: `auction_a: ${found.refused}` }] : [];
    });
    const sent = named.filter((_, i) => 'offers' in lookups[i]!);
    const left = aids?.leftListings ? await aids.leftListings(sent.map(({ u }) => u.stockId)) : new Map<number, Set<string>>();
    const all = lookups.flatMap((found) => ('offers' in found ? [found.offers.filter((o) => o.status === 'PUBLISHED' && o.offerId)] : []));
    // bulkUpdatePriceQuantity takes offers[] only for published offers; auction offers take no quantity (25762).
    const published = all.map((offers) => offers.filter((o) => o.format !== 'AUCTION'));
    const leftOf = (i: number, o: Offer) => left.get(sent[i]!.u.stockId)?.has(o.listing?.listingId ?? '') ?? false;
    const live = published.map((offers, i) => offers.filter((o) => !leftOf(i, o)));
    const zero = published.map((offers, i) => offers.filter((o) => leftOf(i, o) && o.availableQuantity !== 0));
    // An item whose every live offer is on a listing it left shows its quantity nowhere at eBay, while
    // setting its inventory item's quantity revises that listing, the main's, in eBay's count of 250
    // a day that the ledger keeps for the main's own variations (each sale elsewhere spent one):
    // only the zero is sent, once; list and listVariations set the item's quantity when it is listed again.
    const leftOnly = all.map((offers, i) => offers.length > 0 && offers.every((o) => leftOf(i, o)));
    const at = now();
    const plans = await planRevisions(
      ledger,
      at,
      sent.map(({ u, sku }, i) => ({
        sku,
        wanted: u.quantity,
        taken: u.taken,
        listings: live[i]!.map((o) => ({ listingId: o.listing?.listingId ?? o.offerId!, availableQuantity: o.availableQuantity })),
      })),
    );
    for (const [i, { sku }] of sent.entries()) if (leftOnly[i] && zero[i]!.length === 0) plans.set(sku, { outcome: 'accepted' });
    const auctions = all.map((offers) => offers.filter((o) => o.format === 'AUCTION').length);
    const going = sent
      .map((s, i) => ({
        ...s,
        offers: live[i]!,
        zero: zero[i]!,
        item: !leftOnly[i],
        auctions: auctions[i]!,
        plan: plans.get(s.sku)!,
        unlisted: all[i]!.length === 0,
      }))
      .filter((s): s is typeof s & { plan: SendPlan } => 'send' in s.plan);
    const bySku = going.length ? await this.bulkUpdate(target, going) : new Map<string | undefined, PriceQuantityResponse>();
    const outcomes = new Map<number, QuantityOutcome>([...clashes, ...refusedLookups].map((c) => [c.stockId, c]));
    const unlisted = new Set(going.filter((g) => g.unlisted).map((g) => g.sku));
    // Of those sent under the item's SKU now with nothing of it at eBay: a live listing Kontor
    // recorded without its SKU (listed before Kontor kept it) was made under another one, and a
    // list would make a second listing beside it. Asked only for these (one statement).
    const unrecorded = going.filter((g) => g.unlisted && recordedSku(g.u) === undefined).map((g) => g.u.stockId);
    const listedAs = unrecorded.length && aids ? await aids.listedItems(unrecorded) : new Map<number, string>();
    for (const { u, sku } of sent) {
      const plan = plans.get(sku)!;
      if (!('send' in plan)) outcomes.set(u.stockId, { stockId: u.stockId, ...plan });
      else outcomes.set(u.stockId, this.quantityOutcome(u.stockId, sku, bySku.get(sku), plan, at, unlisted.has(sku), listedAs.get(u.stockId)));
    }
    // Taken, but live auctions still offer more than CIA wants: said, not hidden as done (bulkUpdate).
    for (const g of going) {
      const wanted = sentQuantity(g.plan);
      if (g.item && g.auctions > wanted && outcomes.get(g.u.stockId)?.outcome === 'accepted')
        outcomes.set(g.u.stockId, {
          stockId: g.u.stockId,
          outcome: 'refused',
          message: `auction_a: SKU ${g.sku} (item ${g.u.stockId}) has ${g.auctions} live eBay auction(s), which keep ${g.auctions} unit(s) offered while ${wanted} is wanted: its fixed-price listings were set to ${wanted}, and an auction's unit goes only when the auction ends (end it at auction_a if the unit is gone); eBay refuses an item quantity below its auctions (25759)`,
        });
    }
    await this.spendRefused(ledger, at, going, outcomes);
    return updates.map((u) => outcomes.get(u.stockId)!);
  }

  /**
   * The call itself, one request per SKU setting both levels (0 on offers the item left, and no
   * item level when it has no other); answers the worst response per SKU. The item's quantity is
   * never below its live auctions' units (one each): eBay refuses the whole entry otherwise
   * (25759 "shipToLocationAvailability quantity value should be greater than or equal to auction
   * allocation"), and a fixed-price listing beside the auction kept offering what CIA took away.
   * The fixed-price offers still get the wanted quantity, the listing's under both of eBay's
   * readings (their own availableQuantity, or the lower of it and the item's); the auction's unit
   * stays offered until the auction ends (auction offers take no quantity, 25762).
   */
  private async bulkUpdate(
    target: PortalTarget,
    going: { sku: string; offers: Offer[]; zero: Offer[]; item: boolean; auctions: number; plan: SendPlan }[],
  ): Promise<Map<string | undefined, PriceQuantityResponse>> {
    const requests = going.map(({ sku, offers, zero, item, auctions, plan }) => {
      const quantity = sentQuantity(plan);
      const all = [
        ...offers.map((o) => ({ offerId: o.offerId, availableQuantity: quantity })),
        ...zero.map((o) => ({ offerId: o.offerId, availableQuantity: 0 })),
      ];
      return { sku, ...(item ? { shipToLocationAvailability: { quantity: Math.max(quantity, auctions) } } : {}), ...(all.length ? { offers: all } : {}) };
    });
    // One response per offer (or per SKU without offers): a SKU is as good as its worst answer.
    const bySku = new Map<string | undefined, PriceQuantityResponse>();
    for (const r of await this.sendQuantities(target, requests)) {
      const seen = bySku.get(r.sku);
      if (!seen || (Number(seen.statusCode) < 300 && Number(r.statusCode) >= 300)) bySku.set(r.sku, r);
    }
    return bySku;
  }

  /**
   * bulkUpdatePriceQuantity of the requests: eBay's answers per offer (or SKU). Its error table
   * lists 25002, 25709 and 25759 as 400s of the call: answered so, the call is sent again one
   * request at a time, and the entry eBay refuses is refused alone (its SKU answered with the call's
   * errors) while the others go. Thrown, one bad entry failed every later push too, which took the
   * same first waiting items again (decision; the contract does not say which errors are the
   * call's and which an entry's).
   */
  private async sendQuantities(target: PortalTarget, requests: { sku: string }[]): Promise<PriceQuantityResponse[]> {
    const answer = await ebayCall<{ responses?: PriceQuantityResponse[]; errors?: EbayError[] }>(target, {
      method: 'POST',
      path: `${inventory}/bulk_update_price_quantity`,
      body: { requests },
      accept: [400],
    });
    if (answer.status !== 400) return answer.body.responses ?? [];
    if (requests.length === 1) return [{ sku: requests[0]!.sku, statusCode: 400, errors: answer.body.errors as PriceQuantityResponse['errors'] }];
    const each: PriceQuantityResponse[] = [];
    for (const request of requests) each.push(...(await this.sendQuantities(target, [request])));
    return each;
  }

  /**
   * Listings held after the call (eBay refused them for the day, its count being ahead of
   * Kontor's; or their last revision set 0): none of them is revised again that day.
   */
  private async spendRefused(
    ledger: RevisionLedger | undefined,
    at: number,
    going: { u: QuantityUpdate; offers: Offer[] }[],
    outcomes: Map<number, QuantityOutcome>,
  ): Promise<void> {
    const spent = going
      .filter(({ u }) => outcomes.get(u.stockId)?.outcome === 'held')
      .flatMap(({ offers }) => offers.map((o) => o.listing?.listingId ?? o.offerId!));
    if (ledger && spent.length) await ledger.spend(ebayDay(at), spent, dailyRevisions);
  }

  /**
   * A SKU's outcome by its worst response. `unlisted`: getOffers named no published offer of it; a
   * refusal then says so and what to do (eBay refuses the quantity of a SKU it holds no inventory
   * item of in the SKU's own entry, with a user error, 25002: the item was never listed at eBay,
   * or was listed under another SKU), since eBay's text names only the SKU. `listedAs`: the item's
   * live eBay listing as Kontor recorded it without its SKU: it was made under another SKU, so the
   * refusal names it and says to give the item that SKU back or end it first, not to list.
   */
  private quantityOutcome(
    stockId: number,
    sku: string,
    response: PriceQuantityResponse | undefined,
    plan: SendPlan,
    at: number,
    unlisted = false,
    listedAs?: string,
  ): QuantityOutcome {
    // Sent, and missing from eBay's answer: whether eBay applied it is not known.
    if (!response) return { stockId, outcome: 'retry', message: `auction_a did not answer for SKU ${sku} (item ${stockId})`, mayHaveLanded: true };
    const status = Number(response.statusCode);
    const text = ebayErrorText(response.errors) ?? 'no reason given';
    if (status >= 200 && status < 300) {
      if (!plan.last || plan.send === 0) return { stockId, outcome: 'accepted' };
      return {
        stockId,
        ...heldUntilTomorrow(
          at,
          `SKU ${sku} had its eBay listing's last revision of today: it was set to 0 so that it cannot oversell, and ${plan.send} is held`,
        ),
      };
    }
    const message = `auction_a answered ${status} for SKU ${sku} (item ${stockId}): ${text}`;
    // eBay counted more revisions than Kontor (Seller Hub, another tool): held, never retried today.
    if (revisionLimitRefused(status, text)) return { stockId, ...heldUntilTomorrow(at, message) };
    if (status >= 500) return { stockId, outcome: 'retry', message, mayHaveLanded: true };
    if (status === 429 || status === 408) return { stockId, outcome: 'retry', message };
    const hint = !unlisted
      ? ''
      : listedAs
        ? `; eBay has no published offer of SKU ${sku}: item ${stockId}'s eBay listing ${listedAs} was made under the SKU the item had then, which Kontor did not record: give the item (its auction_a sku) that SKU again so that the listing takes quantities, or end listing ${listedAs} at eBay before listing the item again (a list now would make a second listing beside it)`
        : `; eBay has no published offer of SKU ${sku}: list item ${stockId} at auction_a (portal_upload) so that it takes quantities`;
    return { stockId, outcome: 'refused', message: `${message}${hint}` };
  }

  private async order(target: PortalTarget, orderId: string): Promise<EbayOrder> {
    return (await ebayCall<EbayOrder>(target, { method: 'GET', path: `${fulfillment}/order/${encodeURIComponent(orderId)}` })).body;
  }

  /**
   * eBay's own limits, checked before sending (list also needs what publishing needs); `member`: the
   * item is a variation of a multiple-variation listing, whose items take at most 12 pictures
   * (Product.imageUrls). The lengths are sell_inventory_v1_oas3.json's "Max Length" of each field;
   * pictures "must use the "HTTPS" protocol" (decision: an http URL is refused naming it, not
   * rewritten, since its host may serve no HTTPS and the listing would show a broken picture).
   */
  private checkLimits(listing: EbayListing, publishing: boolean, member = false): void {
    const { product } = listing.inventoryItem;
    const { offer } = listing;
    const fail = (message: string) => {
      throw portalInputError(this.portal, message);
    };
    if (listing.sku.length > 50) fail(ebaySkuRefusal(listing.sku)!);
    if (listing.siteRefused) fail(`SKU ${listing.sku}: ${listing.siteRefused}`);
    if (!product.title) fail('a title (name) is required');
    if (product.title!.length > 80) fail('the title is longer than 80 characters');
    if (product.subtitle && product.subtitle.length > 55) fail("the subtitle is longer than eBay's 55 characters");
    if ((product.imageUrls ?? []).length > 24) fail('at most 24 pictures');
    if (member && (product.imageUrls ?? []).length > 12) fail(`SKU ${listing.sku}: a variation's item takes at most 12 pictures at eBay (picture.url)`);
    this.checkCommon(product, `SKU ${listing.sku}: `);
    if (product.brand && product.brand.length > 65) fail("the brand is longer than eBay's 65 characters");
    if (product.mpn && product.mpn.length > 65) fail("the MPN (catalog.value) is longer than eBay's 65 characters");
    const condition = listing.inventoryItem.conditionDescription;
    if (condition && condition.length > 1000) fail("the condition description is longer than eBay's 1000 characters (condition.description)");
    if ((offer.listingDescription ?? '').length > 500000) fail('the description is longer than 500000 characters');
    if (offer.format === 'AUCTION') {
      if (!auctionDurations.includes(offer.listingDuration ?? '')) fail('an auction runs 1, 3, 5, 7 or 10 days');
      if (!offer.pricingSummary?.auctionStartPrice) fail('an auction needs a start price');
    } else if (!offer.pricingSummary?.price) fail('a price is required');
    if (!publishing) return;
    if (!offer.categoryId) fail('a category (category_1_id) is required to list');
    const policies = offer.listingPolicies ?? {};
    if (!policies.fulfillmentPolicyId || !policies.paymentPolicyId || !policies.returnPolicyId)
      fail('eBay lists with business policies: seller_profile.shipping, payment and refund ids are required');
  }

  /**
   * What an inventory item and an inventory item group share: pictures over HTTPS (picture.url),
   * aspect names of at most 40 characters and values of at most 50 (characteristics, the variant's
   * specifics; Product.aspects and InventoryItemGroup.aspects). `who` names the item or main.
   */
  private checkCommon(product: { imageUrls?: string[]; aspects?: Record<string, string[]> }, who: string): void {
    const plain = (product.imageUrls ?? []).find((u) => !/^https:\/\//i.test(u));
    if (plain !== undefined) throw portalInputError(this.portal, `${who}eBay takes pictures over HTTPS only, not ${plain} (picture.url)`);
    for (const [name, values] of Object.entries(product.aspects ?? {})) {
      if (name.length > 40) throw portalInputError(this.portal, `${who}the item specific "${name}" is longer than eBay's 40 characters (characteristics type)`);
      const long = values.find((v) => v.length > 50);
      if (long !== undefined)
        throw portalInputError(this.portal, `${who}the value "${long}" of item specific ${name} is longer than eBay's 50 characters (characteristics value)`);
    }
  }

  /**
   * The inventory item group's limits (InventoryItemGroup: title 80, subtitle 55, description
   * 500000, aspects and pictures as an item's, variesBy's names 40 and values 50), checked with the variants' before
   * anything is written: the group is written last, so a refusal of it came after every variant's
   * item and offer were written and a variant listed on its own was withdrawn.
   */
  private checkGroup(group: EbayInventoryItemGroup, mainStockId: number): void {
    const fail = (message: string) => {
      throw portalInputError(this.portal, `stock item ${mainStockId} (a variation main): ${message}`);
    };
    if (group.title && group.title.length > 80) fail('the title is longer than 80 characters');
    if (group.subtitle && group.subtitle.length > 55) fail("the subtitle is longer than eBay's 55 characters");
    // InventoryItemGroup.description: "Max Length: 500000 (which includes HTML markup/tags)", the listing's description.
    if ((group.description ?? '').length > 500000) fail('the description is longer than 500000 characters');
    if ((group.imageUrls ?? []).length > 24) fail('at most 24 pictures');
    this.checkCommon(group, `stock item ${mainStockId} (a variation main): `);
    for (const spec of group.variesBy?.specifications ?? []) {
      if ((spec.name ?? '').length > 40) fail(`the variation specific "${spec.name ?? ''}" is longer than eBay's 40 characters`);
      const long = (spec.values ?? []).find((v) => v.length > 50);
      if (long !== undefined) fail(`the value "${long}" of variation specific ${spec.name ?? ''} is longer than eBay's 50 characters`);
    }
  }
}

/**
 * The order's line items a send_mit ships: those Kontor names (shipment.lines; the one
 * transactionId of older callers), each with its quantity, at most eBay's; every line of the
 * eBay order when Kontor names none of them.
 */
function orderLines(order: EbayOrder, shipment: Shipment): PackageLine[] {
  const lines = (order.lineItems ?? []).filter((l) => l.lineItemId);
  const named = shipment.lines?.length ? shipment.lines : shipment.transactionId ? [{ transactionId: shipment.transactionId, quantity: 0 }] : [];
  const picked = lines.filter((l) => named.some((n) => n.transactionId === l.lineItemId));
  return (picked.length ? picked : lines).map((l) => {
    const asked = named.find((n) => n.transactionId === l.lineItemId)?.quantity ?? 0;
    const quantity = l.quantity ?? 1;
    return { lineItemId: l.lineItemId!, quantity: asked > 0 ? Math.min(asked, quantity) : quantity };
  });
}

/**
 * An item's payloads under the SKU its live listing was made under (`listedSku`, Kontor's record)
 * where that is not its SKU now: eBay holds the listing's inventory item and offer by that SKU.
 */
function listedListing(item: ListingItem, merchantLocationKey?: string): EbayListing {
  const listing = ebayListing(item, merchantLocationKey);
  const sku = item.listedSku;
  return sku && sku !== listing.sku ? { ...listing, sku, offer: { ...listing.offer, sku } } : listing;
}

/** A variation main's inventory item group key: the one its live listing was made under (`main.listedSku`), else the main's SKU now. */
function groupKeyOf(variation: VariationListing): string {
  return variation.main.listedSku || ebaySku(variation.main.group, variation.main.sku, variation.main.stockId);
}
