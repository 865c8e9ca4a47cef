/**
 * SQL of the order import: channel_order (one row per channel order), and the fetch's state on the
 * portal accounts, asked of lib/portal-account. Scoped by account.
 */
import type { Knex } from 'knex';
import { db } from '../db';
import { ImportAccountRow, portalAccountFetchRepository } from '../portal-account';

export type { ImportAccountRow };

/** What the channel said of an order at the last fetch: only its changes are applied. */
export interface ChannelState {
  paid_amount?: string;
  /**
   * The channel said the buyer paid (ChannelOrder.status.is_paid): its turning true without an
   * amount pays the order in full (ChannelChange.paid_in_full). Absent in rows kept before it: read
   * as unpaid (README "Known").
   */
  is_paid?: boolean;
  is_shipped?: boolean;
  is_cancelled?: boolean;
  modified_at?: string;
  /** A digest of the order's prices, shipping and addresses (channelDetails): its change completes the order (absent in rows kept before it). */
  details?: string;
  /** Each line's quantity by transaction_id (units the channel took out later leave the line; absent in rows kept before it). */
  lines?: Record<string, number>;
  /** The lines (transaction_id) whose cancellation the buyer has asked for and the channel not decided: told once. */
  requests?: string[];
  /**
   * Each line's unit price by transaction_id as the channel last showed it whole: a read that could
   * not show a part of it (ChannelOrderLine.price_unread) takes this one (absent in rows kept before it).
   */
  prices?: Record<string, string>;
  /**
   * The channel ships the order from its own warehouse, as it has said once (absent in rows kept
   * before it; never unset, but where it said so because a fulfilment app held every line and the
   * store gave one back: channel-order.mapper.ts linesBackSince).
   */
  fulfilled_by_channel?: boolean;
  /**
   * The lines (transaction_id) the channel has said a fulfilment app ships (ChannelOrderLine.fulfilled_by_app):
   * their stock went back once (absent in rows kept before it; never unset).
   */
  app_lines?: string[];
  /**
   * The lines the channel last showed at the seller's own locations (ChannelOrderLine.fulfilled_by_seller):
   * one of app_lines among them is given back to the seller (linesBackSince) and leaves app_lines.
   */
  seller_lines?: string[];
  /** The shipping fee as the channel last gave it: a lower one since is shipping it gave back (absent in rows kept before it, or a channel giving none). */
  shipping_fee?: string;
}

export interface ChannelOrderRow {
  order_id: string | null;
  order_internal_id: string | null;
  channel_state: ChannelState;
}

/** A row of channel_order (one per channel order imported); its key is (account, portal account, the channel's order id). */
export interface ChannelOrderTableRow extends ChannelOrderRow {
  account_id: number;
  portal_account_id: number;
  external_order_id: string;
  created_at: Date;
  updated_at: Date;
}

// The row type of channel_order for Knex (declared once here, lib/order-import owns the table). The
// channel state is written as JSON text (pg would send an object's keys as an array otherwise).
declare module 'knex/types/tables' {
  interface Tables {
    channel_order: Knex.CompositeTableType<
      ChannelOrderTableRow,
      Pick<ChannelOrderTableRow, 'account_id' | 'portal_account_id' | 'external_order_id'>,
      Partial<Omit<ChannelOrderTableRow, 'channel_state' | 'updated_at'>> & { channel_state?: string; updated_at?: Knex.Raw }
    >;
  }
}

export const orderImportRepository = {
  // The fetch's state lives on portal_account, which lib/portal-account owns: asked of it.
  account: portalAccountFetchRepository.account,
  connected: portalAccountFetchRepository.connected,
  fetched: portalAccountFetchRepository.fetched,
  refused: portalAccountFetchRepository.refused,

  /**
   * Claims a channel order for this transaction: true when it is new. A second fetcher of the
   * same order waits here on the first one's row until that commits, then finds it taken.
   */
  async claim(trx: Knex.Transaction, accountId: number, portalAccountId: number, externalOrderId: string): Promise<boolean> {
    const rows = await trx('channel_order')
      .insert({ account_id: accountId, portal_account_id: portalAccountId, external_order_id: externalOrderId })
      .onConflict(['account_id', 'portal_account_id', 'external_order_id'])
      .ignore()
      .returning('external_order_id');
    return rows.length === 1;
  },

  /**
   * Claims several channel orders for this transaction in one statement; the ones that are new.
   * Sorted first: two fetchers claiming overlapping pages take the keys in one order (no deadlock).
   */
  async claimMany(trx: Knex.Transaction, accountId: number, portalAccountId: number, externalOrderIds: string[]): Promise<Set<string>> {
    if (externalOrderIds.length === 0) return new Set();
    const rows = await trx('channel_order')
      .insert([...externalOrderIds].sort().map((id) => ({ account_id: accountId, portal_account_id: portalAccountId, external_order_id: id })))
      .onConflict(['account_id', 'portal_account_id', 'external_order_id'])
      .ignore()
      .returning('external_order_id');
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
    const rows = await db()('channel_order')
      .select('external_order_id', 'channel_state')
      .where({ account_id: accountId, portal_account_id: portalAccountId })
      .whereIn('external_order_id', externalOrderIds);
    return new Map(rows.map((r) => [r.external_order_id, r.channel_state]));
  },

  /**
   * Whether the channel said it ships the Kontor order (its internal id) from its own warehouse
   * (channel_state.fulfilled_by_channel, kept once said): lib/order's send_mit asks (ChannelFulfilmentQuery).
   */
  async fulfilledByChannel(trx: Knex.Transaction, accountId: number, orderInternalId: string): Promise<boolean> {
    const row = await trx('channel_order')
      .first('external_order_id')
      .where({ account_id: accountId, order_internal_id: orderInternalId })
      .whereRaw("(channel_state ->> 'fulfilled_by_channel')::boolean");
    return Boolean(row);
  },

  /** The row of a channel order a claim found taken (so it exists), locked. */
  async lock(trx: Knex.Transaction, accountId: number, portalAccountId: number, externalOrderId: string): Promise<ChannelOrderRow> {
    const row = await trx('channel_order')
      .where({ account_id: accountId, portal_account_id: portalAccountId, external_order_id: externalOrderId })
      .forUpdate()
      .first('order_id', 'order_internal_id', 'channel_state');
    return row!;
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
