/** SQL of the order import: the portal accounts it fetches for, and channel_order (one row per channel order). Scoped by account. */
import type { Knex } from 'knex';
import { db } from '../db/knex';
import type { Connector } from '../portals/connector';

export interface ImportAccountRow {
  id: number;
  account_id: number;
  name: string;
  platform: string | null;
  connector: Connector | null;
  orders_fetched_until: Date | null;
  order_import_error: string | null;
}

/** What the channel said of an order at the last fetch: only its changes are applied. */
export interface ChannelState {
  paid_amount?: string;
  is_shipped?: boolean;
  is_cancelled?: boolean;
  modified_at?: string;
  /** A digest of the order's prices, shipping and addresses (channelDetails): its change completes the order (absent in rows kept before it). */
  details?: string;
}

export interface ChannelOrderRow {
  order_id: string | null;
  order_internal_id: string | null;
  channel_state: ChannelState;
}

const accountColumns = ['id', 'account_id', 'name', 'platform', 'connector', 'orders_fetched_until', 'order_import_error'];

export const orderImportRepository = {
  async account(accountId: number, id: number): Promise<ImportAccountRow | undefined> {
    return db()('portal_account').select(accountColumns).where({ account_id: accountId, id }).first();
  },

  /**
   * The portal accounts of the platforms given that the scheduler fetches for: connected (with
   * credentials, or a base URL of their own for a json middleware) and not refused since.
   */
  async connected(platforms: readonly string[]): Promise<{ id: number; account_id: number; platform: string; connector: Connector | null }[]> {
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
   * never moves back (two fetches at once).
   */
  async fetched(accountId: number, id: number, until: Date | null): Promise<void> {
    const watermark = until
      ? { orders_fetched_until: db().raw('GREATEST(COALESCE(orders_fetched_until, ?::timestamptz), ?::timestamptz)', [until, until]) }
      : {};
    await db()('portal_account')
      .where({ account_id: accountId, id })
      .update({ ...watermark, order_import_error: null });
  },

  async refused(accountId: number, id: number, message: string): Promise<void> {
    await db()('portal_account').where({ account_id: accountId, id }).update({ order_import_error: message });
  },

  /**
   * Claims a channel order for this transaction: true when it is new. A second fetcher of the
   * same order waits here on the first one's row until that commits, then finds it taken.
   */
  async claim(trx: Knex.Transaction, accountId: number, portalAccountId: number, externalOrderId: string): Promise<boolean> {
    const rows = (await trx('channel_order')
      .insert({ account_id: accountId, portal_account_id: portalAccountId, external_order_id: externalOrderId })
      .onConflict(['account_id', 'portal_account_id', 'external_order_id'])
      .ignore()
      .returning('external_order_id')) as unknown[];
    return rows.length === 1;
  },

  /**
   * Claims several channel orders for this transaction in one statement; the ones that are new.
   * Sorted first: two fetchers claiming overlapping pages take the keys in one order (no deadlock).
   */
  async claimMany(trx: Knex.Transaction, accountId: number, portalAccountId: number, externalOrderIds: string[]): Promise<Set<string>> {
    if (externalOrderIds.length === 0) return new Set();
    const rows = (await trx('channel_order')
      .insert([...externalOrderIds].sort().map((id) => ({ account_id: accountId, portal_account_id: portalAccountId, external_order_id: id })))
      .onConflict(['account_id', 'portal_account_id', 'external_order_id'])
      .ignore()
      .returning('external_order_id')) as { external_order_id: string }[];
    return new Set(rows.map((r) => r.external_order_id));
  },

  /** Gives back keys this transaction claimed but did not import (the orders domain refused them): a later fetch tries again. */
  async release(trx: Knex.Transaction, accountId: number, portalAccountId: number, externalOrderIds: string[]): Promise<void> {
    if (externalOrderIds.length === 0) return;
    await trx('channel_order').where({ account_id: accountId, portal_account_id: portalAccountId }).whereIn('external_order_id', externalOrderIds).delete();
  },

  /** The Kontor orders and channel states of several claimed channel orders, in one UPDATE ... FROM (VALUES ...). */
  async saveMany(
    trx: Knex.Transaction,
    accountId: number,
    portalAccountId: number,
    rows: { external_order_id: string; order_id: string; order_internal_id: string; channel_state: ChannelState }[],
  ): Promise<void> {
    if (rows.length === 0) return;
    const values = rows.map(() => '(?::text, ?::text, ?::bigint, ?::jsonb)').join(', ');
    const bindings = rows.flatMap((r) => [r.external_order_id, r.order_id, r.order_internal_id, JSON.stringify(r.channel_state)]);
    await trx.raw(
      `UPDATE channel_order c SET order_id = v.order_id, order_internal_id = v.order_internal_id, channel_state = v.channel_state, updated_at = now()
       FROM (VALUES ${values}) AS v(external_order_id, order_id, order_internal_id, channel_state)
       WHERE c.account_id = ? AND c.portal_account_id = ? AND c.external_order_id = v.external_order_id`,
      [...bindings, accountId, portalAccountId],
    );
  },

  /** The last channel state of each of these channel orders already imported (one query for a page). */
  async knownStates(accountId: number, portalAccountId: number, externalOrderIds: string[]): Promise<Map<string, ChannelState>> {
    const rows = (await db()('channel_order')
      .select('external_order_id', 'channel_state')
      .where({ account_id: accountId, portal_account_id: portalAccountId })
      .whereIn('external_order_id', externalOrderIds)) as { external_order_id: string; channel_state: ChannelState }[];
    return new Map(rows.map((r) => [r.external_order_id, r.channel_state]));
  },

  async lock(trx: Knex.Transaction, accountId: number, portalAccountId: number, externalOrderId: string): Promise<ChannelOrderRow> {
    return trx('channel_order')
      .select('order_id', 'order_internal_id', 'channel_state')
      .where({ account_id: accountId, portal_account_id: portalAccountId, external_order_id: externalOrderId })
      .forUpdate()
      .first() as Promise<ChannelOrderRow>;
  },

  async save(
    trx: Knex.Transaction,
    accountId: number,
    portalAccountId: number,
    externalOrderId: string,
    fields: { order_id?: string; order_internal_id?: string; channel_state: ChannelState },
  ): Promise<void> {
    await trx('channel_order')
      .where({ account_id: accountId, portal_account_id: portalAccountId, external_order_id: externalOrderId })
      .update({ ...fields, channel_state: JSON.stringify(fields.channel_state), updated_at: trx.fn.now() });
  },
};
