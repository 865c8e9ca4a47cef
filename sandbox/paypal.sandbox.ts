/**
 * The sandbox's payment provider: PayPal's OAuth2 token and Transaction Search endpoints with
 * the same paths, parameters, answers and errors (developer.paypal.com/docs/api/transaction-
 * search/v1/; the OpenAPI in paypal/paypal-rest-api-specifications openapi/
 * reporting_transactions_v1.json), the inconvenient parts included:
 * - every request is checked as PayPal documents it (paypal-request.sandbox.ts) and a violation
 *   answered with PayPal's error body, never served;
 * - a query matching more than 10,000 transactions is a 400 RESULTSET_TOO_LARGE with total_items
 *   and maximum_items (the limit is lowered for tests: POST /_sandbox/paypal/limits);
 * - an app without Transaction Search gets 403 NOT_AUTHORIZED (issue PERMISSION_DENIED), and one
 *   that enabled it gets it only in tokens issued once PayPal granted it ("up to 9 hours"):
 *   POST /_sandbox/paypal/apps {client_id, transaction_search, granted_after_seconds};
 * - payments have a status (S, P, D, V) that changes under the same transaction id and date
 *   (POST /_sandbox/paypal/payments/{transaction_id} {status}), a currency, and may be listed
 *   late (listed_after_minutes: PayPal lists a payment up to 3 hours after it);
 * - start_date..end_date select by the payment's date (transaction_initiation_date).
 * Faults from POST /_sandbox/faults with portal "paypal" (429 with Retry-After, 5xx). A client_id
 * is registered with the secret of its first token request; another secret is 401 invalid_client.
 */
import crypto from 'node:crypto';
import express, { Request, Response } from 'express';
import { payPalError, searchRequestError } from './paypal-request.sandbox';
import type { SandboxState } from './sandbox.app';

export type PayPalStatus = 'S' | 'P' | 'D' | 'V';

export interface PayPalPayment {
  clientId: string;
  transactionId: string;
  /** transaction_initiation_date: what start_date and end_date select by. */
  date: string;
  amount: string;
  currency: string;
  payerName: string;
  email: string;
  invoiceId: string;
  subject: string;
  /** transaction_status now (S when not given). */
  status?: PayPalStatus;
  /** transaction_event_code (T0006, Express Checkout, when not given): T0200 a currency conversion, T0300 a bank deposit ... */
  eventCode?: string;
  /** transaction_updated_date: the last change of status (date when not given). */
  updated?: string;
  /** Listed from this time on (ms; at once when not given). */
  listedFrom?: number;
}

/** PayPal's largest result set of one query. */
export const payPalMaxResultItems = 10000;
const reportingScope = 'https://uri.paypal.com/services/reporting/search/read';

/** What the sandbox PayPal holds: registered clients, issued tokens, payments received, app settings. */
export class PayPalState {
  clients = new Map<string, string>();
  /** Issued tokens: their client, and whether they carry Transaction Search (granted when they were issued). */
  tokens = new Map<string, { clientId: string; search: boolean }>();
  payments: PayPalPayment[] = [];
  /** Transaction Search of a client's app: absent, enabled; a time, granted from then on; null, not enabled. */
  searchFrom = new Map<string, number | null>();
  /** Most transactions one query may match, per client ('*': any client); PayPal's 10,000 otherwise. */
  maxResultItems = new Map<string, number>();

  reset(): void {
    this.clients.clear();
    this.tokens.clear();
    this.payments = [];
    this.searchFrom.clear();
    this.maxResultItems.clear();
  }

  limitFor(clientId: string): number {
    return this.maxResultItems.get(clientId) ?? this.maxResultItems.get('*') ?? payPalMaxResultItems;
  }

  searchGranted(clientId: string, at: number): boolean {
    const from = this.searchFrom.get(clientId);
    return from === undefined || (from !== null && from <= at);
  }
}

function basic(req: Request): { id: string; secret: string } | undefined {
  const match = /^Basic (.+)$/.exec(req.get('Authorization') ?? '');
  if (!match) return undefined;
  const [id = '', ...rest] = Buffer.from(match[1]!, 'base64').toString('utf8').split(':');
  return { id: decodeURIComponent(id), secret: decodeURIComponent(rest.join(':')) };
}

/** Mounts /v1/oauth2/token, /v1/reporting/transactions and the PayPal controls. */
export function mountPayPal(app: express.Express, state: SandboxState, paypal: PayPalState): void {
  app.post('/v1/oauth2/token', express.urlencoded({ extended: false }), (req: Request, res: Response) => {
    const client = basic(req);
    const known = client ? paypal.clients.get(client.id) : undefined;
    if (!client || (req.body as { grant_type?: string }).grant_type !== 'client_credentials' || (known !== undefined && known !== client.secret)) {
      res.status(401).json({ error: 'invalid_client', error_description: 'Client Authentication failed' });
      return;
    }
    paypal.clients.set(client.id, client.secret);
    const token = `A21AA${crypto.randomBytes(16).toString('hex')}`;
    const search = paypal.searchGranted(client.id, Date.now());
    paypal.tokens.set(token, { clientId: client.id, search });
    res.json({
      scope: ['https://uri.paypal.com/services/payments/payment', ...(search ? [reportingScope] : [])].join(' '),
      access_token: token,
      token_type: 'Bearer',
      app_id: 'APP-SANDBOX',
      expires_in: 32400,
      nonce: crypto.randomUUID(),
    });
  });
  app.get('/v1/reporting/transactions', (req: Request, res: Response) => search(req, res, state, paypal));
  mountPayPalControls(app, paypal);
}

/** GET /v1/reporting/transactions: authentication, faults, permission, the request's checks, the result's size, one page. */
function search(req: Request, res: Response, state: SandboxState, paypal: PayPalState): void {
  const bearer = /^Bearer (\S+)$/.exec(req.get('Authorization') ?? '');
  const token = bearer ? paypal.tokens.get(bearer[1]!) : undefined;
  const answer = (status: number, body: unknown) => {
    state.requests.push({
      at: new Date().toISOString(),
      portal: 'paypal',
      portalAccount: token?.clientId ?? 'unknown',
      method: 'GET',
      path: req.path,
      idempotencyKey: null,
      body: req.query,
      status,
      replayed: false,
      bearer: token !== undefined,
    });
    res.status(status).json(body);
  };
  if (!token) {
    answer(401, payPalError('AUTHENTICATION_FAILURE', 'Authentication failed due to missing authorization header, or invalid authentication credentials.'));
    return;
  }
  const fault = state.takeFault('paypal', token.clientId);
  if (fault) {
    if (fault.retryAfter !== undefined) res.set('Retry-After', fault.retryAfter);
    answer(fault.status, payPalError(fault.status === 429 ? 'RATE_LIMIT_REACHED' : 'INTERNAL_SERVER_ERROR', fault.message));
    return;
  }
  if (!token.search) {
    const denied = { issue: 'PERMISSION_DENIED', description: 'You do not have permission to access or perform operations on this resource.' };
    answer(403, payPalError('NOT_AUTHORIZED', 'Authorization failed due to insufficient permissions.', [denied]));
    return;
  }
  const now = Date.now();
  const invalid = searchRequestError(req.query, now);
  if (invalid) {
    answer(400, invalid);
    return;
  }
  const q = req.query as Record<string, string | undefined>;
  const matching = listed(paypal, token.clientId, q, now);
  const limit = paypal.limitFor(token.clientId);
  if (matching.length > limit) {
    answer(
      400,
      payPalError('RESULTSET_TOO_LARGE', 'Result set size is greater than the maximum limit. Change the filter criteria and try again.', [], {
        total_items: matching.length,
        maximum_items: limit,
      }),
    );
    return;
  }
  const size = Number(q.page_size ?? 100);
  const page = Number(q.page ?? 1);
  answer(200, {
    transaction_details: matching.slice((page - 1) * size, page * size).map(detailsOf),
    account_number: `SANDBOX${token.clientId
      .slice(0, 8)
      .toUpperCase()
      .replace(/[^A-Z0-9]/g, '')}`,
    start_date: q.start_date,
    end_date: q.end_date,
    last_refreshed_datetime: new Date(now).toISOString(),
    page,
    total_items: matching.length,
    total_pages: Math.max(1, Math.ceil(matching.length / size)),
    links: [{ href: req.originalUrl, rel: 'self', method: 'GET' }],
  });
}

/** The client's payments a checked query selects, by date then id (a stable order across pages). */
function listed(paypal: PayPalState, clientId: string, q: Record<string, string | undefined>, now: number): PayPalPayment[] {
  const start = Date.parse(q.start_date!);
  const end = Date.parse(q.end_date!);
  return paypal.payments
    .filter(
      (p) =>
        p.clientId === clientId &&
        (p.listedFrom ?? 0) <= now &&
        Date.parse(p.date) >= start &&
        Date.parse(p.date) <= end &&
        (q.transaction_status === undefined || q.transaction_status === (p.status ?? 'S')) &&
        (q.transaction_id === undefined || q.transaction_id === p.transactionId),
    )
    .sort((a, b) => Date.parse(a.date) - Date.parse(b.date) || a.transactionId.localeCompare(b.transactionId));
}

/** Currencies PayPal takes without decimals (developer.paypal.com/api/rest/reference/currency-codes/). */
const wholeCurrencies = ['HUF', 'JPY', 'TWD'];

/** The sandbox's controls of its PayPal: payments, their status, an app's Transaction Search, the result limit. */
function mountPayPalControls(app: express.Express, paypal: PayPalState): void {
  app.post('/_sandbox/paypal/payments', (req: Request, res: Response) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const amount = String(body.amount ?? '');
    const currency = String(body.currency ?? 'EUR');
    const status = String(body.status ?? 'S') as PayPalStatus;
    const date = body.date === undefined ? new Date().toISOString() : String(body.date);
    if (
      !body.client_id ||
      !/^\d{1,10}(\.\d{1,2})?$/.test(amount) ||
      !/^[A-Z]{3}$/.test(currency) ||
      !['S', 'P', 'D', 'V'].includes(status) ||
      Number.isNaN(Date.parse(date))
    ) {
      res.status(400).json({ message: 'client_id and amount (like 12.50) are required; currency is ISO 4217, status S, P, D or V, date ISO 8601' });
      return;
    }
    const payment: PayPalPayment = {
      clientId: String(body.client_id),
      transactionId: crypto.randomBytes(9).toString('hex').toUpperCase().slice(0, 17),
      date,
      amount: Number(amount).toFixed(wholeCurrencies.includes(currency) ? 0 : 2),
      currency,
      payerName: String(body.payer_name ?? 'Sandbox Buyer'),
      email: String(body.email ?? 'buyer@example.com'),
      invoiceId: String(body.invoice_id ?? ''),
      subject: String(body.subject ?? ''),
      status,
      updated: date,
      listedFrom: Date.now() + Math.max(0, Number(body.listed_after_minutes ?? 0)) * 60_000,
    };
    paypal.payments.push(payment);
    res.status(201).json({ transaction_id: payment.transactionId, ...payment });
  });
  // A pending payment completes (S) or is denied (D); a completed one is reversed (V): same id, same date.
  app.post('/_sandbox/paypal/payments/:transaction_id', (req: Request, res: Response) => {
    const payment = paypal.payments.find((p) => p.transactionId === req.params.transaction_id);
    const status = String((req.body as { status?: unknown } | undefined)?.status ?? '') as PayPalStatus;
    if (!payment || !['S', 'P', 'D', 'V'].includes(status)) {
      res.status(payment ? 400 : 404).json({ message: payment ? 'status must be S, P, D or V' : 'no such payment' });
      return;
    }
    payment.status = status;
    payment.updated = new Date().toISOString();
    res.json({ transaction_id: payment.transactionId, status, updated: payment.updated });
  });
  app.post('/_sandbox/paypal/apps', (req: Request, res: Response) => {
    const body = (req.body ?? {}) as { client_id?: unknown; transaction_search?: unknown; granted_after_seconds?: unknown };
    if (typeof body.client_id !== 'string' || typeof body.transaction_search !== 'boolean') {
      res.status(400).json({ message: 'client_id and transaction_search (true or false) are required' });
      return;
    }
    const from = body.transaction_search ? Date.now() + Math.max(0, Number(body.granted_after_seconds ?? 0)) * 1000 : null;
    paypal.searchFrom.set(body.client_id, from);
    res.json({ client_id: body.client_id, transaction_search: body.transaction_search, granted_at: from === null ? null : new Date(from).toISOString() });
  });
  app.post('/_sandbox/paypal/limits', (req: Request, res: Response) => {
    const body = (req.body ?? {}) as { client_id?: unknown; max_result_items?: unknown };
    const limit = Number(body.max_result_items);
    if (!Number.isInteger(limit) || limit < 1) {
      res.status(400).json({ message: 'max_result_items must be a whole number of 1 or more' });
      return;
    }
    paypal.maxResultItems.set(typeof body.client_id === 'string' ? body.client_id : '*', limit);
    res.json({ client_id: body.client_id ?? '*', max_result_items: limit });
  });
}

function detailsOf(p: PayPalPayment) {
  const [given = '', ...rest] = p.payerName.split(' ');
  return {
    transaction_info: {
      paypal_account_id: 'SANDBOXPAYER',
      transaction_id: p.transactionId,
      transaction_event_code: p.eventCode ?? 'T0006',
      transaction_initiation_date: p.date,
      transaction_updated_date: p.updated ?? p.date,
      transaction_amount: { currency_code: p.currency, value: p.amount },
      transaction_status: p.status ?? 'S',
      ...(p.invoiceId ? { invoice_id: p.invoiceId } : {}),
      ...(p.subject ? { transaction_subject: p.subject } : {}),
    },
    payer_info: {
      account_id: 'SANDBOXPAYER',
      email_address: p.email,
      payer_name: { given_name: given, surname: rest.join(' '), alternate_full_name: p.payerName },
    },
  };
}
