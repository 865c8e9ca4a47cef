/**
 * A Kaufland order (OrderDetails of GET /orders/{id_order}: its order units, buyer and
 * addresses) as a ChannelOrder. Kaufland makes one order unit per piece sold, so each order unit
 * is one line of quantity 1 whose transaction_id is its id_order_unit: send_mit and cancellation
 * address order units.
 */
import type { ChannelOrder, ChannelOrderAddress } from '../channel-order.type';

export interface KauflandAddress {
  first_name?: string | null;
  last_name?: string | null;
  company_name?: string | null;
  street?: string | null;
  house_number?: string | null;
  postcode?: string | null;
  additional_field?: string | null;
  city?: string | null;
  phone?: string | null;
  country?: string | null;
}

export interface KauflandOrderUnit {
  id_order_unit: number;
  id_order: string;
  ts_created_iso: string;
  ts_updated_iso: string;
  status: string;
  price: number;
  id_offer: string | null;
  currency: string;
  shipping_rate: number;
  vat: number | null;
  /**
   * Fees the buyer pays for the piece beside its price (integer cents, nullable): named on
   * OrderUnit and OrderUnitDetails, not on OrderDetails' order units (the adapter fills them in
   * from the order unit, `withUnitFees`). Undefined once the adapter has read them: Kaufland
   * could not show the unit (GET /order-units/{id} answered 404), so its fees are not known.
   */
  eco_fee?: number | null;
  packaging_fee?: number | null;
  product?: { title?: string } | null;
}

export interface KauflandOrder {
  id_order: string;
  ts_created_iso: string;
  storefront: string;
  order_units: KauflandOrderUnit[];
  billing_address: KauflandAddress | null;
  shipping_address: KauflandAddress | null;
  buyer: { id_buyer: number; email: string | null } | null;
  /** FulfillmentType: fulfilled_by_merchant, or fulfilled_by_kaufland (Kaufland ships from its own warehouse). */
  fulfillment_type?: string;
}

/**
 * Paid: every state after the buyer's payment (open is awaiting it; cancelled counts for nothing).
 * `returned` is a piece on its way back, its money still the seller's. `returned_paid` is not
 * (decision, README): the contract gives OrderUnitStatus no wording, and the name is a return whose
 * money was paid back to the buyer, as `sent_and_autopaid` is a sent unit paid out; counted paid,
 * a refunded return stayed in paid_amount for good, as Shopify's REFUNDED and eBay's
 * FULLY_REFUNDED did before they were taken out. Its line no longer counts it (`returnedToSeller`).
 */
const paidStates = new Set(['need_to_be_sent', 'sent', 'sent_and_autopaid', 'received', 'returned']);
const shippedStates = new Set(['sent', 'sent_and_autopaid', 'received', 'returned', 'returned_paid']);

const money = (cents: number) => (cents / 100).toFixed(2);

/**
 * A piece's price as the buyer pays it: `price` plus `eco_fee` and `packaging_fee` (decision,
 * README). The contract describes neither fee; they stand beside price and shipping_rate on the
 * order unit as amounts of their own (its example: a price of 200 with an eco fee of 1900, so
 * not a part of the price), so they come on top, and read as the price alone the invoice and
 * paid_amount left them out. Into the line's price rather than a line of their own: the fee is
 * the piece's (a French éco-participation, a packaging levy) and takes its VAT rate; a line
 * without a SKU asks the seller for a stock link, and its transaction_id would name no order unit
 * for send_mit or a cancellation. Not into the shipping fee: it is not shipping.
 */
const unitPrice = (u: KauflandOrderUnit) => u.price + (u.eco_fee ?? 0) + (u.packaging_fee ?? 0);

/** The unit's fees could not be read (see KauflandOrderUnit.eco_fee): its price is known only in part. */
const feesUnread = (u: KauflandOrderUnit) => u.eco_fee === undefined || u.packaging_fee === undefined;

function address(a: KauflandAddress | null): ChannelOrderAddress {
  if (!a) return {};
  const name = [a.first_name, a.last_name].filter(Boolean).join(' ');
  const country = (a.country ?? '').trim();
  return {
    ...(name ? { name } : {}),
    ...(a.company_name ? { name_2: a.company_name } : {}),
    ...(a.street ? { street: [a.street, a.house_number].filter(Boolean).join(' ') } : {}),
    ...(a.additional_field ? { street_2: a.additional_field } : {}),
    ...(a.postcode ? { zip: a.postcode } : {}),
    ...(a.city ? { city: a.city } : {}),
    // Address.country: a code (the contract's example "USA"); two letters are country_iso2, three an
    // ISO 3166-1 alpha-3 code the import reads (ChannelOrderAddress.country_iso3), else the country's text.
    ...(/^[A-Za-z]{2}$/.test(country)
      ? { country_iso2: country.toUpperCase() }
      : /^[A-Za-z]{3}$/.test(country)
        ? { country_iso3: country.toUpperCase() }
        : country
          ? { country }
          : {}),
  };
}

/** Paid, shipped and cancelled of an order from its order units' states. */
export function orderStatus(units: { status: string }[]): ChannelOrder['status'] {
  const live = units.filter((u) => u.status !== 'cancelled');
  return {
    is_paid: live.some((u) => paidStates.has(u.status)),
    is_shipped: live.length > 0 && live.every((u) => shippedStates.has(u.status)),
    is_cancelled: units.length > 0 && live.length === 0,
  };
}

/**
 * The pieces an order unit's line still sells: 0 for a unit cancelled while the order goes on (the
 * buyer or Kaufland cancelled one piece of several: OrderUnitStatus `cancelled`), so its piece
 * comes back to stock through the import, as an Amazon item cancelled in an open order does. An
 * order whose every unit is cancelled keeps 1 on each line: its cancellation puts the stock back
 * as a whole (lib/order-import), and a line at 0 would take it back a second time.
 */
function unitsSold(unit: KauflandOrderUnit, orderCancelled: boolean): number {
  if (orderCancelled) return 1;
  return unit.status === 'cancelled' || paidBack(unit) ? 0 : 1;
}

/**
 * A piece returned and paid back (`returned_paid`), on an order of either fulfilment: its price
 * and shipping rate left paid_amount (paidStates), so its line bills it no more and its rate
 * leaves the shipping fee. On an order Kaufland fulfils too: its line kept billing the price and
 * the fee the rate, so the order stood only partially paid, the mismatch 97f8a8c fixed for
 * orders the seller ships. Such a line is linked to no stock (lib/order-import: an order the
 * channel fulfils takes none of the seller's), so its 0 moves no stock; only `returnedToSeller`
 * (the seller's own shipments) asks the seller to book the piece in.
 */
const paidBack = (unit: KauflandOrderUnit) => unit.status === 'returned_paid';

/**
 * A piece the buyer sent back to the seller and was paid back for (decision, README "Returns"):
 * `returned_paid` on an order the seller ships. Its line no longer counts it (ChannelOrderLine:
 * goods back and refunded are not still bought) and names it `returned`, so the import tells the
 * seller on an order shipped here to book it in (lib/order), where before nothing said a piece
 * came back. `returned` alone (not yet paid back) keeps the line: the refund follows. An order
 * Kaufland fulfils took none of the seller's stock, and its returns go to Kaufland's warehouse:
 * its line leaves the bill (paidBack) but names nothing to book in.
 */
const returnedToSeller = (unit: KauflandOrderUnit, byKaufland: boolean) => !byKaufland && unit.status === 'returned_paid';

export function channelOrder(order: KauflandOrder): ChannelOrder {
  const units = order.order_units;
  const live = units.filter((u) => u.status !== 'cancelled');
  const status = orderStatus(units);
  // The units paid_amount counts (a cancelled unit's state is not among them).
  const counted = (u: KauflandOrderUnit) => paidStates.has(u.status);
  const paid = units.filter(counted).reduce((s, u) => s + unitPrice(u) + u.shipping_rate, 0);
  const byKaufland = order.fulfillment_type === 'fulfilled_by_kaufland';
  // The shipping the lines still bill (found by a reviewer of 8fc5f09): a unit returned and paid
  // back leaves its line, and its shipping rate left paid_amount with it, so it leaves the fee
  // too; kept there, an order imported after such a return billed that rate and stood only
  // partially paid (invoice 28.80 against 24.90). So on an order Kaufland fulfils (paidBack).
  const billedShipping = live.filter((u) => !paidBack(u)).reduce((s, u) => s + u.shipping_rate, 0);
  const modified = units.reduce((m, u) => (u.ts_updated_iso > m ? u.ts_updated_iso : m), order.ts_created_iso);
  // The buyer's address and phone: the billing address's, else the shipping address's (decision,
  // README), as Shopify's mapping does. OrderDetails.billing_address is nullable, and with it null
  // the order came in with an empty customer address and no phone beside a full shipping address,
  // so its invoice named no buyer.
  const buyerAddress = order.billing_address ?? order.shipping_address;
  // Address.phone is nullable on each address: a billing address without one takes the shipping
  // address's (Kaufland asks the phone with the delivery address), else the buyer had none.
  const buyerPhone = buyerAddress?.phone || order.shipping_address?.phone;
  return {
    external_order_id: order.id_order,
    modified_at: modified,
    created_at: order.ts_created_iso,
    // Kaufland names the currency on each order unit (EUR, CZK or PLN by storefront).
    currency_id: units[0]?.currency ?? '',
    customer: {
      ...(order.buyer ? { username: String(order.buyer.id_buyer) } : {}),
      ...(order.buyer?.email ? { email: order.buyer.email } : {}),
      ...(buyerPhone ? { phone_1: buyerPhone } : {}),
      address: address(buyerAddress),
    },
    shipping: { fee: money(billedShipping), address: address(order.shipping_address) },
    line: units.map((u) => ({
      transaction_id: String(u.id_order_unit),
      sku: u.id_offer,
      name: u.product?.title || u.id_offer || `Kaufland order unit ${u.id_order_unit}`,
      quantity: unitsSold(u, status.is_cancelled),
      ...(!status.is_cancelled && returnedToSeller(u, byKaufland) ? { returned: 1 } : {}),
      price: money(unitPrice(u)),
      // Kaufland gives the VAT rate in percent, as Order_line_type's tax is.
      ...(u.vat !== null && u.vat !== undefined ? { tax: String(u.vat) } : {}),
      // Fees unread (decision, README): the import keeps the line's price of its last whole read.
      ...(feesUnread(u) ? { price_unread: { in_paid_amount: counted(u) } } : {}),
    })),
    paid_amount: money(status.is_paid ? paid : 0),
    status,
    // Fulfilled by Kaufland: the goods leave Kaufland's warehouse, not the seller's (as Amazon's FBA).
    ...(order.fulfillment_type === 'fulfilled_by_kaufland' ? { fulfilled_by_channel: {} } : {}),
  };
}
