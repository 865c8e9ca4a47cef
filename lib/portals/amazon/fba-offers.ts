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
 * Per marketplace (amazonFulfilment): each marketplace holds its own offer, so Amazon may fulfil
 * the SKU in DE while the seller does in FR. Only the marketplaces Amazon fulfils are refused or
 * marked; the others take Kontor's quantity, which the seller's own offer there needs.
 */
import type { Item } from '@sp-api-sdk/listings-items-api-2021-08-01';
import type { ChannelFulfilledOffer } from '../channel-order.type';
import type { QuantityOutcome } from '../portal.type';
import { readListing } from './listing-check';
import type { Order2026 } from './orders-2026';
import type { SpApiSession } from './sp-api-client';

/** The listing's fulfilment networks other than the seller's own (DEFAULT): Amazon's (AMAZON_EU ...), none for the seller's offer. */
export function amazonChannels(item: Pick<Item, 'fulfillmentAvailability'> | null): string[] {
  return [...new Set((item?.fulfillmentAvailability ?? []).map((f) => f.fulfillmentChannelCode).filter((code) => code !== 'DEFAULT'))];
}

/** Of these marketplaces, those a getListingsItem answer (with summaries) shows the listing in: a summary each (ItemSummaryByMarketplace.marketplaceId). */
export function shownIn(item: Pick<Item, 'summaries'> | null, marketplaceIds: string[]): string[] {
  return marketplaceIds.filter((m) => item?.summaries?.some((summary) => summary.marketplaceId === m));
}

/** Where Amazon fulfils a listing: its networks (AMAZON_EU ...), and the marketplaces where not all that show the listing (null: every one). */
export interface AmazonFulfilment {
  channels: string[];
  marketplaces: string[] | null;
}

/**
 * Whether and where Amazon fulfils a listing, from a getListingsItem of it with
 * fulfillmentAvailability (`item`) that shows it in the marketplaces `shown` (its summaries);
 * null: nowhere (the seller's own offer in each, or no listing). Item.fulfillmentAvailability is
 * an array naming no marketplace (listingsItems_2021-08-01.json FulfillmentAvailability:
 * fulfillmentChannelCode and quantity only), while each marketplace holds its own (put and delete
 * take one marketplace a call, "maxItems": 1): a read of DE and FR of an offer Amazon fulfils in
 * DE and the seller in FR answers AMAZON_EU and DEFAULT together. Refusing the whole SKU then left
 * FR, the seller's own offer, selling at its old quantity after Kontor's stock ran out. Decision
 * (lib/portals/README.md "Offers Amazon fulfils in some marketplaces only"):
 * - no code but DEFAULT: nowhere, no further read (as before);
 * - Amazon's codes and no DEFAULT, or one marketplace shown: every marketplace shown (as before; a
 *   marketplace showing no entry at all cannot be told apart, and is not sent a DEFAULT quantity);
 * - both, in several marketplaces: each marketplace shown is read alone (getListingsItem names one
 *   marketplaceId, fulfillmentAvailability only: the one answer that ties an entry to its
 *   marketplace; summaries[] and offers[] name theirs but carry no fulfilment channel), and Amazon
 *   fulfils those whose own read shows a code other than DEFAULT; one answering 404 (gone since)
 *   is not Amazon's. These reads take their own tokens (SpApiSession.call): one per marketplace,
 *   for such listings only, where Kontor reads the listing anyway (an unrecorded SKU's lookup,
 *   the listing check, the read an AFN order gives cause to). Every read settles before a
 *   failure is thrown.
 */
export async function amazonFulfilment(
  s: SpApiSession,
  sku: string,
  item: Pick<Item, 'fulfillmentAvailability'> | null,
  shown: string[],
): Promise<AmazonFulfilment | null> {
  const channels = amazonChannels(item);
  if (channels.length === 0) return null;
  const mixed = (item?.fulfillmentAvailability ?? []).some((f) => f.fulfillmentChannelCode === 'DEFAULT');
  if (!mixed || shown.length <= 1) return { channels, marketplaces: null };
  const reads = await Promise.allSettled(shown.map((m) => readListing(s, sku, ['fulfillmentAvailability'], false, [m])));
  const failed = reads.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
  const each = reads.map((r) => amazonChannels((r as PromiseFulfilledResult<Item | null>).value));
  const amazons = shown.filter((_, i) => each[i]!.length > 0);
  if (amazons.length === 0) return null;
  const own = [...new Set(each.flat())];
  return { channels: own, marketplaces: amazons.length === shown.length ? null : amazons };
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

/** Why Kontor sends an offer Amazon fulfils no quantity (the seller's task). */
const replaced =
  "Kontor's quantity would replace Amazon's fulfilment with the seller's (DEFAULT) and make the offer one the seller ships while the units sit in Amazon's warehouse";

/** The seller's task where Amazon fulfils the SKU in some marketplaces only: `shows`, the sentence that says how Kontor learnt it; `others`, what the others do. */
const someTask = (sku: string, shows: string, others: string) => ({
  title: `market_d: Amazon fulfils SKU ${sku} (FBA) in some marketplaces; Kontor sends its quantity to the others only`.slice(0, 255),
  text: [
    shows,
    `${replaced} there, so CIA sends those marketplaces no quantity from now on; ${others}`,
    "Nothing to do if that is what you want. To sell it from your own warehouse everywhere again, list it again with portal_upload market_d (every marketplace is then the seller's own offer); market_d.is_fba would stop Kontor's quantity in the others too.",
  ].join('\n'),
});

/**
 * The SKUs a page of Amazon's orders hints Amazon fulfils: an order placed at Amazon (the page
 * holds those only, placedAtAmazon) and fulfilled by Amazon, each of its items' SKUs, with the
 * order's time and marketplace and what the seller is told. Kontor's listing record of such a SKU
 * made before the order is read at Amazon by lib/portal-offer (the import hands it the page), and
 * marked only where the listing shows Amazon's fulfilment (a record made after the order, by a
 * list that sent DEFAULT, is not read: the order says nothing of the offer since); one marked in
 * some marketplaces only is read again for an order of another.
 */
export function afnOffers(orders: Order2026[]): ChannelFulfilledOffer[] {
  return orders
    .filter((o) => o.fulfillment?.fulfilledBy === 'AMAZON')
    .flatMap((o) =>
      o.orderItems.flatMap((i) => {
        const sku = i.product.sellerSku;
        if (!sku) return [];
        const market = o.salesChannel?.marketplaceId;
        const evidence = `Amazon order ${o.orderId} of SKU ${sku}, placed ${o.createdTime}${market ? ` in ${market}` : ''}, is fulfilled by Amazon (FulfillmentChannel AFN)`;
        return [
          {
            sku,
            placedAt: o.createdTime,
            evidence: o.orderId,
            ...(market ? { market } : {}),
            // Kontor listed it FBA itself: marked (no quantity should the flag be taken off without a list), nothing to tell.
            saidBy: 'is_fba',
            title: `market_d: Amazon fulfils SKU ${sku} (FBA); Kontor sends it no quantity`.slice(0, 255),
            text: [
              `${evidence}, and Amazon's listing of the SKU, read then, shows Amazon's fulfilment, not the seller's (DEFAULT): the offer Kontor listed as the seller's own was converted to FBA (e.g. in Seller Central).`,
              `${replaced}, so CIA sends this listing no quantity from now on.`,
              `To go on: ${remedy}.`,
            ].join('\n'),
            some: someTask(
              sku,
              `${evidence}, and Amazon's listing of the SKU, read then, shows Amazon's fulfilment in some of its marketplaces and the seller's own (DEFAULT) in the others: the offer Kontor listed as the seller's own was converted to FBA there (e.g. in Seller Central).`,
              "the others, the seller's own offers, go on taking Kontor's quantity.",
            ),
          },
        ];
      }),
    );
}

/**
 * What the seller is told of a listing Kontor marked fulfilled by Amazon in every marketplace
 * before it told marketplaces apart (an AFN order or the listing check read all of them at once),
 * read again once (lib/portal-offer readMarkedWhole, decision in lib/portals/README.md "Offers
 * Amazon fulfils in some marketplaces only") at `readAt`: where that read shows Amazon's
 * fulfilment in some marketplaces only, the others were sent no quantity since the mark and take
 * Kontor's again now. Shown Amazon's in all, the mark stays and nobody is told (the title and text
 * of the whole case are the AFN order's words, unused).
 */
export function markedWholeRead(sku: string, readAt: string): ChannelFulfilledOffer {
  const evidence = `Kontor had marked its listing of SKU ${sku} fulfilled by Amazon in every marketplace, from an AFN order or its listing check, before it told Amazon's marketplaces apart, and sent it no quantity anywhere since`;
  return {
    sku,
    placedAt: readAt,
    evidence: `read-${readAt}`,
    saidBy: 'is_fba',
    title: `market_d: Amazon fulfils SKU ${sku} (FBA); Kontor sends it no quantity`.slice(0, 255),
    text: [`${evidence}; Amazon's listing of the SKU, read again, shows Amazon's fulfilment.`, `To go on: ${remedy}.`].join('\n'),
    some: someTask(
      sku,
      `${evidence}. Amazon's listing of the SKU, read again marketplace by marketplace, shows Amazon's fulfilment in some of its marketplaces and the seller's own (DEFAULT) in the others.`,
      "the others, the seller's own offers, take Kontor's quantity again from now on (sent at once).",
    ),
  };
}
