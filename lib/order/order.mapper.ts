import type { OrderReadRow } from './order.repository';

const iso = (value: Date | null) => (value ? value.toISOString() : null);

/** Tracking pages of common carriers; a carrier not listed gets no links. */
const trackingUrls: Record<string, (code: string) => string> = {
  dhl: (c) => `https://www.dhl.de/de/privatkunden/pakete-empfangen/verfolgen.html?piececode=${c}`,
  ups: (c) => `https://www.ups.com/track?tracknum=${c}`,
  dpd: (c) => `https://tracking.dpd.de/status/de_DE/parcel/${c}`,
  dpdp: (c) => `https://tracking.dpd.de/status/de_DE/parcel/${c}`,
  gls: (c) => `https://gls-group.eu/DE/de/paketverfolgung?match=${c}`,
  glsp: (c) => `https://gls-group.eu/DE/de/paketverfolgung?match=${c}`,
  hermes: (c) => `https://www.myhermes.de/empfangen/sendungsverfolgung/sendungsinformation#${c}`,
  tnt: (c) => `https://www.tnt.com/express/de_de/site/shipping-tools/tracking.html?cons=${c}`,
};

/** shipping.link (v1.1.18: a list, one link per tracking number in shipping.code). */
export function trackingLinks(deliverer: unknown, code: unknown): string[] {
  if (typeof deliverer !== 'string' || typeof code !== 'string') return [];
  const url = trackingUrls[deliverer.trim().toLowerCase()];
  if (!url) return [];
  return code
    .split(/[\s,;]+/)
    .filter(Boolean)
    .map((c) => url(encodeURIComponent(c)));
}

/** Order_address_type's fields (document 2: all strings). */
const addressFields = ['name', 'name_2', 'street', 'street_2', 'zip', 'city', 'province', 'country', 'country_iso2'] as const;

/**
 * An address as stored, with every field of Order_address_type answered (null without value, as
 * the order's other fields): a channel or a client gives only some, and a field missing from the
 * answer read as one document 2 does not have. No address stays null.
 */
function addressToApi(stored: unknown): Record<string, unknown> | null {
  if (!stored || typeof stored !== 'object') return null;
  const out: Record<string, unknown> = {};
  for (const field of addressFields) out[field] = null;
  return Object.assign(out, stored);
}

/** Order_type of a stored order. */
export function orderToApi(row: OrderReadRow): Record<string, unknown> {
  const { shipping } = row;
  return {
    id: row.id,
    portal_account_id: row.portal_account_id,
    date: iso(row.created_at),
    current_date: iso(row.order_date),
    invoice_number: row.invoice_number === null ? null : Number(row.invoice_number),
    platform: row.platform,
    history: row.history,
    infos: row.infos,
    pack_infos: row.pack_infos,
    hidden_infos: row.hidden_infos,
    payment_method_id: row.payment_method_id,
    invoice_amount: row.invoice_amount,
    paid_amount: row.paid_amount,
    currency_id: row.currency_id,
    customer: {
      id: row.customer_number,
      username: row.customer_username,
      comment: null,
      vat_id: null,
      email: row.customer_email,
      phone_1: null,
      phone_2: null,
      fax: null,
      ...row.customer,
      address: addressToApi(row.customer.address),
    },
    shipping: {
      fee: row.shipping_fee,
      date: null,
      deliverer: null,
      code: null,
      method: null,
      platform_status: null,
      ...shipping,
      address: addressToApi(shipping.address),
      market_d_fba: shipping.market_d_fba ?? { country_iso2: null, center_id: null },
      link: trackingLinks(shipping.deliverer, shipping.code),
    },
    status: {
      is_initial_contact: row.is_initial_contact,
      initial_contact_date: iso(row.initial_contact_date),
      is_checkout: row.is_checkout,
      is_paid: row.is_paid,
      paid_date: iso(row.paid_date),
      is_packed: row.is_packed,
      packed_date: iso(row.packed_date),
      is_shipped: row.is_shipped,
      shipped_date: iso(row.shipped_date),
      is_arrived: row.is_arrived,
      arrived_date: iso(row.arrived_date),
      is_cancelled: row.is_cancelled,
      cancelled_date: iso(row.cancelled_date),
      is_parked: row.is_parked,
    },
    line: row.lines.map((l) => ({
      id: l.position,
      name: l.name,
      sku: l.sku,
      // Document 2 types quantity, price and tax as strings.
      quantity: String(l.quantity),
      price: l.price,
      tax: l.tax,
      transaction_id: l.transaction_id,
      stock_align_id: l.stock_align_id,
    })),
    bill_url: row.bill_url,
    bill_date: row.bill_date,
    payment_provider_transaction_id: row.payment_provider_transaction_id,
    add_field: row.add_field ?? [],
    external_order_id: row.external_order_id,
    credit: { sub_id: row.credit_sub_ids, main_id: row.credit_main_id },
  };
}
