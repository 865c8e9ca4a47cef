/**
 * Order_type, Order_address_type and Order_line_type of document 2 as Joi schemas (input and
 * select), and the TypeScript shapes of a validated order.
 */
import { Joi, bool, builtOnFirstUse, calendarDate, characters, datetime, decimal, integer, list, nullIsAbsent, readOnly, text } from '../http';
import type { OrderCustomerFields } from '../customer';

/** An order id: <order_number>_<YYYY>_<MM>. */
export const orderIdPattern = /^([1-9]\d{0,14})_(\d{4})_(\d{2})$/;

/** A date field, YYYY-MM-DD. */
const date = calendarDate;

/** Order_address_type. */
export const orderAddressType = builtOnFirstUse(() =>
  nullIsAbsent(
    Joi.object({
      name: text(255),
      name_2: text(255),
      street: text(255),
      street_2: text(255),
      zip: text(32),
      city: text(255),
      province: text(255),
      country: text(255),
      country_iso2: Joi.string()
        .trim()
        .uppercase()
        .pattern(/^[A-Z]{2}$/)
        .allow(''),
    }),
  ),
);

/** Order_line_type. quantity, price and tax are strings in document 2; quantity is a whole number here. */
export const orderLineType = builtOnFirstUse(() =>
  nullIsAbsent(
    Joi.object({
      id: integer().min(0).max(2147483647).required(),
      name: text(1000),
      sku: text(255),
      quantity: integer().min(0).max(1000000),
      // May be below zero, unlike a stock item's prices (lib/stock stock.type.ts): a real
      // marketplace order carries its discount, voucher or coupon as a line of negative price, a
      // credit note (credit.main_id) its returned goods; refusing them would refuse the order or
      // leave its invoice_amount wrong.
      price: decimal(),
      tax: decimal(),
      transaction_id: text(255),
      stock_align_id: text(255),
    }),
  ),
);

/**
 * add_field[][]. XML has no list in a list: the service writes each inner list as an element of
 * <item>s (lib/http xml.ts), which a client's XML body carries back as { item: ... } (one such
 * element alone is no list either); it is read as that list, so an order read as XML can be
 * posted back as XML.
 */
const addFieldType = () => {
  const strings = list(Joi.string().allow('').max(10000));
  const items = Joi.object({ item: strings.required() });
  const entry = Joi.alternatives().try(
    strings,
    items.custom((value: { item: string[] }) => value.item),
  );
  return Joi.alternatives().try(
    Joi.array().items(entry).max(100),
    items.custom((value: { item: string[] }) => [value.item]),
  );
};

const customerType = () =>
  nullIsAbsent(
    Joi.object({
      id: Joi.alternatives(
        Joi.string()
          .trim()
          .max(64)
          .pattern(/^[^\s]+$/),
        integer().min(0),
      ).custom((v: string | number) => String(v)),
      username: text(255),
      comment: text(10000),
      vat_id: text(64),
      email: Joi.string().trim().max(254),
      phone_1: text(64),
      phone_2: text(64),
      fax: text(64),
      address: orderAddressType(),
    }),
  );

/** Order_type: read-only fields are accepted with a warning and never written. */
export const orderType = builtOnFirstUse(() =>
  nullIsAbsent(
    Joi.object({
      id: readOnly(Joi.string()),
      portal_account_id: readOnly(Joi.any()),
      date: readOnly(Joi.any()),
      current_date: datetime(),
      invoice_number: readOnly(Joi.any()),
      platform: Joi.string().trim().max(64),
      history: list(Joi.string().max(10000)).max(1000),
      infos: text(65535),
      pack_infos: text(65535),
      hidden_infos: text(65535),
      payment_method_id: Joi.string().trim().max(64),
      invoice_amount: readOnly(Joi.any()),
      paid_amount: decimal(),
      currency_id: Joi.string()
        .trim()
        .uppercase()
        .pattern(/^[A-Z]{3}$/),
      customer: customerType(),
      shipping: nullIsAbsent(
        Joi.object({
          fee: decimal(),
          date: date(),
          deliverer: text(64),
          code: text(255),
          method: text(255),
          address: orderAddressType(),
          platform_status: Joi.string().valid('ok', 'partially_ok', 'error', ''),
          market_d_fba: readOnly(Joi.object({ country_iso2: Joi.any(), center_id: Joi.any() })),
          link: readOnly(Joi.any()),
        }),
      ),
      status: nullIsAbsent(
        Joi.object({
          is_initial_contact: bool(),
          initial_contact_date: readOnly(Joi.any()),
          is_checkout: bool(),
          is_paid: bool(),
          paid_date: readOnly(Joi.any()),
          is_packed: bool(),
          packed_date: readOnly(Joi.any()),
          is_shipped: bool(),
          shipped_date: readOnly(Joi.any()),
          is_arrived: bool(),
          arrived_date: readOnly(Joi.any()),
          is_cancelled: bool(),
          cancelled_date: readOnly(Joi.any()),
          is_parked: bool(),
        }),
      ),
      line: list(orderLineType()).max(1000),
      bill_url: readOnly(Joi.any()),
      bill_date: readOnly(Joi.any()),
      payment_provider_transaction_id: characters(255).trim(),
      add_field: addFieldType(),
      external_order_id: text(255),
      credit: nullIsAbsent(
        Joi.object({
          sub_id: readOnly(Joi.any()),
          main_id: text(64),
        }),
      ),
    }),
  ),
);

/** Order_type for a create: customer.email is required and not empty. */
export const orderCreateType = builtOnFirstUse(() => orderType().fork(['customer', 'customer.email'], (s) => s.required()));

/** An item of POST order/list/: id (writable there) says which order to update. */
export const orderListItemType = builtOnFirstUse(() => orderType().keys({ id: Joi.string().trim() }));

/**
 * An item of POST order/list/ as order-list.service.ts validates it, in one type for the API
 * document: without id a create (orderCreateType), with id (any value but undefined, null too) an
 * update of that order, so an id that is not a text is refused, not taken as a new order.
 */
export const orderListEntryType = builtOnFirstUse(() =>
  Joi.alternatives(orderCreateType().keys({ id: Joi.any().forbidden() }), orderListItemType().keys({ id: Joi.string().trim().required() })),
);

export interface OrderAddress {
  name?: string;
  name_2?: string;
  street?: string;
  street_2?: string;
  zip?: string;
  city?: string;
  province?: string;
  country?: string;
  country_iso2?: string;
}

export interface OrderLineInput {
  id: number;
  name?: string;
  sku?: string;
  quantity?: number;
  price?: string;
  tax?: string;
  transaction_id?: string;
  stock_align_id?: string;
}

/** Order_type customer: the fields a customer reads, with the whole Order_address_type. */
export interface OrderCustomerInput extends OrderCustomerFields {
  address?: OrderAddress;
}

export type StatusFlag = 'is_initial_contact' | 'is_checkout' | 'is_paid' | 'is_packed' | 'is_shipped' | 'is_arrived' | 'is_cancelled' | 'is_parked';

/** A validated Order_type (read-only fields removed). */
export interface OrderInput {
  id?: string;
  current_date?: Date;
  platform?: string;
  history?: string[];
  infos?: string;
  pack_infos?: string;
  hidden_infos?: string;
  payment_method_id?: string;
  paid_amount?: string;
  currency_id?: string;
  customer?: OrderCustomerInput;
  shipping?: {
    fee?: string;
    date?: string;
    deliverer?: string;
    code?: string;
    method?: string;
    address?: OrderAddress;
    platform_status?: string;
    /** Read-only for clients (validate drops it from requests): set by the channel import for an order Amazon fulfils (FBA). */
    market_d_fba?: { country_iso2: string | null; center_id: string | null };
  };
  status?: Partial<Record<StatusFlag, boolean>>;
  line?: OrderLineInput[];
  payment_provider_transaction_id?: string;
  add_field?: string[][];
  external_order_id?: string;
  credit?: { main_id?: string };
}
