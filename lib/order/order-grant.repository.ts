/**
 * lib/order's side of lib/access/order-grant.ts: the order subqueries that lib/customer and
 * lib/stock compose into their reads to apply a portal-account grant. Every process provides
 * them at startup (provideOrderGrant: server/app.ts, workers/run.ts).
 */
import type { Knex } from 'knex';
import { OrderGrantQueries, provideOrderGrantQueries } from '../access';

export const orderGrantQueries: OrderGrantQueries = {
  ordersOfPortalAccount(knex: Knex, alias: string, portalAccountId: number): Knex.QueryBuilder {
    return knex(`sales_order AS ${alias}`).select(knex.raw('1')).where(`${alias}.portal_account_id`, portalAccountId);
  },

  /**
   * Orders in the customer's currency that are not cancelled count towards sales.amount, summed
   * when read so it never drifts from them; for a caller bound to one portal account, only that
   * portal account's orders (the others' amounts are not its to read). The sum is rounded to two
   * places, not cast to an order amount's numeric(14,2): each order holds up to 12 digits before
   * the point, their sum more, and the cast's overflow answered GET admin/customer/ 500 for every
   * page showing such a customer.
   */
  customerSalesAmount(knex: Knex, portalAccountId: number | null): Knex.Raw {
    const sql = `round(COALESCE((SELECT sum(o.invoice_amount) FROM sales_order o
  WHERE o.customer_internal_id = customer.internal_id AND o.account_id = customer.account_id
    AND NOT o.is_cancelled AND o.currency_id = customer.currency_id${portalAccountId === null ? '' : ' AND o.portal_account_id = ?'}), 0), 2)::text AS sales_amount`;
    return portalAccountId === null ? knex.raw(sql) : knex.raw(sql, [portalAccountId]);
  },
};

/** Gives lib/access/order-grant.ts this implementation; called once at startup by each process's entry. */
export function provideOrderGrant(): void {
  provideOrderGrantQueries(orderGrantQueries);
}
