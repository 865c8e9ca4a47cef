/**
 * The sandbox PayPal's contract checks of GET /v1/reporting/transactions and its error bodies,
 * as PayPal documents them (the OpenAPI of the API, paypal/paypal-rest-api-specifications
 * openapi/reporting_transactions_v1.json): start_date and end_date required, RFC 3339 with
 * seconds (a real calendar date), at most 31 days apart; page_size 1 to 500; page from 1;
 * transaction_status one of D, P, S, V; transaction_id 17 to 19 characters; fields from its list.
 * A violation is a 400 INVALID_REQUEST whose details name the parameter; a start_date beyond the
 * three years PayPal keeps (or not yet reached) is the message PayPal gives for it ("Data for the
 * given start date is not available.", paypal/PayPal-node-SDK issue 452). The issue codes in
 * details (MISSING_REQUIRED_PARAMETER, INVALID_PARAMETER_SYNTAX, INVALID_PARAMETER_VALUE) are
 * PayPal's common ones; the reference does not list those of this API.
 */
import crypto from 'node:crypto';

export interface PayPalErrorDetail {
  field: string;
  value?: string;
  location: 'query';
  issue: string;
  description: string;
}

/** PayPal's error body: name, message, debug_id, details, links (and what an error adds). */
export function payPalError(name: string, message: string, details: object[] = [], extra: Record<string, unknown> = {}) {
  return {
    name,
    message,
    debug_id: crypto.randomBytes(7).toString('hex').slice(0, 13),
    details,
    links: [{ href: `https://developer.paypal.com/api/transaction-search/v1/errors/${name.toLowerCase()}`, rel: 'information_link', method: 'GET' }],
    ...extra,
  };
}

export const invalidRequestMessage = 'Request is not well-formed, syntactically incorrect, or violates schema.';

const rfc3339 =
  /^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[1-2][0-9]|3[0-1])[Tt]([0-1][0-9]|2[0-3]):[0-5][0-9]:([0-5][0-9]|60)([.][0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2})$/;
const fieldNames = ['transaction_info', 'payer_info', 'shipping_info', 'auction_info', 'cart_info', 'incentive_info', 'store_info'];
const maxSpanMs = 31 * 86_400_000;
/** "This call lists transaction for the previous three years." */
const keptMs = 3 * 365 * 86_400_000;

/** The instant of an RFC 3339 date-time with seconds that names a real calendar day; NaN otherwise. */
export function instantOf(value: string): number {
  if (!rfc3339.test(value)) return NaN;
  const [y, m, d] = value.slice(0, 10).split('-').map(Number) as [number, number, number];
  if (new Date(Date.UTC(y, m - 1, d)).getUTCDate() !== d) return NaN;
  return Date.parse(value.replace(/t/, 'T'));
}

const detail = (field: string, value: string | undefined, issue: string, description: string): PayPalErrorDetail => ({
  field,
  ...(value !== undefined ? { value } : {}),
  location: 'query',
  issue,
  description,
});

function checkDates(q: Record<string, string | undefined>): PayPalErrorDetail[] {
  const out: PayPalErrorDetail[] = [];
  for (const field of ['start_date', 'end_date'] as const) {
    const value = q[field];
    if (value === undefined || value === '') out.push(detail(field, value, 'MISSING_REQUIRED_PARAMETER', `${field} is required.`));
    else if (Number.isNaN(instantOf(value)))
      out.push(detail(field, value, 'INVALID_PARAMETER_SYNTAX', `${field} must be an RFC 3339 date-time with seconds, like 2026-11-26T10:00:00Z.`));
  }
  if (out.length) return out;
  const start = instantOf(q.start_date!);
  const end = instantOf(q.end_date!);
  if (end < start) out.push(detail('end_date', q.end_date, 'INVALID_PARAMETER_VALUE', 'end_date must not be before start_date.'));
  else if (end - start > maxSpanMs) out.push(detail('end_date', q.end_date, 'INVALID_PARAMETER_VALUE', 'Date range is greater than 31 days.'));
  return out;
}

function checkPaging(q: Record<string, string | undefined>): PayPalErrorDetail[] {
  const out: PayPalErrorDetail[] = [];
  const whole = (v: string) => /^\d{1,10}$/.test(v);
  if (q.page_size !== undefined && (!whole(q.page_size) || Number(q.page_size) < 1 || Number(q.page_size) > 500))
    out.push(detail('page_size', q.page_size, 'INVALID_PARAMETER_VALUE', 'page_size must be 1 to 500.'));
  if (q.page !== undefined && (!whole(q.page) || Number(q.page) < 1 || Number(q.page) > 2147483647))
    out.push(detail('page', q.page, 'INVALID_PARAMETER_VALUE', 'page must be 1 or more.'));
  return out;
}

function checkFilters(q: Record<string, string | undefined>): PayPalErrorDetail[] {
  const out: PayPalErrorDetail[] = [];
  if (q.transaction_status !== undefined && !['D', 'P', 'S', 'V'].includes(q.transaction_status))
    out.push(detail('transaction_status', q.transaction_status, 'INVALID_PARAMETER_VALUE', 'transaction_status must be D, P, S or V.'));
  if (q.transaction_id !== undefined && !/^[A-Za-z0-9]{17,19}$/.test(q.transaction_id))
    out.push(detail('transaction_id', q.transaction_id, 'INVALID_PARAMETER_SYNTAX', 'transaction_id must be 17 to 19 letters and digits.'));
  const fields = q.fields?.split(',').map((f) => f.trim());
  if (fields && !(fields.length === 1 && fields[0] === 'all') && fields.some((f) => !fieldNames.includes(f)))
    out.push(detail('fields', q.fields, 'INVALID_PARAMETER_VALUE', `fields must be all or a list of ${fieldNames.join(', ')}.`));
  if (q.balance_affecting_records_only !== undefined && !['Y', 'N'].includes(q.balance_affecting_records_only))
    out.push(detail('balance_affecting_records_only', q.balance_affecting_records_only, 'INVALID_PARAMETER_VALUE', 'must be Y or N.'));
  return out;
}

/** The 400 answer a search request deserves, or null when PayPal would serve it. A parameter given twice is a violation too. */
export function searchRequestError(query: Record<string, unknown>, now: number): ReturnType<typeof payPalError> | null {
  const repeated = Object.entries(query).filter(([, v]) => typeof v !== 'string');
  if (repeated.length)
    return payPalError(
      'INVALID_REQUEST',
      invalidRequestMessage,
      repeated.map(([k]) => detail(k, undefined, 'INVALID_PARAMETER_SYNTAX', `${k} must be given once.`)),
    );
  const q = query as Record<string, string | undefined>;
  const details = [...checkDates(q), ...checkPaging(q), ...checkFilters(q)];
  if (details.length) return payPalError('INVALID_REQUEST', invalidRequestMessage, details);
  const start = instantOf(q.start_date!);
  if (start < now - keptMs || start > now) return payPalError('INVALID_REQUEST', 'Data for the given start date is not available.');
  return null;
}
