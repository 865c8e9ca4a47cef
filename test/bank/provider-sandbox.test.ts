import { expect } from 'chai';
import { config, setConfig } from '../../config';
import { Sandbox, startSandbox } from '../fleet/support';

/** The sandbox PayPal checks what it gets as PayPal documents it (sandbox/paypal-request.sandbox.ts). */
describe('sandbox: PayPal Transaction Search as documented', () => {
  let sandbox: Sandbox;
  let token: string;
  const clientId = 'client-contract';
  const original = config();
  before(async () => {
    sandbox = await startSandbox();
    const res = await fetch(`${sandbox.url}/v1/oauth2/token`, {
      method: 'POST',
      headers: { Authorization: `Basic ${Buffer.from(`${clientId}:secret`).toString('base64')}`, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    });
    token = ((await res.json()) as { access_token: string }).access_token;
  });
  after(async () => {
    await sandbox.close();
    setConfig(original);
  });

  const hour = 3_600_000;
  const iso = (ms: number) => new Date(ms).toISOString();
  const window = { start_date: iso(Date.now() - 2 * hour), end_date: iso(Date.now()) };

  async function search(params: Record<string, string>, auth: string | null = `Bearer ${token}`) {
    const res = await fetch(`${sandbox.url}/v1/reporting/transactions?${new URLSearchParams(params).toString()}`, {
      headers: auth ? { Authorization: auth } : {},
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> & { details?: { field?: string; issue: string }[] } };
  }

  async function control(path: string, body: unknown) {
    const res = await fetch(`${sandbox.url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    return (await res.json()) as { transaction_id: string };
  }

  it('when the Authorization header is missing or names no token, then 401 AUTHENTICATION_FAILURE with a debug_id', async () => {
    for (const auth of [null, 'Bearer not-a-token', `Basic ${token}`]) {
      const { status, body } = await search(window, auth);
      expect(status).to.equal(401);
      expect(body.name).to.equal('AUTHENTICATION_FAILURE');
      expect(body.debug_id).to.be.a('string').with.length.above(5);
    }
  });

  it('when a required parameter is missing, a date is not RFC 3339 with seconds or no calendar day, or the span is over 31 days, then 400 INVALID_REQUEST naming the parameter', async () => {
    const cases: [Record<string, string>, string, string][] = [
      [{ end_date: window.end_date }, 'start_date', 'MISSING_REQUIRED_PARAMETER'],
      [{ start_date: window.start_date }, 'end_date', 'MISSING_REQUIRED_PARAMETER'],
      [{ ...window, start_date: '2026-11-20T10:00Z' }, 'start_date', 'INVALID_PARAMETER_SYNTAX'],
      [{ ...window, start_date: '2026-02-30T10:00:00Z' }, 'start_date', 'INVALID_PARAMETER_SYNTAX'],
      [{ ...window, start_date: '2026-11-20' }, 'start_date', 'INVALID_PARAMETER_SYNTAX'],
      [{ start_date: iso(Date.now() - 32 * 86_400_000), end_date: window.end_date }, 'end_date', 'INVALID_PARAMETER_VALUE'],
      [{ start_date: window.end_date, end_date: window.start_date }, 'end_date', 'INVALID_PARAMETER_VALUE'],
      [{ ...window, page_size: '501' }, 'page_size', 'INVALID_PARAMETER_VALUE'],
      [{ ...window, page_size: '0' }, 'page_size', 'INVALID_PARAMETER_VALUE'],
      [{ ...window, page: '0' }, 'page', 'INVALID_PARAMETER_VALUE'],
      [{ ...window, transaction_status: 'X' }, 'transaction_status', 'INVALID_PARAMETER_VALUE'],
      [{ ...window, transaction_id: 'SHORT' }, 'transaction_id', 'INVALID_PARAMETER_SYNTAX'],
      [{ ...window, fields: 'transaction_info,secrets' }, 'fields', 'INVALID_PARAMETER_VALUE'],
    ];
    for (const [params, field, issue] of cases) {
      const { status, body } = await search(params);
      expect(status, JSON.stringify(params)).to.equal(400);
      expect(body).to.include({ name: 'INVALID_REQUEST', message: 'Request is not well-formed, syntactically incorrect, or violates schema.' });
      expect(
        body.details!.map((d) => [d.field, d.issue]),
        JSON.stringify(params),
      ).to.deep.include([field, issue]);
    }
    const old = await search({ start_date: iso(Date.now() - 4 * 365 * 86_400_000), end_date: iso(Date.now() - 4 * 365 * 86_400_000 + hour) });
    expect(old.status).to.equal(400);
    expect(old.body.message).to.equal('Data for the given start date is not available.');
  });

  it('when a query matches more transactions than the limit, then 400 RESULTSET_TOO_LARGE with total_items and maximum_items; a narrower one is served', async () => {
    for (let i = 0; i < 4; i++)
      await control('/_sandbox/paypal/payments', { client_id: clientId, amount: '1.00', date: iso(Date.now() - (i + 1) * 10 * 60_000) });
    await control('/_sandbox/paypal/limits', { client_id: clientId, max_result_items: 3 });
    const { status, body } = await search(window);
    expect(status).to.equal(400);
    expect(body).to.include({
      name: 'RESULTSET_TOO_LARGE',
      message: 'Result set size is greater than the maximum limit. Change the filter criteria and try again.',
      total_items: 4,
      maximum_items: 3,
    });
    const narrower = await search({ start_date: iso(Date.now() - 25 * 60_000), end_date: window.end_date });
    expect(narrower.status).to.equal(200);
    expect(narrower.body.total_items).to.equal(2);
    await control('/_sandbox/paypal/limits', { client_id: clientId, max_result_items: 10000 });
  });

  it('when a payment is pending, then it is listed with status P under its date, and after it completes with S under the same id and date, in its currency', async () => {
    const date = iso(Date.now() - 30 * 60_000);
    const { transaction_id: id } = await control('/_sandbox/paypal/payments', { client_id: clientId, amount: '1500', currency: 'JPY', status: 'P', date });
    type Info = { transaction_info: { transaction_id: string; transaction_status: string; transaction_initiation_date: string; transaction_amount: unknown } };
    const read = async (params: Record<string, string> = {}) =>
      ((await search({ ...window, transaction_id: id, ...params })).body.transaction_details as Info[]).map((t) => t.transaction_info);
    const [pending] = await read();
    expect(pending).to.include({ transaction_id: id, transaction_status: 'P', transaction_initiation_date: date });
    expect(pending!.transaction_amount).to.deep.equal({ currency_code: 'JPY', value: '1500' });
    expect(await read({ transaction_status: 'S' })).to.deep.equal([]);
    await control(`/_sandbox/paypal/payments/${id}`, { status: 'S' });
    const [completed] = await read();
    expect(completed).to.include({ transaction_id: id, transaction_status: 'S', transaction_initiation_date: date });
  });

  it('when the app lacks Transaction Search, then 403 NOT_AUTHORIZED with the issue PERMISSION_DENIED, and tokens issued once it is granted are served', async () => {
    const other = 'client-no-search';
    await control('/_sandbox/paypal/apps', { client_id: other, transaction_search: false });
    const tokenOf = async () => {
      const res = await fetch(`${sandbox.url}/v1/oauth2/token`, {
        method: 'POST',
        headers: { Authorization: `Basic ${Buffer.from(`${other}:s`).toString('base64')}`, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials',
      });
      return ((await res.json()) as { access_token: string; scope: string }).access_token;
    };
    const before = await tokenOf();
    const denied = await search(window, `Bearer ${before}`);
    expect(denied.status).to.equal(403);
    expect(denied.body).to.include({ name: 'NOT_AUTHORIZED', message: 'Authorization failed due to insufficient permissions.' });
    expect(denied.body.details!.map((d) => d.issue)).to.deep.equal(['PERMISSION_DENIED']);
    await control('/_sandbox/paypal/apps', { client_id: other, transaction_search: true });
    expect((await search(window, `Bearer ${before}`)).status, 'a token issued before the grant').to.equal(403);
    expect((await search(window, `Bearer ${await tokenOf()}`)).status).to.equal(200);
  });
});
