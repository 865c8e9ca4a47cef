import crypto from 'node:crypto';

/** A new random secret (access token, refresh token, code): 256 bits, URL-safe, under 160 characters. */
export function newSecret(prefix: string): string {
  return `${prefix}_${crypto.randomBytes(32).toString('base64url')}`;
}

/** Secrets are stored and looked up only by their SHA-256. */
export function secretHash(secret: string): string {
  return crypto.createHash('sha256').update(secret).digest('hex');
}
