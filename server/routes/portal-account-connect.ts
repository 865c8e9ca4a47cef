import type { Caller } from '../../lib/access';
import { startConsent } from '../../lib/admin';
import { endpoint, ok, Joi, list, portalAccountRef } from '../../lib/http';
import { portalAccountOf, PortalAccountRef } from '../../lib/portal-account';
import { ebayScopes, shopifyDomainPattern } from '../../lib/portals';
import { maxTakeOverListings, takeOverListings } from '../../lib/portal-connect';

/** The portal account a path names, if the token's authorization covers it (one bound to another answers 404, as a foreign one; default is the access's). */
async function ownPortalAccount(caller: Caller, ref: PortalAccountRef): Promise<number> {
  return (await portalAccountOf(caller, ref)).id;
}

/**
 * Ours, beside the documented endpoints (issue 30 point 3): connecting a portal account to the
 * seller's eBay or Amazon account through the channel's consent, and taking over the seller's
 * existing eBay listings. The consent's callbacks are pages outside the API (connect.pages.ts).
 */
export const portalAccountConnectEndpoints = [
  endpoint<{ portal_account_id: PortalAccountRef }, { connector: string; scope?: string[]; shop_domain?: string }>({
    method: 'POST',
    path: 'admin/portal_account/{portal_account_id}/consent/',
    summary:
      "The link the seller opens to let Kontor reach the portal account's channel: connector ebay (eBay's consent), amazon_sp (Seller Central's authorization) or shopify (the store installs Kontor's Shopify app). Good once, for 10 minutes; the channel sends the seller back to Kontor, which stores the credentials (never shown) and connects the account. scope (ebay only) narrows the eBay scopes asked for; Kontor's token refreshes then ask for no more. shop_domain (shopify only): the store's `<name>.myshopify.com` domain, default the one the account was connected to.",
    scope: 'admin_w',
    params: Joi.object({ portal_account_id: portalAccountRef() }),
    body: Joi.object({
      connector: Joi.string().valid('ebay', 'amazon_sp', 'shopify').required(),
      scope: list(Joi.string().valid(...ebayScopes)).min(1),
      shop_domain: Joi.string().trim().lowercase().max(100).pattern(shopifyDomainPattern).example('your-store.myshopify.com'),
    }),
    response: ['url'],
    async handle({ caller, params, body }) {
      return ok(await startConsent(caller.accountId, await ownPortalAccount(caller, params.portal_account_id), body.connector, body.scope, body.shop_domain));
    },
  }),

  endpoint<{ portal_account_id: PortalAccountRef }, { listing_id?: string[]; sku?: string[] }>({
    method: 'POST',
    path: 'admin/portal_account/{portal_account_id}/take_over/',
    summary: `Take over the seller's existing eBay listings (1 to ${maxTakeOverListings} in all): listing_id[] names listings made in Seller Hub or the Trading API, which are migrated to the Inventory API; sku[] names listings made through the Inventory API by another tool, which need no migration. Each is linked by its SKU to the stock item with that SKU, whose cia.auction_a is switched on; a multiple-variation listing is linked variation by variation. take_over[] answers per SKU with its listing_id: taken_over (sku, stock_id), refused (eBay's reason), no_stock_item, ambiguous_sku or sku_differs; the SKUs of a multiple-variation listing each with eBay's group_key (its inventory item group), and main_stock_id when the listing is recorded as that variation main's (its SKUs all linked to the main's variants), else a taken_over SKU's message says why not.`,
    // It switches cia.auction_a on for stock items (CIA adjusts them) and answers their stock ids: the stock scopes, as POST stock/{id}/ and GET stock/ ask.
    scope: ['admin_w', 'stock_r', 'stock_w'],
    params: Joi.object({ portal_account_id: portalAccountRef() }),
    body: Joi.object({
      listing_id: list(
        Joi.alternatives(
          Joi.string().trim().max(40),
          Joi.number()
            .integer()
            .min(1)
            .custom((v: number) => String(v)),
        ),
      ).max(maxTakeOverListings),
      sku: list(Joi.string().trim().min(1).max(50)).max(maxTakeOverListings),
    }).or('listing_id', 'sku'),
    response: ['take_over'],
    async handle({ caller, params, body }) {
      return ok({
        take_over: await takeOverListings(caller.accountId, await ownPortalAccount(caller, params.portal_account_id), body.listing_id ?? [], body.sku ?? []),
      });
    },
  }),
];
