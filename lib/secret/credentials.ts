/**
 * Credentials at rest (portal accounts, payment provider accounts): sealed with AES-256-GCM under
 * the key of config (CREDENTIALS_KEY). Two formats, both read:
 *   kc2.<key id>.<iv>.<tag>.<ciphertext>: the additional authenticated data is the table and the
 *     row id ("portal_account:17"): a value copied to another row or table does not open.
 *   kc1.<key id>.<iv>.<tag>.<ciphertext>: the table only (sealed before rows were bound); still
 *     opened, and sealed again as kc2 by migration 20261126_0600_credentials_bound_to_row and by
 *     `kontor credentials reseal`.
 * The key id lets a rotated installation open values sealed with an earlier key
 * (CREDENTIALS_OLD_KEYS) while it seals new ones with the current key.
 */
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { config } from '../../config';

/**
 * Where a sealed value belongs (its table); part of what the tag authenticates. event_handler:
 * a notification handler's signing secret (lib/event/signing-secret.ts).
 */
export type CredentialsPurpose = 'portal_account' | 'payment_provider_account' | 'event_handler';

/**
 * What a value may be sealed for: a table of credentials above, or idempotency_key, the secret
 * fields of an answer an Idempotency-Key keeps for its replays (lib/http/idempotency), bound to
 * the seller account. Those rows live 24 hours and are never resealed (README).
 */
export type SealPurpose = CredentialsPurpose | 'idempotency_key';

/** A sealed value that cannot be opened (unknown key id, tampered, another row), or no key configured. */
export class CredentialsError extends Error {}

function keyFor(id: string): Buffer | undefined {
  const { credentialsKey, credentialsOldKeys } = config();
  return credentialsKey?.id === id ? credentialsKey.key : credentialsOldKeys.get(id);
}

/** The current key; without CREDENTIALS_KEY (production) nothing is sealed. */
function currentKey(): { id: string; key: Buffer } {
  const key = config().credentialsKey;
  if (!key) throw new CredentialsError('CREDENTIALS_KEY is not set: credentials cannot be sealed (openssl rand -base64 32)');
  return key;
}

/** What the tag authenticates: the table, and the row where the value is bound to one (kc2). */
const aad = (purpose: SealPurpose, rowId: number | undefined) => Buffer.from(rowId === undefined ? purpose : `${purpose}:${rowId}`);

/**
 * Seals credentials with the current key; an empty object is stored as null (none). With the row
 * id (kc2) the value opens only for that row; without it (kc1, for a row whose id is not known
 * yet) only the table is bound.
 */
export function sealCredentials(purpose: SealPurpose, credentials: Record<string, unknown>, rowId?: number): string | null {
  if (Object.keys(credentials).length === 0) return null;
  const { id, key } = currentKey();
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(aad(purpose, rowId));
  const sealed = Buffer.concat([cipher.update(JSON.stringify(credentials), 'utf8'), cipher.final()]);
  return [rowId === undefined ? 'kc1' : 'kc2', id, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), sealed.toString('base64url')].join('.');
}

/**
 * Opens a sealed value; null (none) gives {}. A kc2 value opens only with the row id it was
 * sealed for. Throws CredentialsError, never with the value in its message.
 */
export function openCredentials(purpose: SealPurpose, sealed: string | null, rowId?: number): Record<string, unknown> {
  if (sealed === null || sealed === '') return {};
  const [v, id, iv, tag, data] = sealed.split('.');
  if ((v !== 'kc1' && v !== 'kc2') || !id || !iv || !tag || data === undefined)
    throw new CredentialsError(`${purpose} credentials are not sealed in a known format`);
  if (v === 'kc2' && rowId === undefined) throw new CredentialsError(`${purpose} credentials are bound to their row: open them with its id`);
  const key = keyFor(id);
  if (!key) throw new CredentialsError(`${purpose} credentials are sealed with key "${id}", which is not configured (CREDENTIALS_KEY, CREDENTIALS_OLD_KEYS)`);
  try {
    const decipher = crypto.createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(aad(purpose, v === 'kc2' ? rowId : undefined));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    const plain = Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
    return JSON.parse(plain) as Record<string, unknown>;
  } catch {
    throw new CredentialsError(`${purpose} credentials sealed with key "${id}" do not open (wrong key, another row, or altered)`);
  }
}

/** The id of the key a sealed value was sealed with (re-sealing after a rotation), null when none. */
export function sealedKeyId(sealed: string | null): string | null {
  return sealed ? (sealed.split('.')[1] ?? null) : null;
}

/** Whether a sealed value is bound to its row (kc2); null (none) counts as bound. */
export const isBoundToRow = (sealed: string | null) => sealed === null || sealed === '' || sealed.startsWith('kc2.');

/**
 * Narrows a query of a table's sealed column (its owner's; `credentials` unless named) to the rows
 * whose values need sealing again: sealed with another key than `keyId`, or not yet bound to their
 * row (kc1), or not sealed at all. The format read in SQL, in one place; the caller checks each
 * value again with sealedKeyId and isBoundToRow.
 */
export function whereNeedsResealing<Q extends Knex.QueryBuilder>(query: Q, keyId: string, column: 'credentials' | 'signing_secret' = 'credentials'): Q {
  query.whereNotNull(column).where((q) => q.whereRaw("split_part(??, '.', 2) <> ?", [column, keyId]).orWhereRaw("split_part(??, '.', 1) <> 'kc2'", [column]));
  return query;
}

/** The line a process logs at start when credentials are sealed with a built-in key. */
export function developmentKeyWarning(): string | undefined {
  const { credentialsKey } = config();
  if (credentialsKey?.builtIn !== 'development') return undefined;
  return 'CREDENTIALS_KEY is not set: development mode seals credentials with the published development key; never store real credentials here';
}
