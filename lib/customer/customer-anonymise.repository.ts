/** A buyer's customer records made less (eBay account deletion, lib/portal-connect); scoped by the accounts given. */
import type { Knex } from 'knex';

export const customerAnonymiseRepository = {
  /**
   * The customer records given (internal ids: a subquery the caller builds, e.g. of the buyer's
   * orders, asked of lib/order) lose every contact field, the number stays; the username leaves
   * shop_username. The account ids of the records changed come back.
   */
  async anonymise(trx: Knex.Transaction, accountIds: number[], internalIds: Knex.QueryBuilder, username: string): Promise<number[]> {
    const { rows } = (await trx.raw(
      `UPDATE customer SET
         username = NULL, email = NULL, phone_1 = NULL, phone_2 = NULL, fax = NULL, comment = NULL, vat_id = NULL,
         address_name = NULL, address = NULL, shop_username = array_remove(shop_username, ?), updated_at = now()
       WHERE account_id = ANY(?::int[]) AND internal_id IN ?
       RETURNING account_id`,
      [username, accountIds, internalIds],
    )) as { rows: { account_id: number }[] };
    return rows.map((r) => r.account_id);
  },
};
