import { invalidField } from '../../errors';

/** The header a client sends to make a POST safe to retry (draft-ietf-httpapi-idempotency-key-header). */
export const idempotencyHeader = 'Idempotency-Key';

/** Longest key taken: a UUID is 36 characters; Stripe's limit is the same 255. */
export const maxKeyLength = 255;

/** Visible ASCII without quote and backslash: a UUID, a ULID, a hash or `order-4711-try` all fit. */
const keyPattern = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/**
 * The key of a request, or undefined without the header. The draft sends it as a Structured
 * Field string ("..."); a bare token, as most clients send it, is the same key. Anything else is
 * a 400 naming the header, before any work.
 */
export function idempotencyKeyOf(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const key = header.length >= 2 && header.startsWith('"') && header.endsWith('"') ? header.slice(1, -1) : header;
  if (key.length === 0 || key.length > maxKeyLength || !keyPattern.test(key)) {
    throw invalidField(
      idempotencyHeader,
      `${idempotencyHeader} must be 1 to ${maxKeyLength} visible ASCII characters without spaces, quotes or backslashes (a UUID, say)`,
      'invalid_idempotency_key',
    );
  }
  return key;
}
