/**
 * One HTTP exchange with a portal, for the calls made per quantity push and per page of orders
 * (HttpPortalAdapter, eBay, Kaufland, Shopify, and every SP-API call: amazon/sp-api-http.ts).
 * Node's http and https over kept-alive connections, not the global fetch: fetch costs 0.6-0.8 ms
 * more CPU per call (WHATWG streams, its Headers and AbortSignal), and the push worker makes
 * several calls per sale (bench/RESULTS.md). What the clients relied on from fetch is kept: the
 * body read whole and decoded as UTF-8 (a leading BOM dropped, as fetch's text() does),
 * `headers.get`, a deadline for the whole exchange that fails with an error named TimeoutError,
 * and an answer compressed although none was asked for (gzip, deflate, br) decoded.
 *
 * Decisions where fetch did more: redirects are not followed (no portal API the clients call
 * answers with one; a 3xx reaches the caller as a refusal naming its status), and no
 * Accept-Encoding is sent. A kept-alive connection the portal closed while it was idle fails
 * before the request reached it (ECONNRESET on a reused socket, no answer begun): that request is
 * sent once more on a new connection, as Node's documentation advises.
 *
 * A failed exchange says whether the portal may still apply it (`mayLandUnanswered`,
 * `mayLandAnswered`): the clients put that on the error they throw (lib/errors
 * `mayHaveLanded`), and a CIA push sends such a call's items once more when it can no longer land
 * (lib/portal-offer README "A push whose outcome is unknown").
 */
import http from 'node:http';
import https from 'node:https';
import zlib from 'node:zlib';

export interface PortalRequest {
  method: string;
  headers: Record<string, string>;
  body?: string;
  /** The deadline of the whole exchange, answer read included. */
  timeoutMs: number;
}

/** An answer, its body read. */
export interface PortalAnswer {
  status: number;
  ok: boolean;
  statusText: string;
  headers: { get(name: string): string | null };
  /** Every header by its lower-case name (repeated ones joined), for callers that hand them on whole. */
  headerFields: Record<string, string>;
  text: string;
}

const agents = { 'http:': new http.Agent({ keepAlive: true }), 'https:': new https.Agent({ keepAlive: true }) };
const decoder = new TextDecoder();

/** A request past its deadline. */
class PortalTimeoutError extends Error {
  override name = 'TimeoutError';
}

/** Whether a request of this method asks the portal to change something (any method but a read's). */
export const changesByMethod = (method: string): boolean => !['GET', 'HEAD', 'OPTIONS'].includes(method.toUpperCase());

/**
 * Whether a request that asks for a change (`changes`) and failed without an answer may still be
 * applied by the portal: it was written whole, or its answer had begun, before it failed (its
 * deadline passed, its connection was reset, the answer broke off). A connection refused, a name
 * not resolved, a deadline passed while connecting, or a reset before the request was written:
 * the portal never read it.
 */
export function mayLandUnanswered(changes: boolean, err: unknown): boolean {
  return changes && (err as { requestWritten?: unknown } | null | undefined)?.requestWritten === true;
}

/**
 * Whether an answered request that asks for a change and failed may still be applied: a 5xx (the
 * portal may have applied it before it failed). A 429 or 408 is an answer that it was not taken.
 */
export function mayLandAnswered(changes: boolean, status: number): boolean {
  return changes && status >= 500;
}

export async function portalRequest(url: URL, request: PortalRequest): Promise<PortalAnswer> {
  const deadline = Date.now() + request.timeoutMs;
  try {
    return await exchange(url, request, deadline);
  } catch (err) {
    if ((err as { staleSocket?: boolean }).staleSocket) return exchange(url, request, deadline);
    throw err;
  }
}

function exchange(url: URL, { method, headers, body, timeoutMs }: PortalRequest, deadline: number): Promise<PortalAnswer> {
  const agent = agents[url.protocol as keyof typeof agents];
  if (!agent) return Promise.reject(new Error(`${url.protocol} is not a protocol a portal is called by`));
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    let answered = false;
    // The request handed whole to the operating system ('finish' comes only once connected).
    let written = false;
    const req = client.request(
      url,
      { method, agent, headers: body === undefined ? headers : { ...headers, 'Content-Length': Buffer.byteLength(body) } },
      (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', fail);
        res.on('end', () => {
          clearTimeout(timer);
          const status = res.statusCode ?? 0;
          try {
            const headerFields: Record<string, string> = {};
            for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) headerFields[name] = headerValue(value);
            resolve({
              status,
              ok: status >= 200 && status < 300,
              statusText: res.statusMessage ?? '',
              headers: { get: (name) => headerFields[name.toLowerCase()] ?? null },
              headerFields,
              text: decoder.decode(decoded(Buffer.concat(chunks), res.headers['content-encoding'])),
            });
          } catch (err) {
            reject(Object.assign(err as Error, { requestWritten: true }));
          }
        });
      },
    );
    function fail(err: Error): void {
      clearTimeout(timer);
      // The portal closed a kept-alive connection before this request reached it.
      if (req.reusedSocket && (err as NodeJS.ErrnoException).code === 'ECONNRESET' && !answered) Object.assign(err, { staleSocket: true });
      reject(Object.assign(err, { requestWritten: written || answered }));
    }
    const timer = setTimeout(() => req.destroy(new PortalTimeoutError(`no answer within ${timeoutMs} ms`)), Math.max(0, deadline - Date.now()));
    req.on('error', fail);
    req.on('finish', () => (written = true));
    req.end(body);
  });
}

/** A body compressed although none was asked for (fetch would have decoded it too). */
function decoded(body: Buffer, encoding: string | undefined): Buffer {
  switch (encoding?.trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return zlib.gunzipSync(body);
    case 'deflate':
      return zlib.inflateSync(body);
    case 'br':
      return zlib.brotliDecompressSync(body);
    default:
      return body;
  }
}

function headerValue(value: string | string[]): string {
  return Array.isArray(value) ? value.join(', ') : value;
}
