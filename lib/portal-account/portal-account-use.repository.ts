/**
 * What other domains read and write of portal accounts, kept here because lib/portal-account owns
 * the table (scripts/check-tables.ts): the order fetch's state, the accounts' refs, names and
 * defaults. Every query is scoped by the seller account, but the scheduler's and eBay's sweeps
 * over all accounts, which say so.
 */
import type { Knex } from 'knex';
import type { Statement } from '../db';
import { db } from '../db';
import type { Connector } from '../portals';
import type { PortalAccountRow } from './portal-account.repository';

/** A portal account as the order fetch reads it (lib/order-import). */
export type ImportAccountRow = Pick<
  PortalAccountRow,
  | 'id'
  | 'account_id'
  | 'name'
  | 'platform'
  | 'connector'
  | 'orders_fetched_until'
  | 'order_import_error'
  | 'orders_fetch_cursor'
  | 'orders_fetch_since'
  | 'orders_fetch_started'
>;

/** An order fetch cut short at its page cap, for the next fetch to go on with (lib/order-import). */
export interface PendingFetch {
  cursor: string;
  since: Date;
  started: Date;
}

/** A seller's portal account as CIA and the uploads pick one: its id, platform and default flag. */
export interface PortalAccountBrief {
  id: number;
  platform: string | null;
  is_default: boolean;
}

/** The order fetch's state on a portal account (lib/order-import): watermark and last refusal. */
export const portalAccountFetchRepository = {
  async account(accountId: number, id: number): Promise<ImportAccountRow | undefined> {
    return db()('portal_account')
      .where({ account_id: accountId, id })
      .first(
        'id',
        'account_id',
        'name',
        'platform',
        'connector',
        'orders_fetched_until',
        'order_import_error',
        'orders_fetch_cursor',
        'orders_fetch_since',
        'orders_fetch_started',
      );
  },

  /**
   * The portal accounts of the platforms given that the scheduler fetches for (all seller
   * accounts): connected (with credentials, or a base URL of their own for a json middleware) and
   * not refused since.
   */
  async connected(platforms: readonly string[]): Promise<Pick<PortalAccountRow, 'id' | 'account_id' | 'platform' | 'connector'>[]> {
    return db()('portal_account')
      .select('id', 'account_id', 'platform', 'connector')
      .whereIn('platform', platforms)
      .whereNull('order_import_error')
      .where((q) => q.whereNotNull('credentials').orWhereNotNull('base_url'))
      .orderBy('id');
  },

  /**
   * A fetch went through: the channel took the credentials (a refusal is cleared), and orders
   * changed up to `until` are in (null: the fetch left a gap, the watermark stays); the watermark
   * never moves back (two fetches at once). `pending`: a fetch cut short to go on with (kept), null
   * to drop the one kept (its range is in), undefined to leave it.
   */
  async fetched(accountId: number, id: number, until: Date | null, pending?: PendingFetch | null): Promise<void> {
    const watermark = until
      ? { orders_fetched_until: db().raw('GREATEST(COALESCE(orders_fetched_until, ?::timestamptz), ?::timestamptz)', [until, until]) }
      : {};
    const chain =
      pending === undefined
        ? {}
        : { orders_fetch_cursor: pending?.cursor ?? null, orders_fetch_since: pending?.since ?? null, orders_fetch_started: pending?.started ?? null };
    await db()('portal_account')
      .where({ account_id: accountId, id })
      .update({ ...watermark, ...chain, order_import_error: null });
  },

  async refused(accountId: number, id: number, message: string): Promise<void> {
    await db()('portal_account').where({ account_id: accountId, id }).update({ order_import_error: message });
  },
};

/** Portal accounts as other domains refer to them. */
export const portalAccountRefRepository = {
  /** The account's portal accounts in id order (an upload picks the named one or the default). */
  async refs(knex: Knex, accountId: number): Promise<PortalAccountBrief[]> {
    return knex('portal_account').select('id', 'platform', 'is_default').where({ account_id: accountId }).orderBy('id');
  },

  /**
   * refs as SQL to embed, so that CIA reads them in the same round trip as its states: one row
   * per portal account (id, platform, is_default).
   */
  refsStatement(accountId: number): Statement {
    return { sql: 'SELECT id, platform, is_default FROM portal_account WHERE account_id = ?', bindings: [accountId] };
  },

  /** The account's portal accounts' ids and names, as a subquery to join (lib/auth's list of client accesses). */
  namesQuery(knex: Knex, accountId: number): Knex.QueryBuilder {
    return knex('portal_account').select('id', 'name').where({ account_id: accountId });
  },

  /** Takes the default flag from the account's current default portal account (one default per account). */
  async clearDefault(trx: Knex.Transaction, accountId: number): Promise<void> {
    await trx('portal_account').where({ account_id: accountId, is_default: true }).update({ is_default: false });
  },

  /** Every portal account (all seller accounts) using the connector: eBay's account deletions sweep them. */
  async withConnector(knex: Knex, connector: Connector): Promise<{ account_id: number; id: number }[]> {
    return knex('portal_account').select('account_id', 'id').where({ connector });
  },
};
