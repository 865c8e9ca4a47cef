/**
 * The sandbox's payment provider: PayPal's OAuth2 token and Transaction Search endpoints with
 * the same paths, parameters and answer shapes (developer.paypal.com/docs/api/transaction-search/
 * v1/: start_date and end_date required and at most 31 days apart, transaction_status, fields,
 * page_size up to 500, page, total_pages), faults from POST /_sandbox/faults with portal
 * "paypal" (429 with Retry-After, 5xx), and POST /_sandbox/paypal/payments to make a payment.
 * A client_id is registered with the secret of its first token request; another secret is 401.
 */
import crypto from 'node:crypto';
import express, { Request, Response } from 'express';
import type { SandboxState } from './sandbox.app';

export interface PayPalPayment {
  clientId: string;
  transactionId: string;
  date: string;
  amount: string;
  currency: string;
  payerName: string;
  email: string;
  invoiceId: string;
  subject: string;
}

/** What the sandbox PayPal holds: registered clients, issued tokens, payments received. */
export class PayPalState {
  clients = new Map<string, string>();
  tokens = new Map<string, string>();
  payments: PayPalPayment[] = [];
}

const maxSpanMs = 31 * 86_400_000;

function basic(req: Request): { id: string; secret: string } | undefined {
  const match = /^Basic (.+)$/.exec(req.get('Authorization') ?? '');
  if (!match) return undefined;
  const [id = '', ...rest] = Buffer.from(match[1]!, 'base64').toString('utf8').split(':');
  return { id: decodeURIComponent(id), secret: decodeURIComponent(rest.join(':')) };
}

/** Mounts /v1/oauth2/token, /v1/reporting/transactions and the payment control. */
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
    paypal.tokens.set(token, client.id);
    res.json({
      scope: 'https://uri.paypal.com/services/reporting/search/read',
      access_token: token,
      token_type: 'Bearer',
      app_id: 'APP-SANDBOX',
      expires_in: 32400,
      nonce: crypto.randomUUID(),
    });
  });

  app.get('/v1/reporting/transactions', (req: Request, res: Response) => {
    const clientId = paypal.tokens.get((req.get('Authorization') ?? '').replace(/^Bearer /, ''));
    const record = (status: number) =>
      state.requests.push({
        at: new Date().toISOString(),
        portal: 'paypal',
        portalAccount: clientId ?? 'unknown',
        method: 'GET',
        path: req.path,
        idempotencyKey: null,
        body: req.query,
        status,
        replayed: false,
        bearer: clientId !== undefined,
      });
    if (!clientId) {
      record(401);
      res.status(401).json({
        name: 'AUTHENTICATION_FAILURE',
        message: 'Authentication failed due to invalid authentication credentials or a missing Authorization header.',
      });
      return;
    }
    const fault = state.faults.find((f) => f.portal === 'paypal' && f.remaining > 0);
    if (fault) {
      fault.remaining -= 1;
      if (fault.remaining === 0) state.faults = state.faults.filter((f) => f !== fault);
      if (fault.retryAfter !== undefined) res.set('Retry-After', fault.retryAfter);
      record(fault.status);
      res.status(fault.status).json({ name: fault.status === 429 ? 'RATE_LIMIT_REACHED' : 'INTERNAL_SERVER_ERROR', message: fault.message });
      return;
    }
    const q = req.query as Record<string, string | undefined>;
    const start = Date.parse(q.start_date ?? '');
    const end = Date.parse(q.end_date ?? '');
    const size = Number(q.page_size ?? 100);
    const page = Number(q.page ?? 1);
    const invalid =
      Number.isNaN(start) || Number.isNaN(end)
        ? 'start_date and end_date are required'
        : end < start || end - start > maxSpanMs
          ? 'Date range is greater than 31 days'
          : !Number.isInteger(size) || size < 1 || size > 500
            ? 'page_size must be 1 to 500'
            : !Number.isInteger(page) || page < 1
              ? 'page must be 1 or more'
              : null;
    if (invalid) {
      record(400);
      res
        .status(400)
        .json({ name: 'INVALID_REQUEST', message: 'Request is not well-formed, syntactically incorrect, or violates schema.', details: [{ issue: invalid }] });
      return;
    }
    const matching = paypal.payments.filter(
      (p) =>
        p.clientId === clientId &&
        Date.parse(p.date) >= start &&
        Date.parse(p.date) <= end &&
        (q.transaction_status === undefined || q.transaction_status === 'S'),
    );
    const totalPages = Math.max(1, Math.ceil(matching.length / size));
    record(200);
    res.json({
      transaction_details: matching.slice((page - 1) * size, page * size).map(detailsOf),
      account_number: `SANDBOX${clientId.slice(0, 8).toUpperCase()}`,
      start_date: q.start_date,
      end_date: q.end_date,
      last_refreshed_datetime: new Date().toISOString(),
      page,
      total_items: matching.length,
      total_pages: totalPages,
      links: [{ href: req.originalUrl, rel: 'self', method: 'GET' }],
    });
  });

  app.post('/_sandbox/paypal/payments', (req: Request, res: Response) => {
    const body = req.body as {
      client_id?: string;
      amount?: string | number;
      payer_name?: string;
      email?: string;
      invoice_id?: string;
      subject?: string;
      date?: string;
    };
    const amount = String(body.amount ?? '');
    if (!body.client_id || !/^\d{1,10}(\.\d{1,2})?$/.test(amount)) {
      res.status(400).json({ message: 'client_id and amount (like 12.50) are required' });
      return;
    }
    const payment: PayPalPayment = {
      clientId: body.client_id,
      transactionId: crypto.randomBytes(9).toString('hex').toUpperCase().slice(0, 17),
      date: body.date ?? new Date().toISOString(),
      amount: Number(amount).toFixed(2),
      currency: 'EUR',
      payerName: body.payer_name ?? 'Sandbox Buyer',
      email: body.email ?? 'buyer@example.com',
      invoiceId: body.invoice_id ?? '',
      subject: body.subject ?? '',
    };
    paypal.payments.push(payment);
    res.status(201).json({ transaction_id: payment.transactionId, ...payment });
  });
}

function detailsOf(p: PayPalPayment) {
  const [given = '', ...rest] = p.payerName.split(' ');
  return {
    transaction_info: {
      paypal_account_id: 'SANDBOXPAYER',
      transaction_id: p.transactionId,
      transaction_event_code: 'T0006',
      transaction_initiation_date: p.date,
      transaction_updated_date: p.date,
      transaction_amount: { currency_code: p.currency, value: p.amount },
      transaction_status: 'S',
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
