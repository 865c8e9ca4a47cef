/**
 * Amazon's Orders API v2026-01-01 (models/orders-api-model/orders_2026-01-01.json of
 * amzn/selling-partner-api-models): searchOrders and getOrder. No @sp-api-sdk package has a client
 * for it, so the calls go through the project's SP-API session (LWA token, usage plans, Amazon's
 * error answers) by spApiExchange (sp-api-http.ts), typed from the contract's definitions (the part Kontor reads).
 */
import type { CallOptions, SpApiSession } from './sp-api-client';
import { SpApiAnswer, spApiExchange } from './sp-api-http';

/** Money: amount is a decimal string, currencyCode ISO 4217. */
export interface Money {
  amount: string;
  currencyCode: string;
}

/** CustomerAddress (RECIPIENT's deliveryAddress). */
export interface CustomerAddress {
  name?: string;
  companyName?: string;
  addressLine1?: string;
  addressLine2?: string;
  addressLine3?: string;
  city?: string;
  districtOrCounty?: string;
  stateOrRegion?: string;
  municipality?: string;
  postalCode?: string;
  countryCode?: string;
  phone?: string;
  addressType?: string;
}

/** FulfillmentStatus. */
export type FulfillmentStatus = 'PENDING_AVAILABILITY' | 'PENDING' | 'UNSHIPPED' | 'PARTIALLY_SHIPPED' | 'SHIPPED' | 'CANCELLED' | 'UNFULFILLABLE';

/** A proceeds breakdown (OrderProceedsBreakdown / ItemProceedsBreakdown with its detailedBreakdowns). */
export interface ProceedsBreakdown {
  type: string;
  subtotal: Money;
  detailedBreakdowns?: { subtype?: string; value?: Money }[];
}

/** OrderItem. */
export interface OrderItem2026 {
  orderItemId: string;
  quantityOrdered: number;
  product: {
    asin?: string;
    title?: string;
    sellerSku?: string;
    price?: { unitPrice?: Money; priceDesignation?: string };
  };
  proceeds?: { proceedsTotal?: Money; breakdowns?: ProceedsBreakdown[] };
  promotion?: { breakdowns?: { promotionId?: string }[] };
  /** ItemFulfillment; shipping.shippingConstraints: ItemShippingConstraints (ConstraintType: only MANDATORY). */
  fulfillment?: { quantityFulfilled?: number; quantityUnfulfilled?: number; shipping?: { shippingConstraints?: { cashOnDelivery?: 'MANDATORY' } } };
  /**
   * ItemTax (data set TAX): the reporting scheme (UOSS, IOSS) and who collects the tax;
   * MARKETPLACE_FACILITATOR: "Tax is withheld and remitted to the taxing authority by Amazon on
   * behalf of the seller".
   */
  tax?: {
    taxCalculationBreakdowns?: { reportingScheme?: string }[];
    taxCollections?: { model?: string; responsibleParty?: string }[];
  };
  /** ItemCancellation (data set CANCELLATION): a buyer's request, and how a cancellation was executed. */
  cancellation?: {
    cancellationRequest?: { requester?: string; cancelReason?: string };
    cancellationExecution?: { cancelledBy?: string; cancelReason?: string };
  };
}

/** OrderPackage (FBM only). */
export interface OrderPackage {
  packageReferenceId: string;
  carrier?: string;
  trackingNumber?: string;
  shipTime?: string;
  packageItems?: { orderItemId: string; quantity: number }[];
  /** PackageStatus: `status` PENDING, IN_TRANSIT, SHIPPED, DELIVERED ("Package completion at final destination"), CANCELLED, UNDELIVERABLE. */
  packageStatus?: { status: string; detailedStatus?: string };
}

/** PaymentExecution (data set PAYMENT): paymentMethod "for example, CashOnDelivery, ConvenienceStore, CreditCard, Invoice, Pix". */
export interface PaymentExecution {
  paymentMethod?: string;
  paymentAmount?: Money;
}

/** Order. */
export interface Order2026 {
  orderId: string;
  createdTime: string;
  lastUpdatedTime: string;
  programs?: string[];
  salesChannel: { channelName: string; marketplaceId?: string; marketplaceName?: string };
  buyer?: { buyerName?: string; buyerEmail?: string; buyerCompanyName?: string };
  recipient?: { deliveryAddress?: CustomerAddress };
  proceeds?: { grandTotal?: Money; breakdowns?: ProceedsBreakdown[] };
  /** OrderPayment (data set PAYMENT). */
  payment?: { paymentExecutions?: PaymentExecution[] };
  fulfillment?: { fulfillmentStatus: FulfillmentStatus; fulfilledBy?: 'AMAZON' | 'MERCHANT'; fulfillmentServiceLevel?: string };
  orderItems: OrderItem2026[];
  packages?: OrderPackage[];
}

export interface SearchOrdersResponse {
  orders: Order2026[];
  pagination?: { nextToken?: string };
  lastUpdatedBefore?: string;
  createdBefore?: string;
}

/**
 * The data sets Kontor reads with every order (includedData): the buyer (name, e-mail), the
 * recipient (the delivery address: role-based access replaces v0's Restricted Data Token), the
 * proceeds (prices, shipping, discounts, totals), the promotions, the cancellations of items (an
 * item cancelled while the order stays open gives its units back; a buyer's request is shown), the
 * fulfilment (status, AFN or MFN), the packages (and their delivery), the items' tax (who collects
 * it: the tax Amazon withholds as marketplace facilitator is not the seller's money,
 * order-mapping.ts) and the payment (its method: an order the buyer pays on delivery is not paid
 * before it is delivered, order-mapping.ts). Items always come with the order.
 */
export const includedData = ['BUYER', 'RECIPIENT', 'PROCEEDS', 'PROMOTION', 'CANCELLATION', 'FULFILLMENT', 'PACKAGES', 'TAX', 'PAYMENT'] as const;

export const searchOrdersPath = '/orders/2026-01-01/orders';
export const orderPath = (orderId: string) => `/orders/2026-01-01/orders/${encodeURIComponent(orderId)}`;

/** A GET of the Orders API, answered as SpApiSession reads it (sp-api-http.ts). */
function getJson<T>(base: string, path: string, query: Record<string, string>, options: CallOptions): Promise<SpApiAnswer<T>> {
  const url = new URL(base.replace(/\/+$/, '') + path);
  for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
  return spApiExchange<T>(url, { headers: { accept: 'application/json', ...options.headers }, timeoutMs: Number(options.timeout) || undefined });
}

/** Array query parameters are csv (Swagger 2.0's default collectionFormat; the contract names no other). */
const csv = (values: readonly string[]) => values.join(',');

/**
 * searchOrders: the orders of the account's marketplaces updated at or after `lastUpdatedAfter`
 * (exactly one of createdAfter and lastUpdatedAfter, as the contract requires), 100 a page, or the
 * page a paginationToken names (its filters go with it again: the token only pages).
 */
export function searchOrders(s: SpApiSession, lastUpdatedAfter: Date, paginationToken: string | null, maxWaitMs: number): Promise<SearchOrdersResponse> {
  const query: Record<string, string> = {
    lastUpdatedAfter: lastUpdatedAfter.toISOString(),
    marketplaceIds: csv(s.marketplaceIds),
    includedData: csv(includedData),
    maxResultsPerPage: '100',
    ...(paginationToken ? { paginationToken } : {}),
  };
  return s.call('get', searchOrdersPath, (o) => getJson<SearchOrdersResponse>(s.target.baseUrl, searchOrdersPath, query, o), maxWaitMs);
}

/** The next searchOrders page: Amazon's nextToken, with the lastUpdatedAfter of the query that made it (sent again with it). */
interface SearchCursor {
  after: string;
  token?: string;
}

/**
 * One page of the orders updated at or after `since`, and the cursor of the next (null on the last).
 *
 * **Paged by Amazon's token, always (decision).** "To retrieve the next page, you must pass the
 * `nextToken` value as the `paginationToken` query parameter in the next request" (searchOrders'
 * paginationToken), sent with the query's own parameters ("All other parameters must be provided
 * with the same values", Pagination). The contract names no order of the results, so no order is
 * read from a page: paging by time from a page's newest lastUpdatedTime when a page happened to be
 * ascending in it lost orders listed by creation (A 10:00 updated 10:30, B 10:01 -> 10:31, C 10:02
 * -> 10:05, two a page: the query from 10:31 never held C). An order that changes while the pages
 * are read comes again in the fetch after this chain, which reads from the chain's first start less
 * the overlap (lib/order-import). A cursor without a token, or of another query than `since`'s (kept
 * by a fetch chain of the earlier paging by time), is not followed: the query is asked again from
 * `since`, which reads some orders twice and skips none.
 */
export async function searchOrdersPage(
  s: SpApiSession,
  since: Date,
  cursor: string | null,
  maxWaitMs: number,
): Promise<{ orders: Order2026[]; next: string | null }> {
  const kept = cursor ? (JSON.parse(cursor) as SearchCursor) : null;
  const token = kept?.token && Date.parse(kept.after) === since.getTime() ? kept.token : null;
  const page = await searchOrders(s, since, token, maxWaitMs);
  const next = page.pagination?.nextToken;
  return { orders: page.orders, next: next ? JSON.stringify({ after: since.toISOString(), token: next } satisfies SearchCursor) : null };
}

/** getOrder: one order with its items and the same data sets. */
export async function getOrder(s: SpApiSession, orderId: string, maxWaitMs: number): Promise<Order2026> {
  const path = orderPath(orderId);
  const answer = await s.call('get', path, (o) => getJson<{ order: Order2026 }>(s.target.baseUrl, path, { includedData: csv(includedData) }, o), maxWaitMs);
  return answer.order;
}
