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

/** The billing address: the buyer's registration address, else the tax address eBay gives. */
function billing(buyer: Schemas['Buyer'] | undefined): ChannelOrderAddress {
  if (buyer?.buyerRegistrationAddress?.contactAddress || buyer?.buyerRegistrationAddress?.fullName) return address(buyer.buyerRegistrationAddress);
  const tax = buyer?.taxAddress;
  return clean({ zip: tax?.postalCode, city: tax?.city, province: tax?.stateOrProvince, country_iso2: tax?.countryCode });
}

/**
 * What the buyer pays for a line: discountedLineItemCost (the cost after promotions, returned
 * only when a promotion applied), else lineItemCost less the appliedPromotions' discounts.
 */
function lineCost(item: Schemas['LineItem']): number {
  if (item.discountedLineItemCost?.value !== undefined) return cents(item.discountedLineItemCost.value);
  const discounts = (item.appliedPromotions ?? []).reduce((sum, p) => sum + Math.abs(cents(p.discountAmount?.value)), 0);
  return cents(item.lineItemCost?.value) - discounts;
}

/**
 * One line: lineItemId as transaction_id; the unit price is what the buyer pays for the line
 * (discounts taken off) over the quantity, rounded to the cent (a line of 3 for 10.00 is 3.33
 * each: Order_line_type has no line total).
 *
 * Tax is left empty, as for Amazon: Order_line_type's tax is the VAT percent the gross price
 * includes (the invoice reads it as the rate), while the Fulfillment API's `LineItem.taxes[]`
 * are amounts (`Tax.amount` is an Amount), and those eBay lists are the taxes it collects and
 * remits itself ('eBay Collect and Remit', sell_fulfillment_v1_oas3.json LineItem.total), not the
 * seller's VAT. Sending their sum as the line's tax made an invoice show e.g. 3.19 % VAT.
 */
function line(item: Schemas['LineItem']): ChannelOrderLine {
  const quantity = item.quantity && item.quantity > 0 ? item.quantity : 1;
  return {
    transaction_id: item.lineItemId ?? '',
    sku: item.sku && item.sku !== '' ? item.sku : null,
    name: item.title ?? '',
    quantity,
    price: decimal(Math.round(lineCost(item) / quantity)),
  };
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

/** What the buyer has paid and kept: the PAID payments (else the total of a paid order) less eBay's refunds, the order's and its lines'. */
function paid(order: EbayOrder): number {
  const payments = order.paymentSummary?.payments ?? [];
  const sum = payments.filter((p) => p.paymentStatus === 'PAID').reduce((s, p) => s + cents(p.amount?.value), 0);
  const received = sum > 0 ? sum : paidStates.has(order.orderPaymentStatus ?? '') ? cents(order.pricingSummary?.total?.value) : 0;
  return Math.max(0, received - refunded(order));
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

/** The delivery cost the buyer pays: deliveryCost less deliveryDiscount (eBay gives the discount as an amount, sometimes negative). */
function deliveryFee(order: EbayOrder): string | undefined {
  const cost = order.pricingSummary?.deliveryCost?.value;
  if (cost === undefined) return undefined;
  return decimal(cents(cost) - Math.abs(cents(order.pricingSummary?.deliveryDiscount?.value)));
}

export function channelOrderOf(order: EbayOrder): ChannelOrder {
  const shipping = order.fulfillmentStartInstructions?.[0]?.shippingStep;
  const shipTo = shipping?.shipTo;
  const registration = order.buyer?.buyerRegistrationAddress;
  const reference = order.paymentSummary?.payments?.find((p) => p.paymentReferenceId)?.paymentReferenceId;
  // Filled only when the order was read with getOrder (ebay-cancel-requests.ts); getOrders' array is always empty.
  const cancelRequested = openCancelRequest(order);
  return {
    external_order_id: order.orderId ?? '',
    modified_at: order.lastModifiedDate ?? order.creationDate ?? '',
    created_at: order.creationDate ?? '',
    currency_id: currencyOf(order),
    customer: clean({
      username: order.buyer?.username,
      email: shipTo?.email ?? registration?.email,
      phone_1: shipTo?.primaryPhone?.phoneNumber ?? registration?.primaryPhone?.phoneNumber,
      address: billing(order.buyer),
    }),
    shipping: clean({
      fee: deliveryFee(order),
      method: shipping?.shippingServiceCode,
      address: address(shipTo),
    }),
    line: (order.lineItems ?? []).map(line),
    paid_amount: decimal(paid(order)),
    ...(reference ? { payment_provider_transaction_id: reference } : {}),
    ...(cancelRequested ? { cancel_requested: cancelRequested } : {}),
    // eBay fulfilment ("only returned for paid orders being fulfilled by eBay or an eBay
    // fulfillment partner"): the goods leave eBay's warehouse, not the seller's (as Amazon's FBA).
    ...(order.program?.fulfillmentProgram?.fulfilledBy === 'EBAY' ? { fulfilled_by_channel: {} } : {}),
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
