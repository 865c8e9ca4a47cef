/**
 * An eBay order (Fulfillment API getOrders) in the neutral words of document 2's Order_type
 * (ChannelOrder), so that the order import needs no knowledge of eBay's shapes.
 */
import type { components } from 'ebay-api/lib/types/restful/specs/sell_fulfillment_v1_oas3';
import type { ChannelOrder, ChannelOrderAddress, ChannelOrderLine } from '../channel-order.type';
import { openCancelRequest } from './ebay-cancel-requests';

type Schemas = components['schemas'];
export type EbayOrder = Schemas['Order'];
export type EbayOrderPage = Schemas['OrderSearchPagedCollection'];

/** Cents of a decimal string (eBay's amounts are strings such as "19.90"). */
const cents = (value: string | undefined): number => Math.round(Number(value ?? 0) * 100) || 0;
const decimal = (c: number): string => (c / 100).toFixed(2);

function address(contact: Schemas['ExtendedContact'] | undefined): ChannelOrderAddress {
  const a = contact?.contactAddress;
  return clean({
    name: contact?.fullName,
    name_2: contact?.companyName,
    street: a?.addressLine1,
    street_2: a?.addressLine2,
    zip: a?.postalCode,
    city: a?.city,
    province: a?.stateOrProvince,
    country_iso2: a?.countryCode,
  });
}

/**
 * The delivery address with the Global Shipping Program's reference, where eBay gives one
 * (ShippingStep.shipToReferenceId: "Sellers must include this value on the shipping label
 * immediately above the street address of the international shipping provider. Example:
 * \"Reference #1234567890123456\""): in name_2, the line a label prints between the name and the
 * street (decision; after a company name, where shipTo has one), unless a line of shipTo carries it
 * already (a name "uk_buyer Reference #..."). Left out, the provider's hub could not match the
 * parcel to the buyer's order, and it came back.
 */
function delivery(shipping: Schemas['ShippingStep'] | undefined): ChannelOrderAddress {
  const to = address(shipping?.shipTo);
  const reference = shipping?.shipToReferenceId;
  if (!reference || Object.values(to).some((line) => typeof line === 'string' && line.includes(reference))) return to;
  return { ...to, name_2: [to.name_2, `Reference #${reference}`].filter(Boolean).join(' / ') };
}

/** The billing address: the buyer's registration address, else the tax address eBay gives. */
function billing(buyer: Schemas['Buyer'] | undefined): ChannelOrderAddress {
  if (buyer?.buyerRegistrationAddress?.contactAddress || buyer?.buyerRegistrationAddress?.fullName) return address(buyer.buyerRegistrationAddress);
  const tax = buyer?.taxAddress;
  return clean({ zip: tax?.postalCode, city: tax?.city, province: tax?.stateOrProvince, country_iso2: tax?.countryCode });
}

/**
 * What the buyer pays for each line's items, in cents: discountedLineItemCost ("The cost of the line
 * item after applying any discounts ... only returned if the order line item was discounted through
 * a promotion"), else lineItemCost less the line's share of the item discounts no line carries.
 *
 * Those are pricingSummary.priceDiscount ("the total amount of all item price discounts (including
 * promotions) ... only returned if special discounts are being applied", a negative number) less
 * what the lines' discountedLineItemCost take off already; shared over the lines without one in
 * proportion to their appliedPromotions (else to their cost) by largest remainder, so the shares
 * add up to the discount to the cent and none is more than its line's cost (discountShares).
 * appliedPromotions alone are not an item discount (decision, found by a reviewer of 63281d9): the
 * contract counts "shipping discounts" among them (AppliedPromotion.promotionId), and a shipping
 * discount is the shipping's (deliveryCost.discountAmount, or the order's deliveryDiscount, which
 * sellerDelivery takes off). 63281d9 took off the promotions beyond the line's own discountAmount,
 * so a free-shipping promotion eBay gave in the order's deliveryDiscount only came off the shipping
 * and the unit price both: 2 x 15.00 with 4.90 shipping free was billed 2 x 12.55 with no shipping,
 * 25.10 against a payment of 30.00, only partially paid by document 1.
 */
function lineCosts(order: EbayOrder): number[] {
  const items = order.lineItems ?? [];
  const discounted = (item: Schemas['LineItem']) => item.discountedLineItemCost?.value !== undefined;
  const costs = items.map((item) => (discounted(item) ? cents(item.discountedLineItemCost!.value) : cents(item.lineItemCost?.value)));
  const onLines = items.reduce((s, item) => s + (discounted(item) ? cents(item.lineItemCost?.value) - cents(item.discountedLineItemCost!.value) : 0), 0);
  const rest = Math.abs(cents(order.pricingSummary?.priceDiscount?.value)) - Math.max(0, onLines);
  const open = items.map((item, i) => i).filter((i) => !discounted(items[i]!));
  if (rest <= 0 || open.length === 0) return costs;
  const promoted = (i: number) => (items[i]!.appliedPromotions ?? []).reduce((s, p) => s + Math.abs(cents(p.discountAmount?.value)), 0);
  const weigh = open.some((i) => promoted(i) > 0) ? promoted : (i: number) => costs[i]!;
  const shares = discountShares(
    rest,
    open.map((i) => ({ weight: weigh(i), cap: costs[i]! })),
  );
  open.forEach((i, k) => (costs[i] = costs[i]! - shares[k]!));
  return costs;
}

/**
 * A discount in cents shared over lines in proportion to their weights, largest remainder (ties to
 * the earlier line), no line's share above its cap (its cost): a line a share would take below
 * zero is given its cost, and what it could not take is shared again over the others. Before,
 * each share was rounded on its own and the last line took the rest, so a line could bill a cent
 * more than eBay's line cost, and a share above a cheap line's cost was floored at 0 and lost: the
 * lines billed more than the buyer paid. A discount above all lines' cost leaves them at 0 (the
 * rest is not billed anywhere; eBay's total says what was paid).
 */
function discountShares(discount: number, lines: { weight: number; cap: number }[]): number[] {
  const shares = lines.map(() => 0);
  let left = discount;
  let open = lines.map((_, i) => i).filter((i) => lines[i]!.cap > 0);
  while (left > 0 && open.length > 0) {
    const round = largestRemainder(
      left,
      open.map((i) => lines[i]!.weight),
    );
    const full = open.filter((i, k) => round[k]! >= lines[i]!.cap);
    if (full.length === 0) {
      open.forEach((i, k) => (shares[i] = round[k]!));
      return shares;
    }
    // The lines it fills take their cost; the rest is shared again over the others.
    for (const i of full) {
      shares[i] = lines[i]!.cap;
      left -= lines[i]!.cap;
    }
    open = open.filter((i) => !full.includes(i));
  }
  return shares;
}

/** Whole cents in proportion to the weights (equal where all weigh 0), adding up to the total: floors, then the cents left to the largest fractions. */
function largestRemainder(total: number, weights: number[]): number[] {
  const sum = weights.reduce((s, w) => s + w, 0);
  const exact = weights.map((w) => (sum > 0 ? (total * w) / sum : total / weights.length));
  const parts = exact.map(Math.floor);
  let spare = total - parts.reduce((s, p) => s + p, 0);
  const byFraction = exact.map((_, k) => k).sort((a, b) => exact[b]! - parts[b]! - (exact[a]! - parts[a]!) || a - b);
  for (const k of byFraction) {
    if (spare === 0) break;
    parts[k]! += 1;
    spare -= 1;
  }
  return parts;
}

/**
 * pricingSummary.adjustment shared out over the lines, in cents per line. The adjustment is "the
 * total amount of any adjustments that were applied to the cost of the item(s) ... [it] does not
 * include shipping, discounts, fixed fees, or taxes", "only returned if price adjustments were
 * made to the order after the initial transaction", and no line carries it, while the order's
 * total and the payment do. It is the items' price, so (decision) it goes into the lines' unit
 * prices as a promotion does, each line taking the share of its cost (the last line the rest of
 * the rounding): the invoice then shows what the buyer paid for each item, and the order is paid
 * in full. Not a line of its own: it is no article (an unlinked line asks the seller for a link),
 * and the seller's VAT on it belongs to the items. Not folded into paid_amount only: the invoice
 * would show the price before the change. Signed as eBay gives it (negative lowers the price, as
 * the total, "after ... subtracting all special discounts and price adjustments", comes out).
 */
function adjustmentShares(order: EbayOrder, costs: number[]): number[] {
  const adjustment = cents(order.pricingSummary?.adjustment?.value);
  const base = costs.reduce((s, c) => s + c, 0);
  if (adjustment === 0 || costs.length === 0) return costs.map(() => 0);
  const shares = costs.map((c) => (base > 0 ? Math.round((adjustment * c) / base) : 0));
  shares[shares.length - 1] = adjustment - shares.slice(0, -1).reduce((s, c) => s + c, 0);
  return shares;
}

/**
 * Each line's transaction id: eBay's lineItemId; for a line eBay names none of (LineItem.lineItemId
 * is optional in sell_fulfillment_v1_oas3.json, as every field of it) one of the line's own,
 * because the import keeps and follows lines by their transaction id (quantities, prices, channel
 * state): two lines sharing '' collided, and a later change of the order (a refund) set the
 * second line to the first one's quantity and moved its stock.
 *
 * The fallback (decision): what the line is, `legacy:<legacyItemId>` with `/<legacyVariationId>`
 * for a variation (eBay groups the units of one listing, or of one variation, into one line item:
 * "These are represented as a group by a single lineItemId", LineItem.quantity), else `sku:<sku>`,
 * else `line:<position>`; a repeat of the same key in the order (a combined order that bought one
 * listing twice) takes `#2`, `#3` in the order's line order. The listing rather than the position
 * alone, so that the id follows the line if eBay lists the lines in another order; the prefixes
 * keep it apart from eBay's numeric lineItemIds. Stable as long as eBay names the same listing,
 * which a line does not change (the import never adds or removes lines).
 */
function transactionIds(items: Schemas['LineItem'][]): string[] {
  const seen = new Map<string, number>();
  return items.map((item, i) => {
    if (item.lineItemId) return item.lineItemId;
    const variation = item.legacyVariationId ? `/${item.legacyVariationId}` : '';
    const key = item.legacyItemId ? `legacy:${item.legacyItemId}${variation}` : item.sku ? `sku:${item.sku}` : `line:${i + 1}`;
    const n = (seen.get(key) ?? 0) + 1;
    seen.set(key, n);
    return n === 1 ? key : `${key}#${n}`;
  });
}

/**
 * One line: its transaction id (transactionIds); the unit price is what the buyer pays for the line
 * (discounts taken off, its share of a price adjustment added) over the quantity, rounded down to
 * the cent (unitCents; Order_line_type has no line total).
 *
 * Tax is left empty, as for Amazon: Order_line_type's tax is the VAT percent the gross price
 * includes (the invoice reads it as the rate), while the Fulfillment API's `LineItem.taxes[]`
 * are amounts (`Tax.amount` is an Amount), and those eBay lists are the taxes it collects and
 * remits itself ('eBay Collect and Remit', sell_fulfillment_v1_oas3.json LineItem.total), not the
 * seller's VAT. Sending their sum as the line's tax made an invoice show e.g. 3.19 % VAT.
 */
function line(item: Schemas['LineItem'], transactionId: string, quantity: number, unit: number): ChannelOrderLine {
  return {
    transaction_id: transactionId,
    sku: item.sku && item.sku !== '' ? item.sku : null,
    name: item.title ?? '',
    quantity,
    price: decimal(unit),
  };
}

const quantityOf = (item: Schemas['LineItem']) => (item.quantity && item.quantity > 0 ? item.quantity : 1);

/**
 * A line's unit price in cents, rounded down, and the cents that rounding leaves (fewer than the
 * units). Rounded to the nearest cent, a line whose amount does not divide by its units (a
 * promotion or an adjustment share over 3 or 6 units: 12.21 over 6 is 2.035) was billed up to half
 * a cent a unit more or less than the buyer paid (2.04 x 6 = 12.24), and an invoice a cent above
 * the payment is only partially paid by document 1: no paid_in_full, never shipped.
 */
function unitCents(cost: number, quantity: number): { unit: number; left: number } {
  const unit = Math.floor(cost / quantity);
  return { unit, left: cost - unit * quantity };
}

/**
 * The lines, and the cents their unit prices could not hold, which go to the shipping fee
 * (decision, as for Shopify's net-price stores, lib/portals/README.md): the order's one amount of
 * quantity one, so that lines plus shipping are what the buyer paid. The fee only rises (rounded
 * down, the rest is never negative): a free shipping may show a few cents.
 */
function lines(order: EbayOrder): { lines: ChannelOrderLine[]; left: number } {
  const items = order.lineItems ?? [];
  const costs = lineCosts(order);
  const shares = adjustmentShares(order, costs);
  const ids = transactionIds(items);
  let left = 0;
  const out = items.map((item, i) => {
    const quantity = quantityOf(item);
    const price = unitCents(costs[i]! + shares[i]!, quantity);
    left += price.left;
    return line(item, ids[i]!, quantity, price.unit);
  });
  return { lines: out, left };
}

/** Paid: eBay's PAID, and PARTIALLY_REFUNDED (the buyer keeps part of it); FULLY_REFUNDED is money given back, not paid. */
const paidStates = new Set(['PAID', 'PARTIALLY_REFUNDED']);

/**
 * Refunds of the order and of its lines. OrderRefund "does not include line item level refunds"
 * (sell_fulfillment_v1_oas3.json): a refund the seller issued for a line is listed only in that
 * line's `refunds`, so a refunded line of a two-line order left the whole amount paid in Kontor.
 */
function refunded(order: EbayOrder): number {
  const ofOrder = (order.paymentSummary?.refunds ?? []).filter((r) => r.refundStatus !== 'FAILED').reduce((s, r) => s + cents(r.amount?.value), 0);
  const ofLines = (order.lineItems ?? []).reduce((s, l) => s + (l.refunds ?? []).reduce((t, r) => t + cents(r.amount?.value), 0), 0);
  return ofOrder + ofLines;
}

/**
 * The TaxTypeEnum values of the 'Collect and Remit' taxes that the contract says are inside the
 * seller's payment (Payment.amount, PaymentSummary.totalDueSeller: US state sales tax, Canada's
 * provincial sales tax, GST, UK/EU VAT; EbayCollectAndRemitTax.amount adds Malaysia's SST).
 * Other types there (eBay's recycling and other fees it collects) are not named as inside it.
 */
const taxesInPayment = new Set(['STATE_SALES_TAX', 'PROVINCE_SALES_TAX', 'GST', 'VAT', 'SST']);

/**
 * The tax eBay collected from the buyer and remits itself ('eBay Collect and Remit': UK/EU VAT on
 * imports, US sales tax, AU/NZ/CA GST ...), in cents, that the payment holds. The contract's test
 * (Payment.amount, totalDueSeller): "If both of these containers [lineItems.ebayCollectAndRemitTaxes
 * and lineItems.taxes] appear for one or more line items ... with the following taxType values,
 * the 'Collect and Remit' tax amount that the buyer paid is included in this amount"; `taxes` is
 * "always returned" but empty without a tax, so a line counts when it is not empty.
 */
function collectedTax(order: EbayOrder): number {
  return (order.lineItems ?? [])
    .filter((item) => (item.taxes ?? []).length > 0)
    .flatMap((item) => item.ebayCollectAndRemitTaxes ?? [])
    .filter((t) => taxesInPayment.has(t.taxType ?? ''))
    .reduce((s, t) => s + cents(t.amount?.value), 0);
}

/**
 * What the seller has received and kept: the PAID payments less the 'Collect and Remit' tax in
 * them, else, for a paid order, what the seller bills (billedCents()), less eBay's refunds, the order's
 * and its lines'.
 *
 * The seller's amount, not the buyer's (decision): the payment is "the amount that seller receives
 * for the order" and holds the tax eBay collected, which eBay remits to the tax authority, not
 * the seller's money nor on the lines (their cost is without it). Read whole, a fully paid order
 * with collected VAT stood above its invoice_amount, which document 1 calls only partially paid:
 * no paid_in_full, the seller did not ship it. Refunds are already the seller's net ("eBay-collected
 * tax will not be included in this amount", OrderRefund and LineItemRefund), so both sides of the
 * subtraction are net. What eBay collects from the buyer for itself (ebayCollectedCharges, import
 * charges) is not in the payment either.
 *
 * A paid order without a PAID payment (decision): the seller's billed amount, not
 * pricingSummary.total. The total is "after adding all line item costs, delivery costs, sales tax,
 * and special fees": the contract does not say whether its delivery costs hold the import charges
 * or eBay's own shipping (ebayCollectedCharges.ebayShipping), nor whether its fees hold eBay's
 * BUYER_PROTECTION charge, all of which the buyer pays to eBay and the seller never receives.
 * Taking import charges off it (as before) assumed the first and counted the others as paid: an
 * order with eBay shipping stood above its invoice (only partially paid). The lines and the
 * shipping fee are each the seller's part, read from the fields that name it.
 */
function paid(order: EbayOrder): number {
  const payments = order.paymentSummary?.payments ?? [];
  const sum = payments.filter((p) => p.paymentStatus === 'PAID').reduce((s, p) => s + cents(p.amount?.value), 0);
  const received = sum > 0 ? sum - collectedTax(order) : paidStates.has(order.orderPaymentStatus ?? '') ? billedCents(order) : 0;
  return Math.max(0, received - refunded(order));
}

/** What the seller bills in cents: the lines' costs with the price adjustment, and its shipping (sellerDelivery). */
function billedCents(order: EbayOrder): number {
  const costs = lineCosts(order);
  const items = [...costs, ...adjustmentShares(order, costs)].reduce((s, c) => s + c, 0);
  return items + (sellerDelivery(order) ?? 0);
}

/**
 * The currency of each eBay marketplace (MarketplaceIdEnum): what an Amount without `currency`
 * is in, as the contract says ("Default: the default currency of the eBay marketplace that hosts
 * the listing").
 */
const marketplaceCurrencies: Record<string, string> = {
  EBAY_AT: 'EUR',
  EBAY_AU: 'AUD',
  EBAY_BE: 'EUR',
  EBAY_CA: 'CAD',
  EBAY_CH: 'CHF',
  EBAY_DE: 'EUR',
  EBAY_ES: 'EUR',
  EBAY_FR: 'EUR',
  EBAY_GB: 'GBP',
  EBAY_HK: 'HKD',
  EBAY_IE: 'EUR',
  EBAY_IT: 'EUR',
  EBAY_MOTORS_US: 'USD',
  EBAY_MY: 'MYR',
  EBAY_NL: 'EUR',
  EBAY_PH: 'PHP',
  EBAY_PL: 'PLN',
  EBAY_SG: 'SGD',
  EBAY_US: 'USD',
};

/**
 * The order's currency: the total's, else any amount's eBay gives (line costs, what is due to
 * the seller), else the default currency of the marketplace hosting the listing (Amount.currency
 * is optional and defaults to it). '' when none says: the import refuses that order with a task
 * (never read as EUR); throwing here stopped the whole page, every other order with it.
 */
function currencyOf(order: EbayOrder): string {
  const lines = order.lineItems ?? [];
  return (
    order.pricingSummary?.total?.currency ??
    order.pricingSummary?.priceSubtotal?.currency ??
    lines.find((l) => l.lineItemCost?.currency)?.lineItemCost?.currency ??
    order.paymentSummary?.totalDueSeller?.currency ??
    lines.map((l) => marketplaceCurrencies[l.listingMarketplaceId ?? ''] ?? marketplaceCurrencies[l.purchaseMarketplaceId ?? '']).find(Boolean) ??
    ''
  );
}

/**
 * The shipping fee: what the buyer pays the seller for delivery (sellerDelivery), plus the cents
 * the lines' unit prices could not hold (`left`, lines()); none when eBay names no delivery cost
 * and no such cents are left.
 */
function deliveryFee(order: EbayOrder, left: number): string | undefined {
  const delivery = sellerDelivery(order);
  if (delivery === undefined) return left > 0 ? decimal(left) : undefined;
  return decimal(delivery + left);
}

/**
 * What the buyer pays the seller for delivery, in cents; undefined when eBay names no delivery cost.
 *
 * From the lines when they carry their breakdown (LineItem.deliveryCost, "a breakdown of all costs
 * associated with the fulfillment of the line item"; its shippingCost is "always returned"):
 * shippingCost and handlingCost of every line, less the shipping discounts. Else the order's
 * pricingSummary.deliveryCost, "before any shipping/delivery discount is applied", less its
 * deliveryDiscount. The discounts are the order's deliveryDiscount ("the total amount of delivery
 * discounts (including shipping discounts) that apply to the order", "a negative real number",
 * taken whatever its sign), or the lines' discountAmount where they add up to more: a
 * combined-shipping discount is on no line, and a line's discount may come without the order's.
 *
 * Import charges (DeliveryCost.importCharges, eBay's global/international shipping) are left out
 * (decision): the buyer pays them, but to eBay for its shipping provider and customs, and the
 * seller does not receive them (Payment.amount: "the amount that seller receives"), as the
 * 'Collect and Remit' tax (paid()). pricingSummary.deliveryCost is "the total cost of delivering
 * the order to the buyer" and may hold them, which is why the lines are read first. In the fee
 * they were billed to the seller's buyer as the seller's shipping and stood above the payment:
 * only partially paid by document 1, no paid_in_full, never shipped. shippingIntermediationFee
 * (due to eBay's shipping provider) is not the seller's either and is not read.
 *
 * eBay's own shipping (LineItem.ebayCollectedCharges.ebayShipping, "costs related to eBay Shipping
 * collected by eBay from the buyer", returned "only if eBay is directly charging the buyer for eBay
 * shipping") is taken off too (decision): shippingCost is "the total cost of shipping all units of
 * the line item", whoever collects it, and what eBay collects for its shipping the seller does not
 * receive. Never below zero: a line whose shippingCost leaves eBay's shipping out shows 0.00, not a
 * negative fee. The BUYER_PROTECTION charges beside it are eBay's fee to the buyer, on no line
 * and in no fee of the seller's (not read).
 */
function sellerDelivery(order: EbayOrder): number | undefined {
  const items = order.lineItems ?? [];
  const summary = order.pricingSummary;
  const fromLines = items.some((l) => l.deliveryCost !== undefined);
  const cost = fromLines
    ? items.reduce((s, l) => s + cents(l.deliveryCost?.shippingCost?.value) + cents(l.deliveryCost?.handlingCost?.value), 0)
    : summary?.deliveryCost?.value === undefined
      ? undefined
      : cents(summary.deliveryCost.value);
  if (cost === undefined) return undefined;
  const lineDiscounts = items.reduce((s, l) => s + Math.abs(cents(l.deliveryCost?.discountAmount?.value)), 0);
  const discount = Math.max(Math.abs(cents(summary?.deliveryDiscount?.value)), fromLines ? lineDiscounts : 0);
  const ebayShipping = items.reduce((s, l) => s + cents(l.ebayCollectedCharges?.ebayShipping?.value), 0);
  return Math.max(0, cost - discount - ebayShipping);
}

/**
 * eBay ships the order from its own warehouse, not the seller's (as Amazon's FBA): its fulfilment
 * program says so ("only returned for paid orders being fulfilled by eBay or an eBay fulfillment
 * partner"), or a fulfilment instruction of type FULFILLED_BY_EBAY does ("When
 * FulfillmentInstructionsType is FULFILLED_BY_EBAY, there will be no shipTo address displayed",
 * ShippingStep.shipTo), which the contract does not hold back until payment. Read by the program
 * alone, an unpaid such order came in as the seller's: its lines took the seller's stock and every
 * other channel was lowered until the payment's read gave it back (lib/order-import, "said later").
 * send_mit reads it too (auction-a.adapter.ts markShipped): such an order is not posted.
 */
export function fulfilledByEbay(order: EbayOrder): boolean {
  return (
    order.program?.fulfillmentProgram?.fulfilledBy === 'EBAY' ||
    (order.fulfillmentStartInstructions ?? []).some((i) => i.fulfillmentInstructionsType === 'FULFILLED_BY_EBAY')
  );
}

export function channelOrderOf(order: EbayOrder): ChannelOrder {
  // The instruction that ships: each is "the method of fulfillment that will be used to deliver this
  // set of line items (this package)", so an order's first may be a digital or pickup one naming no
  // shipping while the next ships its other lines; read from the first alone, such an order came in
  // without the address and method the seller ships to.
  const instructions = order.fulfillmentStartInstructions ?? [];
  const instruction = instructions.find((i) => i.shippingStep?.shipTo !== undefined) ?? instructions[0];
  const shipping = instruction?.shippingStep;
  const shipTo = shipping?.shipTo;
  // eBay's international shipping (ebaySupportedFulfillment: the Global Shipping Program, eBay
  // International Shipping): shipTo is "the address of the international shipping provider's domestic
  // warehouse", where the seller ships, and its phone "of the buyer or eBay shipping partner": the
  // provider's, so the buyer's phone is the registration's (its e-mail is the buyer's "even for Global
  // Shipping Program shipments"). Read from shipTo, the provider's phone became the customer's, and
  // the customer found by e-mail had the buyer's own number overwritten.
  const contactPhone = instruction?.ebaySupportedFulfillment ? undefined : shipTo?.primaryPhone?.phoneNumber;
  const registration = order.buyer?.buyerRegistrationAddress;
  const reference = order.paymentSummary?.payments?.find((p) => p.paymentReferenceId)?.paymentReferenceId;
  // Filled only when the order was read with getOrder (ebay-cancel-requests.ts); getOrders' array is always empty.
  const cancelRequested = openCancelRequest(order);
  const billed = lines(order);
  return {
    external_order_id: order.orderId ?? '',
    modified_at: order.lastModifiedDate ?? order.creationDate ?? '',
    created_at: order.creationDate ?? '',
    currency_id: currencyOf(order),
    customer: clean({
      username: order.buyer?.username,
      email: shipTo?.email ?? registration?.email,
      phone_1: contactPhone ?? registration?.primaryPhone?.phoneNumber,
      address: billing(order.buyer),
    }),
    shipping: clean({
      fee: deliveryFee(order, billed.left),
      method: shipping?.shippingServiceCode,
      address: delivery(shipping),
    }),
    line: billed.lines,
    paid_amount: decimal(paid(order)),
    ...(reference ? { payment_provider_transaction_id: reference } : {}),
    ...(cancelRequested ? { cancel_requested: cancelRequested } : {}),
    ...(fulfilledByEbay(order) ? { fulfilled_by_channel: {} } : {}),
    status: {
      is_paid: paidStates.has(order.orderPaymentStatus ?? ''),
      is_shipped: order.orderFulfillmentStatus === 'FULFILLED',
      is_cancelled: order.cancelStatus?.cancelState === 'CANCELED',
    },
  };
}

function clean<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined && v !== '')) as T;
}
