/**
 * eBay OAuth2 user access tokens, minted from the portal account's refresh token (grant
 * refresh_token, POST /identity/v1/oauth2/token, Basic client_id:client_secret) and kept per
 * portal account until shortly before they expire. A refresh token eBay no longer takes
 * (invalid_grant: expired, revoked, another client's) fails the job for good, naming the
 * portal account: retrying cannot mend it, the seller has to connect the account again.
 */
import { config } from '../../../config';
import { portalRefused, portalUnavailable } from '../../errors';
import type { PortalTarget } from '../portal.type';
import { retryAfterMs } from '../portal-http';

/** The scopes Kontor's calls need: inventory and offers, orders and fulfilments, feedback. */
export const ebayScopes = [
  'https://api.ebay.com/oauth/api_scope/sell.inventory',
  'https://api.ebay.com/oauth/api_scope/sell.fulfillment',
  'https://api.ebay.com/oauth/api_scope/commerce.feedback',
];

/** A token is renewed this long before eBay says it expires (a call in flight must not carry a dead one). */
const renewBeforeMs = 60_000;

interface CachedToken {
  accessToken: string;
  expiresAt: number;
  /** The refresh token it was minted from: new credentials of the account mint a new one. */
  refreshToken: string;
}

const cache = new Map<number, CachedToken>();
const pending = new Map<number, Promise<string>>();

interface Credentials {
  clientId: string;
  clientSecret: string;
  refreshToken: string;
  /** The scopes the seller granted (the consent's, kept with the refresh token); Kontor's three when the account predates the consent flow. */
  scopes: string[];
}

/** The account's eBay credentials, or null when it has none (development against the sandbox). */
export function ebayCredentials(target: PortalTarget): Credentials | null {
  const { client_id: clientId, client_secret: clientSecret, refresh_token: refreshToken, scopes } = target.credentials as Record<string, unknown>;
  if (typeof clientId !== 'string' || typeof clientSecret !== 'string' || typeof refreshToken !== 'string') return null;
  const granted = typeof scopes === 'string' ? scopes.split(/\s+/).filter(Boolean) : [];
  return { clientId, clientSecret, refreshToken, scopes: granted.length ? granted : ebayScopes };
}

/**
 * The bearer token of a portal account: with credentials, an eBay user access token; without,
 * `sandbox-account-<portal account id>`, which only the sandbox takes (it names the account the
 * sandbox keeps state for; eBay answers it 401).
 */
export async function ebayAccessToken(target: PortalTarget): Promise<string> {
  const credentials = ebayCredentials(target);
  if (!credentials) return `sandbox-account-${target.portalAccountId}`;
  const cached = cache.get(target.portalAccountId);
  if (cached && cached.refreshToken === credentials.refreshToken && cached.expiresAt - renewBeforeMs > Date.now()) return cached.accessToken;
  // Concurrent jobs of one account share one refresh.
  let minting = pending.get(target.portalAccountId);
  if (!minting) {
    minting = mint(target, credentials).finally(() => pending.delete(target.portalAccountId));
    pending.set(target.portalAccountId, minting);
  }
  return minting;
}

/** Drops an account's token (eBay answered 401 with it): the next call mints a new one. */
export function forgetEbayToken(portalAccountId: number): void {
  cache.delete(portalAccountId);
}

async function mint(target: PortalTarget, credentials: Credentials): Promise<string> {
  const account = `auction_a portal account ${target.portalAccountId}`;
  let res: Response;
  try {
    res = await fetch(new URL('/identity/v1/oauth2/token', target.baseUrl), {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        Accept: 'application/json',
        Authorization: `Basic ${Buffer.from(`${credentials.clientId}:${credentials.clientSecret}`).toString('base64')}`,
      },
      // eBay's refresh grant may ask for the scopes of the consent or fewer, never more (invalid_scope).
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: credentials.refreshToken, scope: credentials.scopes.join(' ') }).toString(),
      signal: AbortSignal.timeout(config().portalTimeoutMs),
    });
  } catch (err) {
    throw portalUnavailable(`${account}: eBay's token endpoint did not answer (${(err as Error).message})`);
  }
  const body = (await res.json().catch(() => ({}))) as { access_token?: unknown; expires_in?: unknown; error?: unknown; error_description?: unknown };
  if (res.ok && typeof body.access_token === 'string') {
    const expiresIn = typeof body.expires_in === 'number' ? body.expires_in : 7200;
    cache.set(target.portalAccountId, { accessToken: body.access_token, expiresAt: Date.now() + expiresIn * 1000, refreshToken: credentials.refreshToken });
    return body.access_token;
  }
  const reason = `${typeof body.error === 'string' ? body.error : res.status}${typeof body.error_description === 'string' ? `: ${body.error_description}` : ''}`;
  if (res.status === 429 || res.status >= 500)
    throw portalUnavailable(`${account}: eBay's token endpoint answered ${reason}`, retryAfterMs(res.headers.get('retry-after')));
  if (body.error === 'invalid_scope')
    throw portalRefused(
      `${account}: eBay refused the scopes asked for (${reason}); the seller's consent does not grant ${credentials.scopes.join(' ')}: connect the eBay account again and grant them`,
    );
  if (body.error === 'invalid_grant')
    throw portalRefused(`${account}: eBay refused its refresh token (${reason}); connect the eBay account again to renew its credentials`);
  throw portalRefused(`${account}: eBay refused the token request (${reason}); check the account's client_id and client_secret`);
}
