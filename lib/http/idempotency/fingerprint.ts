import crypto from 'node:crypto';

/** What makes two requests "the same request" for one Idempotency-Key. */
export interface RequestIdentity {
  method: string;
  /** The API version segment (v1.1 when none): another version may answer differently. */
  version: string;
  /** The declared path ('stock/{stock_id}/cia/') and its parameters as sent. */
  path: string;
  params: Record<string, string>;
  query: unknown;
  /** The request-level portal_account_id as sent (null when none). */
  portalAccount: unknown;
  /** The body after decoding and validation (a file body: its bytes). */
  body: unknown;
}

/**
 * sha256 of the canonical request: object keys sorted at every depth, arrays in order, dates as
 * ISO strings, a file by the hash of its bytes. Comparing the validated body rather than the
 * bytes makes a body the same whatever its media type (JSON or XML), charset, key order or
 * whitespace, and whatever read-only fields it carried (they are dropped with a warning).
 */
export function fingerprintOf(identity: RequestIdentity): string {
  return crypto.createHash('sha256').update(canonical(identity)).digest('hex');
}

function canonical(value: unknown): string {
  if (value === undefined || value === null) return 'null';
  if (Buffer.isBuffer(value)) return JSON.stringify(`sha256:${crypto.createHash('sha256').update(value).digest('hex')}`);
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
