/**
 * One signed call of Kaufland's Seller API v2: the request signing of its reference
 * (Shop-Client-Key, Shop-Timestamp, Shop-Signature = hex HMAC-SHA256 of method, full URI, body
 * and timestamp joined by newlines, keyed with the secret key), the seller's share of the rate
 * limit (111 requests a second per seller over all endpoints), Kaufland's error body
 * ({type, message, errors[{field, message}]}) in the job's message.
 */
import crypto from 'node:crypto';
import { config } from '../../../config';
import { portalRefused, portalUnavailable } from '../../errors';
import { portalCalls } from '../../metrics';
import { retryAfterMs } from '../portal-http';
import { changesByMethod, mayLandAnswered, mayLandUnanswered, PortalAnswer, portalRequest } from '../portal-request';
import { waitForPortalSlot } from '../portal-rate-limit';
import type { PortalTarget } from '../portal.type';
import { KauflandCredentials, kauflandCredentials } from './kaufland-credentials';

/**
 * Calls a second per seller: Kaufland's 111 less a tenth. Its limit counts arrivals; calls sent
 * at exactly its pace arrive bunched after a slow connection and would draw 429s (as Amazon's
 * buckets did), so Kontor keeps a margin. Shared by every worker process (portal-rate-limit), and
 * by every portal account of the same keys (sellerSlot).
 */
export const kauflandCallsPerSecond = 100;

/**
 * The slot Kaufland's limit is counted in: its seller, whose API keys sign the call ("111 requests
 * per seller per second", SOURCES.md), not Kontor's portal account: a seller in two storefronts
 * connects two accounts with one pair of keys. The key's hash names it in Redis, not the key.
 */
const sellerSlot = (clientKey: string): string => crypto.createHash('sha256').update(clientKey).digest('hex').slice(0, 24);

/** A 429 whose Retry-After is at most this long is waited for within the call; a longer one fails the job for a retry then. */
const inCallRetryMs = 2000;
const inCallRetries = 2;

/** The string Kaufland signs: method, full URI (query included), body ('' without one), timestamp. */
export function signedString(method: string, uri: string, body: string, timestamp: number | string): string {
  return [method.toUpperCase(), uri, body, String(timestamp)].join('\n');
}

/** Shop-Signature: lowercase hex HMAC-SHA256 of the signed string with the secret key (PHP's hash_hmac). */
export function kauflandSignature(method: string, uri: string, body: string, timestamp: number | string, secretKey: string): string {
  return crypto
    .createHmac('sha256', secretKey)
    .update(signedString(method, uri, body, timestamp))
    .digest('hex');
}

/** Kaufland's error body (ErrorResponse) as one line. */
export function kauflandMessage(body: unknown, fallback: string): string {
  const b = (body ?? {}) as { type?: unknown; message?: unknown; errors?: { field?: unknown; message?: unknown }[] };
  const fields = Array.isArray(b.errors) ? b.errors.map((e) => `${String(e.field ?? '')}: ${String(e.message ?? '')}`).join('; ') : '';
  const message = typeof b.message === 'string' ? b.message : fallback;
  return `${message}${fields ? ` (${fields})` : ''}${typeof b.type === 'string' && b.type !== 'about:blank' ? ` [${b.type}]` : ''}`.slice(0, 1500);
}

/** Query parameters; a list goes as the parameter repeated (OpenAPI's default: form, exploded). */
export type Query = Record<string, string | number | string[] | undefined>;

export interface KauflandAnswer<T> {
  status: number;
  body: T;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The failures of calls Kaufland gave no answer to (a timeout, a network error): whether it acted on them is not known. */
const unanswered = new WeakSet<Error>();
/** True when the call failed without an answer from Kaufland (it may have taken effect there); false for an answered 4xx or 5xx. */
export const wasUnanswered = (err: unknown): boolean => err instanceof Error && unanswered.has(err);

/** The portal account's Seller API: base URL, keys, storefront. */
export class KauflandSession {
  readonly creds: KauflandCredentials;
  readonly base: string;

  constructor(readonly target: PortalTarget) {
    this.creds = kauflandCredentials(target);
    // A base URL without a path (the sandbox's root, SANDBOX_PORTAL_URL) is Kaufland's /v2 there.
    const url = new URL(target.baseUrl);
    this.base = url.pathname === '/' ? `${url.origin}/v2` : target.baseUrl.replace(/\/$/, '');
  }

  get storefront(): string {
    return this.creds.storefront;
  }

  /**
   * One call: 2xx, 404 and the statuses in `accept` are answered (the caller knows what a missing unit means); a 429 is
   * waited for within the call when its Retry-After is short, else it, a 5xx, a timeout or a
   * network error fails retryable with Kaufland's message; any other 4xx (a refused signature
   * or key, data Kaufland refuses) fails for good with it.
   */
  async call<T = Record<string, unknown>>(method: string, path: string, query: Query = {}, body?: unknown, accept: number[] = []): Promise<KauflandAnswer<T>> {
    const url = new URL(`${this.base}${path}`);
    for (const [k, v] of Object.entries(query)) for (const one of v === undefined ? [] : Array.isArray(v) ? v : [v]) url.searchParams.append(k, String(one));
    const text = body === undefined ? '' : JSON.stringify(body);
    for (let attempt = 0; ; attempt++) {
      // Per call, under a key of its own: the job's slot (PORTAL_CALLS_PER_SECOND, key market_e) smooths jobs, this one Kaufland's calls.
      await waitForPortalSlot('kaufland', sellerSlot(this.creds.clientKey), kauflandCallsPerSecond);
      const timestamp = Math.floor(Date.now() / 1000);
      const headers: Record<string, string> = {
        Accept: 'application/json',
        'Shop-Client-Key': this.creds.clientKey,
        'Shop-Timestamp': String(timestamp),
        'Shop-Signature': kauflandSignature(method, url.toString(), text, timestamp, this.creds.secretKey),
        'User-Agent': 'Kontor',
      };
      if (body !== undefined) headers['Content-Type'] = 'application/json';
      let res: PortalAnswer;
      try {
        res = await portalRequest(url, { method, headers, body: body === undefined ? undefined : text, timeoutMs: config().portalTimeoutMs });
      } catch (err) {
        portalCalls.inc({ portal: 'market_e', outcome: 'failed' });
        const failed = portalUnavailable(
          `market_e (Kaufland): ${(err as Error).name === 'TimeoutError' ? 'no answer in time' : (err as Error).message}`,
          undefined,
          mayLandUnanswered(changesByMethod(method), err),
        );
        unanswered.add(failed);
        throw failed;
      }
      const raw = res.text;
      let parsed: unknown;
      try {
        parsed = raw ? JSON.parse(raw) : {};
      } catch {
        parsed = { message: raw.slice(0, 300) };
      }
      const transient = res.status === 429 || res.status >= 500 || res.status === 408;
      portalCalls.inc({ portal: 'market_e', outcome: res.ok ? 'ok' : transient ? 'unavailable' : 'refused' });
      if (res.ok || res.status === 404 || accept.includes(res.status)) return { status: res.status, body: parsed as T };
      const message = `market_e (Kaufland) answered ${res.status} to ${method} ${path}: ${kauflandMessage(parsed, res.statusText)}`;
      if (res.status === 429) {
        const wait = retryAfterMs(res.headers.get('retry-after')) ?? 1000;
        if (wait <= inCallRetryMs && attempt < inCallRetries) {
          await sleep(wait);
          continue;
        }
        throw portalUnavailable(message, wait);
      }
      if (transient) throw portalUnavailable(message, retryAfterMs(res.headers.get('retry-after')), mayLandAnswered(changesByMethod(method), res.status));
      if (res.status === 401 || res.status === 403) throw portalRefused(`${message}; check the keys of portal account ${this.target.portalAccountId}`);
      throw portalRefused(message);
    }
  }
}
