/**
 * The contract between lib/order, which owns the orders (table sales_order), and the lower domains
 * whose reads a portal-account grant narrows through orders (lib/customer: the customers of a
 * portal account are those with an order of it, and their sales; lib/stock: the history rows of
 * its orders). Those domains sit below lib/order (it links customers and takes stock), so they
 * cannot import it: lib/order implements this (order-grant.repository.ts), and each process's
 * entry provides it at startup (provideOrderGrant in server/app.ts and workers/run.ts).
 */
import type { Knex } from 'knex';

export interface OrderGrantQueries {
  /**
   * The orders of one portal account, as `alias`, selecting 1: a subquery for WHERE EXISTS, to
   * which the caller adds its correlation (e.g. `<alias>.id = stock_history.order_id`).
   */
  ordersOfPortalAccount(knex: Knex, alias: string, portalAccountId: number): Knex.QueryBuilder;
  /**
   * A customer's sales amount (column sales_amount, text): its orders that are not cancelled, in
   * its currency, of the one portal account when given; the outer row is named `customer`.
   */
  customerSalesAmount(knex: Knex, portalAccountId: number | null): Knex.Raw;
}

let provided: OrderGrantQueries | undefined;

/** lib/order gives its implementation (once per process, at startup). */
export function provideOrderGrantQueries(queries: OrderGrantQueries): void {
  provided = queries;
}

/** lib/order's implementation; throws when the process's entry did not provide it. */
export function orderGrantQueries(): OrderGrantQueries {
  if (!provided) throw new Error('lib/order has not provided its grant queries: call provideOrderGrant (lib/order) at startup');
  return provided;
}
