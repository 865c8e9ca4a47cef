import { Joi, integer, list, readOnly } from '../http';

/** Customer_type group_id values (document 2): 0 none, 1 green, 2 yellow, 3 orange, 4 red, 5 purple, 6 blue, 9 black. */
export const customerGroupIds = ['0', '1', '2', '3', '4', '5', '6', '9'] as const;

/** Customer_type (document 2): read only. */
export const customerType = Joi.object({
  id: readOnly(Joi.any()),
  internal_id: readOnly(integer()),
  phone_1: readOnly(Joi.string()),
  phone_2: readOnly(Joi.string()),
  fax: readOnly(Joi.string()),
  date: readOnly(Joi.string()),
  shop_username: readOnly(list(Joi.string())),
  username: readOnly(Joi.string()),
  comment: readOnly(Joi.string()),
  email: readOnly(Joi.string()),
  sales: readOnly(Joi.object({ amount: Joi.string(), currency_id: Joi.string() })),
  group_id: readOnly(integer()),
});

/**
 * The customer part of an order (Order_type customer) as far as a customer reads it: declared
 * here so customers need nothing of lib/order. The address is kept whole; only its name is read.
 */
export interface OrderCustomerFields {
  id?: string;
  username?: string;
  comment?: string;
  vat_id?: string;
  email?: string;
  phone_1?: string;
  phone_2?: string;
  fax?: string;
  address?: { name?: string };
}

/** A customer row as stored, with sales.amount summed from its orders. */
export interface CustomerRow {
  internal_id: string;
  account_id: number;
  number: string;
  username: string | null;
  comment: string | null;
  email: string | null;
  vat_id: string | null;
  phone_1: string | null;
  phone_2: string | null;
  fax: string | null;
  address_name: string | null;
  shop_username: string[];
  group_id: number;
  currency_id: string;
  updated_at: Date;
  sales_amount: string;
}

/**
 * Customer_type id of a customer number: an integer (document 2: id integer) only when that
 * integer reads back as the same text, else the text. "007" stays "007": as 7 it would name
 * customer "7" in GET admin/customer/{customer_id}/ and filter id[].
 */
export function customerIdToApi(number: string): number | string {
  const asInteger = Number(number);
  return Number.isSafeInteger(asInteger) && String(asInteger) === number ? asInteger : number;
}

/** Customer_type of a row. */
export function customerToApi(row: CustomerRow) {
  return {
    id: customerIdToApi(row.number),
    internal_id: Number(row.internal_id),
    phone_1: row.phone_1 ?? '',
    phone_2: row.phone_2 ?? '',
    fax: row.fax ?? '',
    date: row.updated_at.toISOString(),
    shop_username: row.shop_username,
    username: row.username ?? '',
    comment: row.comment ?? '',
    email: row.email ?? '',
    sales: { amount: row.sales_amount, currency_id: row.currency_id },
    group_id: row.group_id,
  };
}
