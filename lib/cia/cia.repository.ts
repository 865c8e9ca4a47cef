import type { Knex } from 'knex';
import { now } from '../clock';
import { prepared } from '../db';
import { portalAccountRefRepository } from '../portal-account';
import { quantityPushFields } from '../portals';
import { stockPortalRepository } from '../stock';

/** One row of cia_portal_state. */
export interface CiaStateRow {
  id: string;
  account_id: number;
  stock_id: number;
  portal: string;
  portal_account_id: number;
  desired_quantity: number;
  desired_seq: string;
  acked_quantity: number | null;
  acked_seq: string;
  refused_seq: string;
  /** Held by the portal's own limit until then (eBay's revisions of a listing a day); read where a state is shown. */
  held_until?: Date | string | null;
  /** The portal's last refusal or the reason it is held; read where a state is shown. */
  last_error?: string | null;
}

/**
 * What a state's item is offered under at its portal: its SKU and the fields of its field group
 * entry there that a quantity push reads (lib/portals quantityPushFields). A deleted item's 0 is
 * pushed under it (README "A deleted item's offers go to 0").
 */
export interface OfferedUnder {
  sku: string | null;
  group: Record<string, unknown>;
}

/** A row of cia_portal_state as stored (CiaStateRow and what only the table keeps). */
export interface CiaStateTableRow extends CiaStateRow {
  acked_at: Date | null;
  last_error: string | null;
  held_until: Date | null;
  updated_at: Date;
  /** Where the channel last took a quantity of the item, else where it was when the state was set up; null: unknown (the item was deleted before this was kept). */
  offered_under: OfferedUnder | null;
}

/** The sequences: bigint, read as text; written as numbers too. */
type Sequences = 'desired_seq' | 'acked_seq' | 'refused_seq';

// The row type of cia_portal_state for Knex (declared once here, lib/cia owns the table).
declare module 'knex/types/tables' {
  interface Tables {
    cia_portal_state: Knex.CompositeTableType<
      CiaStateTableRow,
      Partial<CiaStateTableRow>,
      Partial<Omit<CiaStateTableRow, Sequences>> & Partial<Record<Sequences, string | number | Knex.Raw>>
    >;
  }
}

/**
 * A waiting state with what a channel needs to name the item: its SKU and its field group there;
 * a deleted item's from what it was offered under (`offered_under`: the SKU and the group's
 * fields a quantity push reads), null when that is unknown.
 */
export interface WaitingStateRow extends CiaStateRow {
  sku: string | null;
  grp: unknown;
  /** What this push names the item by, where that is not what the state keeps: `ack` keeps it once the channel took the quantity. */
  offeredNow?: OfferedUnder;
}

/** A portal account as CIA chooses targets. */
export interface PortalAccountRef {
  id: number;
  platform: string | null;
  is_default: boolean;
}

/** One item of setDesired: its current (locked) states and the quantities wanted now. */
export interface DesiredItem {
  stockId: number;
  current: CiaStateRow[];
  wanted: { portal: string; portalAccountId: number; quantity: number }[];
}

/** Where quantity pushes go: one portal account at one portal. */
export interface PushTarget {
  portal: string;
  portalAccountId: number;
}

/** The columns of a cia_portal_state row (CiaStateRow and what a push records). */
const stateColumns = [
  'id',
  'account_id',
  'stock_id',
  'portal',
  'portal_account_id',
  'desired_quantity',
  'desired_seq',
  'acked_quantity',
  'acked_seq',
  'refused_seq',
] as const;

/** quantityPushFields as an SQL array (constant names: checked, not bound, so a fragment may appear anywhere in a statement). */
const pushFieldsSql = `ARRAY[${quantityPushFields
  .map((f) => {
    if (!/^[a-z_]+$/.test(f)) throw new Error(`unexpected field name ${f}`);
    return `'${f}'`;
  })
  .join(', ')}]::text[]`;

/**
 * SQL of what an item is offered under (OfferedUnder) from SQL expressions of its SKU and its
 * field group of the portal as stored (data -> portal): the entry a push reads (the object, or a
 * lister group's first entry, as lib/portals fieldGroupEntry without a lister) cut to
 * quantityPushFields. Not the whole group: it may hold descriptions of 500,000 characters.
 */
function offeredUnderSql(sku: string, grp: string): string {
  return `(SELECT jsonb_build_object('sku', ${sku}, 'group', coalesce((
      SELECT jsonb_object_agg(f.key, f.value)
      FROM jsonb_each(CASE WHEN jsonb_typeof(x.g) = 'object' THEN x.g WHEN jsonb_typeof(x.g -> 0) = 'object' THEN x.g -> 0 ELSE '{}'::jsonb END) f
      WHERE f.key = ANY(${pushFieldsSql})), '{}'::jsonb))
    FROM (SELECT ${grp} AS g) x)`;
}

/** SQL of a text that names something only when it is not blank (the adapters' `text`: a blank SKU is none). */
const named = (sql: string) => `CASE WHEN btrim(${sql}) <> '' THEN ${sql} END`;

/**
 * SQL (of a cia_portal_state row `s`) of the SKU a channel that knows offers by SKU is told for a
 * deleted item, from what it was offered under, per portal: what each real connector's quantity
 * push names it by (eBay ebaySku, Amazon sellerSku, Shopify skuOf: the entry's sku, else the
 * item's, else the stock id or stock-<id>; Kaufland idOfferOf: the item's SKU, else the stock id).
 * A state without `offered_under` (deleted before it was kept) goes under the stock id. The other
 * portals' JSON dialect names an offer by the stock id, which no other item ever has.
 */
const offerNameSql: Readonly<Record<string, string>> = (() => {
  const entry = named("s.offered_under -> 'group' ->> 'sku'");
  const own = named("s.offered_under ->> 'sku'");
  return {
    auction_a: `coalesce(${entry}, ${own}, s.stock_id::text)`,
    market_d: `coalesce(${entry}, ${own}, s.stock_id::text)`,
    webshop: `coalesce(${entry}, ${own}, 'stock-' || s.stock_id)`,
    market_e: `coalesce(${own}, s.stock_id::text)`,
  };
})();

/**
 * SQL true when a live item of the account holds the SKU a deleted item's state `s` (at a portal
 * of offerNameSql) would be pushed under: the channel's offer of that SKU is that item's now
 * (its orders are imported as that item's), so the deleted item's 0 would zero its quantity.
 * README "A deleted item's SKU taken by another item".
 */
function nameTakenSql(knex: Knex, accountId: number, portal: string): Knex.Raw {
  // A count, not EXISTS: an EXISTS is planned to stop at its first row, and the planner, which
  // guesses 1% of the items for an @> on the auction_a index, walked the account's items reading
  // each one's data instead (12 s for 40 states among 30,000 items); counted, it asks the indexes.
  return knex.raw('(SELECT count(*) FROM ? holders) > 0', [stockPortalRepository.channelSkuHoldersQuery(knex, accountId, portal, offerNameSql[portal]!)]);
}

/** SQL of the cross-channel quantity adjustment; every query is scoped by the account. */
export const ciaRepository = {
  /**
   * Serialises the adjustments of the items (held until the transaction ends), one statement
   * taking the locks in id order: adjustments of overlapping sets of items never deadlock.
   */
  async lockItems(trx: Knex.Transaction, accountId: number, stockIds: number[]): Promise<void> {
    await trx
      .raw("SELECT pg_advisory_xact_lock(hashtextextended('cia:' || ? || ':' || t.id, 0)) FROM (SELECT DISTINCT unnest(?::int[]) AS id ORDER BY 1) t", [
        accountId,
        stockIds,
      ])
      .options(prepared);
  },

  /**
   * Serialises the pushes to one portal account at one portal: batches never overlap, so an
   * older quantity never arrives after a newer one.
   */
  async lockTarget(trx: Knex.Transaction, accountId: number, target: PushTarget): Promise<void> {
    await trx
      .raw("SELECT pg_advisory_xact_lock(hashtextextended('cia-push:' || ? || ':' || ? || ':' || ?, 0))", [accountId, target.portal, target.portalAccountId])
      .options(prepared);
  },

  /** The seller's portal accounts as CIA chooses targets (an adjustment reads them with its states, statesAndAccounts). */
  async accounts(knex: Knex, accountId: number): Promise<PortalAccountRef[]> {
    return portalAccountRefRepository.refs(knex, accountId);
  },

  /**
   * Everything an adjustment reads besides the item, in one round trip: the seller's portal
   * accounts, and the item's states, locked in id order. Every writer of states locks them in
   * id order (a push locks those of one target): an adjustment and a push never deadlock.
   */
  async statesAndAccounts(trx: Knex.Transaction, accountId: number, stockIds: number[]): Promise<{ states: CiaStateRow[]; accounts: PortalAccountRef[] }> {
    // The portal accounts are lib/portal-account's: its statement, embedded to keep one round trip.
    const accounts = portalAccountRefRepository.refsStatement(accountId);
    const { rows } = (await trx
      .raw(
        `
      SELECT
        (SELECT coalesce(json_agg(a ORDER BY a.id), '[]') FROM (
          ${accounts.sql}) a) AS accounts,
        (SELECT coalesce(json_agg(s ORDER BY s.id), '[]') FROM (
          SELECT id::text AS id, account_id, stock_id, portal, portal_account_id, desired_quantity, desired_seq::text AS desired_seq,
                 acked_quantity, acked_seq::text AS acked_seq, refused_seq::text AS refused_seq, held_until, last_error
          FROM cia_portal_state WHERE account_id = ? AND stock_id = ANY(?::int[]) ORDER BY id FOR UPDATE) s) AS states`,
        [...accounts.bindings, accountId, stockIds],
      )
      .options(prepared)) as { rows: { accounts: PortalAccountRef[]; states: CiaStateRow[] }[] };
    return rows[0]!;
  },

  /**
   * Sets the wanted quantities of items, given their current (locked) states: writes, in one
   * statement, only the states that are new or whose quantity changes, moving their sequence.
   * A new state keeps what its item is offered under now (`offered_under`, from the item's row in
   * the same statement): a push records it again only when the channel takes a quantity under
   * something else, and an item deleted before its first push still names its SKU.
   * Returns per item the state of every wanted key, with `changed`, in id order.
   */
  async setDesired(trx: Knex.Transaction, accountId: number, items: DesiredItem[]): Promise<Map<number, (CiaStateRow & { changed: boolean })[]>> {
    const key = (stockId: number, portal: string, portalAccountId: number) => `${stockId}|${portal}|${portalAccountId}`;
    const byKey = new Map(items.flatMap((item) => item.current.map((r) => [key(item.stockId, r.portal, r.portal_account_id), r] as const)));
    // One row per key: a statement may not update the same row twice (market_d [5, 5]).
    const wanted = items.map((item) => ({
      stockId: item.stockId,
      wanted: [...new Map(item.wanted.map((w) => [key(item.stockId, w.portal, w.portalAccountId), w])).values()],
    }));
    const changes = wanted.flatMap((item) =>
      item.wanted
        .filter((w) => byKey.get(key(item.stockId, w.portal, w.portalAccountId))?.desired_quantity !== w.quantity)
        .map((w) => ({ stockId: item.stockId, ...w, isNew: !byKey.has(key(item.stockId, w.portal, w.portalAccountId)) })),
    );
    const written = new Map<string, CiaStateRow>();
    if (changes.length > 0) {
      // The item's row is lib/stock's: its subquery, scoped to the account, joined only for a
      // new state (v.new): a state that exists keeps what it holds, and reading the row for it
      // read the whole item data (descriptions of 400,000 characters) on every quantity change.
      // A deleted item has no row: its states exist already.
      const { rows } = (await trx.raw(
        `
        INSERT INTO cia_portal_state (account_id, stock_id, portal, portal_account_id, desired_quantity, offered_under)
        SELECT ?::int, v.stock_id, v.portal, v.portal_account_id, v.quantity,
               CASE WHEN st.id IS NOT NULL THEN ${offeredUnderSql('st.sku', 'st.data -> v.portal')} END
        FROM (VALUES ${changes.map(() => '(?::int, ?::text, ?::int, ?::int, ?::boolean)').join(', ')}) AS v(stock_id, portal, portal_account_id, quantity, new)
        LEFT JOIN (?) st ON v.new AND st.id = v.stock_id
        WHERE true
        ON CONFLICT (account_id, stock_id, portal, portal_account_id) DO UPDATE
          SET desired_quantity = EXCLUDED.desired_quantity, desired_seq = cia_portal_state.desired_seq + 1, updated_at = now(), held_until = NULL,
              offered_under = coalesce(cia_portal_state.offered_under, EXCLUDED.offered_under)
        RETURNING *`,
        [
          accountId,
          ...changes.flatMap((w) => [w.stockId, w.portal, w.portalAccountId, w.quantity, w.isNew]),
          stockPortalRepository.itemDataQuery(trx, accountId),
        ],
      )) as { rows: CiaStateRow[] };
      for (const row of rows) written.set(key(row.stock_id, row.portal, row.portal_account_id), row);
    }
    return new Map(
      wanted.map((item) => [
        item.stockId,
        item.wanted
          .map((w) => {
            const k = key(item.stockId, w.portal, w.portalAccountId);
            const row = written.get(k);
            return row ? { ...row, changed: true } : { ...byKey.get(k)!, changed: false };
          })
          .sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1)),
      ]),
    );
  },

  /**
   * The states of a push target the portal has not acknowledged yet, by item, leaving out those
   * it refused at their current sequence and those it holds until after `at` (lib/clock's now).
   * An item's SKU and field group are its row's; a deleted item's what its state was offered
   * under (the row is gone: read from it, the SKU was null, and every adapter sent the 0 under
   * the stock id, which names no offer made by SKU). Where the row names the item otherwise than
   * the state keeps, `offeredNow` carries it for `ack`. A deleted item's state whose SKU a live
   * item holds now is left out (its 0 would zero that item's offer; every push reads states here:
   * the first, a retry, a push sent again); the item's next adjustment removes it (`takenOver`).
   */
  async waiting(knex: Knex, accountId: number, target: PushTarget, limit: number, at: Date = new Date(now())): Promise<WaitingStateRow[]> {
    // The items' SKU and field group are lib/stock's: its subquery, already scoped to the account.
    // The holders' lookup runs only for a deleted item's state (st.id null), never for an item's.
    const byName = Object.hasOwn(offerNameSql, target.portal);
    const rows = (await knex('cia_portal_state as s')
      .leftJoin(stockPortalRepository.portalFieldsQuery(knex, accountId, target.portal).as('st'), 'st.id', 's.stock_id')
      .joinRaw(`LEFT JOIN LATERAL (SELECT CASE WHEN st.id IS NOT NULL THEN ${offeredUnderSql('st.sku', 'st.grp')} END AS offered) o ON true`)
      .select(
        ...stateColumns.map((c) => `s.${c}`),
        's.last_error',
        knex.raw("CASE WHEN st.id IS NULL THEN s.offered_under ->> 'sku' ELSE st.sku END AS sku"),
        knex.raw("CASE WHEN st.id IS NULL THEN s.offered_under -> 'group' ELSE st.grp END AS grp"),
        knex.raw('CASE WHEN o.offered IS DISTINCT FROM s.offered_under THEN o.offered END AS offered_now'),
      )
      .where({ 's.account_id': accountId, 's.portal': target.portal, 's.portal_account_id': target.portalAccountId })
      .whereRaw('s.acked_seq < s.desired_seq AND s.refused_seq < s.desired_seq AND (s.held_until IS NULL OR s.held_until <= ?)', [at])
      .modify((q) => {
        if (byName) q.whereRaw('(st.id IS NOT NULL OR NOT ?)', [nameTakenSql(knex, accountId, target.portal)]);
      })
      .orderBy('s.stock_id')
      .limit(limit)
      .options(prepared)) as (Omit<WaitingStateRow, 'offeredNow'> & { offered_now: OfferedUnder | null })[];
    return rows.map(({ offered_now, ...row }) => (offered_now ? { ...row, offeredNow: offered_now } : row));
  },

  /**
   * Every (account, portal, portal account) with a state still waiting and not refused, nor held
   * beyond `at` (all accounts: the push sweep is infrastructure). With settledSeconds, only
   * states unchanged that long and without an error; a held state whose time has come counts
   * (its reason is its last_error): nothing else would push it again.
   */
  async waitingTargets(
    knex: Knex,
    settledSeconds?: number,
    at: Date = new Date(now()),
  ): Promise<{ account_id: number; portal: string; portal_account_id: number }[]> {
    const query = knex('cia_portal_state')
      .distinct('account_id', 'portal', 'portal_account_id')
      .whereRaw('acked_seq < desired_seq AND refused_seq < desired_seq AND (held_until IS NULL OR held_until <= ?)', [at]);
    if (settledSeconds !== undefined) {
      query.whereRaw('(last_error IS NULL OR held_until IS NOT NULL)').where('updated_at', '<', knex.raw('now() - make_interval(secs => ?)', [settledSeconds]));
    }
    return query;
  },

  /**
   * Records what the portal acknowledged for `acked`, in one statement that first locks every
   * state of the batch (`sent`) in id order; a state never moves back to an older sequence.
   * An acknowledged state sent under other names than it keeps (`offeredNow`: the item's SKU or
   * field group changed since) keeps those now, in a second statement of rows already locked:
   * the channel took the quantity there, so that is where a deleted item's 0 goes.
   */
  async ack(trx: Knex.Transaction, accountId: number, sent: CiaStateRow[], acked: (CiaStateRow & Pick<WaitingStateRow, 'offeredNow'>)[]): Promise<void> {
    await trx
      .raw(
        `
      WITH locked AS MATERIALIZED (SELECT id FROM cia_portal_state WHERE account_id = ? AND id = ANY(?::bigint[]) ORDER BY id FOR UPDATE)
      UPDATE cia_portal_state s SET acked_seq = v.seq, acked_quantity = v.quantity, acked_at = now(), last_error = NULL, held_until = NULL
      FROM unnest(?::bigint[], ?::bigint[], ?::integer[]) AS v(id, seq, quantity)
      WHERE s.id = v.id AND s.acked_seq < v.seq AND s.id IN (SELECT id FROM locked)`,
        [accountId, sent.map((s) => s.id), acked.map((s) => s.id), acked.map((s) => s.desired_seq), acked.map((s) => s.desired_quantity)],
      )
      .options(prepared);
    const renamed = acked.filter((s) => s.offeredNow !== undefined);
    if (renamed.length === 0) return;
    await trx.raw(
      `UPDATE cia_portal_state s SET offered_under = v.offered
       FROM jsonb_to_recordset(?::jsonb) AS v(id bigint, offered jsonb) WHERE s.account_id = ? AND s.id = v.id`,
      [JSON.stringify(renamed.map((s) => ({ id: s.id, offered: s.offeredNow }))), accountId],
    );
  },

  /**
   * The ids of these states of deleted items (locked by the caller) whose SKU at their portal a
   * live item of the account holds now: their 0 is not to be pushed (`waiting` leaves them out)
   * and the adjustment removes them. One statement; none for an item that exists.
   */
  async takenOver(trx: Knex.Transaction, accountId: number, states: CiaStateRow[]): Promise<string[]> {
    const portals = [...new Set(states.map((s) => s.portal))].filter((p) => Object.hasOwn(offerNameSql, p));
    if (portals.length === 0) return [];
    const ids = states.filter((s) => portals.includes(s.portal)).map((s) => s.id);
    const rows = (await trx('cia_portal_state as s')
      .select('s.id')
      .where('s.account_id', accountId)
      .whereIn('s.id', ids)
      .where((q) => {
        for (const portal of portals) q.orWhere((p) => p.where('s.portal', portal).whereRaw('?', [nameTakenSql(trx, accountId, portal)]));
      })) as { id: string }[];
    return rows.map((r) => String(r.id));
  },

  /** The portal refused the item's quantity at this sequence: not sent again until it changes. */
  async refuse(trx: Knex.Transaction, state: CiaStateRow, error: string): Promise<void> {
    await trx('cia_portal_state')
      .where('id', state.id)
      .where('refused_seq', '<', state.desired_seq)
      .update({ refused_seq: state.desired_seq, last_error: error.slice(0, 1000) });
  },

  /**
   * The portal holds these states' quantities by its own limit until a time (eBay's revisions of
   * a listing a day): not sent, not refused, not failing the push; the sweep sends them again
   * then. The reason is their last_error, which the CIA state shows. One statement for the batch.
   * Only at the sequence sent (as `ack`): a wanted quantity an adjustment wrote while the call
   * was out (a sale lowering it) is not held for the old one's sake; its own push decides.
   */
  async hold(trx: Knex.Transaction, held: { state: CiaStateRow; until: Date; message: string }[]): Promise<void> {
    if (held.length === 0) return;
    await trx.raw(
      `UPDATE cia_portal_state s SET held_until = v.until, last_error = v.message
       FROM unnest(?::bigint[], ?::bigint[], ?::timestamptz[], ?::text[]) AS v(id, seq, until, message) WHERE s.id = v.id AND s.desired_seq = v.seq`,
      [held.map((h) => h.state.id), held.map((h) => h.state.desired_seq), held.map((h) => h.until.toISOString()), held.map((h) => h.message.slice(0, 1000))],
    );
  },

  /**
   * Removes the items' states (variation mains: they offer nothing of their own, so nothing may
   * push or sweep a quantity under their SKU). The caller holds them locked (statesAndAccounts).
   */
  async removeStates(trx: Knex.Transaction, accountId: number, stockIds: number[]): Promise<void> {
    await trx('cia_portal_state').where({ account_id: accountId }).whereIn('stock_id', stockIds).delete();
  },

  /** Removes these states of the account (ids of states an adjustment read and locked). */
  async removeStateIds(trx: Knex.Transaction, accountId: number, ids: string[]): Promise<void> {
    await trx('cia_portal_state').where({ account_id: accountId }).whereIn('id', ids).delete();
  },

  /**
   * The channel took units sold there off its own offer of these items (channelSold): what it
   * shows is the acknowledged quantity less them (never below 0), and the wanted quantity is due
   * again (its sequence moves, a hold is forgotten: the push decides again against the lower
   * quantity). States never acknowledged are waiting for their push already. The states are
   * locked in id order, as every writer of states locks them. One statement.
   */
  async soldAtChannel(trx: Knex.Transaction, accountId: number, target: PushTarget, sold: { stockId: number; units: number }[]): Promise<void> {
    if (sold.length === 0) return;
    await trx
      .raw(
        `
      WITH v AS (SELECT stock_id, sum(units)::int AS units FROM unnest(?::int[], ?::int[]) AS u(stock_id, units) GROUP BY stock_id),
      locked AS MATERIALIZED (
        SELECT id FROM cia_portal_state WHERE account_id = ? AND portal = ? AND portal_account_id = ? AND stock_id IN (SELECT stock_id FROM v)
        ORDER BY id FOR UPDATE)
      UPDATE cia_portal_state s
      SET acked_quantity = greatest(s.acked_quantity - v.units, 0), desired_seq = s.desired_seq + 1, held_until = NULL, updated_at = now()
      FROM v WHERE s.id IN (SELECT id FROM locked) AND s.stock_id = v.stock_id AND s.acked_quantity IS NOT NULL`,
        [sold.map((x) => x.stockId), sold.map((x) => x.units), accountId, target.portal, target.portalAccountId],
      )
      .options(prepared);
  },

  /**
   * The channel may have put units of these items back on its own offer (channelCancelled): what
   * it shows is no longer known, so the acknowledged quantity is forgotten (null: a push then sends
   * the wanted quantity as one whose effect is unknown, eBay's a decrease, never held) and the
   * wanted quantity is due again (its sequence moves, a hold is forgotten). The states are locked in
   * id order, as every writer of states locks them. One statement; answers the items that had a
   * state there (the others CIA does not keep at that portal account: nothing to push).
   */
  async unknownAtChannel(trx: Knex.Transaction, accountId: number, target: PushTarget, stockIds: number[]): Promise<number[]> {
    if (stockIds.length === 0) return [];
    const { rows } = (await trx
      .raw(
        `
      WITH locked AS MATERIALIZED (
        SELECT id FROM cia_portal_state WHERE account_id = ? AND portal = ? AND portal_account_id = ? AND stock_id = ANY(?::int[])
        ORDER BY id FOR UPDATE)
      UPDATE cia_portal_state s
      SET acked_quantity = NULL, desired_seq = s.desired_seq + 1, held_until = NULL, updated_at = now()
      WHERE s.id IN (SELECT id FROM locked)
      RETURNING s.stock_id`,
        [accountId, target.portal, target.portalAccountId, stockIds],
      )
      .options(prepared)) as { rows: { stock_id: number }[] };
    return rows.map((r) => r.stock_id);
  },

  /** A reconcile offers refused quantities to the portal once more. */
  async forgetRefusals(trx: Knex.Transaction, accountId: number, stockIds: number[]): Promise<void> {
    await trx('cia_portal_state').where({ account_id: accountId }).whereIn('stock_id', stockIds).where('refused_seq', '>', 0).update({ refused_seq: 0 });
  },

  /**
   * Forgets what a portal acknowledged for an item (a listing just sent its own quantity):
   * the next adjustment pushes the wanted quantity again.
   */
  async forgetAck(knex: Knex, accountId: number, stockId: number, portal: string, portalAccountId: number): Promise<void> {
    await knex('cia_portal_state')
      .where({ account_id: accountId, stock_id: stockId, portal, portal_account_id: portalAccountId })
      .update({ acked_seq: 0, acked_quantity: null, desired_seq: knex.raw('desired_seq + 1') });
  },

  /**
   * Each state's own reason to be sent again (a push's retry outcomes: one item waits for a
   * lookup token, another answered 503), where recordError writes one for all. One statement.
   * Only at the sequence sent: a newer wanted quantity was not tried (its push, due without an
   * error, is the sweep's to find, and the channel's last quantity is still known).
   */
  async recordErrors(knex: Knex, accountId: number, errors: { state: CiaStateRow; message: string }[]): Promise<void> {
    if (errors.length === 0) return;
    await knex.raw(
      `UPDATE cia_portal_state s SET last_error = v.message
       FROM unnest(?::bigint[], ?::bigint[], ?::text[]) AS v(id, seq, message) WHERE s.id = v.id AND s.desired_seq = v.seq AND s.account_id = ?`,
      [errors.map((e) => e.state.id), errors.map((e) => e.state.desired_seq), errors.map((e) => e.message.slice(0, 1000)), accountId],
    );
  },

  /** One reason for all the states of a failed call; only at the sequences sent (recordErrors). */
  async recordError(knex: Knex, accountId: number, states: CiaStateRow[], error: string): Promise<void> {
    await ciaRepository.recordErrors(
      knex,
      accountId,
      states.map((state) => ({ state, message: error })),
    );
  },

  /**
   * Items of every account with an active cia.<portal> or a portal state, and deleted items
   * with a state still waiting, in (account, id) order after the given key: the reconcile walks
   * them in pages. A deleted item's 0 that a channel refused or that failed for good is sent
   * again by the reconcile only (the sweep leaves refused and failed states to it); walking the
   * items that exist alone, it was never sent again. One whose name is unknown (offered_under
   * null: deleted before it was kept) is left out: sent under the stock id it reaches no offer
   * made by SKU, or another item's that carries that number as its SKU.
   */
  async itemsToReconcile(knex: Knex, after: { accountId: number; stockId: number }, limit: number): Promise<{ account_id: number; id: number }[]> {
    // The items are lib/stock's; the states are ours, named here as the subquery its walk takes.
    const hasState = knex('cia_portal_state')
      .select(knex.raw('1'))
      .whereRaw('cia_portal_state.account_id = stock.account_id AND cia_portal_state.stock_id = stock.id');
    // Items whose states wait, deleted or not (those that exist are in the first list too): each
    // list holds the first `limit` after the key, so their merge's first `limit` are the page's.
    const [items, waiting] = await Promise.all([
      stockPortalRepository.itemsWithCia(knex, after, limit, hasState),
      knex('cia_portal_state')
        .distinct('account_id', 'stock_id')
        .whereRaw('(account_id, stock_id) > (?, ?) AND acked_seq < desired_seq AND offered_under IS NOT NULL', [after.accountId, after.stockId])
        .orderBy([{ column: 'account_id' }, { column: 'stock_id' }])
        .limit(limit) as Promise<{ account_id: number; stock_id: number }[]>,
    ]);
    const page = new Map<string, { account_id: number; id: number }>();
    for (const r of [...items, ...waiting.map((w) => ({ account_id: w.account_id, id: w.stock_id }))]) page.set(`${r.account_id}:${r.id}`, r);
    return [...page.values()].sort((a, b) => a.account_id - b.account_id || a.id - b.id).slice(0, limit);
  },
};
