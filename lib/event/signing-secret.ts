/**
 * A notification handler's signing secret at rest: sealed with CREDENTIALS_KEY and bound to its
 * row (lib/secret, purpose event_handler), as the portals' credentials are, because whoever reads
 * it from a dump, a backup or a replica can sign events the seller's receiver then believes.
 * Opened only where it is used: the creation's answer, the seller's own GET, and each delivery.
 */
import crypto from 'node:crypto';
import { openCredentials, sealCredentials } from '../secret';

/** A new secret: 256 random bits, `whsec_` and base64url (what receivers are told to expect). */
export const newSigningSecret = () => `whsec_${crypto.randomBytes(32).toString('base64url')}`;

/** The secret sealed for the handler row `id`. */
export const sealSigningSecret = (secret: string, id: number): string => sealCredentials('event_handler', { signing_secret: secret }, id)!;

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
