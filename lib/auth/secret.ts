import crypto from 'node:crypto';
import { routePrefix } from '../db';

/**
 * A new random secret (access token, refresh token, code): 256 bits, URL-safe, under 160 characters.
 * Issued to an account, it starts with the account's route prefix when there are several cells
 * (`a<account id>_`, lib/db/cells.ts), so the router finds the account's cell; it stays opaque
 * to its holder and is stored only hashed.
 */
export function newSecret(prefix: string, accountId?: number): string {
  return `${accountId !== undefined ? routePrefix(accountId) : ''}${prefix}_${crypto.randomBytes(32).toString('base64url')}`;
}

/** Secrets are stored and looked up only by their SHA-256. */
export function secretHash(secret: string): string {
  return crypto.createHash('sha256').update(secret).digest('hex');
}
