import { portalRefused } from '../../errors';
import type { PortalTarget } from '../portal.type';

/** What an SP-API call needs of a portal account (its `credentials`, decrypted by the connector layer). */
export interface SpApiCredentials {
  clientId: string;
  clientSecret: string;
  refreshToken: string;
  sellerId: string;
  marketplaceId: string;
  /** Login with Amazon's token endpoint for this account. */
  lwaUrl: string;
}

const keys = ['client_id', 'client_secret', 'refresh_token', 'seller_id', 'marketplace_id'] as const;

/** Amazon.de: the marketplace of a portal account that names none (development against the sandbox). */
export const sandboxMarketplaceId = 'A1PA6795UKMFR9';

/**
 * The LWA endpoint: Amazon's own for Amazon's SP-API hosts, else the portal account's base URL
 * (the sandbox plays both); credentials.lwa_url overrides.
 */
function lwaUrl(target: PortalTarget): string {
  const own = target.credentials.lwa_url;
  if (typeof own === 'string' && own) return own;
  const host = new URL(target.baseUrl).hostname;
  if (/^sellingpartnerapi(-[a-z]+)?\.amazon\.com$/.test(host) || /^sandbox\.sellingpartnerapi(-[a-z]+)?\.amazon\.com$/.test(host))
    return 'https://api.amazon.com/auth/o2/token';
  return new URL('/auth/o2/token', target.baseUrl).toString();
}

/**
 * The portal account's SP-API identity. An account without any of the five credentials is a
 * development account against the sandbox: it identifies itself with a refresh token that names
 * it (`Atzr|sandbox-<portal account id>`), seller SANDBOX<id> and Amazon.de. An account with some
 * but not all of them is refused, naming what is missing.
 */
export function spApiCredentials(target: PortalTarget): SpApiCredentials {
  const c = target.credentials;
  const present = keys.filter((k) => typeof c[k] === 'string' && c[k] !== '');
  if (present.length === 0) {
    return {
      clientId: 'kontor-sandbox',
      clientSecret: 'sandbox',
      refreshToken: `Atzr|sandbox-${target.portalAccountId}`,
      sellerId: `SANDBOX${target.portalAccountId}`,
      marketplaceId: sandboxMarketplaceId,
      lwaUrl: lwaUrl(target),
    };
  }
  const missing = keys.filter((k) => !present.includes(k));
  if (missing.length > 0) throw portalRefused(`market_d: portal account ${target.portalAccountId} lacks the credentials ${missing.join(', ')}`);
  return {
    clientId: String(c.client_id),
    clientSecret: String(c.client_secret),
    refreshToken: String(c.refresh_token),
    sellerId: String(c.seller_id),
    marketplaceId: String(c.marketplace_id),
    lwaUrl: lwaUrl(target),
  };
}
