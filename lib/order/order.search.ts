/**
 * GET order/: Order_filter_type over the account's orders that are at least
 * ORDER_SEARCH_MIN_AGE_SECONDS old (document 1: 10 s), in order-number order.
 */
import { config } from '../../config';
import type { OrderScope } from '../access';
import { db } from '../db';
import { runSearch, scopeLookups, SearchRequest, SearchSpec } from '../http';
import { orderToApi } from './order.mapper';
import { orderIdPattern, orderType } from './order.type';
import { orderReadQuery, OrderReadRow } from './order.repository';

/** A status date compared by its calendar day (UTC). */
const day = (column: string) => `(sales_order.${column} AT TIME ZONE 'UTC')::date`;

/**
 * customer.address (Order_address_filter_type, "not shown" in document 2): each field of
 * Order_address_type as an Operator_filter_type<string> on the billing address. Not indexed:
 * combined with an indexed filter on large accounts, it only narrows those rows.
 */
const addressFields = ['name', 'name_2', 'street', 'street_2', 'zip', 'city', 'province', 'country', 'country_iso2'] as const;
const addressFilters = Object.fromEntries(
  addressFields.map((field) => [`customer.address.${field}`, { expression: `sales_order.customer #>> '{address,${field}}'`, type: 'string' as const }]),
);

/** Order_filter_type (document 2) with the operators it allows. */
export const orderSearch: SearchSpec<OrderReadRow> = {
  filters: {
    id: { column: 'sales_order.id', type: 'string', operators: ['='], singleton: true },
    // Indexed in order_invoice_number, not on sales_order: a payment's UPDATE stays HOT (lib/order/README.md).
    invoice_number: {
      column: 'sales_order.invoice_number',
      type: 'integer',
      bigint: true,
      lookup: { rowKey: 'sales_order.internal_id', table: 'order_invoice_number', key: 'order_internal_id', column: 'invoice_number' },
    },
    transaction_id: { column: 'sales_order.transaction_ids', type: 'string', array: true, operators: ['=', '!='] },
    'customer.id': { column: 'sales_order.customer_number', type: 'string', operators: ['=', '!='] },
    'customer.username': { column: 'sales_order.customer_username', type: 'string' },
    'customer.email': { column: 'sales_order.customer_email', type: 'string' },
    ...addressFilters,
    'status.is_initial_contact': { column: 'sales_order.is_initial_contact', type: 'bool' },
    'status.is_checkout': { column: 'sales_order.is_checkout', type: 'bool' },
    'status.is_paid': { column: 'sales_order.is_paid', type: 'bool' },
    'status.is_packed': { column: 'sales_order.is_packed', type: 'bool' },
    'status.is_shipped': { column: 'sales_order.is_shipped', type: 'bool' },
    'status.is_arrived': { column: 'sales_order.is_arrived', type: 'bool' },
    'status.is_cancelled': { column: 'sales_order.is_cancelled', type: 'bool' },
    'status.is_parked': { column: 'sales_order.is_parked', type: 'bool' },
    'status.paid_date': { expression: day('paid_date'), type: 'date' },
    'status.packed_date': { expression: day('packed_date'), type: 'date' },
    'status.shipped_date': { expression: day('shipped_date'), type: 'date' },
    // Named by document 2 without their types ("not shown"): read as the order number and a date like the others.
    number: { column: 'sales_order.number', type: 'integer', bigint: true },
    'status.arrived_date': { expression: day('arrived_date'), type: 'date' },
  },
  key: {
    column: 'sales_order.number',
    parse: (minId) => {
      const match = orderIdPattern.exec(minId.trim());
      return match ? match[1] : undefined;
    },
    idOf: (row) => row.id,
  },
  // Order_type is built on first use (lib/http/schema.ts): workers never search orders.
  get type() {
    return orderType();
  },
  alwaysSelected: ['id'],
};

export const orderSearchRepository = {
  /** A page of the orders in scope old enough to be searched. */
  search(scope: OrderScope, search: SearchRequest) {
    const { select } = search;
    const parts = { lines: !select || 'line' in select, history: !select || 'history' in select, credit: !select || 'credit' in select };
    const base = orderReadQuery(db(), scope, parts).whereRaw('sales_order.created_at <= now() - make_interval(secs => ?)', [config().orderSearchMinAgeSeconds]);
    return runSearch(base, orderSearch, scopeLookups(search, { account_id: scope.accountId }), orderToApi);
  },
};
