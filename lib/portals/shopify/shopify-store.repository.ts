/**
 * Table shopify_store: the store (by the domain Shopify answered) whose webhooks reach a portal
 * account. Written when the webhooks are subscribed, read by the webhook endpoint, which knows a
 * store only by its domain; several portal accounts may name one store.
 */
import { db } from '../../db';

export interface ShopifyStoreRow {
  portal_account_id: number;
  account_id: number;
  shop_domain: string;
}

export const shopifyStoreRepository = {
  /** The portal account's store (its webhooks subscribed); replaces what it named before. */
  async subscribed(accountId: number, portalAccountId: number, shopDomain: string): Promise<void> {
    await db()('shopify_store')
      .insert({ account_id: accountId, portal_account_id: portalAccountId, shop_domain: shopDomain, subscribed_at: db().fn.now() })
      .onConflict('portal_account_id')
      .merge(['account_id', 'shop_domain', 'subscribed_at']);
  },

  /** Whether the portal account's webhooks were subscribed. */
  async has(accountId: number, portalAccountId: number): Promise<boolean> {
    return (await db()('shopify_store').where({ account_id: accountId, portal_account_id: portalAccountId }).first('portal_account_id')) !== undefined;
  },

  /**
   * The portal accounts a store's webhooks reach, across seller accounts: the one query not scoped
   * by an account, because the caller is the store (verified by the app's signature), not a seller.
   */
  async byDomain(shopDomain: string): Promise<ShopifyStoreRow[]> {
    return db()('shopify_store')
      .where({ shop_domain: shopDomain.toLowerCase() })
      .select('portal_account_id', 'account_id', 'shop_domain')
      .orderBy('portal_account_id');
  },

  /** The store no longer reaches the portal account (the app was uninstalled, or the store redacted). */
  async forget(accountId: number, portalAccountId: number): Promise<void> {
    await db()('shopify_store').where({ account_id: accountId, portal_account_id: portalAccountId }).delete();
  },
};
