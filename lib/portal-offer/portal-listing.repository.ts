/** The live listings an upload made (table portal_listing, owned here); scoped by account. */
import type { Knex } from 'knex';
import type { PortalId } from '../portals';

/** A row of portal_listing: one live listing per (item, portal, portal account, lister). */
export interface PortalListingRow {
  id: string;
  account_id: number;
  stock_id: number;
  portal: string;
  portal_account_id: number;
  lister_id: string;
  portal_item_id: string | null;
  status: 'listed' | 'ended';
  /** The markets (Amazon marketplace ids) the listing is in where not every one of the account took it; null: all. */
  markets: string[] | null;
  /** The upload job that listed it in `markets`: its retry submits only the others. */
  markets_job: string | null;
  /**
   * The channel fulfils the listing's offer from its own warehouse since Kontor listed it (a Kaufland
   * unit moved into Kaufland's fulfilment programme): CIA sends it no amount, in any process.
   */
  fulfilled_by_channel: boolean;
  /**
   * Where the channel fulfils it, if fulfilled_by_channel: the markets (Amazon marketplace ids)
   * where it does so in some of the listing's only (an offer FBA in DE, the seller's own in FR,
   * which keeps taking Kontor's quantity); null: in all (and Kaufland's units).
   */
  fulfilled_markets: string[] | null;
  /**
   * The key the channel holds the listing under where it addresses it by that, not by
   * portal_item_id (eBay: the inventory item's SKU, a variation main's group key), as the list
   * made it; null: the item's SKU now. Written by a list, kept by an end.
   */
  listed_sku: string | null;
  /**
   * When the channel last showed who fulfils the listing, read because an order of its SKU was
   * fulfilled by the channel (Amazon's AFN; channel-fulfilled.ts) or by the listing check: such
   * orders placed before it are not read again. Null: never so read; marked fulfilled by the
   * channel in all markets and null, marked before the channel was read market by market
   * (migration 20261130_0170): read again once (markedWholeUnread).
   */
  fulfilment_read_at: Date | null;
  updated_at: Date;
}

// The row type of portal_listing for Knex (declared once here, lib/portal-offer owns the table).
declare module 'knex/types/tables' {
  interface Tables {
    portal_listing: Knex.CompositeTableType<
      PortalListingRow,
      Omit<
        PortalListingRow,
        'id' | 'updated_at' | 'markets' | 'markets_job' | 'fulfilled_by_channel' | 'fulfilled_markets' | 'listed_sku' | 'fulfilment_read_at'
      > &
        Partial<Pick<PortalListingRow, 'markets' | 'markets_job' | 'fulfilled_by_channel' | 'fulfilled_markets' | 'listed_sku'>> & {
          updated_at?: Knex.Raw;
          // A read's start (JavaScript's clock), or the database's now() where a mark records it.
          fulfilment_read_at?: Date | null | Knex.Raw;
        }
    >;
  }
}

/** A SKU (portal item id) and a time: an order's placing (and its market, Amazon's marketplace id), or a read's start. */
export interface SkuSince {
  sku: string;
  placedAt: string;
  market?: string;
}

/** A listing found or marked by SKU. */
export interface MarkedListing {
  id: string;
  stock_id: number;
  portal_item_id: string;
  lister_id: string;
}

const markedListing = (r: Pick<PortalListingRow, 'id' | 'stock_id' | 'portal_item_id' | 'lister_id'>): MarkedListing => ({
  id: String(r.id),
  stock_id: Number(r.stock_id),
  portal_item_id: r.portal_item_id!,
  lister_id: r.lister_id,
});

/**
 * The live listings at one portal account recorded under the SKUs, those marked fulfilled by the
 * channel in some markets only (fulfilled_markets) only where named with a market outside those or
 * none (an order of another marketplace, or a read), each where `before` holds: a condition over
 * `shown.placed_at` and the row, one of this file's constants (no input).
 */
function bySkuBefore(knex: Knex, accountId: number, portal: PortalId, portalAccountId: number, offers: SkuSince[], before: string) {
  const shown = knex.raw(
    `(VALUES ${offers.map(() => '(?::text, ?::timestamptz, ?::text)').join(', ')}) AS shown (sku, placed_at, market)`,
    offers.flatMap((o) => [o.sku, o.placedAt, o.market ?? null]),
  );
  return knex('portal_listing')
    .where({ account_id: accountId, portal, portal_account_id: portalAccountId, status: 'listed' })
    .whereExists((q) =>
      q
        .select(knex.raw('1'))
        .from(shown)
        .whereRaw(
          `shown.sku = portal_listing.portal_item_id AND (portal_listing.fulfilled_markets IS NULL OR shown.market IS NULL OR NOT shown.market = ANY (portal_listing.fulfilled_markets)) AND ${before}`,
        ),
    );
}

/** A list of markets (or null) as one SQL value of type text[], for comparing with fulfilled_markets. */
const marketsValue = (knex: Knex, markets: string[] | null) =>
  markets === null ? knex.raw('NULL::text[]') : knex.raw(`ARRAY[${markets.map(() => '?::text').join(', ')}]::text[]`, markets);

/** A listing's key in portal_listing (its unique index): an item, at a portal account, by a lister. */
export interface ListingKey {
  accountId: number;
  stockId: number;
  portal: PortalId;
  portalAccountId: number;
  listerId: string;
}

const keyColumns = (key: ListingKey) => ({
  account_id: key.accountId,
  stock_id: key.stockId,
  portal: key.portal,
  portal_account_id: key.portalAccountId,
  lister_id: key.listerId,
});

/** These items' live listings (an id at the portal) at one portal account, any lister. */
const liveListings = (knex: Knex, accountId: number, portal: PortalId, portalAccountId: number, stockIds: number[]) =>
  knex('portal_listing')
    .where({ account_id: accountId, portal, portal_account_id: portalAccountId, status: 'listed' })
    .whereNotNull('portal_item_id')
    .whereIn('stock_id', stockIds);

export const portalListingRepository = {
  async listing(
    knex: Knex,
    key: ListingKey,
  ): Promise<Pick<PortalListingRow, 'portal_item_id' | 'status' | 'markets' | 'markets_job' | 'listed_sku'> | undefined> {
    return knex('portal_listing').select('portal_item_id', 'status', 'markets', 'markets_job', 'listed_sku').where(keyColumns(key)).first();
  },

  /**
   * A portal item id given as AUCTIONA_<id>: this item's listing it names, if it is the account's.
   * By the item too: a variation main's eBay listing is recorded under the main and under each of
   * its variants with the same listing id (portal-variation.service.ts), so the id alone named any
   * of those rows, and a revise of the main was refused unknown_live_listing when a variant's came
   * first (an index scan by stock id reads the variants, made before their main, first).
   * A live one only, as listingById (document 2: auction_a_live_id names a listing "in the
   * live-listing table, or AUCTIONA_<portal item id>"): an ended listing keeps its eBay id in its
   * record (a main's group withdrawn, a variant off its group: endOutsiders), and a revise by that
   * id was planned, which for a variation main published the ended group again (listVariation).
   * At the part's portal account only, as listingById: the job revises with that account's
   * credentials, so another account's listing id was sent to an eBay seller it is not, and a
   * client bound to one portal account learnt from 202 against 404 which listings another has.
   */
  async listingByPortalItemId(
    knex: Knex,
    accountId: number,
    stockId: number,
    portalAccountId: number,
    portalItemId: string,
  ): Promise<{ stock_id: number; portal_item_id: string | null } | undefined> {
    return knex('portal_listing')
      .select('stock_id', 'portal_item_id')
      .where({
        account_id: accountId,
        stock_id: stockId,
        portal: 'auction_a',
        portal_account_id: portalAccountId,
        portal_item_id: portalItemId,
        status: 'listed',
      })
      .first();
  },

  /** A live listing at the part's portal account by its id in the live-listing table. */
  async listingById(
    knex: Knex,
    accountId: number,
    portalAccountId: number,
    id: string,
  ): Promise<{ stock_id: number; portal_item_id: string | null } | undefined> {
    if (!/^\d{1,18}$/.test(id)) return undefined;
    return knex('portal_listing')
      .select('stock_id', 'portal_item_id')
      .where({ account_id: accountId, portal_account_id: portalAccountId, id, status: 'listed' })
      .first();
  },

  /** The portal item ids of these items' live listings at one portal account (any lister) in all its markets, by stock id. */
  async liveItemIds(knex: Knex, accountId: number, portal: PortalId, portalAccountId: number, stockIds: number[]): Promise<Map<number, string>> {
    if (stockIds.length === 0) return new Map();
    const rows = await liveListings(knex, accountId, portal, portalAccountId, stockIds)
      .select('stock_id', 'portal_item_id')
      // A listing only some of the account's markets took is left out: liveMarkets answers where it
      // is (Amazon: a quantity named in the others would make an offer of nothing there).
      .whereNull('markets');
    return new Map(rows.map((r) => [Number(r.stock_id), r.portal_item_id!]));
  },

  /**
   * The keys these items' live listings at one portal account are held under at the channel
   * (`listed_sku`), by stock id, each with its lister (an item may be listed by several); listings
   * recorded without one are absent.
   */
  async liveListedSkus(
    knex: Knex,
    accountId: number,
    portal: PortalId,
    portalAccountId: number,
    stockIds: number[],
  ): Promise<Map<number, { listerId: string; sku: string }[]>> {
    if (stockIds.length === 0) return new Map();
    const rows = await liveListings(knex, accountId, portal, portalAccountId, stockIds)
      .select('stock_id', 'lister_id', 'listed_sku')
      .whereNotNull('listed_sku');
    const out = new Map<number, { listerId: string; sku: string }[]>();
    for (const r of rows) out.set(Number(r.stock_id), [...(out.get(Number(r.stock_id)) ?? []), { listerId: r.lister_id, sku: r.listed_sku! }]);
    return out;
  },

  /**
   * The markets of these items' live listings at one portal account that only some of its markets
   * took (`markets`), with the portal item id each was made under, by stock id.
   */
  async liveMarkets(
    knex: Knex,
    accountId: number,
    portal: PortalId,
    portalAccountId: number,
    stockIds: number[],
  ): Promise<Map<number, { markets: string[]; portalItemId: string | null }>> {
    if (stockIds.length === 0) return new Map();
    const rows = await liveListings(knex, accountId, portal, portalAccountId, stockIds).select('stock_id', 'markets', 'portal_item_id').whereNotNull('markets');
    return new Map(rows.map((r) => [Number(r.stock_id), { markets: r.markets!, portalItemId: r.portal_item_id }]));
  },

  /**
   * The items whose listings at one portal account were made under each of these keys (`column`:
   * `listed_sku`, or `portal_item_id` where the channel's listing id is the SKU), by key: the live
   * listing's item, else the ended one's (`live` false); absent where none or several items were
   * (then the key names no item for sure).
   */
  async itemsByListingKey(
    knex: Knex,
    accountId: number,
    portal: PortalId,
    portalAccountId: number,
    column: 'listed_sku' | 'portal_item_id',
    skus: string[],
  ): Promise<Map<string, { stockId: number; live: boolean }>> {
    if (skus.length === 0) return new Map();
    const rows = (await knex('portal_listing')
      .select(`${column} as key`, 'stock_id', 'status')
      .where({ account_id: accountId, portal, portal_account_id: portalAccountId })
      .whereIn(column, skus)) as { key: string; stock_id: number; status: PortalListingRow['status'] }[];
    const out = new Map<string, { stockId: number; live: boolean }>();
    for (const sku of new Set(rows.map((r) => r.key))) {
      const of = rows.filter((r) => r.key === sku);
      const live = new Set(of.filter((r) => r.status === 'listed').map((r) => Number(r.stock_id)));
      const any = new Set(of.map((r) => Number(r.stock_id)));
      const items = live.size > 0 ? live : any;
      if (items.size === 1) out.set(sku, { stockId: [...items][0]!, live: live.size > 0 });
    }
    return out;
  },

  /** An item's live listings at a portal, any portal account and lister: each lister and the key it is held under (`listed_sku`, null when recorded before). */
  async liveListedSkusOfItem(knex: Knex, accountId: number, portal: PortalId, stockId: number): Promise<{ listerId: string; sku: string | null }[]> {
    const rows = await knex('portal_listing')
      .select('lister_id', 'listed_sku')
      .where({ account_id: accountId, portal, stock_id: stockId, status: 'listed' })
      .whereNotNull('portal_item_id');
    return rows.map((r) => ({ listerId: r.lister_id, sku: r.listed_sku }));
  },

  /**
   * These items whose live listing at one portal account the channel fulfils since
   * (`fulfilled_by_channel`), by stock id: the markets it does so in where some only
   * (`fulfilled_markets`), null where in all.
   */
  async liveFulfilledMarkets(
    knex: Knex,
    accountId: number,
    portal: PortalId,
    portalAccountId: number,
    stockIds: number[],
  ): Promise<Map<number, string[] | null>> {
    if (stockIds.length === 0) return new Map();
    const rows = await liveListings(knex, accountId, portal, portalAccountId, stockIds)
      .select('stock_id', 'fulfilled_markets')
      .where('fulfilled_by_channel', true);
    return new Map(rows.map((r) => [Number(r.stock_id), r.fulfilled_markets]));
  },

  /** These items whose live listing at one portal account the channel fulfils since (`fulfilled_by_channel`), by stock id. */
  async liveFulfilledByChannel(knex: Knex, accountId: number, portal: PortalId, portalAccountId: number, stockIds: number[]): Promise<Set<number>> {
    if (stockIds.length === 0) return new Set();
    const rows = await liveListings(knex, accountId, portal, portalAccountId, stockIds).select('stock_id').where('fulfilled_by_channel', true);
    return new Set(rows.map((r) => Number(r.stock_id)));
  },

  /**
   * Records what an adapter learnt of live listings (each by its item and portal item id, so a
   * listing made again since under another id is left): the channel fulfils them now, in
   * `markets` only where given (null: in all), or the seller again. One statement; rows already so
   * are not written. A mark records its read (`fulfilment_read_at`): a listing marked whole by it
   * is not read again as one marked before markets were told apart (markedWholeUnread).
   */
  async markFulfilledByChannel(
    knex: Knex,
    accountId: number,
    portal: PortalId,
    portalAccountId: number,
    listings: { stockId: number; portalItemId: string }[],
    fulfilled: boolean,
    markets: string[] | null = null,
  ): Promise<void> {
    if (listings.length === 0) return;
    const fulfilledIn = markets && fulfilled ? markets : null;
    await liveListings(
      knex,
      accountId,
      portal,
      portalAccountId,
      listings.map((l) => l.stockId),
    )
      .whereIn(
        ['stock_id', 'portal_item_id'],
        listings.map((l) => [l.stockId, l.portalItemId]),
      )
      .where((q) =>
        fulfilled
          ? q.where('fulfilled_by_channel', false).orWhereRaw('fulfilled_markets IS DISTINCT FROM ?', [marketsValue(knex, fulfilledIn)])
          : q.where('fulfilled_by_channel', true),
      )
      .update({
        fulfilled_by_channel: fulfilled,
        fulfilled_markets: fulfilledIn,
        ...(fulfilled ? { fulfilment_read_at: knex.fn.now() } : {}),
        updated_at: knex.fn.now(),
      });
  },

  /**
   * The live listings at one portal account recorded under these SKUs (portal item ids) that an
   * order of the channel's own fulfilment placed at `placedAt` (in `market`) gives cause to read at
   * the channel: unmarked, or marked in some markets only and the order of another; recorded
   * (listed or marked) before it, and not read since (`fulfilment_read_at`). One marked whole is
   * not (the order says nothing new of it; one marked so before markets were told apart is
   * markedWholeUnread's). One statement.
   */
  async unreadBySku(knex: Knex, accountId: number, portal: PortalId, portalAccountId: number, offers: SkuSince[]): Promise<MarkedListing[]> {
    if (offers.length === 0) return [];
    const rows = await bySkuBefore(
      knex,
      accountId,
      portal,
      portalAccountId,
      offers,
      'shown.placed_at > GREATEST(portal_listing.updated_at, portal_listing.fulfilment_read_at)',
    )
      .where((q) => q.where('fulfilled_by_channel', false).orWhereNotNull('fulfilled_markets'))
      .select('id', 'stock_id', 'portal_item_id', 'lister_id');
    return rows.map(markedListing);
  },

  /**
   * Up to `limit` live listings at one portal account marked fulfilled by the channel in all its
   * markets and never read market by market: marked before fulfilled_markets existed (migration
   * 20261130_0170), when an AFN order in DE of an offer Amazon fulfils in DE and the seller in FR
   * marked the whole listing. No order needs to give cause (one may never come: DE's FBA offer
   * may not sell), and neither an AFN order nor the listing check reads a listing marked whole:
   * the order import reads these once (channel-fulfilled.ts readMarkedWhole). Oldest first; one
   * statement, on the partial index of such rows (migration 20261130_0171).
   */
  async markedWholeUnread(knex: Knex, accountId: number, portal: PortalId, portalAccountId: number, limit: number): Promise<MarkedListing[]> {
    const rows = await knex('portal_listing')
      .select('id', 'stock_id', 'portal_item_id', 'lister_id')
      .where({ account_id: accountId, portal, portal_account_id: portalAccountId, status: 'listed', fulfilled_by_channel: true })
      .whereNull('fulfilled_markets')
      .whereNull('fulfilment_read_at')
      .whereNotNull('portal_item_id')
      .orderBy('id')
      .limit(limit);
    return rows.map(markedListing);
  },

  /**
   * Marks the live listings at one portal account recorded under these SKUs fulfilled by the
   * channel, in `markets` only where given (null: in all), each only where it was recorded before
   * `placedAt`, the time of the read that showed it: a list since sent the seller's own offer,
   * which the read says nothing of. A listing marked in some markets, or whole, takes the read's
   * markets (the read is the fact: one marked whole before markets were told apart may be the
   * channel's in some only). The mark records its read (`fulfilment_read_at`). One statement;
   * answers the listings it marked now (not those marked so before).
   */
  async markFulfilledBySku(
    knex: Knex,
    accountId: number,
    portal: PortalId,
    portalAccountId: number,
    offers: SkuSince[],
    markets: string[] | null = null,
  ): Promise<MarkedListing[]> {
    if (offers.length === 0) return [];
    const rows = await bySkuBefore(knex, accountId, portal, portalAccountId, offers, 'shown.placed_at > portal_listing.updated_at')
      .where((q) => q.where('fulfilled_by_channel', false).orWhereRaw('fulfilled_markets IS DISTINCT FROM ?', [marketsValue(knex, markets)]))
      .update({ fulfilled_by_channel: true, fulfilled_markets: markets, fulfilment_read_at: knex.fn.now(), updated_at: knex.fn.now() })
      .returning(['id', 'stock_id', 'portal_item_id', 'lister_id']);
    return rows.map(markedListing);
  },

  /**
   * Records that the SKU's live listings (recorded before the read) were read at the channel in a
   * read started at `readAt` that changed no mark (the seller's own offer, or fulfilled by the
   * channel where marked already): orders placed before it are not read again, nor is a listing
   * marked whole before markets were told apart (markedWholeUnread) that the read shows the
   * channel's in all. updated_at stays (the record did not change). One statement.
   */
  async fulfilmentRead(knex: Knex, accountId: number, portal: PortalId, portalAccountId: number, sku: string, readAt: Date): Promise<void> {
    await knex('portal_listing')
      .where({ account_id: accountId, portal, portal_account_id: portalAccountId, status: 'listed', portal_item_id: sku })
      .where('updated_at', '<', readAt)
      .where((q) => q.whereNull('fulfilment_read_at').orWhere('fulfilment_read_at', '<', readAt))
      .update({ fulfilment_read_at: readAt });
  },

  /**
   * Listings these items are recorded under (any status: an ended record's offer may still be
   * live at eBay, portal-push.service.ts) that other items at the same portal account are
   * recorded under too, with those items: a variation main's listing is recorded under the main
   * and each variant (portal-variation.service.ts), items sharing a SKU share one listing.
   */
  async sharedListings(
    knex: Knex,
    accountId: number,
    portal: PortalId,
    portalAccountId: number,
    stockIds: number[],
  ): Promise<{ stock_id: number; portal_item_id: string; others: number[] }[]> {
    if (stockIds.length === 0) return [];
    const rows = (await knex('portal_listing as v')
      .join('portal_listing as o', function on() {
        this.on('o.account_id', 'v.account_id')
          .andOn('o.portal', 'v.portal')
          .andOn('o.portal_account_id', 'v.portal_account_id')
          .andOn('o.portal_item_id', 'v.portal_item_id')
          .andOn('o.stock_id', '<>', 'v.stock_id');
      })
      .where({ 'v.account_id': accountId, 'v.portal': portal, 'v.portal_account_id': portalAccountId })
      .whereIn('v.stock_id', stockIds)
      .groupBy('v.stock_id', 'v.portal_item_id')
      .select('v.stock_id', 'v.portal_item_id', knex.raw('array_agg(DISTINCT o.stock_id) AS others'))) as unknown as {
      stock_id: number | string;
      portal_item_id: string;
      others: (number | string)[];
    }[];
    return rows.map((r) => ({ stock_id: Number(r.stock_id), portal_item_id: r.portal_item_id, others: r.others.map(Number) }));
  },

  /**
   * The live listings at a portal account and lister recorded under one portal item id (a
   * multiple-variation listing's, portal-variation.service.ts) of items other than `members`:
   * ended, their stock ids answered.
   */
  async endOutsiders(knex: Knex, key: Omit<ListingKey, 'stockId'>, portalItemId: string, members: number[]): Promise<number[]> {
    const rows = await knex('portal_listing')
      .where({ account_id: key.accountId, portal: key.portal, portal_account_id: key.portalAccountId, lister_id: key.listerId })
      .where({ portal_item_id: portalItemId, status: 'listed' })
      .whereNotIn('stock_id', members)
      .update({ status: 'ended', updated_at: knex.fn.now() })
      .returning('stock_id');
    return rows.map((r) => Number((r as { stock_id: number }).stock_id)).sort((a, b) => a - b);
  },

  /** The items with a live listing at a portal account and lister recorded under one portal item id, but `except`. */
  async listedUnder(knex: Knex, key: Omit<ListingKey, 'stockId'>, portalItemId: string, except: number[]): Promise<number[]> {
    const rows = await knex('portal_listing')
      .select('stock_id')
      .where({ account_id: key.accountId, portal: key.portal, portal_account_id: key.portalAccountId, lister_id: key.listerId })
      .where({ portal_item_id: portalItemId, status: 'listed' })
      .whereNotIn('stock_id', except);
    return rows.map((r) => Number(r.stock_id));
  },

  /**
   * Records a listing listed or ended. `inMarkets`: the markets a list left it in where not every
   * one of the account took it, with the job that did (null: all; an end or a full list clears them).
   * `listedSku`: the key a list made the listing under at the channel (PortalListingRow.listed_sku);
   * an end keeps the one recorded.
   */
  async saveListing(
    knex: Knex,
    key: ListingKey,
    portalItemId: string | null,
    status: 'listed' | 'ended',
    inMarkets: { markets: string[]; job: string } | null = null,
    listedSku: string | null = null,
  ): Promise<void> {
    const markets = { markets: inMarkets?.markets ?? null, markets_job: inMarkets?.job ?? null };
    const sku = status === 'listed' ? { listed_sku: listedSku } : {};
    await knex('portal_listing')
      .insert({
        ...keyColumns(key),
        portal_item_id: portalItemId,
        status,
        ...markets,
        fulfilled_by_channel: false,
        fulfilled_markets: null,
        listed_sku: listedSku,
        updated_at: knex.fn.now(),
      })
      .onConflict(['account_id', 'stock_id', 'portal', 'portal_account_id', 'lister_id'])
      // A list or end done: the listing is the seller's again, or over (fulfilled_by_channel cleared).
      .merge({
        portal_item_id: knex.raw('COALESCE(EXCLUDED.portal_item_id, portal_listing.portal_item_id)'),
        status,
        ...markets,
        ...sku,
        fulfilled_by_channel: false,
        fulfilled_markets: null,
        updated_at: knex.fn.now(),
      });
  },
};
