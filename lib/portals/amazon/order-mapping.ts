/**
 * An Orders API v2026-01-01 order (with its includedData) as a ChannelOrder, in document 2's
 * Order_type words. Where the contract is silent, the choices are written beside the code and in
 * lib/portals/README.md.
 */
import type { ChannelOrder, ChannelOrderAddress, ChannelOrderLine } from '../channel-order.type';
import type { CustomerAddress, FulfillmentStatus, Money, Order2026, OrderItem2026, ProceedsBreakdown } from './orders-2026';
import { knownMarketplace } from './marketplaces';

/**
 * Money.amount as RFC 7159 writes a number (the contract's Decimal: "A decimal number with no loss
 * of precision. Follows RFC 7159 for number representation"): a fraction and an exponent
 * ('1.99E+1', '3980e-2'), or none ('1980', the yen).
 */
const rfc7159 = /^-?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d{1,3}))?$/;

/**
 * Amounts in cents, read exactly (BigInt), rounded half away from zero to the cent as lib/http's
 * decimal rounds what a client sends (decision: Kontor keeps two decimals, and a third, which the
 * contract's Decimal allows, is rounded, not cut). A value that is no number counts as none.
 * Before, only `digits[.digits]` was read and further decimals were cut: an amount with an exponent
 * read as none, so a unit price '1.99E+1' billed its line 0.00 and a grandTotal so written left the
 * paid order "paid in full" at whatever the lines said (found against orders_2026-01-01.json).
 */
const cents = (m: Money | undefined): bigint | undefined => {
  const match = m ? rfc7159.exec(m.amount) : null;
  if (!m || !match) return undefined;
  const [, whole, fraction = '', exponent = '0'] = match;
  // The digits as one whole number, and the power of ten that makes them cents.
  const digits = BigInt(whole! + fraction);
  const scale = Number(exponent) + 2 - fraction.length;
  const unit = 10n ** BigInt(Math.abs(scale));
  const value = scale >= 0 ? digits * unit : (digits + unit / 2n) / unit;
  return m.amount.startsWith('-') ? -value : value;
};
const decimal = (c: bigint) => {
  const sign = c < 0n ? '-' : '';
  const abs = c < 0n ? -c : c;
  return `${sign}${abs / 100n}.${String(abs % 100n).padStart(2, '0')}`;
};
const abs = (c: bigint) => (c < 0n ? -c : c);

/** CustomerAddress as Order_address_type (only what the order carries). */
export function orderAddress(a: CustomerAddress | undefined): ChannelOrderAddress {
  if (!a) return {};
  const streets = [a.addressLine1, a.addressLine2, a.addressLine3].filter((s): s is string => Boolean(s));
  const out: ChannelOrderAddress = {
    name: a.name,
    name_2: a.companyName,
    street: streets[0],
    street_2: streets.slice(1).join(', ') || undefined,
    zip: a.postalCode,
    city: a.city,
    province: a.stateOrRegion,
    country_iso2: a.countryCode,
  };
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined && v !== '')) as ChannelOrderAddress;
}

/**
 * FulfillmentStatus as Order_type's status. PENDING_AVAILABILITY (a pre-order: "payment has not
 * been authorized") and PENDING ("not ready for shipment", v0: "payment has not been authorized")
 * are not paid; CANCELLED is cancelled; UNSHIPPED, PARTIALLY_SHIPPED, SHIPPED and UNFULFILLABLE
 * are paid; SHIPPED is shipped (PARTIALLY_SHIPPED is not yet).
 */
export function orderStatus(status: FulfillmentStatus | undefined): ChannelOrder['status'] {
  const unpaid = status === undefined || status === 'PENDING' || status === 'PENDING_AVAILABILITY' || status === 'CANCELLED';
  return { is_paid: !unpaid, is_shipped: status === 'SHIPPED', is_cancelled: status === 'CANCELLED' };
}

/**
 * The payment methods whose money the buyer hands over only at delivery (decision, lib/portals/README.md):
 * PaymentExecution.paymentMethod `CashOnDelivery` (v0's sub-payment method `COD`). Not the other
 * methods the contract names: ConvenienceStore is paid at the store before Amazon releases the
 * order for shipment (it stays PENDING until then: UNSHIPPED is "ready for shipment"), Invoice
 * (Amazon Business) and the cards are Amazon's to collect, and Amazon pays the seller as for any order.
 */
const collectedOnDelivery = new Set(['CashOnDelivery', 'COD']);

/**
 * The buyer pays on delivery: an item's shipping constraint says so (ItemShippingConstraints
 * .cashOnDelivery MANDATORY: "Payment must be collected from the customer at the time of
 * delivery", data set FULFILLMENT), or a payment execution (data set PAYMENT) is cash on delivery;
 * where Amazon names neither, an item charged a COD_FEE ("cash on delivery") says so. Such an
 * order is paid as a whole only at delivery, even with a part paid ahead by gift card or points
 * (v0's sub-payment methods of a COD order): refused at the door, it goes back and that part to the buyer.
 */
export function paysOnDelivery(order: Order2026): boolean {
  if (order.orderItems.some((i) => i.fulfillment?.shipping?.shippingConstraints?.cashOnDelivery === 'MANDATORY')) return true;
  const executions = order.payment?.paymentExecutions ?? [];
  if (executions.length > 0) return executions.some((e) => collectedOnDelivery.has(e.paymentMethod ?? ''));
  return order.orderItems.some((i) => (i.proceeds?.breakdowns ?? []).some((b) => b.type === 'COD_FEE'));
}

/**
 * Amazon shows the order delivered (decision): every item shipped (SHIPPED) and every package of
 * it DELIVERED (PackageStatus: "Package completion at final destination", data set PACKAGES).
 * FulfillmentStatus ends at SHIPPED ("handover to carrier"), so the packages are the one signal the
 * contract gives; it has none for an AFN order (packages "Only available for merchant-fulfilled
 * (FBM) orders"), which so stays unpaid: the seller books its payment when Amazon pays it out.
 * A CANCELLED package ("Package shipment termination before delivery", e.g. LABEL_CANCELLED: the
 * seller cancelled a label and shipped the units in another package) carried nothing to the door:
 * it does not count, else such an order, all of whose units were delivered and paid at the door,
 * never became paid. The order still needs SHIPPED (all its units handed over) and one delivered.
 */
export function delivered(order: Order2026): boolean {
  const packages = (order.packages ?? []).filter((p) => p.packageStatus?.status !== 'CANCELLED');
  return order.fulfillment?.fulfillmentStatus === 'SHIPPED' && packages.length > 0 && packages.every((p) => p.packageStatus?.status === 'DELIVERED');
}

/** The subtotal of a proceeds category, and of a subtype of its detailed breakdowns. */
function sum(breakdowns: ProceedsBreakdown[] | undefined, type: string, subtype?: string): bigint {
  let total = 0n;
  for (const b of breakdowns ?? []) {
    if (b.type !== type) continue;
    if (subtype === undefined) total += cents(b.subtotal) ?? 0n;
    else for (const d of b.detailedBreakdowns ?? []) if (d.subtype === subtype) total += cents(d.value) ?? 0n;
  }
  return total;
}

/**
 * Where each proceeds category of an item reaches the invoice (decision, lib/portals/README.md).
 * The contract's ItemProceedsBreakdown types are ITEM, SHIPPING, GIFT_WRAP, COD_FEE, OTHER, TAX
 * and DISCOUNT ("aggregated across all order items", so each is the item's); DELIVERY_TIP is the
 * order's alone (sellersAmount). Every one of them is in grandTotal, so each must be billed or
 * left out of paid_amount, or the order stands above or below its invoice (document 1: only
 * partially paid).
 * - GIFT_WRAP (the buyer paid the seller to wrap this item) and OTHER (a charge of this item the
 *   contract does not name) go into the item's unit price, as Kaufland's eco and packaging fees:
 *   the item's money, billed at its rate. Not a line of their own: it would have no SKU (the
 *   import asks the seller to link it to a stock item) and its transaction_id would be no
 *   orderItemId, which send_mit's confirmShipment sends to Amazon for each line.
 * - COD_FEE (cash on delivery: the carrier collects the money at the door) is a charge of the
 *   delivery, so it joins SHIPPING in the shipping fee, where invoices show it.
 * - A DISCOUNT's detailed breakdowns (subtypes ITEM, SHIPPING, GIFT_WRAP, COD_FEE, OTHER, DISCOUNT)
 *   come off where their charge went: SHIPPING and COD_FEE off the fee, everything else (and a
 *   discount without detail, or the part its detail does not name) off the item.
 */
const feeTypes = new Set(['SHIPPING', 'COD_FEE']);
const lineCharges = ['GIFT_WRAP', 'OTHER'];

/** The parts of a breakdown type's detail that go to the shipping fee (subtypes SHIPPING, COD_FEE), as an amount whatever its sign. */
function feePart(breakdowns: ProceedsBreakdown[] | undefined, type: string): bigint {
  let total = 0n;
  for (const subtype of feeTypes) total += abs(sum(breakdowns, type, subtype));
  return total;
}

/** A DISCOUNT breakdown split into what it takes off the item (its line) and off the shipping fee, as amounts off whatever their sign. */
function discounts(item: OrderItem2026): { item: bigint; shipping: bigint } {
  const breakdowns = item.proceeds?.breakdowns;
  const total = abs(sum(breakdowns, 'DISCOUNT'));
  const shipping = feePart(breakdowns, 'DISCOUNT');
  return { item: total - shipping, shipping };
}

/**
 * The TAX of an item added on top of its prices, in cents: its TAX proceeds when the item's
 * proceedsTotal holds them (the contract's US examples: 100.00 = ITEM 99.98 + TAX 0.02). Where the
 * TAX is the VAT inside the gross prices (Kontor's reading of EU proceeds: proceedsTotal without
 * it), it is part of the prices the invoice bills already: 0. `assumeOnTop`: an item without
 * proceedsTotal is read as the contract's examples are.
 */
function taxOnTop(item: OrderItem2026, assumeOnTop: boolean): bigint {
  const breakdowns = item.proceeds?.breakdowns ?? [];
  const tax = sum(breakdowns, 'TAX');
  const total = cents(item.proceeds?.proceedsTotal);
  const others = breakdowns.filter((b) => b.type !== 'TAX').reduce((s, b) => s + (cents(b.subtotal) ?? 0n), 0n);
  if (total === undefined) return assumeOnTop ? tax : 0n;
  return total === others + tax ? tax : 0n;
}

/** Amazon withholds the item's tax: its collection model is MARKETPLACE_FACILITATOR ("Tax is withheld and remitted to the taxing authority by Amazon on behalf of the seller"). */
const facilitated = (item: OrderItem2026) => (item.tax?.taxCollections ?? []).some((c) => c.model === 'MARKETPLACE_FACILITATOR');

/**
 * The tax of an item that Amazon withholds, in cents: its TAX added on top, when Amazon collects it
 * as marketplace facilitator (an item without proceedsTotal read as the contract's examples).
 */
function withheldTax(item: OrderItem2026): bigint {
  return facilitated(item) ? taxOnTop(item, true) : 0n;
}

/**
 * The tax of an item that the seller collects itself (decision): TAX added on top of net prices
 * (proceedsTotal holds it) with no MARKETPLACE_FACILITATOR collection (the contract's only model;
 * an item without it is the seller's to remit). It is in grandTotal and the seller's money, so the
 * invoice bills it: the part its detail names SHIPPING or COD_FEE on the shipping fee, the rest
 * (ITEM, GIFT_WRAP, OTHER, or a TAX without detail) in the item's gross unit price, whose rate
 * the line then carries (lib/portals/shopify/order-taxes.ts does so for Shopify's net-price stores).
 */
function sellersTax(item: OrderItem2026): { line: bigint; shipping: bigint } {
  if (facilitated(item)) return { line: 0n, shipping: 0n };
  const tax = taxOnTop(item, false);
  if (tax === 0n) return { line: 0n, shipping: 0n };
  const shipping = feePart(item.proceeds?.breakdowns, 'TAX');
  return { line: tax - shipping, shipping };
}

/** a / b rounded down (towards minus infinity: the rest is never negative). */
const floorDiv = (a: bigint, b: bigint) => (a >= 0n ? a / b : -((-a + b - 1n) / b));

/** One item as the invoice bills it: its line, and what it adds to the order's shipping fee. */
interface BilledItem {
  line: ChannelOrderLine;
  shipping: bigint;
}

/**
 * One line: orderItemId is the transaction id. The unit price is the item's gross unit price
 * (product.price.unitPrice; without it, its ITEM proceeds are the units' amount, shared as below), and for the units the line
 * keeps its promotion discount, gift wrap and other charges and the tax the seller collects,
 * shared over the units **rounded down to the cent; the cents left over go to the
 * shipping fee**, the order's one amount of quantity one, so that lines plus shipping are exactly
 * what the seller receives (as Shopify's net-price stores: the fee only ever rises by less than a
 * cent a unit). Document 2's line has one price per unit, so a discount or charge goes into it
 * rather than into a line of its own (a line without SKU would take no stock and ask for a link).
 * The item's shipping, COD fee and their discounts and tax go to the shipping fee.
 *
 * Tax: Order_line_type's is the VAT percent the gross price holds. Amazon's is an amount, and the
 * contract does not say whether TAX is inside ITEM in each marketplace: a wrong rate on an invoice
 * is worse than none, so it is left empty, except where the seller collects tax on top of net
 * prices: then it is that tax over the line's net amount, as a percent to two places (8.875 is
 * 8.88), what the gross price holds.
 */
/** The first rate Order_line_type's tax (decimal(6,2), four digits before the point) cannot hold. */
const maxRate = 10_000;

function billed(item: OrderItem2026, orderOpen: boolean): BilledItem {
  const quantity = item.quantityOrdered;
  const breakdowns = item.proceeds?.breakdowns;
  const units = orderOpen ? unitsSold(item) : quantity;
  const listed = cents(item.product.price?.unitPrice);
  // Without product.price (optional in the contract) the item's amount is its ITEM proceeds, whole:
  // they are for the units it is charged for (a cancelled unit's share is not in them, as the fee's
  // rule below for an item with no unit left reads them), so they are the units' amount here.
  // Divided first and rounded down (10.00 over 3 units: 3.33), the cents left over went nowhere and
  // the order stood below what the buyer paid (9.99 + fee for 10.00 + fee): only partially paid by
  // document 1, never shipped. Whole, they are shared over the units as every line's amount is, the
  // cents left over joining the fee (decision, README "Rounding").
  //
  // With a unit price, the ITEM proceeds are still the item's amount where they differ from the unit
  // price times the units (decision): unitPrice is "The price charged for a single unit of this
  // product, before any quantity-based calculations", and ITEM is what the buyer pays for the item
  // after them (an Amazon Business quantity discount, an item sold by measurement). Billed at unit
  // price times units, such an order stood above what the buyer paid (10 units at a tier of 10.80
  // billed 120.00 against 108.00): only partially paid by document 1, never paid_in_full nor
  // shipped. Only for an item of an open order with all its units: a cancelled one keeps its unit
  // price (the contract does not say what ITEM holds once units are cancelled).
  const itemProceeds = (breakdowns ?? []).some((b) => b.type === 'ITEM') ? sum(breakdowns, 'ITEM') : undefined;
  const afterQuantity = orderOpen && units === quantity && listed !== undefined && itemProceeds !== undefined && itemProceeds !== listed * BigInt(quantity);
  const itemAmount = listed === undefined ? (itemProceeds ?? 0n) : afterQuantity ? itemProceeds : undefined;
  const unit = listed ?? (quantity > 0 ? floorDiv(itemAmount!, BigInt(quantity)) : itemAmount!);
  const off = discounts(item);
  const tax = sellersTax(item);
  const charges = lineCharges.reduce((s, type) => s + sum(breakdowns, type), 0n);
  const shipping = [...feeTypes].reduce((s, type) => s + sum(breakdowns, type), 0n) - off.shipping + tax.shipping;
  const request = item.cancellation?.cancellationRequest;
  const out: ChannelOrderLine = {
    transaction_id: item.orderItemId,
    sku: item.product.sellerSku ?? null,
    name: item.product.title ?? item.product.sellerSku ?? item.product.asin ?? item.orderItemId,
    quantity: units,
    price: decimal(unit),
    ...(orderOpen && request && !item.cancellation?.cancellationExecution ? { cancel_requested: request.cancelReason ?? '' } : {}),
  };
  const extra = charges - off.item + tax.line;
  if (units === 0) {
    // Nothing of the item is bought any more: its price shows what a unit cost, and whatever its
    // proceeds still hold beyond the units goes to the fee, so the invoice stays what Amazon pays.
    out.price = decimal(unit - (quantity > 0 ? off.item / BigInt(quantity) : 0n));
    return { line: out, shipping: shipping + extra };
  }
  const total = (itemAmount ?? unit * BigInt(units)) + extra;
  const price = floorDiv(total, BigInt(units));
  out.price = decimal(price);
  const net = total - tax.line;
  const rate = tax.line !== 0n && net > 0n ? Math.round((Number(tax.line) * 10000) / Number(net)) / 100 : undefined;
  // A rate Order_line_type cannot hold (tax decimal(6,2): below 10,000 %; a penny item taxed 1.00 is
  // 10,000 %) is no VAT rate an invoice can show: the line stays gross without one, as where the tax
  // is unknown. Sent, it refused the whole order (400 on line.tax), its stock never taken.
  if (rate !== undefined && rate < maxRate) out.tax = rate.toFixed(2);
  return { line: out, shipping: shipping + total - price * BigInt(units) };
}

/**
 * The units of an item the buyer still buys. An item whose cancellation was executed (ItemCancellation's
 * cancellationExecution: "how the cancellation was executed for this order item", by the buyer,
 * the seller or Amazon) is cancelled as a whole; the contract counts no cancelled units, so the
 * units it shipped before (fulfillment.quantityFulfilled) are what is left of it, 0 when none. A
 * cancellationRequest alone is the buyer asking, not a cancellation: the item keeps its units.
 */
function unitsSold(item: OrderItem2026): number {
  if (!item.cancellation?.cancellationExecution) return item.quantityOrdered;
  const shipped = item.fulfillment?.quantityFulfilled ?? 0;
  return Math.min(item.quantityOrdered, Math.max(0, shipped));
}

/**
 * What the seller received for the goods and shipping the invoice bills, in cents: grandTotal
 * ("the total amount that the seller receives from the sale of the order") less the tax Amazon
 * withholds as marketplace facilitator and less the delivery tips; undefined without a grandTotal.
 *
 * The seller's amount (decision, as for eBay's 'Collect and Remit' tax): Amazon.com adds the
 * sales tax on top of the item's price into grandTotal, then withholds and remits it; the lines
 * (unitPrice) are without it. Read whole, a fully paid US order stood above its invoice_amount,
 * which document 1 calls only partially paid: no paid_in_full, the seller did not ship it. Tax
 * the seller collects itself, gift wrap, COD fees and other charges stay: the invoice bills them
 * (billed).
 *
 * A DELIVERY_TIP (decision): "charged separately and not attributed to a specific item", with its
 * own status (PENDING, FINALIZED: "processed separately after checkout"). It is the buyer's
 * gratuity for the delivery, not a price of the goods or of the shipping: not on the invoice (a
 * line of its own would be no article and ask the seller for a stock link; in the shipping fee it
 * would be billed, and taxed, as shipping, and a tip given after the import would change a known
 * order's prices, which the import does not follow), so not in the amount that pays the invoice
 * either. The seller still receives it from Amazon. So whatever its status, a tip is never in
 * paid_amount: a PENDING one (not charged yet) is money that has not come, a FINALIZED one is not
 * the invoice's, and the order's paid state does not move when it is charged.
 *
 * Taken off only as far as grandTotal holds it (decision): the contract's one example has a
 * FINALIZED tip inside grandTotal and says nothing of a PENDING one, which may be left out until
 * it is charged. When every item names its proceedsTotal and grandTotal is exactly their sum, no
 * tip is in it and nothing is taken off (taken off, the order stood below its invoice, only
 * partially paid, until the tip was charged); otherwise the tips are taken off, as in the
 * contract's example.
 */
function sellersAmount(order: Order2026): bigint | undefined {
  const grandTotal = cents(order.proceeds?.grandTotal);
  if (grandTotal === undefined) return undefined;
  const withheld = order.orderItems.reduce((s, i) => s + withheldTax(i), 0n);
  const items = order.orderItems.map((i) => cents(i.proceeds?.proceedsTotal));
  const itemsTotal = items.every((c) => c !== undefined) ? items.reduce<bigint>((s, c) => s + c!, 0n) : undefined;
  const tips = itemsTotal === grandTotal ? 0n : sum(order.proceeds?.breakdowns, 'DELIVERY_TIP');
  const amount = grandTotal - withheld - tips;
  return amount > 0n ? amount : 0n;
}

/** The order's currency: its totals', else its items', else its marketplace's; '' when none says (the import refuses it with a task). */
function currencyOf(order: Order2026): string {
  return (
    order.proceeds?.grandTotal?.currencyCode ??
    order.orderItems.map((i) => i.product.price?.unitPrice?.currencyCode ?? i.proceeds?.proceedsTotal?.currencyCode).find(Boolean) ??
    knownMarketplace(order.salesChannel.marketplaceId ?? '')?.currency ??
    ''
  );
}

/**
 * The buyer bought at Amazon: SalesChannel.channelName `AMAZON`, not `NON_AMAZON` ("the sales
 * platform or channel where the customer placed this order"). A NON_AMAZON order is one Amazon
 * ships from the seller's FBA stock for a sale made elsewhere (Multi-Channel Fulfilment, whose
 * UNFULFILLABLE status "only applies to Amazon-fulfilled orders that were not placed on Amazon's
 * retail website"): that sale is already an order of its own channel in Kontor, and imported as a
 * market_d order it was counted twice, paid twice and took its stock twice. Not imported.
 */
export const placedAtAmazon = (order: Order2026): boolean => order.salesChannel.channelName !== 'NON_AMAZON';

/** An Orders API v2026-01-01 order as a ChannelOrder (document 2's Order_type words). */
export function channelOrder(order: Order2026): ChannelOrder {
  const fulfilment = orderStatus(order.fulfillment?.fulfillmentStatus);
  // Cash on delivery: not paid from UNSHIPPED as other orders, but once Amazon shows it delivered.
  const onDelivery = paysOnDelivery(order);
  const status = onDelivery && !delivered(order) ? { ...fulfilment, is_paid: false } : fulfilment;
  // Items cancelled while the order stays open leave the order's lines; a CANCELLED order keeps
  // what was ordered on its lines (its cancellation puts the stock back as a whole).
  const items = order.orderItems.map((i) => billed(i, !status.is_cancelled));
  const shippingFee = items.reduce((total, i) => total + i.shipping, 0n);
  const address = orderAddress(order.recipient?.deliveryAddress);
  const received = sellersAmount(order);
  const afn = order.fulfillment?.fulfilledBy === 'AMAZON';
  const country = knownMarketplace(order.salesChannel.marketplaceId ?? '')?.country;
  return {
    external_order_id: order.orderId,
    modified_at: order.lastUpdatedTime,
    created_at: order.createdTime,
    currency_id: currencyOf(order),
    customer: {
      // Amazon names no buyer account: document 2's username holds the order number for such portals.
      username: order.orderId,
      ...(order.buyer?.buyerEmail ? { email: order.buyer.buyerEmail } : {}),
      ...(order.recipient?.deliveryAddress?.phone ? { phone_1: order.recipient.deliveryAddress.phone } : {}),
      address: { ...(order.buyer?.buyerName && !address.name ? { name: order.buyer.buyerName } : {}), ...address },
    },
    shipping: {
      ...(shippingFee !== 0n ? { fee: decimal(shippingFee) } : {}),
      ...(order.fulfillment?.fulfillmentServiceLevel ? { method: order.fulfillment.fulfillmentServiceLevel } : {}),
      address,
    },
    line: items.map((i) => i.line),
    // Paid without a grandTotal names no amount (null), which is not 0.00 (ChannelOrder.paid_amount).
    paid_amount: !status.is_paid ? '0.00' : received !== undefined ? decimal(received) : null,
    status,
    // Document 2's own payment method id for cash on delivery, so the seller sees why it is unpaid.
    ...(onDelivery ? { payment_method_id: 'COD' } : {}),
    // AFN: Amazon ships from its fulfilment network; the Orders API names the marketplace, not the centre.
    ...(afn ? { fulfilled_by_channel: { ...(country ? { country_iso2: country } : {}) } } : {}),
  };
}
