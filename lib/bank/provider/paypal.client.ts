/**
 * PayPal's Transaction Search API as Kontor reads it (developer.paypal.com/docs/api/transaction-
 * search/v1/, "List transactions"): OAuth2 client credentials at POST /v1/oauth2/token, then
 * GET /v1/reporting/transactions with start_date and end_date (ISO 8601, at most 31 days apart),
 * transaction_status=S (completed), fields=transaction_info,payer_info, page_size (at most 500)
 * and page (from 1) until total_pages; each transaction_details[] item has transaction_info
 * (transaction_id, transaction_initiation_date, transaction_amount.value, transaction_status,
 * transaction_subject, invoice_id, custom_field, transaction_note) and payer_info (payer_name,
 * email_address).
 */
import { ClientCredentials } from 'simple-oauth2';
import { config } from '../../../config';
import { portalUnavailable } from '../../errors';
import { retryAfterMs } from '../../portals/portal-http';

export interface PayPalTransaction {
  transaction_info?: {
    transaction_id?: string;
    transaction_initiation_date?: string;
    transaction_status?: string;
    transaction_amount?: { currency_code?: string; value?: string };
    transaction_subject?: string;
    transaction_note?: string;
    invoice_id?: string;
    custom_field?: string;
  };
  payer_info?: { email_address?: string; payer_name?: { given_name?: string; surname?: string; alternate_full_name?: string } };
}

/** The provider refused the credentials (401/403): retrying cannot help; the seller must act. */
export class ProviderAuthError extends Error {
  override name = 'ProviderAuthError';
}

export interface ProviderTarget {
  baseUrl: string;
  credentials: { client_id?: unknown; client_secret?: unknown };
}

export const pageSize = 500;
/** PayPal's largest start_date..end_date span. */
export const maxSpanMs = 31 * 86_400_000;

async function accessToken(target: ProviderTarget): Promise<string> {
  const { client_id: id, client_secret: secret } = target.credentials;
  if (typeof id !== 'string' || typeof secret !== 'string') throw new ProviderAuthError('no client_id and client_secret stored');
  const client = new ClientCredentials({ client: { id, secret }, auth: { tokenHost: target.baseUrl, tokenPath: '/v1/oauth2/token' } });
  try {
    return String((await client.getToken({})).token.access_token);
  } catch (err) {
    const status = (err as { output?: { statusCode?: number } }).output?.statusCode;
    if (status === 401 || status === 403 || status === 400) throw new ProviderAuthError(`PayPal refused the client credentials (${status})`);
    throw portalUnavailable(`PayPal: OAuth2 token request failed${status ? ` (${status})` : ''}`);
  }
}

/** One page of completed transactions between start and end. */
async function page(target: ProviderTarget, token: string, start: Date, end: Date, n: number): Promise<{ items: PayPalTransaction[]; totalPages: number }> {
  const url = new URL('/v1/reporting/transactions', target.baseUrl);
  const params = {
    start_date: start.toISOString(),
    end_date: end.toISOString(),
    transaction_status: 'S',
    fields: 'transaction_info,payer_info',
    page_size: String(pageSize),
    page: String(n),
  };
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  let res: Response;
  try {
    res = await fetch(url, {
      headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' },
      signal: AbortSignal.timeout(config().portalTimeoutMs),
    });
  } catch (err) {
    throw portalUnavailable(`PayPal: ${(err as Error).name === 'TimeoutError' ? 'no answer in time' : (err as Error).message}`);
  }
  const body = (await res.json().catch(() => ({}))) as { transaction_details?: PayPalTransaction[]; total_pages?: number; message?: string };
  if (res.status === 401 || res.status === 403) throw new ProviderAuthError(`PayPal answered ${res.status}: ${body.message ?? 'not authorized'}`);
  if (res.status === 429 || res.status >= 500) throw portalUnavailable(`PayPal answered ${res.status}`, retryAfterMs(res.headers.get('retry-after')));
  if (!res.ok) throw new ProviderAuthError(`PayPal answered ${res.status}: ${body.message ?? res.statusText}`);
  return { items: body.transaction_details ?? [], totalPages: Number(body.total_pages ?? 1) };
}

/** Every completed transaction between start and end (spans over 31 days are asked in parts). */
export async function listTransactions(target: ProviderTarget, start: Date, end: Date): Promise<PayPalTransaction[]> {
  const token = await accessToken(target);
  const all: PayPalTransaction[] = [];
  for (let from = start; from < end; from = new Date(from.getTime() + maxSpanMs)) {
    const to = new Date(Math.min(end.getTime(), from.getTime() + maxSpanMs));
    for (let n = 1, total = 1; n <= total; n++) {
      const answer = await page(target, token, from, to, n);
      all.push(...answer.items);
      total = answer.totalPages;
    }
  }
  return all;
}
