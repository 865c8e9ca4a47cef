/**
 * What other domains read of seller accounts, kept here because lib/account owns the table
 * (scripts/check-tables.ts): statements to embed where one round trip matters, and the account
 * row's lock that serialises a count-then-insert of its children.
 */
import type { Knex } from 'knex';
import type { Statement } from '../db';

export const accountUseRepository = {
  /** Every seller account's id, as SQL to use in a FROM (a sweep over all accounts). */
  allIdsStatement(): Statement {
    return { sql: 'SELECT id FROM account', bindings: [] };
  },

  /**
   * Whether the account subtracts the auction_a listed quantity from quantity_available (its
   * setting is_auction_a_quantity_subtracted), as a scalar subquery to embed in stock's statements.
   */
  auctionASubtractedStatement(accountId: number): Statement {
    return { sql: '(SELECT is_auction_a_quantity_subtracted FROM account WHERE id = ?)', bindings: [accountId] };
  },

  /**
   * Locks the account's row (FOR NO KEY UPDATE) until the transaction ends: two transactions
   * that count the account's rows of a kind before adding one do so in turn.
   */
  async lock(trx: Knex.Transaction, accountId: number): Promise<void> {
    await trx('account').where({ id: accountId }).forNoKeyUpdate().first('id');
  },
};
