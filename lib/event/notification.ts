import crypto from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { config } from '../../config';
import { webhookDeliveries } from '../metrics';
import { retryAfterMs } from './webhook-retry';
import { BlockedHostError, targetOf } from './webhook-host';

/**
 * The signature header of a notification: v1=hex(HMAC-SHA256(secret, timestamp + "." + body)).
 * A receiver recomputes it over the raw body with the handler's signing_secret, compares in
 * constant time, and refuses timestamps older than a few minutes (replays).
 */
export function signature(secret: string, timestamp: string, body: string): string {
  return `v1=${crypto.createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/**
 * The same notification signed as Standard Webhooks (standardwebhooks.com, spec 1.0.0) asks, so
 * that a receiver's stock verifier (the standardwebhooks packages, Svix's) takes it as it is:
 * `webhook-signature: v1,<base64(HMAC-SHA256(key, id + "." + timestamp + "." + body))>`, the key
 * being the bytes the secret's base64 after `whsec_` encodes. Secrets made before these headers
 * are base64url; Buffer reads both alphabets, a receiver's library only the standard one (README).
 */
export function standardSignature(secret: string, id: string, timestamp: string, body: string): string {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  return `v1,${crypto.createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** Why an attempt got no 2xx without an answer, or with one: the delivery log's error class. */
export type AttemptError = 'timeout' | 'dns' | 'connection' | 'tls' | 'http' | 'blocked_host';

/**
 * What one POST gave: delivered (2xx); gone (410: the receiver says the endpoint is no more);
 * blocked (the host resolves to a private address: never sent); retry (anything else).
 */
export interface AttemptResult {
  outcome: 'delivered' | 'retry' | 'gone' | 'blocked';
  status: number | null;
  error: AttemptError | null;
  description: string;
  durationMs: number;
  /** The receiver's Retry-After (429, 503), in ms. */
  retryAfterMs?: number;
}

const dnsCodes = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_NODATA', 'EAI_FAIL']);

/** The class of a failed request (a fetch puts the socket's error in cause, node's http has it on the error). */
function errorClass(err: unknown): AttemptError {
  const e = err as { name?: string; code?: string; cause?: { code?: string; name?: string; message?: string } };
  if (e.name === 'TimeoutError' || e.name === 'AbortError' || e.cause?.code === 'UND_ERR_CONNECT_TIMEOUT') return 'timeout';
  const code = e.cause?.code ?? e.code ?? '';
  if (dnsCodes.has(code)) return 'dns';
  if (/^(ERR_TLS|CERT_|ERR_SSL|UNABLE_TO_VERIFY|SELF_SIGNED|DEPTH_ZERO)/.test(code)) return 'tls';
  return 'connection';
}

function describe(err: unknown): string {
  const e = err as { message?: string; cause?: { message?: string } };
  return e.cause?.message ?? e.message ?? String(err);
}

export interface NotificationRequest {
  url: string;
  secret: string;
  body: string;
  deliveryId: string;
  requestId: string | null;
}

/**
 * POSTs a notification once and says what came of it; never throws for the receiver's sake.
 * Redirects are not followed (a retry, like any answer but 2xx and 410). The host is resolved
 * inside the connection and every address checked (webhook-host.ts): a name that does not
 * resolve is a retry, one that points anywhere but global unicast is blocked for good.
 */
export async function postNotification(request: NotificationRequest): Promise<AttemptResult> {
  const result = await attempt(request);
  webhookDeliveries.inc({ outcome: result.outcome === 'delivered' ? 'delivered' : result.outcome === 'retry' ? 'retry' : 'refused' });
  return result;
}

/** What a receiver answered: its status and Retry-After; the body is not read. */
interface Answer {
  status: number;
  retryAfter: string | null;
}

/** A userinfo part as the URL parser keeps it (percent-encoded), decoded; left as written when it is no valid encoding. */
function decodeUserinfo(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/**
 * The Basic credentials a url names as user:password@host (RFC 3986 3.2.1), as node's http sends
 * them (Authorization: Basic, UTF-8, RFC 7617); none without a user name or password. A receiver
 * behind a proxy with Basic authentication answered 401 to every delivery, retried for a day and
 * paused, while the seller had given its credentials.
 */
export function basicAuthOf(url: URL): string | undefined {
  if (!url.username && !url.password) return undefined;
  return `${decodeUserinfo(url.username)}:${decodeUserinfo(url.password)}`;
}

/** The promise's outcome, or the signal's reason (a TimeoutError) if it aborts first; the promise itself is left to settle. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason);
    if (signal.aborted) return abort();
    signal.addEventListener('abort', abort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

/**
 * One POST through node's http(s) to the pinned address (no connection pool: each attempt resolves
 * and checks afresh); Host and the TLS server name (certificate check) are the URL's. The
 * answer's body is discarded unread.
 */
async function post(url: URL, headers: Record<string, string>, body: string, timeoutMs: number): Promise<Answer> {
  const signal = AbortSignal.timeout(timeoutMs);
  // The name's lookup counts against the timeout too: a receiver whose name server answers late
  // held the attempt (and the account's slot) as long as the resolver took, past WEBHOOK_TIMEOUT_MS.
  const target = await untilAborted(targetOf(url), signal);
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(
      {
        protocol: url.protocol,
        host: target.address,
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        agent: false,
        signal,
        // The url's user:password@ as Basic credentials (never in the log: descriptions name the host only).
        ...(basicAuthOf(url) !== undefined ? { auth: basicAuthOf(url) } : {}),
        ...(url.protocol === 'https:' && !net.isIP(target.name) ? { servername: target.name } : {}),
        headers: { ...headers, Host: url.host, 'Content-Length': String(Buffer.byteLength(body)) },
      },
      (res) => {
        const retryAfter = res.headers['retry-after'];
        resolve({ status: res.statusCode ?? 0, retryAfter: typeof retryAfter === 'string' ? retryAfter : null });
        res.destroy();
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function attempt({ url, secret, body, deliveryId, requestId }: NotificationRequest): Promise<AttemptResult> {
  const started = performance.now();
  const took = () => Math.round(performance.now() - started);
  const target = new URL(url);
  const host = target.host;
  const timestamp = String(Math.floor(Date.now() / 1000));
  let res: Answer;
  try {
    res = await post(
      target,
      {
        'Content-Type': 'application/json; charset=utf-8',
        'User-Agent': 'Kontor-Webhook/1',
        'X-Kontor-Delivery': deliveryId,
        'X-Kontor-Timestamp': timestamp,
        'X-Kontor-Signature': signature(secret, timestamp, body),
        'webhook-id': deliveryId,
        'webhook-timestamp': timestamp,
        'webhook-signature': standardSignature(secret, deliveryId, timestamp, body),
        // The API request that caused the event, for the receiver's and our logs.
        ...(requestId ? { 'X-Request-Id': requestId } : {}),
      },
      body,
      config().webhookTimeoutMs,
    );
  } catch (err) {
    if (err instanceof BlockedHostError)
      return { outcome: 'blocked', status: null, error: 'blocked_host', description: `notification refused: ${err.message}`, durationMs: took() };
    const error = errorClass(err);
    const description =
      error === 'timeout' ? `notification to ${host}: no answer within ${config().webhookTimeoutMs} ms` : `notification to ${host}: ${describe(err)}`;
    return { outcome: 'retry', status: null, error, description, durationMs: took() };
  }
  const durationMs = took();
  const description = `notification to ${host} answered HTTP ${res.status}`;
  if (res.status >= 200 && res.status < 300) return { outcome: 'delivered', status: res.status, error: null, description, durationMs };
  if (res.status === 410) return { outcome: 'gone', status: res.status, error: 'http', description, durationMs };
  const asked = res.status === 429 || res.status === 503 ? retryAfterMs(res.retryAfter) : undefined;
  return { outcome: 'retry', status: res.status, error: 'http', description, durationMs, ...(asked !== undefined ? { retryAfterMs: asked } : {}) };
}
