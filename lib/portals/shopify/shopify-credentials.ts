import { config } from '../../../config';
import type { ShopifyApiVersion } from '../../../config/channel-apps';
import { portalRefused } from '../../errors';
import type { PortalTarget } from '../portal.type';

/** A store's own domain: <name>.myshopify.com (the Admin API lives there, not at a central host). */
export const shopifyDomainPattern = /^[a-z0-9][a-z0-9-]{0,62}\.myshopify\.com$/;

/** What an Admin API call needs of a portal account (its `credentials`, opened by portal-target.repository). */
export interface ShopifyCredentials {
  /** The GraphQL endpoint: the store's domain, or the sandbox for a development account. */
  endpoint: string;
  accessToken: string;
  /** The Admin API version in the endpoint (SHOPIFY_API_VERSION): what the documents that differ by version are written for (shopify-version.ts). */
  version: ShopifyApiVersion;
}

/** A development account's token: the sandbox knows it by the portal account id (never valid at Shopify). */
export const sandboxShopifyToken = (portalAccountId: number) => `shpat_sandbox_${portalAccountId}`;

/**
 * The portal account's store and token. An account with neither is a development account against
 * the sandbox (its base URL, a token naming the account); one with only one of them is refused
 * naming the other. The endpoint is the configured version's graphql.json under the base URL.
 */
export function shopifyCredentials(target: PortalTarget): ShopifyCredentials {
  const c = target.credentials;
  const given = (k: string) => (typeof c[k] === 'string' && c[k] !== '' ? String(c[k]) : undefined);
  const domain = given('shop_domain');
  const token = given('access_token');
  if (domain && !token) throw portalRefused(`webshop: portal account ${target.portalAccountId} lacks the credential access_token`);
  if (token && !domain) throw portalRefused(`webshop: portal account ${target.portalAccountId} lacks the credential shop_domain`);
  const base = new URL(target.baseUrl).origin;
  const version = config().shopifyApplication.apiVersion;
  return { endpoint: `${base}/admin/api/${version}/graphql.json`, accessToken: token ?? sandboxShopifyToken(target.portalAccountId), version };
}
