import crypto from 'node:crypto';
import { promisify } from 'node:util';
import { config } from '../../config';

const scrypt = promisify(crypto.scrypt) as (password: string, salt: Buffer, keylen: number, options: crypto.ScryptOptions) => Promise<Buffer>;
const keyLength = 32;

/** A salted scrypt hash, stored as scrypt$N$r$p$salt$hash so the cost can rise later. */
export async function hashPassword(password: string): Promise<string> {
  const N = config().passwordHashCost;
  const salt = crypto.randomBytes(16);
  const hash = await scrypt(password, salt, keyLength, { N, r: 8, p: 1, maxmem: 256 * N * 8 });
  return ['scrypt', N, 8, 1, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [kind, N, r, p, salt, hash] = stored.split('$');
  if (kind !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await scrypt(password, Buffer.from(salt, 'base64url'), expected.length, {
    N: Number(N),
    r: Number(r),
    p: Number(p),
    maxmem: 256 * Number(N) * Number(r),
  });
  return crypto.timingSafeEqual(actual, expected);
}

/** A password hash to compare against when the login is unknown, so timing does not tell. */
let decoy: Promise<string> | undefined;
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(crypto.randomBytes(16).toString('hex'));
  return decoy;
}

/**
 * The password hash of a login support disabled (`kontor user disable`): no password verifies
 * against it (verifyPassword knows only scrypt), and the login is checked against the decoy hash
 * instead, so a disabled login answers as a wrong password does, in the same time. Kept in
 * password_hash rather than a column of its own: setting a new password (`kontor user password`)
 * is what enables the login again, and no code path can read a disabled login as usable.
 */
export const disabledPasswordHash = (at: Date): string => `disabled$${at.toISOString()}`;

export const isDisabledPasswordHash = (stored: string): boolean => stored.startsWith('disabled$');
