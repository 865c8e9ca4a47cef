import type { Knex } from 'knex';
import { db } from '../db';
import { Connector, defaultConnector } from '../portals';
import { sealCredentials, whereNeedsResealing } from '../secret';

export interface PortalAccountRow {
  id: number;
  account_id: number;
  name: string;
  platform: string | null;
  is_default: boolean;
  /** ebay, amazon_sp or json (lib/portals/connector.ts); null: each portal's own. */
  connector: Connector | null;
  base_url: string | null;
  /** Sealed (lib/secret); opened only by lib/portal-account/portal-target.repository. Never answered, never logged. */
  credentials: string | null;
  /** Orders changed up to this time are imported (lib/order-import). */
  orders_fetched_until: Date | null;
  /** The channel's last refusal of an order fetch; set, the scheduler leaves the account alone. */
  order_import_error: string | null;
  /** An order fetch cut short at its page cap: the channel's cursor where the next fetch goes on (lib/order-import); null: none pending. */
  orders_fetch_cursor: string | null;
  /** The since of the fetch cut short (its chain's query). */
  orders_fetch_since: Date | null;
  /** The start of the chain's first fetch: the watermark once the chain's last page is in. */
  orders_fetch_started: Date | null;
}

// The row type of portal_account for Knex (declared once here, lib/portal-account owns the table):
// its queries come back typed, without a cast at each.
declare module 'knex/types/tables' {
  interface Tables {
    portal_account: PortalAccountRow;
  }
}

/** Portal accounts of a seller account; every query is scoped by the account id. */
export const portalAccountRepository = {
  async insert(trx: Knex.Transaction, accountId: number, fields: { name: string; platform?: string | null; is_default?: boolean }): Promise<number> {
    const [row] = await trx('portal_account')
      .insert({ account_id: accountId, connector: defaultConnector(fields.platform), ...fields })
      .returning('id');
    return row!.id;
  },

  async list(accountId: number): Promise<PortalAccountRow[]> {
    return db()('portal_account').where({ account_id: accountId }).orderBy('id');
  },

  async get(accountId: number, id: number): Promise<PortalAccountRow | undefined> {
    return db()('portal_account').where({ account_id: accountId, id }).first();
  },

  /** Which of the ids are portal accounts of the account. */
  async ownIds(accountId: number, ids: number[]): Promise<Set<number>> {
    const rows = await db()('portal_account').where({ account_id: accountId }).whereIn('id', ids).select('id');
    return new Set(rows.map((r) => r.id));
  },

  /**
   * Connects a portal account (kontor portal-account connect): its platform, connector, base URL
   * and credentials, sealed here; a refusal recorded by an earlier order fetch is cleared, and so
   * is a fetch chain kept (lib/order-import): its cursor is a place in what the old connection
   * listed (another store, another seller id), so the next fetch starts from the watermark, which
   * a chain leaves where it was.
   */
  async connect(
    accountId: number,
    id: number,
    fields: { platform: string | null; connector: Connector; base_url: string | null; credentials: Record<string, string> },
  ): Promise<boolean> {
    const updated = await db()('portal_account')
      .where({ account_id: accountId, id })
      .update({
        ...fields,
        credentials: sealCredentials('portal_account', fields.credentials, id),
        order_import_error: null,
        orders_fetch_cursor: null,
        orders_fetch_since: null,
        orders_fetch_started: null,
      });
    return updated > 0;
  },

  async getDefault(accountId: number): Promise<PortalAccountRow | undefined> {
    return db()('portal_account').where({ account_id: accountId, is_default: true }).first();
  },
};

/**
 * The portal accounts' side of `kontor credentials reseal` (lib/admin/credentials-reseal.ts, run
 * by bin/credentials-reseal.ts): an operator's command over every seller, so these two are not
 * scoped by account. Portal accounts' values are bound to their row (kc2, lib/secret).
 */
export const portalAccountCredentialsRepository = {
  /** The rows whose credentials need sealing again (lib/secret's whereNeedsResealing). */
  async toReseal(keyId: string): Promise<{ id: number; credentials: string }[]> {
    const rows = await whereNeedsResealing(db()('portal_account').select('id', 'credentials'), keyId);
    return rows.flatMap((row) => (row.credentials === null ? [] : [{ id: row.id, credentials: row.credentials }]));
  },

  /** Replaces a row's sealed credentials only if they are still those read (nobody connected the account again meanwhile); 1 if replaced, else 0. */
  async replaceSealed(id: number, read: string, sealed: string | null): Promise<number> {
    return db()('portal_account').where({ id, credentials: read }).update({ credentials: sealed });
  },
};
