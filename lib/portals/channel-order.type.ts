/**
 * An order as a real channel reports it, mapped by that channel's adapter into the words of
 * document 2's Order_type (snake_case, as POST order/ takes it), so that the order import
 * (lib/order-import/) needs no knowledge of eBay's or Amazon's shapes and lib/portals needs none
 * of the orders domain.
 */

/** Order_address_type. */
export interface ChannelOrderAddress {
  name?: string;
  name_2?: string;
  street?: string;
  street_2?: string;
  zip?: string;
  city?: string;
  province?: string;
  country?: string;
  country_iso2?: string;
  /**
   * A three-letter code the channel names the country by (Kaufland's Address.country, its
   * contract's example "USA"), where it gives no country_iso2: the import reads it as ISO 3166-1
   * alpha-3 (lib/reference) into country_iso2 and the spelled-out country; a code that is none stays
   * the country's text. lib/portals holds no country list (lib/reference is built on it).
   */
  country_iso3?: string;
}

/** One line (Order_line_type); stock_align_id is found by the import from the SKU. */
export interface ChannelOrderLine {
  /** The channel's line id (eBay lineItemId, Amazon OrderItemId). */
  transaction_id: string;
  /** The seller's SKU on the channel; null when the channel has none for the line. */
  sku: string | null;
  name: string;
  /**
   * The units the buyer still buys: what the channel took out of the line after the sale (units
   * an order edit removed, an item the channel cancelled, units refunded and restocked) is not
   * counted, so the import puts their stock back; units refunded without a restock are (a refund
   * is money, not goods back). 0: the line was taken out whole.
   */
  quantity: number;
  /**
   * Of the units not counted, those the buyer sent back after shipment and the channel restocked
   * (Shopify's RETURN refunds), in all: on an order shipped here the import does not apply them
   * and tells the seller to book them in.
   */
  returned?: number;
  /**
   * The buyer asked the channel to cancel this line and the channel has not decided yet (Amazon's
   * cancellationRequest): the reason, or '' when none was given. Not a cancellation: the line keeps
   * its units; the import tells the seller once, so that the line is not shipped meanwhile.
   */
  cancel_requested?: string;
  /** Unit price, gross, as a decimal string. */
  price: string;
  tax?: string;
  /**
   * The channel could not show a part of the unit price at this read (Kaufland: the unit's eco and
   * packaging fees, whose GET /order-units/{id} answered 404): `price` is without that part, and so
   * is `paid_amount` where it counts the line (`in_paid_amount`). The import keeps the price of the
   * line's last whole read instead (lib/order-import), so a unit the channel cannot show for a
   * moment does not lower the line.
   */
  price_unread?: { in_paid_amount: boolean };
  /**
   * The channel routed the line to the warehouse of a fulfilment app that keeps the stock itself
   * (a Shopify fulfilment service, a 3PL): the app's name. The app ships it from its own stock, so
   * the line takes no stock here and is not the seller's to ship, while the order's other lines
   * are (lib/order-import). An order of such lines only is `fulfilled_by_channel` as a whole.
   */
  fulfilled_by_app?: string;
  /**
   * The channel shows the line at the seller's own locations only, as read with everything the
   * channel could route it to (Shopify: sellerLines). A line said before to be an app's
   * (channel_state.app_lines) is given back to the seller: it takes its stock again (lib/order-import).
   * Absent: not known (no app-kept location, a token that cannot see the apps', a line in no
   * fulfillment order holding units).
   */
  fulfilled_by_seller?: true;
}

export interface ChannelOrder {
  /** The channel's order id: the natural key of the import (stored as external_order_id). */
  external_order_id: string;
  /** When the channel last changed the order (ISO 8601): the fetch's watermark. */
  modified_at: string;
  /** When the buyer bought (ISO 8601). */
  created_at: string;
  currency_id: string;
  customer: {
    username?: string;
    email?: string;
    phone_1?: string;
    address: ChannelOrderAddress;
  };
  shipping: { fee?: string; method?: string; address: ChannelOrderAddress };
  line: ChannelOrderLine[];
  /**
   * What the buyer has paid so far (decimal string; "0.00" when unpaid). null: the channel says the
   * buyer paid (status.is_paid) and names no amount (Amazon without OrderProceeds.grandTotal,
   * optional in its contract), which is not 0.00: a new order is paid in full, a known one keeps
   * the amount it has (lib/order-import README, "Known").
   */
  paid_amount: string | null;
  /**
   * Payment_method_type's id where the channel's method matters to the seller: `COD` for an order
   * the buyer pays on delivery (unpaid until the channel shows it delivered, lib/portals).
   */
  payment_method_id?: string;
  /** The channel's payment reference, when it names one. */
  payment_provider_transaction_id?: string;
  status: { is_paid: boolean; is_shipped: boolean; is_cancelled: boolean };
  /**
   * The buyer asked the channel to cancel the whole order and the channel has not decided yet
   * (eBay's cancelRequests in state REQUESTED): the request's id (told once per request) and reason.
   */
  cancel_requested?: { id: string; reason: string };
  /**
   * The channel ships the order from its own fulfilment network (Amazon FBA, AFN): its lines take
   * no stock from the seller's warehouse; Order_type's shipping.market_d_fba (the centre's country
   * and code, where the channel names them).
   */
  fulfilled_by_channel?: { country_iso2?: string; center_id?: string };
  /** What the adapter tells the seller of the order at its import, once (the new order's history). */
  import_notes?: string[];
}

/**
 * An offer the channel may fulfil from its own warehouse, as an order of the page hints (Amazon:
 * an order fulfilled by Amazon, AFN; lib/portals/amazon/fba-offers.ts): Kontor's live listing
 * recorded under that SKU (its portal item id) before the order was placed is read at the channel
 * (PortalAdapter.fulfilledByChannel), and marked fulfilled by the channel only where the read shows
 * it so; CIA then sends it no quantity (lib/portal-offer) and the seller is told once.
 */
export interface ChannelFulfilledOffer {
  sku: string;
  /** When the order was placed (ISO 8601): a listing Kontor made (again) after it is not marked. */
  placedAt: string;
  /** The order that shows it (the task's source, with the listing). */
  evidence: string;
  /**
   * The market the order was placed in (Amazon's marketplace id): a listing marked fulfilled by
   * the channel in some of its markets only is read again for an order of another market only.
   */
  market?: string;
  /** The seller's task: its title and text. */
  title: string;
  text: string;
  /** The seller's task where the read shows the channel fulfilling the listing in some of its markets only (the others keep taking Kontor's quantity). */
  some?: { title: string; text: string };
  /** The field of the item's group of this portal that says so already (market_d: is_fba): an item with it true is marked, its seller not told. */
  saidBy?: string;
}

/** One page of a fetch; next is the channel's cursor for the following page, null at the end. */
export interface ChannelOrderPage {
  orders: ChannelOrder[];
  next: string | null;
  /** Offers the page's orders show the channel fulfils; absent: none (channels other than market_d). */
  channelFulfilled?: ChannelFulfilledOffer[];
}
