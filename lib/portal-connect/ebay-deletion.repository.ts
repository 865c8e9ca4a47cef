/**
 * The statements of an eBay account deletion (issue 30 point 3): the seller accounts connected
 * to eBay, and that buyer's data in their eBay orders and customer records made less
 * (lib/portals/README.md says what goes and what stays). Every write is scoped to the accounts
 * connected to eBay. The portal accounts, orders and customers belong to lib/portal-account,
 * lib/order and lib/customer (scripts/check-tables.ts): each statement is asked of its owner;
 * ebay_account_deletion is this folder's.
 */
import type { Knex } from 'knex';
import { customerAnonymiseRepository } from '../customer';
import { orderScopeRepository } from '../order';
import { portalAccountRefRepository } from '../portal-account';

export const ebayDeletionRepository = {
  /** The seller accounts with a portal account connected to eBay, and those portal accounts. */
  async ebayAccounts(knex: Knex): Promise<{ accountIds: number[]; portalAccountIds: number[] }> {
    const rows = await portalAccountRefRepository.withConnector(knex, 'ebay');
    return { accountIds: [...new Set(rows.map((r) => r.account_id))], portalAccountIds: rows.map((r) => r.id) };
  },

  /** The buyer's eBay orders made less (lib/order says how); the account ids of the rows changed come back. */
  anonymiseOrders: orderScopeRepository.anonymiseEbayBuyer,

  /**
   * The customer records of the buyer's eBay orders (run before the orders lose the username):
   * every contact field goes, the number stays; the account ids of the records changed come back.
   */
  async anonymiseCustomers(trx: Knex.Transaction, accountIds: number[], portalAccountIds: number[], username: string): Promise<number[]> {
    const buyers = orderScopeRepository.ebayBuyerCustomers(trx, accountIds, portalAccountIds, username);
    return customerAnonymiseRepository.anonymise(trx, accountIds, buyers, username);
  },

  /** What was done for a notification (a redelivery updates the same row). */
  async record(knex: Knex, notificationId: string, done: { accounts: number; orders: number; customers: number }): Promise<void> {
    await knex('ebay_account_deletion')
      .insert({ notification_id: notificationId, finished_at: knex.fn.now(), ...done })
      .onConflict('notification_id')
      .merge({ finished_at: knex.fn.now(), ...done });
  },
};
