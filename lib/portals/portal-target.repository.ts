import type { Knex } from 'knex';
import { config } from '../../config';
import { openCredentials } from '../secret/credentials';
import type { Connector } from './connector';
import type { PortalId } from './portal.registry';
import type { ListingItem, PortalTarget } from './portal.type';

interface StockRow {
  id: number;
  name: string;
  sku: string | null;
  barcode: string | null;
  price: string | null;
  quantity_available: number;
  grp: unknown;
}

/** An item's field group of a portal (data -> portal): the object, or the lister's entry (the first) of a lister group. */
export function fieldGroupEntry(grp: unknown, listerId?: string): Record<string, unknown> {
  if (Array.isArray(grp)) {
    const entries = grp as Record<string, unknown>[];
    return (listerId ? entries.find((e) => String(e.lister_id ?? '') === listerId) : entries[0]) ?? {};
  }
  return grp && typeof grp === 'object' ? (grp as Record<string, unknown>) : {};
}

const targets = new Map<string, { target: PortalTarget; until: number }>();

async function readTarget(knex: Knex, accountId: number, portalAccountId: number): Promise<PortalTarget | undefined> {
  const row = (await knex('portal_account')
    .select('id', 'connector', 'base_url', 'credentials')
    .where({ account_id: accountId, id: portalAccountId })
    .first()) as { id: number; connector: Connector | null; base_url: string | null; credentials: string | null } | undefined;
  if (!row) return undefined;
  // The one place portal credentials are opened: the target goes to an adapter and nowhere else.
  const credentials = openCredentials('portal_account', row.credentials, row.id);
  return { portalAccountId: row.id, ...(row.connector ? { connector: row.connector } : {}), baseUrl: row.base_url || config().sandboxPortalUrl, credentials };
}

/** What portal calls read: the portal account as a target, the item as a listing; scoped by account. */
export const portalTargetRepository = {
  /**
   * The portal account's base URL (the sandbox when it has none) and credentials; kept 5 s per
   * process, as every quantity push asks for it.
   */
  async target(knex: Knex, accountId: number, portalAccountId: number): Promise<PortalTarget | undefined> {
    const key = `${accountId}:${portalAccountId}`;
    const cached = targets.get(key);
    if (cached && cached.until > Date.now()) return cached.target;
    const target = await readTarget(knex, accountId, portalAccountId);
    if (target) targets.set(key, { target, until: Date.now() + 5000 });
    if (targets.size > 10000) targets.clear();
    return target;
  },

  /** Drops this process's copy of a portal account's target (its connection changed). */
  forget(accountId: number, portalAccountId: number): void {
    targets.delete(`${accountId}:${portalAccountId}`);
  },

  /** The item with its field group of the portal; for lister groups the entry of lister_id (or the first). */
  async listingItem(knex: Knex, accountId: number, stockId: number, portal: PortalId, listerId?: string): Promise<ListingItem | undefined> {
    const row = (await knex('stock')
      .select('id', 'name', 'sku', 'barcode', 'price', 'quantity_available', knex.raw('data -> ? AS grp', [portal]))
      .where({ account_id: accountId, id: stockId })
      .first()) as StockRow | undefined;
    if (!row) return undefined;
    const group = fieldGroupEntry(row.grp, listerId);
    return { stockId: row.id, name: row.name, sku: row.sku, ean: row.barcode, price: row.price, quantityAvailable: row.quantity_available, group };
  },

  async listing(
    knex: Knex,
    accountId: number,
    stockId: number,
    portal: PortalId,
    portalAccountId: number,
    listerId: string,
  ): Promise<{ portal_item_id: string | null; status: string } | undefined> {
    return knex('portal_listing')
      .select('portal_item_id', 'status')
      .where({ account_id: accountId, stock_id: stockId, portal, portal_account_id: portalAccountId, lister_id: listerId })
      .first();
  },

  /** A portal item id given as AUCTIONA_<id>: the listing it names, if it is the account's. */
  async listingByPortalItemId(knex: Knex, accountId: number, portalItemId: string): Promise<{ stock_id: number; portal_item_id: string | null } | undefined> {
    return knex('portal_listing')
      .select('stock_id', 'portal_item_id')
      .where({ account_id: accountId, portal: 'auction_a', portal_item_id: portalItemId })
      .first();
  },

  /** A live listing by its id in the live-listing table. */
  async listingById(knex: Knex, accountId: number, id: string): Promise<{ stock_id: number; portal_item_id: string | null } | undefined> {
    if (!/^\d{1,18}$/.test(id)) return undefined;
    return knex('portal_listing').select('stock_id', 'portal_item_id').where({ account_id: accountId, id, status: 'listed' }).first();
  },

  /** The lister ids of an item's entries in a lister group (auction_a[] ...). */
  async listerIds(knex: Knex, accountId: number, stockId: number, portal: PortalId): Promise<string[]> {
    const row = (await knex('stock')
      .select(knex.raw('data -> ? AS grp', [portal]))
      .where({ account_id: accountId, id: stockId })
      .first()) as { grp: unknown } | undefined;
    if (!row || !Array.isArray(row.grp)) return [];
    return (row.grp as Record<string, unknown>[]).map((e) => String(e.lister_id ?? '')).filter((id) => id !== '');
  },

  async saveListing(
    knex: Knex,
    accountId: number,
    stockId: number,
    portal: PortalId,
    portalAccountId: number,
    listerId: string,
    portalItemId: string | null,
    status: 'listed' | 'ended',
  ): Promise<void> {
    await knex('portal_listing')
      .insert({
        account_id: accountId,
        stock_id: stockId,
        portal,
        portal_account_id: portalAccountId,
        lister_id: listerId,
        portal_item_id: portalItemId,
        status,
        updated_at: knex.fn.now(),
      })
      .onConflict(['account_id', 'stock_id', 'portal', 'portal_account_id', 'lister_id'])
      .merge({ portal_item_id: knex.raw('COALESCE(EXCLUDED.portal_item_id, portal_listing.portal_item_id)'), status, updated_at: knex.fn.now() });
  },
};
