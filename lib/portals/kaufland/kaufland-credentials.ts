import { portalRefused } from '../../errors';
import type { PortalTarget } from '../portal.type';

/** Kaufland's Seller API v2 (its OpenAPI document's `servers: [{url: /v2}]` on sellerapi.kaufland.com). */
export const kauflandApiUrl = 'https://sellerapi.kaufland.com/v2';

/** The storefronts of the contract's Storefront enum. */
export const kauflandStorefronts = ['de', 'cz', 'sk', 'pl', 'at', 'fr', 'it'] as const;
export type KauflandStorefront = (typeof kauflandStorefronts)[number];

/** What a signed Seller API call needs of a portal account (its `credentials`, opened by portal-target.repository). */
export interface KauflandCredentials {
  clientKey: string;
  secretKey: string;
  storefront: KauflandStorefront;
}

/** A development account's keys: the sandbox knows them by the portal account id (never valid at Kaufland). */
export const sandboxClientKey = (portalAccountId: number) => `sandbox-account-${portalAccountId}`;
export const sandboxSecretKey = (portalAccountId: number) => `sandbox-secret-${portalAccountId}`;

/**
 * The portal account's keys and storefront. An account with neither key is a development account
 * against the sandbox (keys that name it, storefront de); one with only one key is refused naming
 * the other, as is a storefront that is not Kaufland's.
 */
export function kauflandCredentials(target: PortalTarget): KauflandCredentials {
  const c = target.credentials;
  const given = (k: string) => (typeof c[k] === 'string' && c[k] !== '' ? String(c[k]) : undefined);
  const storefront = given('storefront') ?? 'de';
  if (!(kauflandStorefronts as readonly string[]).includes(storefront))
    throw portalRefused(`market_e: portal account ${target.portalAccountId} names the storefront ${storefront}, not one of ${kauflandStorefronts.join(', ')}`);
  const clientKey = given('client_key');
  const secretKey = given('secret_key');
  if (!clientKey && !secretKey)
    return {
      clientKey: sandboxClientKey(target.portalAccountId),
      secretKey: sandboxSecretKey(target.portalAccountId),
      storefront: storefront as KauflandStorefront,
    };
  if (!clientKey || !secretKey)
    throw portalRefused(`market_e: portal account ${target.portalAccountId} lacks the credential ${clientKey ? 'secret_key' : 'client_key'}`);
  return { clientKey, secretKey, storefront: storefront as KauflandStorefront };
}
