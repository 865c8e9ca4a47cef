/**
 * The sandbox's Amazon orders: one store of orders answered by the Orders API v2026-01-01
 * (searchOrders, getOrder with their includedData, orders_2026-01-01.json) and by the deprecated
 * Orders v0 operations (getOrders, getOrder, getOrderItems, ordersV0.json: still answering until
 * the removal date, then failing), and confirmShipment (v0, not deprecated) with one package per
 * packageReferenceId.
 *
 * Documented behaviour it plays, with its source:
 * - A standard order is PENDING first ("the initial order status is PENDING", FulfillmentStatus);
 *   while Pending, no pricing, taxes, shipping charges or promotions of its items (v0 getOrderItems'
 *   note), no delivery address and no buyer e-mail (Access Orders PII: the e-mail only in UNSHIPPED,
 *   PARTIALLY_SHIPPED or SHIPPED, the address with the Direct-to-Consumer Delivery role). It turns
 *   UNSHIPPED once payment is authorised: here `pendingMs` after the purchase (the sandbox's choice).
 * - AFN (fulfilledBy AMAZON): no buyer e-mail ("Only available for merchant-fulfilled (FBM)
 *   orders"), no phone ("suppressed ... All FBA orders"), no packages ("Only available for FBM").
 * - includedData: without it, an order carries its basic information and items only
 *   (developer-docs "Get order information": "If you do not specify includedData, then the response
 *   will only include basic information"); each data set adds its part.
 * - paginationToken: "Token handling with 24-hour expiration" (Orders API migration guide), sent
 *   with the same other parameters as the request that generated it (but maxResultsPerPage and
 *   includedData: Pagination's description), else 400 InvalidInput. A token is a position in the
 *   list as it is when the next page is asked (the contract names no snapshot), the list oldest
 *   created first (`searchOrdersBy`; the contract names no order, so a client may assume none): an
 *   order that changes between pages keeps its place, and an older order that newly matches the
 *   query (updated since) comes in at its place, so the next page brings an order again. A test may
 *   list by lastUpdatedTime instead, oldest first, where such a change moves an order to the end.
 * - Amazon.com (US): the items' sales tax is added on top of ITEM, in the item's proceedsTotal and
 *   the order's grandTotal, as a TAX breakdown with its ITEM detailed breakdown (the contract's US
 *   examples: proceedsTotal 100.00 = ITEM 99.98 + TAX 0.02); Amazon withholds and remits it, so
 *   every item names `tax.taxCollections` [{model MARKETPLACE_FACILITATOR, responsibleParty
 *   "Amazon Services, Inc."}] (data set TAX; v0: ItemTax and TaxCollection MarketplaceFacilitator).
 * - IOSS (an item shipped into the EU from outside it, its VAT collected by Amazon): the contract's
 *   IOSS example, no TAX breakdown, `tax` {taxCalculationBreakdowns [{reportingScheme IOSS}],
 *   taxCollections [{MARKETPLACE_FACILITATOR, "Amazon Services Europe S.a.r.L."}]}.
 * - A DELIVERY_TIP is an order-level breakdown with its status (PENDING or FINALIZED), "charged
 *   separately and not attributed to a specific item", inside grandTotal (the contract's example:
 *   154.99 = ITEM 149.97 + TAX 0.02 + DELIVERY_TIP 5.00).
 * - The item charges GIFT_WRAP, COD_FEE and OTHER (ItemProceedsBreakdown's other types), each in
 *   the item's proceedsTotal and the grandTotal, and the order's breakdowns aggregate them across
 *   the items ("The remaining categories are aggregated across all order items"); a gift wrap's
 *   discount as a DISCOUNT detailed breakdown of subtype GIFT_WRAP.
 * - Amazon.com tax the seller collects itself (`tax_collected_by` SELLER): the same TAX on top,
 *   with detailed breakdowns ITEM, SHIPPING and GIFT_WRAP, and no `tax.taxCollections` (the
 *   contract's one model is MARKETPLACE_FACILITATOR, Amazon withholding it).
 * Where the contract is silent the sandbox chooses: the proceeds of the other marketplaces are
 * gross (the TAX breakdown is the VAT included in ITEM and SHIPPING and is not added again), a
 * DISCOUNT breakdown is negative, with ITEM and SHIPPING detailed breakdowns; a PENDING tip is
 * in grandTotal as a FINALIZED one is; gift wrap and other charges are for all the item's units
 * (a cancelled unit's share is not charged), a COD fee per item as its shipping; on Amazon.com
 * they are net as ITEM is, on the other marketplaces gross (their VAT inside the informative TAX);
 * an item played with `item_amount` (ITEM for all units, no unit price giving it) has no
 * product.price (optional in the contract) and ITEM is for the units charged, as a unit price's.
 */
import crypto from 'node:crypto';
import express, { Request, Response } from 'express';
import { itemCancellation, SandboxItemCancellation, unitsOf } from './amazon-cancel.sandbox';
import { ordersV0RemovalDate } from './amazon-contract';

export type FulfillmentStatus = 'PENDING_AVAILABILITY' | 'PENDING' | 'UNSHIPPED' | 'PARTIALLY_SHIPPED' | 'SHIPPED' | 'CANCELLED' | 'UNFULFILLABLE';

export interface SandboxOrderLine {
  orderItemId: string;
  sku: string;
  title: string;
  asin: string;
  quantity: number;
  /** Gross unit price. */
  unitPrice: string;
  /**
   * The ITEM proceeds of all units where no unit price gives them (quantity pricing, a price per
   * pack): product.price is then left out, which the contract allows (ItemProduct.price optional).
   */
  itemAmount?: string;
  promotionDiscount: string;
  shippingPrice: string;
  shippingDiscount: string;
  /** Sales tax on the item, all units (Amazon.com: added on top of the price; Amazon withholds it). */
  tax: string;
  /** Shipped into the EU from outside it under IOSS: Amazon collects the VAT (marketplace facilitator). */
  ioss: boolean;
  /** Gift wrap of all units (GIFT_WRAP) and its discount (DISCOUNT, subtype GIFT_WRAP). */
  giftWrap: string;
  giftWrapDiscount: string;
  /** The cash-on-delivery fee of the item (COD_FEE). */
  codFee: string;
  /** Other charges of all units (OTHER). */
  other: string;
  /** Amazon.com: the sales tax on the shipping and on the gift wrap (TAX detailed breakdowns SHIPPING, GIFT_WRAP). */
  shippingTax: string;
  giftWrapTax: string;
  quantityShipped: number;
  /** A buyer's request to cancel the item, and its cancellation (amazon-cancel.sandbox.ts). */
  cancellation?: SandboxItemCancellation;
}

export interface SandboxPackage {
  packageReferenceId: string;
  carrier: string;
  trackingNumber: string;
  shipTime: string;
  packageItems: { orderItemId: string; quantity: number }[];
  /** PackageStatus.status: SHIPPED once confirmed; DELIVERED and the others by a control (the carrier's news). */
  status: 'PENDING' | 'IN_TRANSIT' | 'SHIPPED' | 'DELIVERED' | 'CANCELLED' | 'UNDELIVERABLE';
}

export interface SandboxOrder {
  account: string;
  orderId: string;
  createdTime: string;
  lastUpdatedTime: string;
  marketplaceId: string;
  currency: string;
  fulfilledBy: 'AMAZON' | 'MERCHANT';
  status: FulfillmentStatus;
  /** A PENDING order turns UNSHIPPED at this time (ms since the epoch). */
  pendingUntil?: number;
  serviceLevel: string;
  buyer: { name: string; email: string };
  address: Record<string, string>;
  lines: SandboxOrderLine[];
  packages: SandboxPackage[];
  /**
   * A delivery tip: an order-level proceeds breakdown, in grandTotal; `pendingOutside`: while
   * PENDING it is not (the other reading of the contract's silence, chosen per order).
   */
  deliveryTip?: { amount: string; status: 'PENDING' | 'FINALIZED'; pendingOutside?: boolean };
  /** Amazon.com: who collects the sales tax; AMAZON (marketplace facilitator) unless the seller does. */
  taxCollectedBy: 'AMAZON' | 'SELLER';
  /** PaymentExecution.paymentMethod (data set PAYMENT), e.g. CashOnDelivery, CreditCard; none: no payment data. */
  paymentMethod?: string;
  /**
   * A test's change to the order as the Orders API v2026-01-01 serves it (order2026), for shapes the
   * contract allows that the store does not make (an amount without decimals, a field left out):
   * applied to every read, which the contract gate checks like any answer, so a shape the contract
   * does not allow is a recorded violation.
   */
  reshape?: (served: Record<string, unknown>) => void;
}

/** What the orders part of the sandbox's Amazon holds. */
export interface AmazonOrderStore {
  orders: Map<string, SandboxOrder>;
  pageSize: number;
  /** The order searchOrders lists its results in, oldest first (the contract names none): createdTime unless a test asks for lastUpdatedTime. */
  searchOrdersBy: 'createdTime' | 'lastUpdatedTime';
  /** How long a sold order stays PENDING before it turns UNSHIPPED (0: it is UNSHIPPED when first read). */
  pendingMs: number;
  /** The sandbox's today (YYYY-MM-DD), for the removal of deprecated operations; null: the real date. */
  today: string | null;
  /** Calls of deprecated operations the sandbox answered. */
  deprecatedCalls: { operation: string; at: string; account: string }[];
}

const errorBody = (code: string, message: string, details = '') => ({ errors: [{ code, message, details }] });
const nowIso = () => new Date().toISOString();
const digits = (n: number) => Array.from({ length: n }, () => crypto.randomInt(10)).join('');
const toCents = (s: string) => Math.round(Number(s) * 100);
const money = (c: number, currencyCode: string) => ({ amount: (c / 100).toFixed(2), currencyCode });

/** A PENDING order whose time has come turns UNSHIPPED, its update time the moment it did. */
export function settle(order: SandboxOrder): SandboxOrder {
  if (order.status === 'PENDING' && order.pendingUntil !== undefined && Date.now() >= order.pendingUntil) {
    order.status = 'UNSHIPPED';
    order.lastUpdatedTime = new Date(order.pendingUntil).toISOString();
    order.pendingUntil = undefined;
  }
  return order;
}

const pending = (o: SandboxOrder) => o.status === 'PENDING' || o.status === 'PENDING_AVAILABILITY';
/** Amazon.com: prices without sales tax, which is added on top and withheld by Amazon (the contract's US examples). */
const US = 'ATVPDKIKX0DER';
const marketplaceNames: Record<string, string> = { [US]: 'Amazon.com', A1F83G8C2ARO7P: 'Amazon.co.uk' };
/** The VAT included in a gross EU amount (19 %, Amazon.de), informative: not added to the totals. */
const includedVat = (gross: number) => Math.round(gross - gross / 1.19);

function itemProceeds(o: SandboxOrder, l: SandboxOrderLine) {
  // A cancelled item is charged only for the units it shipped before (nothing for one cancelled whole).
  const charged = unitsOf(l) > 0;
  const perUnits = (c: number) => Math.round((c * unitsOf(l)) / l.quantity);
  const item = l.itemAmount === undefined ? toCents(l.unitPrice) * unitsOf(l) : perUnits(toCents(l.itemAmount));
  const shipping = charged ? toCents(l.shippingPrice) : 0;
  const promo = charged ? perUnits(toCents(l.promotionDiscount)) : 0;
  const shipDiscount = charged ? toCents(l.shippingDiscount) : 0;
  const giftWrap = perUnits(toCents(l.giftWrap));
  const giftWrapDiscount = perUnits(toCents(l.giftWrapDiscount));
  const codFee = charged ? toCents(l.codFee) : 0;
  const other = perUnits(toCents(l.other));
  const breakdowns: Record<string, unknown>[] = [
    { type: 'ITEM', subtotal: money(item, o.currency) },
    { type: 'SHIPPING', subtotal: money(shipping, o.currency) },
  ];
  // The other charges only when the item has them, as the contract's examples leave them out.
  if (giftWrap) breakdowns.push({ type: 'GIFT_WRAP', subtotal: money(giftWrap, o.currency) });
  if (codFee) breakdowns.push({ type: 'COD_FEE', subtotal: money(codFee, o.currency) });
  if (other) breakdowns.push({ type: 'OTHER', subtotal: money(other, o.currency) });
  if (promo || shipDiscount || giftWrapDiscount)
    breakdowns.push({
      type: 'DISCOUNT',
      subtotal: money(-(promo + shipDiscount + giftWrapDiscount), o.currency),
      detailedBreakdowns: [
        { subtype: 'ITEM', value: money(-promo, o.currency) },
        { subtype: 'SHIPPING', value: money(-shipDiscount, o.currency) },
        ...(giftWrapDiscount ? [{ subtype: 'GIFT_WRAP', value: money(-giftWrapDiscount, o.currency) }] : []),
      ],
    });
  const net = item + shipping + giftWrap + codFee + other - promo - shipDiscount - giftWrapDiscount;
  if (o.marketplaceId === US) {
    // Sales tax on top: in proceedsTotal and grandTotal; only for the units charged.
    const parts = [
      { subtype: 'ITEM', c: perUnits(toCents(l.tax)) },
      { subtype: 'SHIPPING', c: charged ? toCents(l.shippingTax) : 0 },
      { subtype: 'GIFT_WRAP', c: perUnits(toCents(l.giftWrapTax)) },
    ].filter((p) => p.c !== 0);
    const tax = parts.reduce((s, p) => s + p.c, 0);
    if (tax)
      breakdowns.push({
        type: 'TAX',
        subtotal: money(tax, o.currency),
        detailedBreakdowns: parts.map((p) => ({ subtype: p.subtype, value: money(p.c, o.currency) })),
      });
    return { total: net + tax, proceeds: { proceedsTotal: money(net + tax, o.currency), breakdowns } };
  }
  if (!l.ioss) breakdowns.push({ type: 'TAX', subtotal: money(includedVat(net), o.currency) });
  return { total: net, proceeds: { proceedsTotal: money(net, o.currency), breakdowns } };
}

/** ItemTax (data set TAX): who collects the item's tax, where Amazon does (marketplace facilitator). */
function itemTax(o: SandboxOrder, l: SandboxOrderLine): Record<string, unknown> | undefined {
  if (o.marketplaceId === US)
    // A seller collecting the tax itself: no collection model (the contract names only Amazon's).
    return o.taxCollectedBy === 'SELLER' ? undefined : { taxCollections: [{ model: 'MARKETPLACE_FACILITATOR', responsibleParty: 'Amazon Services, Inc.' }] };
  if (l.ioss)
    return {
      taxCalculationBreakdowns: [{ reportingScheme: 'IOSS' }],
      taxCollections: [{ model: 'MARKETPLACE_FACILITATOR', responsibleParty: 'Amazon Services Europe S.a.r.L.' }],
    };
  return undefined;
}

/** The order's delivery tip in cents (0 without one). */
const tipOf = (o: SandboxOrder) => (o.deliveryTip ? toCents(o.deliveryTip.amount) : 0);
/** What of the tip grandTotal (and v0's OrderTotal) holds: all of it, but a PENDING one played outside. */
const tipInTotal = (o: SandboxOrder) => (o.deliveryTip?.status === 'PENDING' && o.deliveryTip.pendingOutside ? 0 : tipOf(o));

/** An order as the Orders API v2026-01-01 answers it, with the data sets asked for. */
export function order2026(o: SandboxOrder, included: Set<string>): Record<string, unknown> {
  settle(o);
  const isPending = pending(o);
  const afn = o.fulfilledBy === 'AMAZON';
  let grand = 0;
  const items = o.lines.map((l) => {
    const item: Record<string, unknown> = {
      orderItemId: l.orderItemId,
      quantityOrdered: l.quantity,
      product: {
        asin: l.asin,
        title: l.title,
        sellerSku: l.sku,
        ...(isPending || l.itemAmount !== undefined ? {} : { price: { unitPrice: money(toCents(l.unitPrice), o.currency) } }),
      },
    };
    if (!isPending) {
      const { total, proceeds } = itemProceeds(o, l);
      grand += total;
      if (included.has('PROCEEDS')) item.proceeds = proceeds;
      if (included.has('PROMOTION') && toCents(l.promotionDiscount) + toCents(l.shippingDiscount) > 0)
        item.promotion = { breakdowns: [{ promotionId: `SANDBOX-PROMO-${l.sku}` }] };
    }
    const cancellation = included.has('CANCELLATION') ? itemCancellation(l) : undefined;
    if (cancellation) item.cancellation = cancellation;
    const tax = included.has('TAX') ? itemTax(o, l) : undefined;
    if (tax) item.tax = tax;
    if (included.has('FULFILLMENT')) item.fulfillment = { quantityFulfilled: l.quantityShipped, quantityUnfulfilled: unitsOf(l) - l.quantityShipped };
    return item;
  });
  const out: Record<string, unknown> = {
    orderId: o.orderId,
    createdTime: o.createdTime,
    lastUpdatedTime: o.lastUpdatedTime,
    programs: afn ? ['DELIVERY_BY_AMAZON'] : [],
    salesChannel: { channelName: 'AMAZON', marketplaceId: o.marketplaceId, marketplaceName: marketplaceNames[o.marketplaceId] ?? 'Amazon.de' },
  };
  if (included.has('BUYER')) out.buyer = { buyerName: o.buyer.name, ...(isPending || afn ? {} : { buyerEmail: o.buyer.email }) };
  if (included.has('RECIPIENT') && !isPending) {
    const { phone, ...rest } = o.address;
    out.recipient = { deliveryAddress: { ...rest, ...(afn || o.status === 'SHIPPED' ? {} : phone ? { phone } : {}), addressType: 'RESIDENTIAL' } };
  }
  if (included.has('PROCEEDS') && !isPending) {
    const breakdowns = ['ITEM', 'SHIPPING', 'GIFT_WRAP', 'COD_FEE', 'OTHER', 'DISCOUNT', 'TAX']
      .map((type) => {
        let c = 0;
        let any = false;
        for (const item of items) {
          for (const b of ((item.proceeds as { breakdowns?: { type: string; subtotal: { amount: string } }[] } | undefined)?.breakdowns ?? []).filter(
            (x) => x.type === type,
          )) {
            c += toCents(b.subtotal.amount);
            any = true;
          }
        }
        return any ? { type, subtotal: money(c, o.currency) } : undefined;
      })
      .filter(Boolean);
    // The tip is charged separately, at the order level, and is inside grandTotal.
    const tip = o.deliveryTip ? [{ type: 'DELIVERY_TIP', status: o.deliveryTip.status, subtotal: money(tipOf(o), o.currency) }] : [];
    out.proceeds = { grandTotal: money(grand + tipInTotal(o), o.currency), breakdowns: [...breakdowns, ...tip] };
  }
  // The payment's method, and once the order is priced (not Pending) what the buyer pays by it: grandTotal.
  if (included.has('PAYMENT') && o.paymentMethod)
    out.payment = {
      paymentExecutions: [{ paymentMethod: o.paymentMethod, ...(isPending ? {} : { paymentAmount: money(grand + tipInTotal(o), o.currency) }) }],
    };
  if (included.has('FULFILLMENT')) out.fulfillment = { fulfillmentStatus: o.status, fulfilledBy: o.fulfilledBy, fulfillmentServiceLevel: o.serviceLevel };
  out.orderItems = items;
  if (included.has('PACKAGES') && !afn) out.packages = o.packages.map(({ status, ...k }) => ({ ...k, packageStatus: { status } }));
  o.reshape?.(out);
  return out;
}

const v0Status: Record<FulfillmentStatus, string> = {
  PENDING_AVAILABILITY: 'PendingAvailability',
  PENDING: 'Pending',
  UNSHIPPED: 'Unshipped',
  PARTIALLY_SHIPPED: 'PartiallyShipped',
  SHIPPED: 'Shipped',
  CANCELLED: 'Canceled',
  UNFULFILLABLE: 'Unfulfillable',
};

/** An order as the deprecated Orders v0 getOrders answers it. */
function orderV0(o: SandboxOrder): Record<string, unknown> {
  settle(o);
  const isPending = pending(o);
  const total = o.lines.reduce((c, l) => c + itemProceeds(o, l).total, tipInTotal(o));
  return {
    AmazonOrderId: o.orderId,
    PurchaseDate: o.createdTime,
    LastUpdateDate: o.lastUpdatedTime,
    OrderStatus: v0Status[o.status],
    FulfillmentChannel: o.fulfilledBy === 'AMAZON' ? 'AFN' : 'MFN',
    ShipServiceLevel: o.serviceLevel,
    ...(isPending ? {} : { OrderTotal: money(total, o.currency) }),
    NumberOfItemsShipped: o.lines.reduce((n, l) => n + l.quantityShipped, 0),
    NumberOfItemsUnshipped: o.lines.reduce((n, l) => n + unitsOf(l) - l.quantityShipped, 0),
    MarketplaceId: o.marketplaceId,
    ...(o.paymentMethod === 'CashOnDelivery' ? { PaymentMethod: 'COD' } : {}),
    OrderType: 'StandardOrder',
    BuyerInfo: {},
  };
}

function itemsV0(o: SandboxOrder): Record<string, unknown>[] {
  const isPending = pending(settle(o));
  return o.lines.map((l) => ({
    ASIN: l.asin,
    SellerSKU: l.sku,
    OrderItemId: l.orderItemId,
    Title: l.title,
    QuantityOrdered: l.quantity,
    QuantityShipped: l.quantityShipped,
    ...(isPending
      ? {}
      : {
          ItemPrice: money(l.itemAmount === undefined ? toCents(l.unitPrice) * l.quantity : toCents(l.itemAmount), o.currency),
          ShippingPrice: money(toCents(l.shippingPrice), o.currency),
          PromotionDiscount: money(toCents(l.promotionDiscount), o.currency),
          ShippingDiscount: money(toCents(l.shippingDiscount), o.currency),
          ...(toCents(l.codFee) ? { CODFee: money(toCents(l.codFee), o.currency) } : {}),
          ...(o.marketplaceId === US
            ? {
                ItemTax: money(toCents(l.tax), o.currency),
                ...(toCents(l.shippingTax) ? { ShippingTax: money(toCents(l.shippingTax), o.currency) } : {}),
                ...(o.taxCollectedBy === 'SELLER' ? {} : { TaxCollection: { Model: 'MarketplaceFacilitator', ResponsibleParty: 'Amazon Services, Inc.' } }),
              }
            : {}),
        }),
  }));
}

/** A page of a list and the token of the rest (base64 of the offset, the query and when it was made). */
function paged<T>(list: T[], token: string | undefined, size: number, scope: string): { page: T[]; next?: string } {
  const decoded = token ? (JSON.parse(Buffer.from(token, 'base64').toString('utf8')) as { scope: string; offset: number }) : { scope, offset: 0 };
  const offset = decoded.scope === scope ? decoded.offset : 0;
  const page = list.slice(offset, offset + size);
  const next = offset + size < list.length ? Buffer.from(JSON.stringify({ scope, offset: offset + size, at: Date.now() })).toString('base64') : undefined;
  return { page, next };
}

/** A pagination token: its scope, or why it is refused (unreadable, or older than 24 hours). */
function readToken(token: string): { scope: string } | string {
  try {
    const t = JSON.parse(Buffer.from(token, 'base64').toString('utf8')) as { scope?: unknown; at?: unknown };
    if (typeof t.scope !== 'string') return 'Invalid pagination token.';
    if (typeof t.at === 'number' && Date.now() - t.at > 86_400_000) return 'The pagination token has expired (24 hours).';
    return { scope: t.scope };
  } catch {
    return 'Invalid pagination token.';
  }
}

const list = (v: unknown): string[] => (typeof v === 'string' ? v.split(',').filter(Boolean) : Array.isArray(v) ? v.map(String) : []);

function ofAccount(store: AmazonOrderStore, res: Response, id: string): SandboxOrder | undefined {
  const o = store.orders.get(id);
  return o && o.account === String(res.locals.account) ? settle(o) : undefined;
}

/** Orders API v2026-01-01: searchOrders and getOrder. */
export function orders2026(store: AmazonOrderStore): express.Router {
  const router = express.Router();
  router.get('/', (req: Request, res: Response) => {
    const q = req.query as Record<string, unknown>;
    const token = typeof q.paginationToken === 'string' ? q.paginationToken : undefined;
    const read = token ? readToken(token) : undefined;
    if (typeof read === 'string') {
      res.status(400).json(errorBody('InvalidInput', read, 'paginationToken'));
      return;
    }
    const after = { created: q.createdAfter as string | undefined, updated: q.lastUpdatedAfter as string | undefined };
    // "You must provide exactly one of createdAfter and lastUpdatedAfter"; createdBefore goes with createdAfter only, lastUpdatedBefore with lastUpdatedAfter.
    if (Boolean(after.created) === Boolean(after.updated) || (after.created && q.lastUpdatedBefore) || (after.updated && q.createdBefore)) {
      res
        .status(400)
        .json(
          errorBody(
            'InvalidInput',
            'Exactly one of createdAfter and lastUpdatedAfter is required; createdBefore goes with createdAfter, lastUpdatedBefore with lastUpdatedAfter.',
          ),
        );
      return;
    }
    const before = (q.lastUpdatedBefore ?? q.createdBefore) as string | undefined;
    if (before && (Date.parse(before) > Date.now() - 120_000 || Date.parse(before) < Date.parse((after.created ?? after.updated)!))) {
      res
        .status(400)
        .json(errorBody('InvalidInput', 'The before date must be at or after the after date and at least two minutes before the time of the request.'));
      return;
    }
    const size = q.maxResultsPerPage === undefined ? 100 : Number(q.maxResultsPerPage);
    if (!Number.isInteger(size) || size < 1 || size > 100) {
      res.status(400).json(errorBody('InvalidInput', 'maxResultsPerPage must be between 1 and 100.', 'maxResultsPerPage'));
      return;
    }
    const own = JSON.stringify({
      after,
      before,
      marketplaces: list(q.marketplaceIds),
      fulfilledBy: list(q.fulfilledBy),
      statuses: list(q.fulfillmentStatuses),
    });
    // A token pages the query that made it: "All other parameters must be provided with the same
    // values that were provided with the request that generated this token, with the exception of
    // maxResultsPerPage and includedData" (Pagination). Amazon names no code: InvalidInput as for
    // the other parameter rules.
    if (read && read.scope !== own) {
      res
        .status(400)
        .json(
          errorBody(
            'InvalidInput',
            'All other parameters must be provided with the same values that were provided with the request that generated this token, with the exception of maxResultsPerPage and includedData.',
            'paginationToken',
          ),
        );
      return;
    }
    const scope = own;
    const filter = JSON.parse(scope) as { after: typeof after; before?: string; marketplaces: string[]; fulfilledBy: string[]; statuses: string[] };
    const included = new Set(list(q.includedData));
    const found = [...store.orders.values()]
      .filter((o) => o.account === String(res.locals.account))
      .map(settle)
      .filter((o) => filter.marketplaces.length === 0 || filter.marketplaces.includes(o.marketplaceId))
      .filter((o) => filter.fulfilledBy.length === 0 || filter.fulfilledBy.includes(o.fulfilledBy))
      .filter((o) => filter.statuses.length === 0 || filter.statuses.includes(o.status))
      .filter((o) => {
        const at = Date.parse(filter.after.created ? o.createdTime : o.lastUpdatedTime);
        return at >= Date.parse((filter.after.created ?? filter.after.updated)!) && (!filter.before || at <= Date.parse(filter.before));
      })
      .sort((a, b) => a[store.searchOrdersBy].localeCompare(b[store.searchOrdersBy]) || a.orderId.localeCompare(b.orderId));
    const { page, next } = paged(found, token, Math.min(size, store.pageSize), scope);
    res.json({
      orders: page.map((o) => order2026(o, included)),
      ...(next ? { pagination: { nextToken: next } } : {}),
      ...(filter.after.updated ? { lastUpdatedBefore: nowIso() } : { createdBefore: nowIso() }),
    });
  });
  router.get('/:orderId', (req: Request, res: Response) => {
    const o = ofAccount(store, res, String(req.params.orderId));
    if (!o) {
      res.status(404).json(errorBody('NotFound', `Order ${req.params.orderId} not found.`));
      return;
    }
    res.json({ order: order2026(o, new Set(list(req.query.includedData))) });
  });
  return router;
}

/** The deprecated v0 operations answer until the removal date, then fail (the sandbox answers 404 NotFound: Amazon names no code). */
function removed(store: AmazonOrderStore, res: Response, operation: string): boolean {
  const today = store.today ?? nowIso().slice(0, 10);
  if (today >= ordersV0RemovalDate) {
    res
      .status(404)
      .json(
        errorBody(
          'NotFound',
          `${operation} of the Orders API v0 was removed on ${ordersV0RemovalDate}.`,
          'Use the Orders API v2026-01-01 (searchOrders, getOrder).',
        ),
      );
    return true;
  }
  store.deprecatedCalls.push({ operation, at: nowIso(), account: String(res.locals.account) });
  return false;
}

/** Orders v0: getOrders, getOrder, getOrderItems (deprecated) and confirmShipment. */
export function ordersV0(store: AmazonOrderStore): express.Router {
  const router = express.Router();
  router.get('/', (req: Request, res: Response) => {
    if (removed(store, res, 'getOrders')) return;
    const q = req.query as Record<string, string | undefined>;
    const read = q.NextToken ? readToken(q.NextToken) : undefined;
    if (typeof read === 'string') {
      res.status(400).json(errorBody('InvalidInput', read, 'NextToken'));
      return;
    }
    const scope =
      read?.scope ?? JSON.stringify({ after: q.LastUpdatedAfter ?? q.CreatedAfter, created: !q.LastUpdatedAfter, marketplaces: list(q.MarketplaceIds) });
    const filter = JSON.parse(scope) as { after?: string; created: boolean; marketplaces: string[] };
    if (!filter.after || filter.marketplaces.length === 0) {
      res.status(400).json(errorBody('InvalidInput', 'MarketplaceIds and CreatedAfter or LastUpdatedAfter are required.'));
      return;
    }
    const found = [...store.orders.values()]
      .filter((o) => o.account === String(res.locals.account) && filter.marketplaces.includes(o.marketplaceId))
      .map(settle)
      .filter((o) => Date.parse(filter.created ? o.createdTime : o.lastUpdatedTime) >= Date.parse(filter.after!))
      .sort((a, b) => a.lastUpdatedTime.localeCompare(b.lastUpdatedTime));
    const { page, next } = paged(found, q.NextToken, store.pageSize, scope);
    res.json({ payload: { Orders: page.map(orderV0), ...(next ? { NextToken: next } : {}), LastUpdatedBefore: nowIso() } });
  });
  router.get('/:orderId', (req: Request, res: Response) => {
    if (removed(store, res, 'getOrder')) return;
    const o = ofAccount(store, res, String(req.params.orderId));
    if (!o) {
      res.status(404).json(errorBody('NotFound', `Order ${req.params.orderId} not found.`));
      return;
    }
    res.json({ payload: orderV0(o) });
  });
  router.get('/:orderId/orderItems', (req: Request, res: Response) => {
    if (removed(store, res, 'getOrderItems')) return;
    const o = ofAccount(store, res, String(req.params.orderId));
    if (!o) {
      res.status(404).json(errorBody('NotFound', `Order ${req.params.orderId} not found.`));
      return;
    }
    const { page, next } = paged(itemsV0(o), req.query.NextToken as string | undefined, store.pageSize, o.orderId);
    res.json({ payload: { AmazonOrderId: o.orderId, OrderItems: page, ...(next ? { NextToken: next } : {}) } });
  });
  router.post('/:orderId/shipmentConfirmation', (req: Request, res: Response) => confirmShipment(store, req, res));
  return router;
}

/**
 * confirmShipment: one package per packageReferenceId (a second confirmation with the same id is
 * refused: "A unique identifier for this package within the context of the order"), its items
 * no more than is left to ship; the order turns PARTIALLY_SHIPPED or SHIPPED. AFN orders are
 * Amazon's to ship.
 */
function confirmShipment(store: AmazonOrderStore, req: Request, res: Response): void {
  const o = ofAccount(store, res, String(req.params.orderId));
  if (!o) {
    res.status(404).json(errorBody('NotFound', `Order ${req.params.orderId} not found.`));
    return;
  }
  const body = (req.body ?? {}) as { marketplaceId?: unknown; packageDetail?: Record<string, unknown> };
  const p = body.packageDetail ?? {};
  const items = Array.isArray(p.orderItems) ? (p.orderItems as { orderItemId?: unknown; quantity?: unknown }[]) : [];
  const missing = ['packageReferenceId', 'carrierCode', 'trackingNumber', 'shipDate'].filter((f) => typeof p[f] !== 'string' || p[f] === '');
  if (typeof body.marketplaceId !== 'string' || missing.length > 0 || items.length === 0 || !/^\d+$/.test(String(p.packageReferenceId))) {
    res.status(400).json(errorBody('InvalidInput', `marketplaceId and packageDetail (${[...missing, 'orderItems'].join(', ')}) are required.`));
    return;
  }
  // ConfirmShipmentRequest.marketplaceId is required and the order is of one marketplace; Amazon's
  // answer to another is not documented, 400 InvalidInput is ours (the shipment would be confirmed
  // in a marketplace the order is not of).
  if (body.marketplaceId !== o.marketplaceId) {
    res.status(400).json(errorBody('InvalidInput', `Order ${o.orderId} is of marketplace ${o.marketplaceId}, not ${body.marketplaceId}.`, 'marketplaceId'));
    return;
  }
  // carrierCode from Amazon's list; "carrierName ... Required when carrierCode is Other" (PackageDetail).
  if (!amazonCarrierCodes.has(String(p.carrierCode)) || (p.carrierCode === 'Other' && !p.carrierName)) {
    res
      .status(400)
      .json(
        errorBody('InvalidInput', `carrierCode ${String(p.carrierCode)} is not one of Amazon's carrier codes, or Other without a carrierName.`, 'carrierCode'),
      );
    return;
  }
  if (o.fulfilledBy === 'AMAZON' || pending(o) || o.status === 'CANCELLED') {
    res
      .status(400)
      .json(
        errorBody('InvalidInput', `Order ${o.orderId} is ${o.status}${o.fulfilledBy === 'AMAZON' ? ' and fulfilled by Amazon' : ''}: it cannot be confirmed.`),
      );
    return;
  }
  if (o.packages.some((k) => k.packageReferenceId === p.packageReferenceId)) {
    res.status(400).json(errorBody('InvalidInput', `packageReferenceId ${String(p.packageReferenceId)} was already confirmed for order ${o.orderId}.`));
    return;
  }
  // An item named twice in one package claims the sum of its quantities (what is left to ship is of the item, not of the entry).
  const claimed = new Map<unknown, number>();
  for (const i of items) {
    const line = o.lines.find((l) => l.orderItemId === i.orderItemId);
    const claim = (claimed.get(i.orderItemId) ?? 0) + Number(i.quantity);
    claimed.set(i.orderItemId, claim);
    if (!line || !Number.isInteger(i.quantity) || Number(i.quantity) < 1 || line.quantityShipped + claim > unitsOf(line)) {
      res.status(400).json(errorBody('InvalidInput', `orderItemId ${String(i.orderItemId)} is not in the order or its quantity is more than is left to ship.`));
      return;
    }
  }
  for (const i of items) o.lines.find((l) => l.orderItemId === i.orderItemId)!.quantityShipped += Number(i.quantity);
  o.packages.push({
    packageReferenceId: String(p.packageReferenceId),
    carrier: String(p.carrierCode === 'Other' ? (p.carrierName ?? 'Other') : p.carrierCode),
    trackingNumber: String(p.trackingNumber),
    shipTime: String(p.shipDate),
    packageItems: items.map((i) => ({ orderItemId: String(i.orderItemId), quantity: Number(i.quantity) })),
    status: 'SHIPPED',
  });
  o.status = o.lines.every((l) => l.quantityShipped >= unitsOf(l)) ? 'SHIPPED' : 'PARTIALLY_SHIPPED';
  o.lastUpdatedTime = nowIso();
  res.status(204).end();
}

/**
 * Amazon's carrier codes the sandbox takes: the accepted values of Seller Central's shipping
 * confirmation template ("carrier-code (CarrierCode field in API)") and Deutsche Post and DPD of
 * Amazon's amzn-base.xsd CarrierCode list.
 */
const amazonCarrierCodes = new Set([
  'Blue Package',
  'USPS',
  'UPS',
  'UPSMI',
  'FedEx',
  'DHL',
  'DHL Global Mail',
  'Fastway',
  'UPS Mail Innovations',
  'Lasership',
  'Royal Mail',
  'FedEx SmartPost',
  'OSM',
  'OnTrac',
  'Streamlite',
  'Newgistics',
  'Canada Post',
  'City Link',
  'GLS',
  'GO!',
  'Hermes Logistik Gruppe',
  'Parcelforce',
  'TNT',
  'Target',
  'SagawaExpress',
  'NipponExpress',
  'YamatoTransport',
  'Ninjavan',
  'Qxpress',
  'Singapore Post',
  '4PX',
  'Yanwen',
  'Aramex',
  'China Post',
  'DHL eCommerce',
  'SF Express',
  'Deutsche Post',
  'DPD',
  'Other',
]);

/** An order to place at the sandbox's Amazon (POST /_sandbox/amazon/orders, and a market_d sale). */
export interface NewAmazonOrder {
  portal_account: string | number;
  lines: {
    sku: string;
    quantity: number;
    price?: string;
    /** The ITEM proceeds of all units, with no unit price shown (SandboxOrderLine.itemAmount); not with price. */
    item_amount?: string;
    title?: string;
    promotion_discount?: string;
    shipping?: string;
    shipping_discount?: string;
    /** Amazon.com: the sales tax on the item (all units), added on top and withheld by Amazon. */
    tax?: string;
    /** An EU marketplace: the item comes from outside the EU under IOSS, Amazon collecting its VAT. */
    ioss?: boolean;
    /** Gift wrap of all units (GIFT_WRAP), its discount, and on Amazon.com its sales tax. */
    gift_wrap?: string;
    gift_wrap_discount?: string;
    gift_wrap_tax?: string;
    /** The item's cash-on-delivery fee (COD_FEE). */
    cod_fee?: string;
    /** Other charges of all units (OTHER). */
    other?: string;
    /** Amazon.com: the sales tax on the item's shipping. */
    shipping_tax?: string;
  }[];
  /** Amazon.com: SELLER collects the sales tax itself (no marketplace facilitator); AMAZON by default. */
  tax_collected_by?: 'AMAZON' | 'SELLER';
  /** A delivery tip (DELIVERY_TIP, order level), FINALIZED unless delivery_tip_status says PENDING. */
  delivery_tip?: string;
  delivery_tip_status?: 'PENDING' | 'FINALIZED';
  /** A PENDING tip is left out of grandTotal until it is FINALIZED (default: inside, as a FINALIZED one). */
  pending_tip_outside_total?: boolean;
  /** PaymentExecution.paymentMethod (CashOnDelivery, CreditCard, ...); default CashOnDelivery when a line has a cod_fee, else none (no payment data). */
  payment_method?: string;
  fulfilled_by?: 'AMAZON' | 'MERCHANT';
  status?: FulfillmentStatus;
  /** Pending this long first (default: the store's pendingMs). */
  pending_ms?: number;
  marketplace_id?: string;
  currency?: string;
  buyer?: { name?: string; email?: string; street?: string; zip?: string; city?: string; country_iso2?: string; phone?: string };
}

/** Places an order; its id. */
export function placeOrder(store: AmazonOrderStore, body: NewAmazonOrder): SandboxOrder {
  const at = Date.now();
  const pendingMs = body.pending_ms ?? store.pendingMs;
  const status = body.status ?? (pendingMs > 0 ? 'PENDING' : 'UNSHIPPED');
  const name = body.buyer?.name ?? 'Erika Mustermann';
  const paymentMethod = body.payment_method ?? (body.lines.some((l) => Number(l.cod_fee ?? 0) > 0) ? 'CashOnDelivery' : undefined);
  const order: SandboxOrder = {
    account: String(body.portal_account),
    orderId: `302-${digits(7)}-${digits(7)}`,
    createdTime: new Date(at).toISOString(),
    lastUpdatedTime: new Date(at).toISOString(),
    marketplaceId: body.marketplace_id ?? 'A1PA6795UKMFR9',
    currency: body.currency ?? 'EUR',
    fulfilledBy: body.fulfilled_by ?? 'MERCHANT',
    status,
    ...(status === 'PENDING' && pendingMs > 0 ? { pendingUntil: at + pendingMs } : {}),
    serviceLevel: 'STANDARD',
    buyer: { name, email: body.buyer?.email ?? `${digits(12)}@marketplace.amazon.de` },
    address: {
      name,
      addressLine1: body.buyer?.street ?? 'Heidestraße 17',
      city: body.buyer?.city ?? 'Köln',
      postalCode: body.buyer?.zip ?? '51147',
      countryCode: body.buyer?.country_iso2 ?? 'DE',
      ...(body.buyer?.phone ? { phone: body.buyer.phone } : {}),
    },
    lines: body.lines.map((l) => ({
      orderItemId: digits(14),
      sku: l.sku,
      title: l.title ?? l.sku,
      asin: `B0${digits(8)}`,
      quantity: l.quantity,
      unitPrice: l.price ?? '10.00',
      ...(l.item_amount !== undefined ? { itemAmount: l.item_amount } : {}),
      promotionDiscount: l.promotion_discount ?? '0.00',
      shippingPrice: l.shipping ?? '0.00',
      shippingDiscount: l.shipping_discount ?? '0.00',
      tax: l.tax ?? '0.00',
      ioss: l.ioss === true,
      giftWrap: l.gift_wrap ?? '0.00',
      giftWrapDiscount: l.gift_wrap_discount ?? '0.00',
      codFee: l.cod_fee ?? '0.00',
      other: l.other ?? '0.00',
      shippingTax: l.shipping_tax ?? '0.00',
      giftWrapTax: l.gift_wrap_tax ?? '0.00',
      quantityShipped: 0,
    })),
    packages: [],
    ...(body.delivery_tip
      ? {
          deliveryTip: {
            amount: body.delivery_tip,
            status: body.delivery_tip_status ?? 'FINALIZED',
            ...(body.pending_tip_outside_total ? { pendingOutside: true } : {}),
          },
        }
      : {}),
    taxCollectedBy: body.tax_collected_by ?? 'AMAZON',
    ...(paymentMethod ? { paymentMethod } : {}),
  };
  store.orders.set(order.orderId, order);
  return order;
}
