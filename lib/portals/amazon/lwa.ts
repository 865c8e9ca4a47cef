import crypto from 'node:crypto';
import { config } from '../../../config';
import { portalRefused, portalUnavailable } from '../../errors';
import { retryAfterMs } from '../portal-http';
import type { PortalTarget } from '../portal.type';
import type { SpApiCredentials } from './sp-api-credentials';

/** An access token is taken as expired this long before LWA's expiry: a call started with it must still arrive in time. */
const expiryMarginMs = 60_000;

const tokens = new Map<string, { token: string; until: number }>();
const pending = new Map<string, Promise<string>>();

const keys = new WeakMap<SpApiCredentials, string>();

/**
 * Per portal account and refresh token: a seller who authorises again gets a new token at once.
 * Hashed once per credentials (a session's), not on each of its calls.
 */
function cacheKey(target: PortalTarget, creds: SpApiCredentials): string {
  let key = keys.get(creds);
  if (key === undefined) {
    key = `${target.portalAccountId}|${crypto.createHash('sha256').update(creds.refreshToken).digest('hex').slice(0, 16)}`;
    keys.set(creds, key);
  }
  return key;
}

/** LWA's refusals that no retry can mend: the refresh token or the client is no longer valid. */
const permanentErrors = new Set(['invalid_grant', 'invalid_client', 'unauthorized_client', 'invalid_request']);

async function requestToken(target: PortalTarget, creds: SpApiCredentials): Promise<{ token: string; expiresIn: number }> {
  let res: Response;
  try {
    res = await fetch(creds.lwaUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded;charset=UTF-8', Accept: 'application/json' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: creds.refreshToken,
        client_id: creds.clientId,
        client_secret: creds.clientSecret,
      }).toString(),
      signal: AbortSignal.timeout(config().portalTimeoutMs),
    });
  } catch (err) {
    throw portalUnavailable(`market_d: Login with Amazon did not answer for portal account ${target.portalAccountId} (${(err as Error).message})`);
  }
  const body = (await res.json().catch(() => ({}))) as { access_token?: unknown; expires_in?: unknown; error?: unknown; error_description?: unknown };
  if (res.ok && typeof body.access_token === 'string') return { token: body.access_token, expiresIn: Number(body.expires_in) || 3600 };
  const reason = `${typeof body.error === 'string' ? body.error : res.status}${typeof body.error_description === 'string' ? `: ${body.error_description}` : ''}`;
  if (res.status >= 400 && res.status < 500 && res.status !== 429 && (typeof body.error !== 'string' || permanentErrors.has(body.error))) {
    throw portalRefused(
      `market_d: Login with Amazon refused the refresh token of portal account ${target.portalAccountId} (${reason}); the seller must authorise Kontor again`,
    );
  }
  throw portalUnavailable(
    `market_d: Login with Amazon answered ${reason} for portal account ${target.portalAccountId}`,
    retryAfterMs(res.headers.get('retry-after')),
  );
}

/**
 * An LWA access token for the portal account, from its refresh token; kept per process until
 * a minute before it expires, one request however many calls ask at once. An invalid or revoked
 * refresh token fails the job for good (portal_refused) with a message naming the portal account.
 */
export async function accessToken(target: PortalTarget, creds: SpApiCredentials): Promise<string> {
  const key = cacheKey(target, creds);
  const cached = tokens.get(key);
  if (cached && cached.until > Date.now()) return cached.token;
  let request = pending.get(key);
  if (!request) {
    request = requestToken(target, creds)
      .then(({ token, expiresIn }) => {
        tokens.set(key, { token, until: Date.now() + expiresIn * 1000 - expiryMarginMs });
        return token;
      })
      .finally(() => pending.delete(key));
    pending.set(key, request);
  }
  return request;
}

/** Drops the account's cached token (SP-API answered that it is no longer valid). */
export function forgetAccessToken(target: PortalTarget, creds: SpApiCredentials): void {
  tokens.delete(cacheKey(target, creds));
}
