/**
 * A notification handler's signing secret at rest: sealed with CREDENTIALS_KEY and bound to its
 * row (lib/secret, purpose event_handler), as the portals' credentials are, because whoever reads
 * it from a dump, a backup or a replica can sign events the seller's receiver then believes.
 * Opened only where it is used: the creation's answer, the seller's own GET, and each delivery.
 */
import crypto from 'node:crypto';
import { CredentialsError, openCredentials, sealCredentials } from '../secret';

/**
 * A new secret: 256 random bits, `whsec_` and standard base64 with its padding, the form Standard
 * Webhooks libraries decode (base64url, used before, is refused by theirs when it holds - or _).
 */
export const newSigningSecret = () => `whsec_${crypto.randomBytes(32).toString('base64')}`;

/**
 * The secret sealed for the handler row `id`, with the password of its url when it names one
 * (url_password, below).
 */
export const sealSigningSecret = (secret: string, id: number, urlPassword?: string): string =>
  sealCredentials('event_handler', { signing_secret: secret, ...(urlPassword === undefined ? {} : { url_password: urlPassword }) }, id)!;

/**
 * A notification url's user:password@ (RFC 3986 3.2.1): the scheme and user name, the password as
 * written (percent-encoded as sent), and the rest. The userinfo ends at the authority's last '@', as
 * the URL parser reads it. Undefined when the url names no password.
 */
const userinfoPattern = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/)([^/?#\\]*)@/;

export function splitUrlPassword(url: string): { url: string; password: string } | undefined {
  const match = userinfoPattern.exec(url);
  if (!match) return undefined;
  const [whole, scheme, userinfo] = match as unknown as [string, string, string];
  const colon = userinfo.indexOf(':');
  if (colon === -1) return undefined;
  return { url: `${scheme}${userinfo.slice(0, colon)}@${url.slice(whole.length)}`, password: userinfo.slice(colon + 1) };
}

/** The url with its password put back after the user name (splitUrlPassword's inverse). */
export function withUrlPassword(url: string, password: string): string {
  const match = userinfoPattern.exec(url);
  if (!match) return url;
  const [whole, scheme, user] = match as unknown as [string, string, string];
  return `${scheme}${user}:${password}@${url.slice(whole.length)}`;
}

/**
 * The password of a handler's url, kept sealed beside its signing secret, or undefined: a url
 * without one, a secret still in clear (before sealing), or a value that does not open.
 */
export function urlPasswordOf(row: { id: number; signing_secret: string }): string | undefined {
  if (clearSigningSecret(row.signing_secret) !== undefined || row.signing_secret === '') return undefined;
  try {
    const password = openCredentials('event_handler', row.signing_secret, row.id).url_password;
    return typeof password === 'string' ? password : undefined;
  } catch (err) {
    // The handler's deliveries report it (signingSecretOf throws there); its reads go on without the password.
    if (err instanceof CredentialsError) return undefined;
    throw err;
  }
}

/**
 * A secret stored in clear, by the code before sealing (migration 20261127_0300 seals those; a
 * web process of the earlier release may still write one while a deployment rolls): it is used as
 * it is, and `kontor credentials reseal` seals it.
 */
export const clearSigningSecret = (stored: string): string | undefined => (stored.startsWith('whsec_') ? stored : undefined);

/** The handler's secret; CredentialsError when the sealed value does not open (another row, key, altered). */
export function signingSecretOf(row: { id: number; signing_secret: string }): string {
  const clear = clearSigningSecret(row.signing_secret);
  if (clear !== undefined) return clear;
  return String(openCredentials('event_handler', row.signing_secret, row.id).signing_secret);
}
