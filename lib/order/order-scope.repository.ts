/**
 * Queries of orders that other domains compose into their own (lib/order owns sales_order:
 * scripts/check-tables.ts): the orders a scope may see as a subquery, the orders as the bank
 * matching reads them, and a buyer's eBay orders (their anonymisation after an eBay account
 * deletion). Every query is scoped by account (ids given, or the scope's).
 */
import type { Knex } from 'knex';
import type { OrderScope } from '../access';
import { inOrderScope } from './order.repository';

/** An address reduced to its country: what VAT and statistics need, nothing that finds the person. */
const countryOnly = (column: string) => `jsonb_strip_nulls(jsonb_build_object('country_iso2', ${column} -> 'address' -> 'country_iso2'))`;

/** The buyer's orders from eBay, in the accounts connected to eBay (bindings: username, account ids, eBay portal account ids). */
const buyerOrders = `customer_username = ? AND account_id = ANY(?::int[]) AND (platform = 'auction_a' OR portal_account_id = ANY(?::int[]))`;

/**
 * What the buyer still owes the seller on a sales_order row, in SQL: the rule of order-paid.ts
 * owedOn (invoice_amount - paid_amount; a credit order, invoice below 0.00, owes nothing, so no
 * transfer is ever booked on it as owed: a refund of -20.00 on -16.36 read as 3.64 owed).
 */
export const owedSql = 'CASE WHEN invoice_amount < 0 THEN 0.00 ELSE invoice_amount - COALESCE(paid_amount, 0) END';

export const orderScopeRepository = {
  /** The ids of the orders the scope may see, as a subquery (WHERE x IN ...). */
  idsInScope(knex: Knex, scope: OrderScope): Knex.QueryBuilder {
    return inOrderScope(knex('sales_order'), scope).select('id');
  },

  /** The orders in scope as the bank matching reads them: number, invoice number, what is owed, the billing name, when paid_amount was last set by hand and how much. */
  toMatch(trx: Knex.Transaction, scope: OrderScope): Knex.QueryBuilder {
    return inOrderScope(trx('sales_order'), scope).select(
      'id',
      trx.raw('number::text AS number'),
      trx.raw('invoice_number::text AS invoice_number'),
      'payment_provider_transaction_id',
      'currency_id',
      'is_cancelled',
      trx.raw(`(${owedSql})::text AS owing`),
      trx.raw("customer->'address'->>'name' AS name"),
      'paid_by_hand_at',
      'paid_by_hand_amount',
    );
  },

  /** The customers (internal ids) of the buyer's eBay orders in the accounts given, as a subquery. */
  ebayBuyerCustomers(knex: Knex, accountIds: number[], portalAccountIds: number[], username: string): Knex.QueryBuilder {
    return knex('sales_order').select('customer_internal_id').whereRaw(buyerOrders, [username, accountIds, portalAccountIds]);
  },

  /**
   * The buyer's eBay orders in the accounts given (those of their eBay portal accounts or of
   * platform auction_a): username, e-mail, phones, fax, comment and the delivery address go; an
   * invoiced order keeps its billing name, address and VAT id (the invoice's recipient, kept by
   * law); one not invoiced keeps only the countries. Amounts, lines, dates and ids stay. One
   * statement for every account (the username's trigram index finds the rows); the account ids
   * of the rows changed come back.
   */
  async anonymiseEbayBuyer(trx: Knex.Transaction, accountIds: number[], portalAccountIds: number[], username: string): Promise<number[]> {
    const { rows } = (await trx.raw(
      `UPDATE sales_order SET
         customer_username = NULL,
         customer_email = NULL,
         customer = CASE WHEN invoice_number IS NULL
           THEN jsonb_build_object('address', ${countryOnly('customer')})
           ELSE customer - 'username' - 'email' - 'phone_1' - 'phone_2' - 'fax' - 'comment' END,
         shipping = CASE WHEN shipping -> 'address' IS NOT NULL THEN jsonb_set(shipping, '{address}', ${countryOnly('shipping')}) ELSE shipping END,
         updated_at = now()
       WHERE ${buyerOrders}
       RETURNING account_id`,
      [username, accountIds, portalAccountIds],
    )) as { rows: { account_id: number }[] };
    return rows.map((r) => r.account_id);
  },
};
