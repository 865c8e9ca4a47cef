import crypto from 'node:crypto';
import { clientRepository } from './client.repository';
import { secretHash } from './secret';

/** A redirect URI that may not be registered; the message says why. */
export class ClientRegistrationError extends Error {}

/** Loopback hosts (RFC 8252 7.3, 8.3): a native app's own listener, the one place plain http is fine. */
const loopbackHost = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/**
 * RFC 6749 3.1.2: an absolute URI without fragment. RFC 9700 2.1 and 4.1: compared exactly (as
 * authorize.php does), and never sent a code over plain http, except to a loopback address.
 */
export function checkRedirectUri(redirectUri: string): void {
  let url: URL;
  try {
    url = new URL(redirectUri);
  } catch {
    throw new ClientRegistrationError('redirect URI must be an absolute URI');
  }
  if (redirectUri.includes('#')) throw new ClientRegistrationError('redirect URI must not have a fragment (RFC 6749 3.1.2)');
  if (url.username || url.password) throw new ClientRegistrationError('redirect URI must not carry credentials');
  if (url.protocol === 'https:') return;
  if (url.protocol === 'http:' && loopbackHost.test(url.hostname)) return;
  throw new ClientRegistrationError('redirect URI must be https (http only to a loopback address: 127.0.0.1, [::1], localhost)');
}

/** Registers third-party software (document 1: done by support); the secret is shown once. */
export async function createClient(name: string, redirectUri: string): Promise<{ client_id: string; client_secret: string }> {
  checkRedirectUri(redirectUri);
  const clientId = `kc_${crypto.randomBytes(12).toString('hex')}`;
  const clientSecret = crypto.randomBytes(32).toString('base64url');
  await clientRepository.insert({ client_id: clientId, secret_hash: secretHash(clientSecret), name, redirect_uri: redirectUri });
  return { client_id: clientId, client_secret: clientSecret };
}
