/**
 * The statements of an eBay account deletion (issue 30 point 3): the seller accounts connected
 * to eBay, and, per account, that buyer's data in its eBay orders and customer records made
 * less (ebay-deletion.service.ts says what goes and what stays). Every write is scoped by the
 * account. These tables belong to lib/order and lib/customer; the anonymisation is one
 * statement each, kept here beside the rule that decides it (see lib/portals/README.md).
 */
import type { Knex } from 'knex';

/** An address reduced to its country: what VAT and statistics need, nothing that finds the person. */
const countryOnly = (column: string) => `jsonb_strip_nulls(jsonb_build_object('country_iso2', ${column} -> 'address' -> 'country_iso2'))`;

export const ebayDeletionRepository = {
  /** Every seller account with a portal account connected to eBay, and those portal accounts. */
  async ebayAccounts(knex: Knex): Promise<Map<number, number[]>> {
    const rows = (await knex('portal_account').select('account_id', 'id').where({ connector: 'ebay' }).orderBy(['account_id', 'id'])) as {
      account_id: number;
      id: number;
    }[];
    const out = new Map<number, number[]>();
    for (const row of rows) out.set(row.account_id, [...(out.get(row.account_id) ?? []), row.id]);
    return out;
  },

  /**
   * The buyer's eBay orders of one account (those of its eBay portal accounts or of platform
   * auction_a): username, e-mail, phones, fax, comment and the delivery address go; an invoiced
   * order keeps its billing name, address and VAT id (the invoice's recipient, kept by law);
   * one not invoiced keeps only the countries. Amounts, lines, dates and ids stay.
   */
  async anonymiseOrders(trx: Knex.Transaction, accountId: number, portalAccountIds: number[], username: string): Promise<number> {
    const result = await trx.raw(
      `UPDATE sales_order SET
         customer_username = NULL,
         customer_email = NULL,
         customer = CASE WHEN invoice_number IS NULL
           THEN jsonb_build_object('address', ${countryOnly('customer')})
           ELSE customer - 'username' - 'email' - 'phone_1' - 'phone_2' - 'fax' - 'comment' END,
         shipping = CASE WHEN shipping -> 'address' IS NOT NULL THEN jsonb_set(shipping, '{address}', ${countryOnly('shipping')}) ELSE shipping END,
         updated_at = now()
       WHERE account_id = ? AND customer_username = ? AND (platform = 'auction_a' OR portal_account_id = ANY(?::int[]))`,
      [accountId, username, portalAccountIds],
    );
    return (result as { rowCount: number }).rowCount;
  },

  /** The buyer's customer records of one account (its eBay username, or among its shop usernames): every contact field goes, the number stays. */
  async anonymiseCustomers(trx: Knex.Transaction, accountId: number, username: string): Promise<number> {
    const result = await trx.raw(
      `UPDATE customer SET
         username = NULL, email = NULL, phone_1 = NULL, phone_2 = NULL, fax = NULL, comment = NULL, vat_id = NULL,
         address_name = NULL, address = NULL, shop_username = array_remove(shop_username, ?), updated_at = now()
       WHERE account_id = ? AND (username = ? OR ? = ANY(shop_username))`,
      [username, accountId, username, username],
    );
    return (result as { rowCount: number }).rowCount;
  },

  /** What was done for a notification (a redelivery updates the same row). */
  async record(knex: Knex, notificationId: string, done: { accounts: number; orders: number; customers: number }): Promise<void> {
    await knex('ebay_account_deletion')
      .insert({ notification_id: notificationId, finished_at: knex.fn.now(), ...done })
      .onConflict('notification_id')
      .merge({ finished_at: knex.fn.now(), ...done });
  },
};
