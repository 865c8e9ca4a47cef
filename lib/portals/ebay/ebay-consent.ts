/**
 * eBay's consent (OAuth authorization-code grant, eBay "Getting user access tokens"): the link
 * a seller opens to grant Kontor's application access to the eBay account, and the exchange
 * of the code eBay sends to the application's accept URL for the refresh token. The refresh
 * token and the scopes granted are what the portal account keeps (credentials refresh_token,
 * scopes); token refreshes then ask for those scopes only (ebay-token.ts).
 *
 * eBay's answer to the exchange names no scopes: a consent grants every scope the link asked
 * for or none, so the scopes granted are the link's.
 */
import { config } from '../../../config';
import { portalRefused, portalUnavailable } from '../../errors';
import { ebayScopes } from './ebay-token';

/** Kontor's application at eBay (developer.ebay.com keys) and where eBay is reached. */
export interface EbayApplication {
  clientId: string;
  clientSecret: string;
  /** The RuName: eBay's name of the application's redirect (accept/decline URLs set at developer.ebay.com). */
  ruName: string;
  /** Where sellers sign in and consent: https://auth.ebay.com (https://auth.sandbox.ebay.com for eBay's sandbox). */
  authUrl: string;
  /** Where the token endpoint is: https://api.ebay.com. */
  apiUrl: string;
}

export interface EbayConsent {
  refresh_token: string;
  /** Space-separated, as the portal account keeps them. */
  scopes: string;
  /** When eBay's refresh token expires (about 18 months): the seller must consent again before. */
  refresh_token_expires_at: string | null;
}

/** The consent link; `state` comes back to the accept URL unchanged and ties the answer to the portal account that asked. */
export function ebayConsentUrl(app: EbayApplication, state: string, scopes: readonly string[] = ebayScopes): string {
  const url = new URL('/oauth2/authorize', app.authUrl);
  url.search = new URLSearchParams({ client_id: app.clientId, response_type: 'code', redirect_uri: app.ruName, scope: scopes.join(' '), state }).toString();
  return url.toString();
}

/** The code of the accept URL exchanged for the seller's refresh token (grant authorization_code, redirect_uri the RuName). */
export async function ebayConsentGrant(app: EbayApplication, code: string, scopes: readonly string[] = ebayScopes): Promise<EbayConsent> {
  let res: Response;
  try {
    res = await fetch(new URL('/identity/v1/oauth2/token', app.apiUrl), {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        Accept: 'application/json',
        Authorization: `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}`,
      },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: app.ruName }).toString(),
      signal: AbortSignal.timeout(config().portalTimeoutMs),
    });
  } catch (err) {
    throw portalUnavailable(`auction_a consent: eBay's token endpoint did not answer (${(err as Error).message})`);
  }
  const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (!res.ok || typeof body.refresh_token !== 'string') {
    const reason = `${typeof body.error === 'string' ? body.error : res.status}${typeof body.error_description === 'string' ? `: ${body.error_description}` : ''}`;
    if (res.status === 429 || res.status >= 500) throw portalUnavailable(`auction_a consent: eBay's token endpoint answered ${reason}`);
    throw portalRefused(`auction_a consent: eBay refused the consent code (${reason}); the seller has to open the consent link again`);
  }
  const lifetime = typeof body.refresh_token_expires_in === 'number' ? body.refresh_token_expires_in : null;
  return {
    refresh_token: body.refresh_token,
    scopes: scopes.join(' '),
    refresh_token_expires_at: lifetime === null ? null : new Date(Date.now() + lifetime * 1000).toISOString(),
  };
}
