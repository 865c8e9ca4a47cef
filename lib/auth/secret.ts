import crypto from 'node:crypto';
import { config } from '../../config';
import { cellOfAccount } from '../db/cells';

/**
 * A new random secret (access token, refresh token, code): 256 bits, URL-safe, under 160 characters.
 * With several cells (CELL_COUNT > 1) a secret issued to an account starts with `a<account id>_`,
 * so that the router in front of the cells finds the account's cell without a shared database
 * (cellOfSecret). The account, not the cell: a refresh token lives two years, and an account
 * moved to another cell meanwhile keeps its id, so the router's list of moved accounts still
 * routes the token right. The secret stays opaque to its holder and is stored only hashed.
 */
export function newSecret(prefix: string, accountId?: number): string {
  const routed = accountId !== undefined && config().cellCount > 1 ? `a${accountId}_` : '';
  return `${routed}${prefix}_${crypto.randomBytes(32).toString('base64url')}`;
}

/** The account a secret was issued to, as its prefix names it; undefined without one (issued by a single stack). */
export function accountOfSecret(secret: string): number | undefined {
  const match = /^a([1-9]\d{0,9})_/.exec(secret);
  const id = match ? Number(match[1]) : undefined;
  return id !== undefined && id <= 2147483647 ? id : undefined;
}

/**
 * The router's rule for a bearer token, refresh token or code: the cell of the account its prefix
 * names (moved accounts by the router's list, the rest by range arithmetic); a secret without
 * the prefix was issued before the installation had cells, by what is now cell 0.
 */
export function cellOfSecret(secret: string, moved: ReadonlyMap<number, number> = new Map(), count = config().cellCount): number {
  const accountId = accountOfSecret(secret);
  if (accountId === undefined) return 0;
  return moved.get(accountId) ?? cellOfAccount(accountId, count);
}

/** Secrets are stored and looked up only by their SHA-256. */
export function secretHash(secret: string): string {
  return crypto.createHash('sha256').update(secret).digest('hex');
}
