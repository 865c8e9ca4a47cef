/**
 * Credentials at rest (portal accounts, payment provider accounts): sealed with AES-256-GCM under
 * the key of config (CREDENTIALS_KEY), as `kc1.<key id>.<iv>.<tag>.<ciphertext>` (base64url).
 * The key id lets a rotated installation open values sealed with an earlier key
 * (CREDENTIALS_OLD_KEYS) while it seals new ones with the current key. The purpose (the table)
 * is the additional authenticated data: a value copied to another table does not open.
 */
import crypto from 'node:crypto';
import { config } from '../../config';

/** Where a sealed value belongs; part of what the tag authenticates. */
export type CredentialsPurpose = 'portal_account' | 'payment_provider_account';

const version = 'kc1';

/** A sealed value that cannot be opened (unknown key id, tampered, another purpose). */
export class CredentialsError extends Error {}

function keyFor(id: string): Buffer | undefined {
  const { credentialsKey, credentialsOldKeys } = config();
  return credentialsKey.id === id ? credentialsKey.key : credentialsOldKeys.get(id);
}

/** Seals credentials with the current key; an empty object is stored as null (none). */
export function sealCredentials(purpose: CredentialsPurpose, credentials: Record<string, unknown>): string | null {
  if (Object.keys(credentials).length === 0) return null;
  const { id, key } = config().credentialsKey;
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(purpose));
  const sealed = Buffer.concat([cipher.update(JSON.stringify(credentials), 'utf8'), cipher.final()]);
  return [version, id, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), sealed.toString('base64url')].join('.');
}

/** Opens a sealed value; null (none) gives {}. Throws CredentialsError, never with the value in its message. */
export function openCredentials(purpose: CredentialsPurpose, sealed: string | null): Record<string, unknown> {
  if (sealed === null || sealed === '') return {};
  const [v, id, iv, tag, data] = sealed.split('.');
  if (v !== version || !id || !iv || !tag || data === undefined) throw new CredentialsError(`${purpose} credentials are not sealed in a known format`);
  const key = keyFor(id);
  if (!key) throw new CredentialsError(`${purpose} credentials are sealed with key "${id}", which is not configured (CREDENTIALS_KEY, CREDENTIALS_OLD_KEYS)`);
  try {
    const decipher = crypto.createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(purpose));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    const plain = Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
    return JSON.parse(plain) as Record<string, unknown>;
  } catch {
    throw new CredentialsError(`${purpose} credentials sealed with key "${id}" do not open (wrong key or altered)`);
  }
}

/** The id of the key a sealed value was sealed with (re-sealing after a rotation), null when none. */
export function sealedKeyId(sealed: string | null): string | null {
  return sealed ? (sealed.split('.')[1] ?? null) : null;
}

/** The line a process logs at start when credentials are sealed with the development key. */
export function developmentKeyWarning(): string | undefined {
  const { env, credentialsKey } = config();
  if (!credentialsKey.development || env === 'test') return undefined;
  return 'CREDENTIALS_KEY is not set: credentials are sealed with the published development key; set CREDENTIALS_KEY (openssl rand -base64 32) before storing real credentials';
}
