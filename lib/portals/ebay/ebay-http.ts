/**
 * One call to eBay's REST APIs for a portal account: its base URL (api.ebay.com, or the sandbox
 * when the account has none), its bearer token, a timeout, and eBay's answers mapped to the
 * job's outcome: 429, 408, 5xx and network errors are retried (Retry-After honoured), a 401 mints
 * a new token and tries once more, any other 4xx fails the job with eBay's own error text.
 */
import { config } from '../../../config';
import { portalRefused, portalUnavailable } from '../../errors';
import { portalCalls } from '../../metrics';
import { retryAfterMs } from '../portal-http';
import { changesByMethod, mayLandAnswered, mayLandUnanswered, PortalAnswer, portalRequest } from '../portal-request';
import type { PortalTarget } from '../portal.type';
import { ebayAccessToken, forgetEbayToken } from './ebay-token';

/** eBay's error container ({errors: [{errorId, domain, category, message, longMessage, parameters}]}). */
export interface EbayError {
  errorId?: number;
  domain?: string;
  category?: string;
  message?: string;
  longMessage?: string;
  parameters?: { name?: string; value?: string }[];
}

export interface EbayRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  headers?: Record<string, string>;
  /** Statuses the caller reads itself instead of failing (e.g. 404 of a lookup). */
  accept?: number[];
}

export interface EbayAnswer<T> {
  status: number;
  body: T;
  headers: PortalAnswer['headers'];
}

const portal = 'auction_a';

/** eBay's errors as one line: "[25002 API_INVENTORY] message: longMessage (name=value)". */
export function ebayErrorText(errors: EbayError[] | undefined): string | undefined {
  if (!Array.isArray(errors) || errors.length === 0) return undefined;
  return errors
    .slice(0, 5)
    .map((e) => {
      const params = (e.parameters ?? []).map((p) => `${p.name}=${p.value}`).join(', ');
      const detail = e.longMessage && e.longMessage !== e.message ? `: ${e.longMessage}` : '';
      return `[${e.errorId ?? '?'}${e.domain ? ` ${e.domain}` : ''}] ${e.message ?? 'error'}${detail}${params ? ` (${params})` : ''}`;
    })
    .join('; ');
}

async function send(target: PortalTarget, request: EbayRequest, token: string): Promise<PortalAnswer> {
  const url = new URL(request.path, target.baseUrl);
  for (const [key, value] of Object.entries(request.query ?? {})) url.searchParams.set(key, value);
  const headers: Record<string, string> = { Accept: 'application/json', Authorization: `Bearer ${token}`, ...request.headers };
  if (request.body !== undefined) headers['Content-Type'] = 'application/json';
  try {
    return await portalRequest(url, {
      method: request.method,
      headers,
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
      timeoutMs: config().portalTimeoutMs,
    });
  } catch (err) {
    portalCalls.inc({ portal, outcome: 'failed' });
    throw portalUnavailable(
      `${portal}: ${(err as Error).name === 'TimeoutError' ? 'eBay did not answer in time' : (err as Error).message}`,
      undefined,
      mayLandUnanswered(changesByMethod(request.method), err),
    );
  }
}

/** One eBay call; answers 2xx (and the accepted statuses) with the parsed JSON body. */
export async function ebayCall<T = Record<string, unknown>>(target: PortalTarget, request: EbayRequest): Promise<EbayAnswer<T>> {
  let res = await send(target, request, await ebayAccessToken(target));
  if (res.status === 401) {
    // eBay can end a token before its time (a revoked consent): mint a new one once.
    forgetEbayToken(target.portalAccountId);
    res = await send(target, request, await ebayAccessToken(target));
  }
  const { text } = res;
  let body: unknown = {};
  try {
    body = text ? JSON.parse(text) : {};
  } catch {
    /* not JSON */
  }
  const transient = res.status === 429 || res.status === 408 || res.status >= 500;
  portalCalls.inc({ portal, outcome: res.ok ? 'ok' : transient ? 'unavailable' : 'refused' });
  if (res.ok || request.accept?.includes(res.status)) return { status: res.status, body: body as T, headers: res.headers };
  const reason = ebayErrorText((body as { errors?: EbayError[] }).errors) ?? (text.slice(0, 300) || res.statusText);
  const what = `${portal} (portal account ${target.portalAccountId}) ${request.method} ${request.path} answered ${res.status}: ${reason}`;
  if (transient) throw portalUnavailable(what, retryAfterMs(res.headers.get('retry-after')), mayLandAnswered(changesByMethod(request.method), res.status));
  if (res.status === 401) forgetEbayToken(target.portalAccountId);
  throw portalRefused(what);
}
