import type { Address, Order, OrderItem } from '@sp-api-sdk/orders-api-v0';
import type { ChannelOrder, ChannelOrderAddress } from '../channel-order.type';

const money = (amount: string | undefined) => (amount && Number.isFinite(Number(amount)) ? Number(amount).toFixed(2) : '0.00');

/** Amazon's Address as Order_address_type (only what the order carries: the buyer's data is restricted). */
export function orderAddress(a: Address | undefined): ChannelOrderAddress {
  if (!a) return {};
  const street = [a.AddressLine1, a.AddressLine2].filter(Boolean);
  const out: ChannelOrderAddress = {
    name: a.Name,
    name_2: a.CompanyName,
    street: street[0],
    street_2: [street[1], a.AddressLine3].filter(Boolean).join(', ') || undefined,
    zip: a.PostalCode,
    city: a.City,
    province: a.StateOrRegion,
    country_iso2: a.CountryCode,
  };
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined && v !== '')) as ChannelOrderAddress;
}

/**
 * OrderStatus as Order_type's status: Pending is not yet paid (Amazon has not authorised the
 * payment); Unshipped and PartiallyShipped are paid; Shipped is paid and shipped; Canceled is
 * cancelled. Unfulfillable, InvoiceUnconfirmed and PendingAvailability count as paid, not shipped.
 */
export function orderStatus(status: string): ChannelOrder['status'] {
  return { is_paid: status !== 'Pending' && status !== 'Canceled', is_shipped: status === 'Shipped', is_cancelled: status === 'Canceled' };
}

/** One line: OrderItemId is the transaction id; ItemPrice is the line's total, the unit price is it divided by the quantity. */
function line(item: OrderItem): ChannelOrder['line'][number] {
  const quantity = item.QuantityOrdered;
  const total = Number(item.ItemPrice?.Amount ?? 0);
  return {
    transaction_id: item.OrderItemId,
    sku: item.SellerSKU ?? null,
    name: item.Title ?? item.SellerSKU ?? item.ASIN,
    quantity,
    price: (quantity > 0 ? total / quantity : total).toFixed(2),
    ...(item.ItemTax?.Amount ? { tax: money(item.ItemTax.Amount) } : {}),
  };
}

/** An Amazon order and its items as a ChannelOrder (document 2's Order_type words). */
export function channelOrder(order: Order, items: OrderItem[]): ChannelOrder {
  const status = orderStatus(order.OrderStatus);
  const shippingFee = items.reduce((sum, i) => sum + Number(i.ShippingPrice?.Amount ?? 0), 0);
  const address = orderAddress(order.ShippingAddress);
  return {
    external_order_id: order.AmazonOrderId,
    modified_at: order.LastUpdateDate,
    created_at: order.PurchaseDate,
    currency_id: order.OrderTotal?.CurrencyCode ?? 'EUR',
    customer: {
      // Amazon names no buyer account: document 2's username holds the order number for such portals.
      username: order.AmazonOrderId,
      ...(order.BuyerInfo?.BuyerEmail ? { email: order.BuyerInfo.BuyerEmail } : {}),
      ...(order.ShippingAddress?.Phone ? { phone_1: order.ShippingAddress.Phone } : {}),
      address,
    },
    shipping: { ...(shippingFee > 0 ? { fee: shippingFee.toFixed(2) } : {}), ...(order.ShipServiceLevel ? { method: order.ShipServiceLevel } : {}), address },
    line: items.map(line),
    paid_amount: status.is_paid ? money(order.OrderTotal?.Amount) : '0.00',
    status,
  };
}
