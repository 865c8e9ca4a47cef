/**
 * Offers Amazon fulfils (FBA), one rule (lib/portals/README.md "Offers Amazon fulfils"): a
 * quantity of Kontor's goes to the seller's own offer only. Kontor's quantity patch (and feed
 * message) replaces `fulfillment_availability` with DEFAULT and the quantity (PatchOperation
 * `replace`: "adds or replaces the target property"), so sent to an offer Amazon fulfils it makes
 * that offer one the seller ships, while the units sit in Amazon's warehouse. Amazon is taken to
 * fulfil an offer when
 * - its listing shows a fulfillmentChannelCode other than DEFAULT (listingsItems_2021-08-01.json
 *   FulfillmentAvailability: "Designates which fulfillment network is used"), wherever Kontor
 *   reads the listing anyway (heldAtAmazon, the listing check), or
 * - an order placed at Amazon for its SKU is fulfilled by Amazon (orders_2026-01-01.json
 *   OrderFulfillment.fulfilledBy AMAZON, ordersV0.json Order.FulfillmentChannel `AFN`: "Fulfilled
 *   by Amazon"), read by the order import anyway, AND the listing, read then (getListingsItem,
 *   fulfillmentAvailability: MarketDAdapter.fulfilledByChannel), shows such a code. The order alone
 *   is only a hint: an FBA order of a SKU whose listing is the seller's own (DEFAULT) says nothing
 *   of that listing, and marking it would stop the seller's quantity for good.
 */
import type { Item } from '@sp-api-sdk/listings-items-api-2021-08-01';
import type { ChannelFulfilledOffer } from '../channel-order.type';
import type { QuantityOutcome } from '../portal.type';
import type { Order2026 } from './orders-2026';

/** The listing's fulfilment networks other than the seller's own (DEFAULT): Amazon's (AMAZON_EU ...), none for the seller's offer. */
export function amazonChannels(item: Pick<Item, 'fulfillmentAvailability'> | null): string[] {
  return [...new Set((item?.fulfillmentAvailability ?? []).map((f) => f.fulfillmentChannelCode).filter((code) => code !== 'DEFAULT'))];
}

/** What the seller does about it: Kontor's item says FBA (market_d.is_fba: no quantity sent), or Kontor lists it again as the seller's own. */
const remedy =
  'set market_d.is_fba on the item (Amazon then counts what its warehouse holds), or list it again with portal_upload market_d to sell it from your own warehouse';

/** A quantity of Kontor's refused for an offer Amazon fulfils, nothing sent; `how`: how Kontor knows. */
export function fbaRefusal(sku: string, stockId: number, how: string): QuantityOutcome {
  return {
    stockId,
    outcome: 'refused',
    message:
      `market_d: Amazon fulfils SKU ${sku} itself (${how}), and a quantity of Kontor's would make the offer one the seller ships; the quantity of item ${stockId} was not sent (${remedy})`.slice(
        0,
        1000,
      ),
  };
}

/**
 * The SKUs a page of Amazon's orders hints Amazon fulfils: an order placed at Amazon (the page
 * holds those only, placedAtAmazon) and fulfilled by Amazon, each of its items' SKUs, with the
 * order's time and what the seller is told. Kontor's listing record of such a SKU made before the
 * order is read at Amazon by lib/portal-offer (the import hands it the page), and marked only
 * where the listing shows Amazon's fulfilment (a record made after the order, by a list that sent
 * DEFAULT, is not read: the order says nothing of the offer since).
 */
export function afnOffers(orders: Order2026[]): ChannelFulfilledOffer[] {
  return orders
    .filter((o) => o.fulfillment?.fulfilledBy === 'AMAZON')
    .flatMap((o) =>
      o.orderItems.flatMap((i) => {
        const sku = i.product.sellerSku;
        if (!sku) return [];
        return [
          {
            sku,
            placedAt: o.createdTime,
            evidence: o.orderId,
            // Kontor listed it FBA itself: marked (no quantity should the flag be taken off without a list), nothing to tell.
            saidBy: 'is_fba',
            title: `market_d: Amazon fulfils SKU ${sku} (FBA); Kontor sends it no quantity`.slice(0, 255),
            text: [
              `Amazon order ${o.orderId} of SKU ${sku}, placed ${o.createdTime}, is fulfilled by Amazon (FulfillmentChannel AFN), and Amazon's listing of the SKU, read then, shows Amazon's fulfilment, not the seller's (DEFAULT): the offer Kontor listed as the seller's own was converted to FBA (e.g. in Seller Central).`,
              "Kontor's quantity would replace Amazon's fulfilment with the seller's (DEFAULT) and make the offer one the seller ships while the units sit in Amazon's warehouse, so CIA sends this listing no quantity from now on.",
              `To go on: ${remedy}.`,
            ].join('\n'),
          },
        ];
      }),
    );
}
