/**
 * PayPal's Transaction Search API as Kontor reads it. Sources: "List transactions"
 * (developer.paypal.com/docs/api/transaction-search/v1/) and its OpenAPI,
 * paypal/paypal-rest-api-specifications openapi/reporting_transactions_v1.json: OAuth2 client
 * credentials at POST /v1/oauth2/token, then GET /v1/reporting/transactions with start_date and
 * end_date (RFC 3339, required, at most 31 days apart), fields, page_size (1 to 500), page (from
 * 1) until total_pages, and transaction_id to ask for one payment. No transaction_status filter:
 * every status is listed and read per transaction (S completed, P pending, D denied, V reversed).
 * Errors are { name, message, debug_id, details[{ field, value, location, issue, description }] }:
 * 400 INVALID_REQUEST; 400 RESULTSET_TOO_LARGE ("Result set size is greater than the maximum
 * limit", with total_items and maximum_items: a query may match at most 10,000 transactions;
 * developer.paypal.com/api/transaction-search/v1/errors/resultset_too_large and
 * paypal/PayPal-TypeScript-Server-SDK doc/models/search-error.md); 401 AUTHENTICATION_FAILURE;
 * 403 NOT_AUTHORIZED with the issue PERMISSION_DENIED when the app lacks Transaction Search.
 */
import { ClientCredentials } from 'simple-oauth2';
import { config } from '../../../config';
import { portalUnavailable } from '../../errors';
import { retryAfterMs } from '../../portals';

export interface PayPalTransaction {
  transaction_info?: {
    transaction_id?: string;
    transaction_event_code?: string;
    transaction_initiation_date?: string;
    transaction_updated_date?: string;
    transaction_status?: string;
    transaction_amount?: { currency_code?: string; value?: string };
    transaction_subject?: string;
    transaction_note?: string;
    invoice_id?: string;
    custom_field?: string;
  };
  payer_info?: { email_address?: string; payer_name?: { given_name?: string; surname?: string; alternate_full_name?: string } };
}

/** PayPal's error body (OpenAPI error_400/401/403; total_items and maximum_items with RESULTSET_TOO_LARGE only). */
interface PayPalErrorBody {
  name?: string;
  message?: string;
  debug_id?: string;
  details?: { field?: string; issue?: string; description?: string }[];
  total_items?: number;
  maximum_items?: number;
  /** The token endpoint answers OAuth2's own shape. */
  error?: string;
}

/** The provider refused the client credentials (401, invalid_client): retrying cannot help; the seller must act. */
export class ProviderAuthError extends Error {
  override name = 'ProviderAuthError';
}

/**
 * 403 NOT_AUTHORIZED: the credentials are good but the app may not search transactions, either
 * not enabled or not granted yet (PayPal: up to 9 hours after it is enabled). The sync decides.
 */
export class ProviderPermissionError extends Error {
  override name = 'ProviderPermissionError';
}

/** Any other refusal of a request (a 4xx that is not about credentials), with PayPal's own words; not retried. */
export class ProviderRequestError extends Error {
  override name = 'ProviderRequestError';
}

/** RESULTSET_TOO_LARGE: the window matched more transactions than one query may; it is split. */
class ResultSetTooLarge extends Error {
  override name = 'ResultSetTooLarge';
}

export interface ProviderTarget {
  baseUrl: string;
  credentials: { client_id?: unknown; client_secret?: unknown };
}

/** An open connection to the API: a token asked for by this sync (see openSession). */
export interface PayPalSession {
  baseUrl: string;
  token: string;
}

/** Which transactions to list: a time window, or one payment by its transaction id within it. */
export interface SearchWindow {
  start: Date;
  end: Date;
  transactionId?: string;
}

export const pageSize = 500;
/** PayPal's largest start_date..end_date span. */
export const maxSpanMs = 31 * 86_400_000;
/**
 * The narrowest window a too-large result is split down to. 10,000 transactions in one minute
 * (166 a second) is beyond any shop; there the sync fails naming the minute instead of skipping it.
 */
export const minSplitMs = 60_000;

/**
 * A token for this sync. Asked for anew on every sync, never cached: PayPal grants a newly
 * enabled Transaction Search permission to new tokens only, and its tokens live 9 hours.
 */
export async function openSession(target: ProviderTarget): Promise<PayPalSession> {
  const { client_id: id, client_secret: secret } = target.credentials;
  if (typeof id !== 'string' || typeof secret !== 'string') throw new ProviderAuthError('no client_id and client_secret stored');
  const client = new ClientCredentials({ client: { id, secret }, auth: { tokenHost: target.baseUrl, tokenPath: '/v1/oauth2/token' } });
  try {
    return { baseUrl: target.baseUrl, token: String((await client.getToken({})).token.access_token) };
  } catch (err) {
    const status = (err as { output?: { statusCode?: number } }).output?.statusCode;
    if (status === 401 || status === 403 || status === 400) throw new ProviderAuthError(`PayPal refused the client credentials (${status})`);
    throw portalUnavailable(`PayPal: OAuth2 token request failed${status ? ` (${status})` : ''}`);
  }
}

/** "400 INVALID_REQUEST: <message> (start_date: INVALID_PARAMETER_SYNTAX; debug_id ...)": PayPal's words for a log and a seller. */
function describe(status: number, body: PayPalErrorBody): string {
  const issues = (body.details ?? []).map((d) => [d.field, d.issue].filter(Boolean).join(': ')).filter(Boolean);
  const extra = [...issues, ...(body.debug_id ? [`debug_id ${body.debug_id}`] : [])];
  return `${status} ${body.name ?? body.error ?? ''}: ${body.message ?? 'no message'}${extra.length ? ` (${extra.join('; ')})` : ''}`.replace(/ {2,}/g, ' ');
}

/** The error a non-ok answer stands for; 429/5xx are worth another try, the rest are not. */
function answerError(res: Response, body: PayPalErrorBody): Error {
  const text = `PayPal answered ${describe(res.status, body)}`;
  if (res.status === 429 || res.status >= 500) return portalUnavailable(text, retryAfterMs(res.headers.get('retry-after')));
  if (res.status === 400 && body.name === 'RESULTSET_TOO_LARGE') return new ResultSetTooLarge(text);
  if (res.status === 401) return new ProviderAuthError(text);
  if (res.status === 403) return new ProviderPermissionError(text);
  return new ProviderRequestError(text);
}

/** One page of the window's transactions. */
async function page(session: PayPalSession, window: SearchWindow, n: number): Promise<{ items: PayPalTransaction[]; totalPages: number }> {
  const url = new URL('/v1/reporting/transactions', session.baseUrl);
  const params: Record<string, string> = {
    start_date: window.start.toISOString(),
    end_date: window.end.toISOString(),
    ...(window.transactionId ? { transaction_id: window.transactionId } : {}),
    fields: 'transaction_info,payer_info',
    page_size: String(pageSize),
    page: String(n),
  };
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  let res: Response;
  try {
    res = await fetch(url, {
      headers: { Authorization: `Bearer ${session.token}`, Accept: 'application/json' },
      signal: AbortSignal.timeout(config().portalTimeoutMs),
    });
  } catch (err) {
    throw portalUnavailable(`PayPal: ${(err as Error).name === 'TimeoutError' ? 'no answer in time' : (err as Error).message}`);
  }
  const body = (await res.json().catch(() => ({}))) as PayPalErrorBody & { transaction_details?: PayPalTransaction[]; total_pages?: number };
  if (!res.ok) throw answerError(res, body);
  return { items: body.transaction_details ?? [], totalPages: Number(body.total_pages ?? 1) };
}

/** Every page of one window of at most 31 days. */
async function allPages(session: PayPalSession, window: SearchWindow): Promise<PayPalTransaction[]> {
  const all: PayPalTransaction[] = [];
  for (let n = 1, total = 1; n <= total; n++) {
    const answer = await page(session, window, n);
    all.push(...answer.items);
    total = answer.totalPages;
  }
  return all;
}

/**
 * One window of at most 31 days; on RESULTSET_TOO_LARGE its two halves, each split again as
 * needed, down to minSplitMs. The halves share their middle instant (PayPal's dates bound both
 * ends), so a payment at it may come twice: it is stored once by its transaction id.
 */
async function splitting(session: PayPalSession, window: SearchWindow): Promise<PayPalTransaction[]> {
  try {
    return await allPages(session, window);
  } catch (err) {
    if (!(err instanceof ResultSetTooLarge)) throw err;
    const span = window.end.getTime() - window.start.getTime();
    if (span <= minSplitMs) {
      throw new ProviderRequestError(
        `${err.message}, for the ${span / 1000} s from ${window.start.toISOString()} to ${window.end.toISOString()}, ` +
          `the narrowest window Kontor asks for: its payments cannot be listed`,
      );
    }
    const middle = new Date(window.start.getTime() + Math.floor(span / 2));
    return [...(await splitting(session, { ...window, end: middle })), ...(await splitting(session, { ...window, start: middle }))];
  }
}

/** Every transaction between start and end, of every status (spans over 31 days are asked in parts). */
export async function listTransactions(session: PayPalSession, window: SearchWindow): Promise<PayPalTransaction[]> {
  const all: PayPalTransaction[] = [];
  for (let from = window.start; from < window.end; from = new Date(from.getTime() + maxSpanMs)) {
    const to = new Date(Math.min(window.end.getTime(), from.getTime() + maxSpanMs));
    all.push(...(await splitting(session, { ...window, start: from, end: to })));
  }
  return all;
}
