/**
 * The sandbox eBay's orders: Fulfillment API (getOrders, getOrder, shipping fulfillments), and the sales that make orders (POST /_sandbox/sell with
 * portal auction_a: one line; POST /_sandbox/ebay/orders: several lines, discounts, refunds,
 * another currency, unpaid, fulfilled by eBay; POST /_sandbox/ebay/orders/:orderId/pay: the buyer pays). Documented rules enforced (sell_fulfillment_v1_oas3.json,
 * ShippingFulfillmentDetails and the createShippingFulfillment error table):
 * - trackingNumber and shippingCarrierCode are mutually dependent; a tracking number is
 *   alphanumeric only;
 * - shippedDate is [YYYY]-[MM]-[DD]T[hh]:[mm]:[ss].[sss]Z (UTC) and not in the future;
 * - every line item named exists (32200) and is named once per package (32210), with at most
 *   what its quantity leaves after the order's fulfillments (32600: a line item is fulfilled at
 *   most its quantity); a line item is FULFILLED when its packages hold its whole quantity;
 * - tracking number and carrier errors are 32300, a shipped date 32500: the error table's codes
 *   and messages (what was wrong in longMessage).
 * The carrier code must be one of eBay's ShippingCarrierCodeType values (GeteBayDetails
 * ShippingCarrierDetails; the sandbox knows the list below and refuses others: its choice, so
 * that an unmapped deliverer shows in a test).
 */
import crypto from 'node:crypto';
import type express from 'express';
import type { Request, Response } from 'express';
import type { SandboxState, SellRequest } from './sandbox.app';
import { Body, EbayOrder, error, Fulfilment, key, refreshListing, setItemQuantity, itemQuantity } from './ebay-state.sandbox';
import { asListed } from './ebay-cancel.sandbox';

/** eBay's carrier codes the sandbox takes (Trading API ShippingCarrierCodeType, plus GLS and DPD of eBay.de's ShippingCarrierDetails). */
export const ebayCarrierCodes = new Set([
  'UPS',
  'USPS',
  'FedEx',
  'DHL',
  'DeutschePost',
  'Hermes',
  'iLoxx',
  'GLS',
  'DPD',
  'TNT',
  'RoyalMail',
  'ColiposteDomestic',
  'ColiposteInternational',
  'Chronopost',
  'Correos',
  'Seur',
  'Nacex',
  'Other',
]);

const money = (cents: number) => (cents / 100).toFixed(2);
const fulfillmentPath = '/sell/fulfillment/v1';

/** One line of a sandbox sale. */
export interface SaleLine {
  sku: string;
  quantity: number;
  price?: string;
  /** A promotion's discount on the line (eBay: appliedPromotions[].discountAmount, discountedLineItemCost). */
  discount?: string;
  /**
   * Tax eBay collects from the buyer and remits itself on the line ('eBay Collect and Remit'),
   * shaped as getOrders without fieldGroups answers it (sell_fulfillment_v1_oas3.json): the line's
   * `taxes[]` (an Amount each, no taxType, which only TAX_BREAKDOWN adds) and
   * `ebayCollectAndRemitTaxes[]` (its taxType, the same amount, collectionMethod NET), the order's
   * `ebayCollectAndRemitTax` true; the tax is inside `paymentSummary.payments[].amount` and
   * `totalDueSeller`, not in the line's or the order's `total` (only with TAX_BREAKDOWN).
   */
  collect_and_remit_tax?: string;
  /** The tax's TaxTypeEnum value (VAT by default: EU/UK VAT eBay collects; STATE_SALES_TAX, GST ...). */
  collect_and_remit_type?: string;
  /**
   * The cost of shipping all units of the line (LineItem.deliveryCost.shippingCost: "always
   * returned even when the shipping cost is free", 0.00 without one). With the lines' shipping
   * discounts and import charges it makes the order's pricingSummary.deliveryCost (below).
   */
  shipping?: string;
  /** A shipping discount on the line (DeliveryCost.discountAmount, "returned only if a shipping discount applies"); at most its shipping. */
  shipping_discount?: string;
  /**
   * Import charges on the line's international shipping (DeliveryCost.importCharges, eBay's global
   * shipping: "only returned if import charges apply to the line item"). The buyer pays them
   * (LineItem.total, pricingSummary.deliveryCost and total hold them) and the seller does not
   * receive them: the sandbox's reading (the contract says no more) is that eBay collects them for
   * the shipping provider and customs, so Payment.amount ("the amount that seller receives") and
   * totalDueSeller leave them out.
   */
  import_charges?: string;
  /**
   * A shipping promotion on the line (a sales promotion of the "shipping discounts" kind,
   * AppliedPromotion.promotionId): listed in `appliedPromotions` with its discountAmount, and, as
   * the shipping discount it is, in the line's deliveryCost.discountAmount (with
   * `shipping_discount`) and the order's deliveryDiscount; not in priceDiscount, and no
   * discountedLineItemCost of its own ("only returned if the order line item was discounted
   * through a promotion": the item's cost is not). At most the line's shipping.
   */
  shipping_promotion?: string;
  /**
   * eBay charges the buyer directly for eBay shipping (LineItem.ebayCollectedCharges.ebayShipping,
   * "costs related to eBay Shipping collected by eBay from the buyer"; the container is "returned
   * only if eBay is directly charging the buyer for eBay shipping"). The sandbox's reading: it is
   * part of the line's shippingCost ("the total cost of shipping all units of the line item"), so
   * in LineItem.total, pricingSummary.deliveryCost and total, and, collected by eBay for itself,
   * not in Payment.amount ("the amount that seller receives") nor totalDueSeller. At most the
   * line's shipping.
   */
  ebay_shipping?: string;
  /**
   * eBay's Buyer Protection fee on the line (ebayCollectedCharges.charges[] chargeType
   * BUYER_PROTECTION, the only type the contract names), which eBay collects from the buyer for
   * itself. The container comes only with eBay shipping, so it needs `ebay_shipping`. The sandbox's
   * reading: in pricingSummary.total ("special fees" of the order), not in the line's total ("item
   * cost, delivery cost, taxes"), nor in the seller's payment.
   */
  buyer_protection?: string;
}

/** An amount a test asks the sandbox for: a decimal of at most two places, not negative (eBay's Amount.value). */
const amountPattern = /^\d+(\.\d{1,2})?$/;
const signedAmountPattern = /^-?\d+(\.\d{1,2})?$/;

/** Refuses a sale whose amounts are not what eBay could show, naming the field (400). */
function checkSale(sale: Sale): void {
  const refuse = (field: string, what: string) => {
    throw Object.assign(new Error(`${field}: ${what}`), { status: 400 });
  };
  const asCents = (v: string | undefined) => Math.round(Number(v ?? 0) * 100);
  const fields = [
    'price',
    'discount',
    'collect_and_remit_tax',
    'shipping',
    'shipping_discount',
    'import_charges',
    'shipping_promotion',
    'ebay_shipping',
    'buyer_protection',
  ] as const;
  let shipping = 0;
  let shippingDiscounts = 0;
  sale.lines.forEach((line, i) => {
    for (const field of fields) {
      const value = line[field];
      if (value !== undefined && (typeof value !== 'string' || !amountPattern.test(value))) refuse(`lines[${i}].${field}`, 'an amount such as "4.90"');
    }
    if (line.price !== undefined && asCents(line.discount) > asCents(line.price) * line.quantity) refuse(`lines[${i}].discount`, 'more than the line costs');
    if (asCents(line.shipping_discount) > asCents(line.shipping)) refuse(`lines[${i}].shipping_discount`, 'more than the line’s shipping');
    if (asCents(line.shipping_discount) + asCents(line.shipping_promotion) > asCents(line.shipping))
      refuse(`lines[${i}].shipping_promotion`, 'the line’s shipping discounts exceed its shipping');
    if (asCents(line.ebay_shipping) > asCents(line.shipping)) refuse(`lines[${i}].ebay_shipping`, 'more than the line’s shipping');
    if (line.buyer_protection !== undefined && !asCents(line.ebay_shipping))
      refuse(`lines[${i}].buyer_protection`, 'ebayCollectedCharges is returned only with eBay shipping (ebay_shipping)');
    shipping += asCents(line.shipping);
    shippingDiscounts += asCents(line.shipping_discount) + asCents(line.shipping_promotion);
  });
  if (sale.delivery_discount !== undefined && (typeof sale.delivery_discount !== 'string' || !amountPattern.test(sale.delivery_discount)))
    refuse('delivery_discount', 'an amount such as "2.00"');
  if (shippingDiscounts + asCents(sale.delivery_discount) > shipping) refuse('delivery_discount', 'the shipping discounts exceed the shipping');
  if (sale.adjustment !== undefined && (typeof sale.adjustment !== 'string' || !signedAmountPattern.test(sale.adjustment)))
    refuse('adjustment', 'a signed amount such as "-3.50"');
}

/**
 * What eBay owes the seller of what is left after refunds (`totalDueSeller`): the net left plus
 * the collected tax on it. Refund amounts are the seller's net ("eBay-collected tax will not be
 * included in this amount"), so the tax refunded with them is not named: the sandbox takes it as
 * refunded in proportion (its own choice), none left once the net is all refunded.
 */
function dueSeller(left: number, net: number, collected: number): number {
  if (left <= 0) return 0;
  return left + (net > 0 ? Math.round((collected * left) / net) : collected);
}

/** The order's 'Collect and Remit' tax, in cents: its lines' ebayCollectAndRemitTaxes. */
const collectedCents = (order: EbayOrder) =>
  (order.lineItems ?? []).reduce((s, l) => s + (l.ebayCollectAndRemitTaxes ?? []).reduce((t, x) => t + Math.round(Number(x.amount?.value ?? 0) * 100), 0), 0);

type EbayLine = NonNullable<EbayOrder['lineItems']>[number];
const centsOf = (amount: { value?: string } | undefined) => Math.round(Number(amount?.value ?? 0) * 100);

/**
 * What the buyer paid toward a line's total that eBay collects for others or itself, in cents: its
 * import charges (deliveryCost.importCharges) and eBay's shipping (ebayCollectedCharges.ebayShipping).
 */
const notSellersOfLine = (l: EbayLine) => centsOf(l.deliveryCost?.importCharges) + centsOf(l.ebayCollectedCharges?.ebayShipping);

/** The same for the order's total: its lines', and eBay's charges to the buyer (BUYER_PROTECTION), which no line's total holds. */
const notSellers = (order: EbayOrder) =>
  (order.lineItems ?? []).reduce((s, l) => s + notSellersOfLine(l) + (l.ebayCollectedCharges?.charges ?? []).reduce((t, c) => t + centsOf(c.amount), 0), 0);

export interface Sale {
  account: string;
  lines: SaleLine[];
  currency?: string;
  /** eBay's orderPaymentStatus (PAID by default; FULLY_REFUNDED and PARTIALLY_REFUNDED add a refund). */
  paymentStatus?: 'PAID' | 'PENDING' | 'FAILED' | 'FULLY_REFUNDED' | 'PARTIALLY_REFUNDED';
  refund?: string;
  /**
   * A price adjustment after the sale (pricingSummary.adjustment: "applied to the cost of the
   * item(s) ... only returned if price adjustments were made to the order after the initial
   * transaction"), signed: negative lowers the price. It is in the order's total and payment, not
   * in any line's cost or total.
   */
  adjustment?: string;
  /**
   * A shipping discount on the whole order that eBay puts on no line (a combined-shipping
   * discount): it joins the lines' shipping discounts in pricingSummary.deliveryDiscount ("the
   * total amount of delivery discounts (including shipping discounts) that apply to the order").
   */
  delivery_discount?: string;
  buyer?: SellRequest['buyer'];
  /**
   * eBay ships the order from its own warehouse (eBay fulfilment): `program.fulfillmentProgram`
   * {fulfilledBy: EBAY}, which the contract returns "only ... for paid orders being fulfilled by
   * eBay or an eBay fulfillment partner", so an unpaid (PENDING) order shows it once it is paid
   * (POST /_sandbox/ebay/orders/:orderId/pay).
   */
  fulfilledByEbay?: boolean;
  /** false: paymentSummary.payments is empty though the order is paid (payments_listed: false). */
  paymentsListed?: boolean;
  /**
   * Payment.paymentMethod (EBAY by default, eBay's managed payments). Payment.paymentReferenceId "is
   * only returned if payment has been made by the buyer, and the paymentMethod is ESCROW", so only
   * a paid ESCROW payment carries one (given at payOrder for one paid later).
   */
  paymentMethod?: 'EBAY' | 'ESCROW';
}

/** Payment.paymentReferenceId: "only returned if payment has been made by the buyer, and the paymentMethod is ESCROW". */
const escrowReference = () => `SBX${crypto.randomBytes(6).toString('hex').toUpperCase()}`;

/** Order.program of an order eBay fulfils, shown while it is paid (Program.fulfillmentProgram). */
function showProgram(order: EbayOrder, fulfilledByEbay: boolean | undefined): void {
  const paid = order.orderPaymentStatus === 'PAID' || order.orderPaymentStatus === 'PARTIALLY_REFUNDED';
  if (fulfilledByEbay && paid) order.program = { ...order.program, fulfillmentProgram: { fulfilledBy: 'EBAY' } };
}

/**
 * The buyer pays an order that awaited payment (PENDING or FAILED): its payment turns PAID with a
 * paymentDate, orderPaymentStatus PAID, the order is modified (getOrders' lastmodifieddate finds
 * it), and an order eBay fulfils now shows its fulfilment program. The message of a refusal is ours.
 */
export function payOrder(state: SandboxState, orderId: string): string | undefined {
  const found = state.ebay.orders.get(orderId);
  if (!found) return `no order ${orderId}`;
  const { order } = found;
  if (order.orderPaymentStatus !== 'PENDING' && order.orderPaymentStatus !== 'FAILED')
    return `The order is ${String(order.orderPaymentStatus)}, not awaiting payment.`;
  const now = new Date().toISOString();
  order.orderPaymentStatus = 'PAID';
  order.paymentSummary = {
    ...order.paymentSummary,
    payments: (order.paymentSummary?.payments ?? []).map((p) => ({
      ...p,
      ...(p.paymentMethod === 'ESCROW' && !p.paymentReferenceId ? { paymentReferenceId: escrowReference() } : {}),
      paymentStatus: 'PAID',
      paymentDate: now,
    })),
  };
  showProgram(order, found.fulfilledByEbay);
  order.lastModifiedDate = now;
  return undefined;
}

function contactOf(buyer: NonNullable<SellRequest['buyer']>) {
  return {
    fullName: buyer.name ?? 'Erika Mustermann',
    email: buyer.email ?? `${buyer.username ?? 'buyer'}@members.ebay.example`,
    primaryPhone: { phoneNumber: buyer.phone ?? '+49 30 1234567' },
    contactAddress: {
      addressLine1: buyer.street ?? 'Heidestr. 17',
      city: buyer.city ?? 'Köln',
      postalCode: buyer.zip ?? '51147',
      countryCode: buyer.country_iso2 ?? 'DE',
    },
  };
}

/** A sale at the sandbox's eBay: an order getOrders shows; eBay takes the sold units off the listing (item and offer quantity). */
export function placeOrder(state: SandboxState, sale: Sale): { order_id: string } {
  const ebay = state.ebay;
  const { account } = sale;
  if (!account || sale.lines.length === 0 || sale.lines.some((l) => !l.sku || !Number.isInteger(l.quantity) || l.quantity < 1))
    throw Object.assign(new Error('portal_account and lines with a sku and a quantity of 1 or more are required'), { status: 400 });
  checkSale(sale);
  const n = ebay.next();
  const orderId = `26-${String(10000 + (n % 90000)).padStart(5, '0')}-${String(n).padStart(5, '0')}`;
  const now = new Date().toISOString();
  const contact = contactOf(sale.buyer ?? {});
  let currency = sale.currency;
  let subtotal = 0;
  let discounts = 0;
  let collected = 0;
  let delivery = 0;
  let deliveryDiscounts = Math.round(Number(sale.delivery_discount ?? 0) * 100);
  let charges = 0;
  const lineItems = sale.lines.map((line, i) => {
    const offer = ebay.offersOf(account, line.sku).find((o) => o.body.format !== 'AUCTION') ?? ebay.offersOf(account, line.sku)[0];
    const price = (offer?.body.pricingSummary as { price?: { value?: string; currency?: string } } | undefined)?.price;
    currency ??= price?.currency ?? 'EUR';
    const cost = Math.round(Number(line.price ?? price?.value ?? '10.00') * 100) * line.quantity;
    const discount = Math.round(Number(line.discount ?? 0) * 100);
    const tax = Math.round(Number(line.collect_and_remit_tax ?? 0) * 100);
    const shipping = Math.round(Number(line.shipping ?? 0) * 100);
    const shippingDiscount = Math.round(Number(line.shipping_discount ?? 0) * 100);
    const importCharges = Math.round(Number(line.import_charges ?? 0) * 100);
    const shippingPromotion = Math.round(Number(line.shipping_promotion ?? 0) * 100);
    const ebayShipping = Math.round(Number(line.ebay_shipping ?? 0) * 100);
    const buyerProtection = Math.round(Number(line.buyer_protection ?? 0) * 100);
    subtotal += cost;
    discounts += discount;
    collected += tax;
    delivery += shipping + importCharges;
    deliveryDiscounts += shippingDiscount + shippingPromotion;
    charges += buyerProtection;
    const amount = (c: number) => ({ value: money(c), currency: currency! });
    return {
      lineItemId: String(10000000000 + n * 10 + i),
      // A line without a listing of the sandbox's has one of its own: two lines of an order are two listings (or variations).
      legacyItemId: offer?.listingId ?? String(190000000000 + n * 10 + i),
      sku: line.sku,
      title: String(((ebay.inventory.get(key(account, line.sku))?.product as Body | undefined)?.title as string | undefined) ?? line.sku),
      quantity: line.quantity,
      lineItemCost: amount(cost),
      ...(discount ? { discountedLineItemCost: amount(cost - discount) } : {}),
      appliedPromotions: [
        ...(discount ? [{ promotionId: `PROMO${n}`, description: 'Sandbox promotion', discountAmount: amount(discount) }] : []),
        ...(shippingPromotion ? [{ promotionId: `SHIPPROMO${n}`, description: 'Sandbox shipping promotion', discountAmount: amount(shippingPromotion) }] : []),
      ],
      // "a breakdown of all costs associated with the fulfillment of the line item" (LineItem.deliveryCost).
      deliveryCost: {
        shippingCost: amount(shipping),
        ...(shippingDiscount + shippingPromotion ? { discountAmount: amount(shippingDiscount + shippingPromotion) } : {}),
        ...(importCharges ? { importCharges: amount(importCharges) } : {}),
      },
      ...(ebayShipping
        ? {
            ebayCollectedCharges: {
              ebayShipping: amount(ebayShipping),
              ...(buyerProtection ? { charges: [{ chargeType: 'BUYER_PROTECTION', amount: amount(buyerProtection) }] } : {}),
            },
          }
        : {}),
      // What the buyer pays for the line: "after all costs (item cost, delivery cost, taxes,) are added, minus any discounts".
      total: amount(cost - discount + shipping - shippingDiscount - shippingPromotion + importCharges),
      taxes: tax ? [{ amount: amount(tax) }] : [],
      ...(tax ? { ebayCollectAndRemitTaxes: [{ taxType: line.collect_and_remit_type ?? 'VAT', amount: amount(tax), collectionMethod: 'NET' }] } : {}),
      // "always returned, but ... empty unless the seller has submitted a partial or full refund" (LineItem.refunds).
      refunds: [],
      lineItemFulfillmentStatus: 'NOT_STARTED',
      soldFormat: offer?.body.format === 'AUCTION' ? 'AUCTION' : 'FIXED_PRICE',
    };
  });
  const amount = (c: number) => ({ value: money(c), currency: currency! });
  const adjustment = Math.round(Number(sale.adjustment ?? 0) * 100);
  // Without fieldGroups TAX_BREAKDOWN the total holds no 'Collect and Remit' tax (PricingSummary.total);
  // it holds the delivery cost (import charges and eBay's shipping included) less the delivery
  // discounts, and eBay's charges to the buyer (BUYER_PROTECTION).
  const total = subtotal - discounts + adjustment + delivery - deliveryDiscounts + charges;
  // What the seller receives (Payment.amount): the total without what eBay collects for others or itself.
  const net = total - notSellers({ lineItems });
  const status = sale.paymentStatus ?? 'PAID';
  const refunded = status === 'FULLY_REFUNDED' ? net : status === 'PARTIALLY_REFUNDED' ? Math.round(Number(sale.refund ?? '1.00') * 100) : 0;
  const paid = status === 'PAID' || refunded > 0;
  const buyer = sale.buyer ?? {};
  const order: EbayOrder = {
    orderId,
    creationDate: now,
    lastModifiedDate: now,
    orderFulfillmentStatus: 'NOT_STARTED',
    orderPaymentStatus: status,
    sellerId: `seller-${account}`,
    ...(collected ? { ebayCollectAndRemitTax: true } : {}),
    buyer: {
      username: buyer.username ?? 'sandbox_buyer',
      taxAddress: { city: contact.contactAddress.city, postalCode: contact.contactAddress.postalCode, countryCode: contact.contactAddress.countryCode },
      buyerRegistrationAddress: contact,
    },
    pricingSummary: {
      priceSubtotal: amount(subtotal),
      ...(discounts ? { priceDiscount: amount(-discounts) } : {}),
      ...(adjustment ? { adjustment: amount(adjustment) } : {}),
      // "the total cost of delivering the order to the buyer, before any shipping/delivery discount is applied".
      deliveryCost: amount(delivery),
      // "This should be a negative real number ... only returned if delivery discounts are being applied".
      ...(deliveryDiscounts ? { deliveryDiscount: amount(-deliveryDiscounts) } : {}),
      ...(collected ? { tax: amount(collected) } : {}),
      total: amount(total),
    },
    cancelStatus: { cancelState: 'NONE_REQUESTED', cancelRequests: [] },
    paymentSummary: {
      // A paid order whose payment eBay does not list (paymentsListed false): the array is "always
      // returned", empty here, so that an importer meets the order without a PAID payment.
      payments: (sale.paymentsListed === false ? [] : [0]).map(() => ({
        paymentMethod: sale.paymentMethod ?? 'EBAY',
        ...(paid && sale.paymentMethod === 'ESCROW' ? { paymentReferenceId: escrowReference() } : {}),
        ...(paid ? { paymentDate: now } : {}),
        paymentStatus: paid ? 'PAID' : status === 'FAILED' ? 'FAILED' : 'PENDING',
        // The seller's payment holds the 'Collect and Remit' tax the buyer paid (Payment.amount).
        amount: amount(net + collected),
      })),
      refunds: refunded ? [{ amount: amount(refunded), refundDate: now, refundStatus: 'REFUNDED', refundId: `R${n}` }] : [],
      totalDueSeller: amount(dueSeller(net - refunded, net, collected)),
    },
    fulfillmentStartInstructions: [
      {
        fulfillmentInstructionsType: 'SHIP_TO',
        ebaySupportedFulfillment: false,
        shippingStep: { shipTo: contact, shippingCarrierCode: 'DHL', shippingServiceCode: 'DE_DHLPaket' },
      },
    ],
    lineItems,
  };
  showProgram(order, sale.fulfilledByEbay);
  ebay.orders.set(orderId, { account, order, fulfillments: [], ...(sale.fulfilledByEbay ? { fulfilledByEbay: true } : {}) });
  for (const line of sale.lines) sold(state, account, line.sku, line.quantity);
  return { order_id: orderId };
}

/** A refund the seller issued for an order: POST /_sandbox/ebay/orders/:orderId/refund {line_item_id?, amount?}. */
export interface Refund {
  lineItemId?: string;
  /** The line by its place in lineItems (0 first), for a line eBay names no lineItemId of (LineItem.lineItemId is optional). */
  lineIndex?: number;
  /** The refund (all that is left of the line, or of the order, without one). */
  amount?: string;
}

const refundedCents = (order: EbayOrder) =>
  (order.paymentSummary?.refunds ?? []).reduce((s, r) => s + Math.round(Number(r.amount?.value ?? 0) * 100), 0) +
  (order.lineItems ?? []).reduce((s, l) => s + (l.refunds ?? []).reduce((t, r) => t + Math.round(Number(r.amount?.value ?? 0) * 100), 0), 0);

/**
 * The seller refunds at eBay (issueRefund, or Seller Hub): with a line item, a line-level refund
 * that eBay lists only in that line's `refunds` ("OrderRefund ... does not include line item level
 * refunds"; LineItemRefund.refundId: "returned at the line item level instead"); without, an
 * order-level one in paymentSummary.refunds. The order's orderPaymentStatus becomes
 * PARTIALLY_REFUNDED (FULLY_REFUNDED once all is given back), totalDueSeller shrinks, and the
 * order is modified (getOrders' lastmodifieddate finds it). The message of a refusal is ours.
 */
export function refundOrder(order: EbayOrder, refund: Refund): string | undefined {
  // The seller refunds what it received: the total less what eBay collected for others or itself (placeOrder).
  const total = Math.round(Number(order.pricingSummary?.total?.value ?? 0) * 100) - notSellers(order);
  const currency = order.pricingSummary?.total?.currency ?? 'EUR';
  if (order.orderPaymentStatus !== 'PAID' && order.orderPaymentStatus !== 'PARTIALLY_REFUNDED') return 'The order has no payment to refund.';
  const line =
    refund.lineIndex !== undefined
      ? order.lineItems?.[refund.lineIndex]
      : refund.lineItemId === undefined
        ? undefined
        : (order.lineItems ?? []).find((l) => l.lineItemId === refund.lineItemId);
  if (refund.lineItemId !== undefined && !line) return `Invalid line item id: ${refund.lineItemId}`;
  if (refund.lineIndex !== undefined && !line) return `No line item at ${refund.lineIndex}`;
  const left = total - refundedCents(order);
  const lineLeft = line
    ? Math.round(Number(line.total?.value ?? 0) * 100) -
      notSellersOfLine(line) -
      (line.refunds ?? []).reduce((t, r) => t + Math.round(Number(r.amount?.value ?? 0) * 100), 0)
    : left;
  const cents = refund.amount === undefined ? Math.min(left, lineLeft) : Math.round(Number(refund.amount) * 100);
  if (!Number.isInteger(cents) || cents <= 0 || cents > Math.min(left, lineLeft)) return `Invalid refund amount: ${String(refund.amount)}`;
  const now = new Date().toISOString();
  const entry = { amount: { value: money(cents), currency }, refundDate: now, refundId: `R${crypto.randomBytes(5).toString('hex').toUpperCase()}` };
  if (line) line.refunds = [...(line.refunds ?? []), entry];
  else order.paymentSummary = { ...order.paymentSummary, refunds: [...(order.paymentSummary?.refunds ?? []), { ...entry, refundStatus: 'REFUNDED' }] };
  const remaining = total - refundedCents(order);
  order.orderPaymentStatus = remaining === 0 ? 'FULLY_REFUNDED' : 'PARTIALLY_REFUNDED';
  order.paymentSummary = { ...order.paymentSummary, totalDueSeller: { value: money(dueSeller(remaining, total, collectedCents(order))), currency } };
  order.lastModifiedDate = now;
  return undefined;
}

/** eBay takes sold units off the inventory item and off the selling offer's own availableQuantity. */
function sold(state: SandboxState, account: string, sku: string, quantity: number): void {
  const ebay = state.ebay;
  if (!ebay.inventory.has(key(account, sku))) return;
  setItemQuantity(ebay, account, sku, Math.max(0, itemQuantity(ebay.inventory.get(key(account, sku))) - quantity));
  const offer = ebay.offersOf(account, sku).find((o) => o.status === 'PUBLISHED' && o.body.format !== 'AUCTION');
  if (offer && typeof offer.body.availableQuantity === 'number')
    offer.body = { ...offer.body, availableQuantity: Math.max(0, offer.body.availableQuantity - quantity) };
  refreshListing(state, account, sku);
}

/** POST /_sandbox/sell with portal auction_a: a one-line order. */
export function sellOnEbay(state: SandboxState, sale: SellRequest): { order_id: string } {
  return placeOrder(state, {
    account: String(sale.portal_account ?? ''),
    lines: [{ sku: String(sale.sku ?? ''), quantity: Number(sale.quantity ?? 1), ...(sale.price ? { price: String(sale.price) } : {}) }],
    buyer: sale.buyer,
  });
}

const isoUtc = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** createShippingFulfillment's error table (sell_fulfillment_v1_oas3.json), its messages as the contract words them. */
const fulfilmentErrors = {
  32200: 'Invalid line item id: {lineItemId}',
  32210: 'Duplicate line item in the request',
  32300: 'Invalid shipment tracking number or carrier',
  32500: 'Invalid shipped date',
  32600: 'Invalid input data',
} as const;

/** An error of the table: the contract's message, what the sandbox found as longMessage. */
function fulfilmentError(errorId: keyof typeof fulfilmentErrors, longMessage: string, lineItemId?: string) {
  const body = error(errorId, fulfilmentErrors[errorId].replace('{lineItemId}', lineItemId ?? ''), 'API_FULFILLMENT');
  body.errors[0] = { ...body.errors[0]!, longMessage } as (typeof body.errors)[0];
  return body;
}

/**
 * The checks of createShippingFulfillment beyond the schema; the error body, or undefined. A line
 * item is fulfilled at most its quantity across the order's fulfillments (LineItemReference
 * quantity: "the number of lineItems associated with the trackingNumber"): a package naming
 * more than is left is refused with 32600 (the table has no nearer code; 32100 is "Invalid Order Id").
 */
function fulfilmentRefusal(
  order: EbayOrder,
  fulfillments: Fulfilment[],
  body: { lineItems?: { lineItemId?: string; quantity?: number }[]; shippedDate?: string; shippingCarrierCode?: string; trackingNumber?: string },
) {
  const lines = order.lineItems ?? [];
  const named = body.lineItems ?? [];
  if (named.length === 0) return fulfilmentError(32200, 'No line item given.', '');
  const unknown = named.find((l) => !lines.some((o) => o.lineItemId === l.lineItemId));
  if (unknown) return fulfilmentError(32200, `Line item ${String(unknown.lineItemId)} is not in order ${String(order.orderId)}.`, String(unknown.lineItemId));
  if (new Set(named.map((l) => l.lineItemId)).size !== named.length) return fulfilmentError(32210, 'A line item is named twice in the package.');
  const shipped = (id: string | undefined) =>
    fulfillments
      .flatMap((f) => f.lineItems)
      .filter((l) => l.lineItemId === id)
      .reduce((s, l) => s + l.quantity, 0);
  for (const l of named) {
    const quantity = l.quantity ?? 1;
    const ordered = lines.find((o) => o.lineItemId === l.lineItemId)?.quantity ?? 0;
    const left = ordered - shipped(l.lineItemId);
    if (!Number.isInteger(quantity) || quantity < 1 || quantity > left)
      return fulfilmentError(
        32600,
        `Quantity ${String(l.quantity)} of line item ${String(l.lineItemId)}: ${ordered} ordered, ${left} not fulfilled yet; a line item is fulfilled at most its quantity.`,
      );
  }
  if (Boolean(body.trackingNumber) !== Boolean(body.shippingCarrierCode))
    return fulfilmentError(32300, 'trackingNumber and shippingCarrierCode are mutually dependent: include both or neither.');
  if (body.trackingNumber && !/^[A-Za-z0-9]+$/.test(body.trackingNumber))
    return fulfilmentError(32300, 'Only alphanumeric characters are supported for shipment tracking numbers.');
  if (body.shippingCarrierCode && !ebayCarrierCodes.has(body.shippingCarrierCode))
    return fulfilmentError(32300, `Unknown shippingCarrierCode ${body.shippingCarrierCode}.`);
  if (body.shippedDate !== undefined && (!isoUtc.test(body.shippedDate) || Date.parse(body.shippedDate) > Date.now() + 60_000))
    return fulfilmentError(32500, `shippedDate ${body.shippedDate}: [YYYY]-[MM]-[DD]T[hh]:[mm]:[ss].[sss]Z, not in the future.`);
  return undefined;
}

function mountShipping(router: express.Router, state: SandboxState, own: (req: Request, res: Response) => ReturnType<typeof state.ebay.orders.get>): void {
  router.get(`${fulfillmentPath}/order/:orderId/shipping_fulfillment`, (req, res) => {
    const found = own(req, res);
    if (found) res.json({ fulfillments: found.fulfillments, total: found.fulfillments.length });
  });
  router.post(`${fulfillmentPath}/order/:orderId/shipping_fulfillment`, (req, res) => {
    const found = own(req, res);
    if (!found) return;
    const body = (req.body ?? {}) as Parameters<typeof fulfilmentRefusal>[2];
    const refused = fulfilmentRefusal(found.order, found.fulfillments, body);
    if (refused) {
      res.status(400).json(refused);
      return;
    }
    const fulfillmentId = body.trackingNumber ?? `${999 + found.fulfillments.length}`;
    found.fulfillments.push({
      fulfillmentId,
      lineItems: body.lineItems!.map((l) => ({ lineItemId: String(l.lineItemId), quantity: Number(l.quantity ?? 1) })),
      shipmentTrackingNumber: body.trackingNumber,
      shippingCarrierCode: body.shippingCarrierCode,
      shippedDate: body.shippedDate ?? new Date().toISOString(),
    });
    const lines = found.order.lineItems ?? [];
    for (const line of lines) {
      const shipped = found.fulfillments
        .flatMap((f) => f.lineItems)
        .filter((l) => l.lineItemId === line.lineItemId)
        .reduce((s, l) => s + l.quantity, 0);
      if (shipped >= (line.quantity ?? 1)) line.lineItemFulfillmentStatus = 'FULFILLED';
      else if (shipped > 0) line.lineItemFulfillmentStatus = 'IN_PROGRESS';
    }
    found.order.orderFulfillmentStatus = lines.every((l) => l.lineItemFulfillmentStatus === 'FULFILLED') ? 'FULFILLED' : 'IN_PROGRESS';
    found.order.lastModifiedDate = new Date().toISOString();
    res.set(
      'Location',
      `${req.protocol}://${req.get('host')}${fulfillmentPath}/order/${found.order.orderId}/shipping_fulfillment/${encodeURIComponent(fulfillmentId)}`,
    );
    res.status(201).json({});
  });
}

/** ISO 8601 in UTC as getOrders' filter takes it ("2016-03-21T08:25:43.511Z"; the milliseconds may be left out). */
const filterDate = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;

/**
 * getOrders' query as eBay reads it (sell_fulfillment_v1_oas3.json, getOrders' parameters and
 * its 400 errors): filter criteria creationdate and lastmodifieddate ([start..] or
 * [start..end], UTC timestamps; 30700 an unknown criterion, 30810 a date not in that format,
 * 30820 no start, 30840 an end before the start, 30850 a date in the future) and
 * orderfulfillmentstatus ({A|B}); limit 1 to 200 ("If a requested limit is more than 200, the
 * call fails", 31100), offset a whole number of 0 or more (31000).
 */
function ordersQuery(query: Record<string, unknown>): { limit: number; offset: number; keep: (o: EbayOrder) => boolean } | { error: unknown } {
  const fail = (id: number, message: string) => ({ error: error(id, message, 'API_FULFILLMENT') });
  const rawLimit = query.limit === undefined ? '50' : String(query.limit);
  const limit = Number(rawLimit);
  if (!/^\d+$/.test(rawLimit) || limit < 1 || limit > 200) return fail(31100, `Invalid limit: ${rawLimit}`);
  const rawOffset = query.offset === undefined ? '0' : String(query.offset);
  if (!/^\d+$/.test(rawOffset)) return fail(31000, `Invalid offset: ${rawOffset}`);
  const tests: ((o: EbayOrder) => boolean)[] = [];
  const filter = query.filter === undefined ? '' : String(query.filter);
  for (const criterion of filter ? filter.split(',') : []) {
    const at = criterion.indexOf(':');
    const name = at < 0 ? criterion : criterion.slice(0, at);
    const value = at < 0 ? '' : criterion.slice(at + 1);
    if (name === 'orderfulfillmentstatus') {
      const states = /^\{([A-Z_|]+)\}$/.exec(value)?.[1]?.split('|');
      if (!states) return fail(30800, `Invalid filter value ${value} for filter ${name}`);
      tests.push((o) => states.includes(o.orderFulfillmentStatus ?? ''));
      continue;
    }
    if (name !== 'creationdate' && name !== 'lastmodifieddate') return fail(30700, `Invalid filter name: ${name}`);
    const range = /^\[([^\]]*)\.\.([^\]]*)\]$/.exec(value);
    if (!range) return fail(30800, `Invalid filter value ${value} for filter ${name}`);
    const [, start, end] = range;
    if (!start) return fail(30820, 'Start date is missing');
    if (!filterDate.test(start) || (end && !filterDate.test(end))) return fail(30810, 'Invalid date format');
    const from = Date.parse(start);
    const to = end ? Date.parse(end) : Infinity;
    if (from > Date.now() || (end && to > Date.now())) return fail(30850, "Start and end dates can't be in the future");
    if (to < from) return fail(30840, 'Start date should be before end date');
    const field = name === 'creationdate' ? 'creationDate' : 'lastModifiedDate';
    tests.push((o) => {
      const t = Date.parse(o[field] ?? '');
      return t >= from && t <= to;
    });
  }
  return { limit, offset: Number(rawOffset), keep: (o) => tests.every((t) => t(o)) };
}

export function mountOrders(router: express.Router, state: SandboxState): void {
  const ebay = state.ebay;
  const own = (req: Request, res: Response) => {
    const found = ebay.orders.get(String(req.params.orderId));
    if (found && found.account === res.locals.account) return found;
    res.status(404).json(error(32100, `Invalid Order Id: ${String(req.params.orderId)}`, 'API_FULFILLMENT'));
    return undefined;
  };
  router.get(`${fulfillmentPath}/order`, (req, res) => {
    const account = res.locals.account as string;
    const parsed = ordersQuery(req.query as Record<string, unknown>);
    if ('error' in parsed) {
      res.status(400).json(parsed.error);
      return;
    }
    const { limit, offset, keep } = parsed;
    const all = [...ebay.orders.values()]
      .filter((o) => o.account === account && keep(o.order))
      // getOrders: cancelRequests "is returned but is always empty" (getOrder has them).
      .map((o) => asListed(o.order))
      .sort((a, b) => Date.parse(a.creationDate ?? '') - Date.parse(b.creationDate ?? ''));
    const href = (at: number) => `${fulfillmentPath}/order?filter=${encodeURIComponent(String(req.query.filter ?? ''))}&limit=${limit}&offset=${at}`;
    res.json({
      href: href(offset),
      total: all.length,
      limit,
      offset,
      orders: all.slice(offset, offset + limit),
      ...(offset + limit < all.length ? { next: href(offset + limit) } : {}),
      ...(offset > 0 ? { prev: href(Math.max(0, offset - limit)) } : {}),
    });
  });
  router.get(`${fulfillmentPath}/order/:orderId`, (req, res) => {
    const found = own(req, res);
    if (found) res.json(found.order);
  });
  mountShipping(router, state, own);
}
