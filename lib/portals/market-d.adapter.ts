import { portalRefused } from '../errors';
import { amazonListings, listingPatches, sellerSku } from './amazon/listing-attributes';
import { afnOffers, amazonFulfilment, markedWholeRead, shownIn } from './amazon/fba-offers';
import { listingCheck, readListing } from './amazon/listing-check';
import { sendQuantities } from './amazon/listings-quantities';
import { channelOrder, placedAtAmazon } from './amazon/order-mapping';
import { SpApiSession } from './amazon/sp-api-client';
import { Submission, submissionErrors } from './amazon/submission';
import type { ChannelFulfilledOffer, ChannelOrder, ChannelOrderPage } from './channel-order.type';
import { getOrder, searchOrdersPage } from './amazon/orders-2026';
import { amazonCarrier, amazonShipDate, freeReference, heldPackage, leftToShip, packageOf, trimToLeft } from './amazon/shipment';
import { portalInputError, shippedByChannelAtPortal } from './portal-http';
import type {
  ChannelFulfilment,
  ListingCheck,
  ListingItem,
  PortalAdapter,
  PortalFacts,
  PortalTarget,
  PushAids,
  QuantityOutcome,
  QuantityUpdate,
  Shipment,
  UploadAction,
} from './portal.type';
import { portalUploadPart } from './upload-part.type';
import { withPartialListing } from './partial-listing';

/**
 * One submission (put, patch or delete) per marketplace of the account: putListingsItem and
 * deleteListingsItem take exactly one marketplace ("maxItems": 1, listingsItems_2021-08-01.json)
 * and each attribute value names its own (marketplace_id), so a seller in DE and FR gets a
 * listing in each. The patch could name both, but a replace of an attribute holding one
 * marketplace's values would then say nothing of the other's; one per marketplace keeps the three
 * alike (ours: the contract is silent). `only`: the marketplaces to submit in (a revise of a
 * listing only some took: those; absent: all); `before`: those this job's earlier try took (not
 * submitted again, counted as taken). Every marketplace is tried even after one refuses, so that
 * one marketplace's refusal keeps none of the others from its listing; the job then fails with the
 * refused marketplaces' issues, naming those that accepted. A call that fails otherwise (429, 5xx,
 * the network) stops the round and is thrown for the job's retry. Either error carries the
 * marketplaces that hold the listing now (partial-listing.ts), which lib/portal-offer records:
 * the seller sees the listing live there, and the retry submits the others only.
 */
async function eachMarketplace(
  target: PortalTarget,
  s: SpApiSession,
  sku: string,
  submit: (marketplaceId: string) => Promise<Submission>,
  only?: string[],
  before: string[] = [],
): Promise<string[]> {
  if (s.marketplaceIds.length === 0) throw portalInputError('market_d', `portal account ${target.portalAccountId} names no marketplace (marketplace_id)`);
  const marketplaceIds = only ? s.marketplaceIds.filter((m) => only.includes(m)) : s.marketplaceIds;
  const refused: string[] = [];
  const accepted = marketplaceIds.filter((m) => before.includes(m));
  let failed: unknown;
  for (const marketplaceId of marketplaceIds.filter((m) => !before.includes(m))) {
    try {
      const errors = submissionErrors(await submit(marketplaceId));
      if (errors === undefined) accepted.push(marketplaceId);
      else refused.push(`in ${marketplaceId}: ${errors}`);
    } catch (err) {
      failed = err;
      break;
    }
  }
  if (refused.length === 0 && failed === undefined) return marketplaceIds.filter((m) => accepted.includes(m));
  const elsewhere = accepted.length > 0 ? ` (accepted in ${accepted.join(', ')})` : '';
  const err =
    failed instanceof Error
      ? failed
      : failed !== undefined
        ? new Error(String(failed))
        : portalRefused(
            `market_d refused the listing of SKU ${sku} for portal account ${target.portalAccountId} ${refused.join('; ')}${elsewhere}`.slice(0, 2000),
          );
  throw accepted.length > 0 ? withPartialListing(err, { portalItemId: sku, markets: accepted }) : err;
}

/**
 * A fetch holds no lock: it waits up to a minute for searchOrders' token (0.0056/s after a burst
 * of 20) rather than failing; a longer wait fails the job for a retry at that time.
 */
const fetchTokenWaitMs = 60_000;

/**
 * The fourth marketplace (Stock_market_d_type) speaks Amazon's Selling Partner API: offers by
 * seller SKU through the Listings Items API 2021-08-01, CIA quantities by patchListingsItem or,
 * beyond what its usage plan carries at once, a JSON_LISTINGS_FEED, send_mit through the Orders API's confirmShipment, orders through searchOrders of the
 * Orders API v2026-01-01 (items and buyer data included); LWA access tokens from the portal account's refresh token (lib/portals/amazon/).
 * SP-API takes no idempotency key: a listing put by SKU and absolute quantities are idempotent
 * as they are; send_mit records each confirmed part (SendMitProgress), so its retry does not confirm it again.
 */
export class MarketDAdapter implements PortalAdapter {
  readonly portal = 'market_d' as const;
  readonly uploadActions: readonly UploadAction[] = ['list'];
  readonly uploadPart = portalUploadPart;
  // CIA pushes to the portal accounts its cia.market_d group names (else the account's default).
  readonly cia = { namedAccounts: true } as const;
  readonly categories: PortalFacts['categories'] = 'none';
  readonly fieldGroup: PortalFacts['fieldGroup'] = 'object';
  // One feed carries up to 10000 messages (listings-feed-schema-v2); createFeed's usage plan (a
  // feed per 2 minutes after a burst of 15) makes large batches the way to keep up. A batch the
  // patch plan carries goes as patches instead.
  readonly maxQuantityBatch = 10000;

  /** putListingsItem per marketplace (eachMarketplace): creates the offer or replaces it (price, terms, quantity); the SKU is the portal's item id. */
  async list(target: PortalTarget, item: ListingItem, _key?: string): Promise<{ portalItemId: string; markets: string[] }> {
    const s = new SpApiSession(target);
    // Every marketplace's listing is made before the first call: one Kontor cannot place or price refuses it with none sent.
    const listings = amazonListings(item, s.marketplaceIds);
    const sku = sellerSku(item.group, item.sku, item.stockId);
    const markets = await eachMarketplace(
      target,
      s,
      sku,
      (marketplaceId) => {
        const listing = listings.get(marketplaceId)!;
        return s.call('put', s.listingPath(sku), (o) =>
          s.listings.putListingsItem(
            {
              sellerId: s.creds.sellerId,
              sku,
              marketplaceIds: [marketplaceId],
              body: { productType: listing.productType, requirements: listing.requirements, attributes: listing.attributes },
            },
            o,
          ),
        );
      },
      undefined,
      item.listedBefore,
    );
    return { portalItemId: sku, markets };
  }

  /** patchListingsItem per marketplace (eachMarketplace): replaces the attributes of the named revise values. */
  async revise(target: PortalTarget, item: ListingItem, portalItemId: string, values: string[], _key?: string): Promise<void> {
    const s = new SpApiSession(target);
    // Built for the named values only: a quantity revise needs no price in each marketplace's currency.
    // And for the marketplaces revised only (liveIn, as eachMarketplace submits): a price revise of a
    // listing FR alone took is not refused for want of a GBP price in the UK, where nothing is revised.
    const patched = new Map(
      [...amazonListings(item, s.marketplaceIds, values, item.liveIn ?? s.marketplaceIds)].map(([m, listing]) => [
        m,
        { productType: listing.productType, patches: listingPatches(listing, values) },
      ]),
    );
    if ([...patched.values()].some((p) => p.patches.length === 0))
      throw portalInputError(this.portal, `nothing of ${values.join(', ')} can be revised at market_d`);
    // A listing only some marketplaces took is revised there (liveIn): a patch elsewhere would make an offer of the SKU there.
    await eachMarketplace(
      target,
      s,
      portalItemId,
      (marketplaceId) =>
        s.call('patch', s.listingPath(portalItemId), (o) =>
          s.listings.patchListingsItem(
            { sellerId: s.creds.sellerId, sku: portalItemId, marketplaceIds: [marketplaceId], body: patched.get(marketplaceId)! },
            o,
          ),
        ),
      item.liveIn,
    );
  }

  /**
   * getListingsItem (summaries, issues, fulfillmentAvailability) of an accepted listing: whether
   * Amazon's processing made it buyable (amazon/listing-check.ts). Amazon answers a SKU it has not
   * made a listing of yet with 404: still processing, not an error.
   */
  async checkListing(target: PortalTarget, portalItemId: string): Promise<ListingCheck> {
    const s = new SpApiSession(target);
    const item = await readListing(s, portalItemId, ['summaries', 'issues', 'fulfillmentAvailability']);
    // Read anyway: a listing Amazon fulfils is told, so CIA sends it no quantity (amazon/fba-offers.ts),
    // in the marketplaces Amazon fulfils it in (one read each more where the answer holds both kinds).
    const amazon = await amazonFulfilment(s, portalItemId, item, shownIn(item, s.marketplaceIds));
    return {
      ...listingCheck(item, s.marketplaceIds, portalItemId),
      ...(amazon ? { fulfilledByChannel: amazon.channels.join(', '), ...(amazon.marketplaces ? { fulfilledIn: amazon.marketplaces } : {}) } : {}),
    };
  }

  /**
   * getListingsItem (summaries and fulfillmentAvailability) of a listing Kontor recorded, read
   * because an order of its SKU was fulfilled by Amazon (AFN): the order alone is only a hint (an
   * FBA order of a SKU Kontor lists as the seller's own), the listing's fulfilment channel the fact
   * (amazon/fba-offers.ts), per marketplace (amazonFulfilment: one read more each where the answer
   * holds Amazon's code and DEFAULT). Through the account's rate limit; 404: none, nothing Amazon's.
   */
  async fulfilledByChannel(target: PortalTarget, portalItemId: string): Promise<ChannelFulfilment> {
    const s = new SpApiSession(target);
    const item = await readListing(s, portalItemId, ['summaries', 'fulfillmentAvailability']);
    const shown = shownIn(item, s.marketplaceIds);
    const amazon = await amazonFulfilment(s, portalItemId, item, shown);
    if (!amazon) return { channels: [] };
    if (!amazon.marketplaces) return { channels: amazon.channels };
    return { channels: amazon.channels, some: { markets: amazon.marketplaces, sellers: shown.filter((m) => !amazon.marketplaces!.includes(m)) } };
  }

  /** What the seller is told of a listing marked FBA whole before marketplaces were told apart, read again (amazon/fba-offers.ts). */
  markedWholeRead(portalItemId: string, readAt: string): ChannelFulfilledOffer {
    return markedWholeRead(portalItemId, readAt);
  }

  /**
   * deleteListingsItem per marketplace (eachMarketplace) by seller SKU: the portal item id, else
   * the SKU a list puts it under (sellerSku), else the stock id. A list that one marketplace
   * refused records nothing while the others hold the listing; ending it by the stock id deleted
   * nothing there and recorded it ended.
   */
  async end(target: PortalTarget, stockId: number, portalItemId: string | null, _key?: string, item?: Pick<ListingItem, 'sku' | 'group'>): Promise<void> {
    const s = new SpApiSession(target);
    const sku = portalItemId ?? (item ? sellerSku(item.group, item.sku, stockId) : String(stockId));
    await eachMarketplace(target, s, sku, (marketplaceId) =>
      s.call('delete', s.listingPath(sku), (o) => s.listings.deleteListingsItem({ sellerId: s.creds.sellerId, sku, marketplaceIds: [marketplaceId] }, o)),
    );
  }

  /** CIA: a patchListingsItem per SKU when the plan carries the batch, else one JSON_LISTINGS_FEED (lib/portals/README.md). */
  async setQuantities(target: PortalTarget, updates: QuantityUpdate[], key: string, aids?: PushAids): Promise<QuantityOutcome[]> {
    return sendQuantities(new SpApiSession(target), updates, key, aids);
  }

  /**
   * send_mit: confirmShipment of the Amazon order (external_order_id), one package per tracking
   * code (packageReferenceId its position, the lines shared out: amazon/shipment.ts), Amazon's
   * carrier code of the deliverer. The order is read first (getOrder with its packages): a
   * package Amazon holds with the tracking number is done (a retry, or the seller sending the
   * same send_mit again: Amazon refuses a packageReferenceId confirmed already, which made the
   * order's platform_status error while Amazon held exactly that shipment); a position another
   * tracking number took takes the next free id; each item is claimed for no more than Amazon
   * has left to ship of it (units confirmed before are not claimed again), and a package with
   * nothing left is refused without a call. An order Amazon fulfils (FBA: fulfilledBy AMAZON,
   * ordersV0's AFN) is not confirmed, with or without a tracking code: Amazon ships it and
   * confirms it itself (orders_2026-01-01: FBA orders are read only). send_mit refuses such an
   * order when the request comes; Kontor may learn it only now, and then answers
   * shippedByChannelAtPortal (status_conflict naming order_id), with which send_mit's job fails for
   * good before the order is marked shipped or the buyer mailed (lib/order). It was portal_refused:
   * the order was marked shipped with platform_status error and the in-transit mail went.
   */
  async markShipped(target: PortalTarget, shipment: Shipment, _key?: string): Promise<void> {
    const s = new SpApiSession(target);
    const orderId = shipment.externalOrderId;
    if (!orderId) throw portalInputError(this.portal, `order ${shipment.orderId} has no Amazon order id (external_order_id)`);
    // Read before the package is checked: an FBA order is Amazon's to ship whatever the request holds (no code, no lines).
    const order = await getOrder(s, orderId, fetchTokenWaitMs);
    if (order.fulfillment?.fulfilledBy === 'AMAZON')
      throw shippedByChannelAtPortal(
        `order_id: Amazon fulfils order ${orderId} from its own warehouse (FBA, fulfilledBy AMAZON) and ships it itself; no shipment was confirmed`,
      );
    if ((shipment.lines ?? []).length === 0)
      throw portalInputError(this.portal, `order ${shipment.orderId} has no lines with an Amazon order item id (transaction_id)`);
    if (!shipment.trackingCode) throw portalInputError(this.portal, 'Amazon needs a tracking number (code) to confirm a shipment');
    const parcel = packageOf(shipment);
    if (!parcel)
      throw portalInputError(
        this.portal,
        `order ${shipment.orderId}: tracking code ${shipment.trackingCode} has no line left to carry (more tracking codes than lines)`,
      );
    const held = order.packages ?? [];
    if (heldPackage(held, shipment.trackingCode)) return;
    // Only what is left to ship is claimed: units confirmed before (another package, Seller Central) are not claimed twice.
    const orderItems = trimToLeft(parcel.orderItems, leftToShip(order));
    if (orderItems.length === 0)
      throw portalRefused(
        `market_d: Amazon has every unit of this package of order ${orderId} confirmed as shipped already (nothing left to ship); tracking number ${shipment.trackingCode} was not sent (add it to the package in Seller Central)`,
      );
    await s.call('post', `/orders/v0/orders/${encodeURIComponent(orderId)}/shipmentConfirmation`, (o) =>
      s.orders.confirmShipment(
        {
          orderId,
          payload: {
            packageDetail: {
              packageReferenceId: freeReference(parcel.packageReferenceId, held),
              ...amazonCarrier(shipment.carrier),
              trackingNumber: shipment.trackingCode!,
              shipDate: amazonShipDate(shipment.shipDate),
              orderItems,
            },
            // The order's own marketplace (salesChannel): the account's first confirmed a seller's
            // order of its second marketplace in the first, which Amazon's order is not of.
            marketplaceId: order.salesChannel?.marketplaceId ?? s.marketplaceIds[0]!,
          },
        },
        o,
      ),
    );
  }

  /**
   * searchOrders (Orders API v2026-01-01) by lastUpdatedAfter in the account's marketplaces, paged
   * by its pagination token (searchOrdersPage: the contract names no order of the results, so none
   * is read from a page); the items, buyer, recipient, proceeds, promotions,
   * fulfilment and packages come with each order (includedData), so no call per order is made.
   */
  async fetchOrders(target: PortalTarget, modifiedSince: Date, cursor: string | null): Promise<ChannelOrderPage> {
    const s = new SpApiSession(target);
    const page = await searchOrdersPage(s, modifiedSince, cursor, fetchTokenWaitMs);
    const placed = page.orders.filter(placedAtAmazon);
    // The SKUs whose AFN orders show Amazon fulfils them (amazon/fba-offers.ts): the import marks Kontor's listings of them.
    const fba = afnOffers(placed);
    return { orders: placed.map(channelOrder), next: page.next, ...(fba.length > 0 ? { channelFulfilled: fba } : {}) };
  }

  /** getOrder (Orders API v2026-01-01): one order with the same data sets, for a single order's refresh. */
  async fetchOrder(target: PortalTarget, externalOrderId: string): Promise<ChannelOrder> {
    return channelOrder(await getOrder(new SpApiSession(target), externalOrderId, fetchTokenWaitMs));
  }
}
