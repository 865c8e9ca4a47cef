/**
 * The statements of an eBay account deletion (issue 30 point 3): the seller accounts connected
 * to eBay, and that buyer's data in their eBay orders and customer records made less
 * (lib/portals/README.md says what goes and what stays). Every write is scoped to the accounts
 * connected to eBay. These tables belong to lib/order and lib/customer; the anonymisation is one
 * statement each, kept here beside the rule that decides it (see lib/portals/README.md).
 */
import type { Knex } from 'knex';

/** An address reduced to its country: what VAT and statistics need, nothing that finds the person. */
const countryOnly = (column: string) => `jsonb_strip_nulls(jsonb_build_object('country_iso2', ${column} -> 'address' -> 'country_iso2'))`;

/** The buyer's orders from eBay, in the accounts connected to eBay (bindings: username, account ids, eBay portal account ids). */
const buyerOrders = `customer_username = ? AND account_id = ANY(?::int[]) AND (platform = 'auction_a' OR portal_account_id = ANY(?::int[]))`;

export const ebayDeletionRepository = {
  /** The seller accounts with a portal account connected to eBay, and those portal accounts. */
  async ebayAccounts(knex: Knex): Promise<{ accountIds: number[]; portalAccountIds: number[] }> {
    const rows = (await knex('portal_account').select('account_id', 'id').where({ connector: 'ebay' })) as { account_id: number; id: number }[];
    return { accountIds: [...new Set(rows.map((r) => r.account_id))], portalAccountIds: rows.map((r) => r.id) };
  },

  /**
   * The buyer's eBay orders in the accounts given (those of their eBay portal accounts or of
   * platform auction_a): username, e-mail, phones, fax, comment and the delivery address go; an
   * invoiced order keeps its billing name, address and VAT id (the invoice's recipient, kept by
   * law); one not invoiced keeps only the countries. Amounts, lines, dates and ids stay. One
   * statement for every account (the username's trigram index finds the rows); the account ids
   * of the rows changed come back.
   */
  async anonymiseOrders(trx: Knex.Transaction, accountIds: number[], portalAccountIds: number[], username: string): Promise<number[]> {
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

  /**
   * The customer records of the buyer's eBay orders (run before the orders lose the username):
   * every contact field goes, the number stays; the account ids of the records changed come back.
   */
  async anonymiseCustomers(trx: Knex.Transaction, accountIds: number[], portalAccountIds: number[], username: string): Promise<number[]> {
    const { rows } = (await trx.raw(
      `UPDATE customer SET
         username = NULL, email = NULL, phone_1 = NULL, phone_2 = NULL, fax = NULL, comment = NULL, vat_id = NULL,
         address_name = NULL, address = NULL, shop_username = array_remove(shop_username, ?), updated_at = now()
       WHERE account_id = ANY(?::int[]) AND internal_id IN (SELECT customer_internal_id FROM sales_order WHERE ${buyerOrders})
       RETURNING account_id`,
      [username, accountIds, username, accountIds, portalAccountIds],
    )) as { rows: { account_id: number }[] };
    return rows.map((r) => r.account_id);
  },

  /** What was done for a notification (a redelivery updates the same row). */
  async record(knex: Knex, notificationId: string, done: { accounts: number; orders: number; customers: number }): Promise<void> {
    await knex('ebay_account_deletion')
      .insert({ notification_id: notificationId, finished_at: knex.fn.now(), ...done })
      .onConflict('notification_id')
      .merge({ finished_at: knex.fn.now(), ...done });
  },
};
