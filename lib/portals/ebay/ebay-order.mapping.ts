/**
 * An eBay order (Fulfillment API getOrders) in the neutral words of document 2's Order_type
 * (ChannelOrder), so that the order import needs no knowledge of eBay's shapes.
 */
import type { components } from 'ebay-api/lib/types/restful/specs/sell_fulfillment_v1_oas3';
import type { ChannelOrder, ChannelOrderAddress, ChannelOrderLine } from '../channel-order.type';

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

/** One line: lineItemId as transaction_id; lineItemCost is the line's total, so the unit price is it over the quantity. */
function line(item: Schemas['LineItem']): ChannelOrderLine {
  const quantity = item.quantity && item.quantity > 0 ? item.quantity : 1;
  const tax = (item.taxes ?? []).reduce((sum, t) => sum + cents(t.amount?.value), 0);
  return {
    transaction_id: item.lineItemId ?? '',
    sku: item.sku && item.sku !== '' ? item.sku : null,
    name: item.title ?? '',
    quantity,
    price: decimal(Math.round(cents(item.lineItemCost?.value) / quantity)),
    ...(tax ? { tax: decimal(tax) } : {}),
  };
}

const paidStates = new Set(['PAID', 'PARTIALLY_REFUNDED', 'FULLY_REFUNDED']);

/** What the buyer has paid: the payments eBay reports as PAID, else the total when the order is paid. */
function paid(order: EbayOrder): number {
  const payments = order.paymentSummary?.payments ?? [];
  const sum = payments.filter((p) => p.paymentStatus === 'PAID').reduce((s, p) => s + cents(p.amount?.value), 0);
  if (sum > 0) return sum;
  return paidStates.has(order.orderPaymentStatus ?? '') ? cents(order.pricingSummary?.total?.value) : 0;
}

export function channelOrderOf(order: EbayOrder): ChannelOrder {
  const shipping = order.fulfillmentStartInstructions?.[0]?.shippingStep;
  const shipTo = shipping?.shipTo;
  const registration = order.buyer?.buyerRegistrationAddress;
  const reference = order.paymentSummary?.payments?.find((p) => p.paymentReferenceId)?.paymentReferenceId;
  return {
    external_order_id: order.orderId ?? '',
    modified_at: order.lastModifiedDate ?? order.creationDate ?? '',
    created_at: order.creationDate ?? '',
    currency_id: order.pricingSummary?.total?.currency ?? 'EUR',
    customer: clean({
      username: order.buyer?.username,
      email: shipTo?.email ?? registration?.email,
      phone_1: shipTo?.primaryPhone?.phoneNumber ?? registration?.primaryPhone?.phoneNumber,
      address: billing(order.buyer),
    }),
    shipping: clean({
      fee: order.pricingSummary?.deliveryCost?.value,
      method: shipping?.shippingServiceCode,
      address: address(shipTo),
    }),
    line: (order.lineItems ?? []).map(line),
    paid_amount: decimal(paid(order)),
    ...(reference ? { payment_provider_transaction_id: reference } : {}),
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
