import { expect } from 'chai';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ambiguous,
  commitOutcomeUnknown,
  DomainError,
  ErrorKind,
  errorKinds,
  errorTable,
  forbidden,
  internalError,
  invalidField,
  notFound,
  portalRefused,
  portalUnavailable,
  retryLater,
  throttled,
  tooLarge,
  unauthenticated,
} from '../../lib/errors';
import { endpoint } from '../../lib/http/endpoint';
import { createApp } from '../../server/app';
import { call, newSeller } from '../support/api';

/** The ids clients see today, by kind: a contract, so a rename or a move fails here. */
const idsByKind: Record<ErrorKind, string[]> = {
  invalid: [
    'invalid_field',
    'unknown_country',
    'bad_request',
    'malformed_json',
    'malformed_xml',
    'malformed_statement',
    'unsupported_statement',
    'xml_doctype_refused',
    'unsupported_charset',
    'invalid_text',
    'too_deep',
    'too_many_items',
    'too_many_fields',
    'unknown_parameter',
    'unknown_select',
    'unknown_filter',
    'invalid_operator',
    'invalid_range',
    'singleton_filter',
    'period_too_long',
    'status_conflict',
    'not_changeable',
    'duplicate_line_id',
    'unknown_currency',
    'unknown_payment_method',
    'unsupported_action',
    'seller_details_missing',
    'invalid_idempotency_key',
    'invalid_request',
    'invalid_grant',
    'invalid_scope',
    'unsupported_grant_type',
    'unauthorized_client',
  ],
  unauthenticated: ['invalid_client', 'missing_token', 'invalid_token'],
  forbidden: ['insufficient_scope', 'portal_account_not_granted'],
  // unknown_order, unknown_stock_item: a contained object's id (credit.main_id, line[].stock_align_id)
  // that does not exist is a 404 (document 1, Errors); they were 400 before.
  not_found: [
    'not_found',
    'unknown_path',
    'unknown_portal_account',
    'unknown_lister',
    'unknown_live_listing',
    'no_live_listing',
    'unknown_order',
    'unknown_stock_item',
  ],
  ambiguous: ['ambiguous_id', 'ambiguous_lister'],
  method_not_allowed: ['method_not_allowed'],
  too_large: ['payload_too_large'],
  headers_too_large: ['headers_too_large'],
  request_timeout: ['request_timeout'],
  conflict: ['idempotency_key_in_use'],
  unprocessable: ['idempotency_key_reused'],
  precondition_failed: ['record_changed'],
  throttled: ['too_many_requests', 'too_many_concurrent_calls', 'too_many_login_attempts'],
  unavailable: ['retry_later', 'service_unavailable', 'outcome_unknown', 'already_carried_out'],
  portal_refused: ['portal_refused'],
  portal_unavailable: ['portal_unavailable'],
  internal: ['internal_error'],
};

describe('the error table (lib/errors)', () => {
  it('when the table is read, then it holds exactly the ids clients know, each once, each with one kind and one status', () => {
    const all = Object.values(idsByKind).flat();
    expect(new Set(all).size).to.equal(all.length);
    expect(Object.keys(errorTable).sort()).to.deep.equal([...all].sort());
    for (const [kind, ids] of Object.entries(idsByKind)) {
      for (const id of ids) expect(errorTable[id as keyof typeof errorTable].kind, id).to.equal(kind);
    }
    const statuses = Object.values(errorKinds).map((k) => k.status);
    expect(statuses.every((s) => Number.isInteger(s) && s >= 300 && s < 600)).to.equal(true);
    // The one id answered with two kinds: a body field naming it (400), a portal_upload part addressing it (404).
    const twoKinds = Object.entries(errorTable)
      .filter(([, entry]) => 'alsoAs' in entry)
      .map(([id]) => id);
    expect(twoKinds).to.deep.equal(['unknown_portal_account']);
  });

  describe('a domain error of each kind, thrown by a handler', () => {
    const cases: { name: string; error: () => DomainError; status: number; headers: Record<string, string | null> }[] = [
      {
        name: 'invalid input',
        error: () => invalidField('order.line[0].quantity', 'order.line[0].quantity must be a number'),
        status: 400,
        headers: { 'retry-after': null },
      },
      {
        name: 'unauthenticated',
        error: () => unauthenticated('invalid_token', 'the token is unknown'),
        status: 401,
        headers: { 'www-authenticate': 'Bearer error="invalid_token"' },
      },
      // RFC 6750 3: the header whenever the token does not enable access, with the scope needed.
      {
        name: 'forbidden',
        error: () => forbidden('stock_w'),
        status: 403,
        headers: { 'www-authenticate': 'Bearer error="insufficient_scope", scope="stock_w"' },
      },
      { name: 'not found', error: () => notFound('order 1_2026_1', 'order_id'), status: 404, headers: {} },
      { name: 'ambiguous', error: () => ambiguous('stock DUP', 'stock_id'), status: 300, headers: {} },
      { name: 'too large', error: () => tooLarge('the request holds too much'), status: 413, headers: {} },
      {
        name: 'throttled',
        error: () => throttled('too_many_requests', 'the quota is used up', 7, { limit: 10, remaining: 0, reset: 60 }),
        status: 429,
        headers: { 'retry-after': '7', 'x-ratelimit-remaining': '0', 'x-ratelimit-limit': '10' },
      },
      { name: 'unavailable', error: retryLater, status: 503, headers: { 'retry-after': '1' } },
      // A resend without its Idempotency-Key could carry it out twice: no Retry-After inviting one.
      { name: 'the unknown outcome of a lost COMMIT', error: commitOutcomeUnknown, status: 503, headers: { 'retry-after': null } },
      { name: 'refused by a portal', error: () => portalRefused('market_c: a price is required'), status: 502, headers: {} },
      { name: 'a portal unavailable', error: () => portalUnavailable('market_c answered 503', 2500), status: 503, headers: { 'retry-after': '3' } },
      { name: 'internal', error: internalError, status: 500, headers: {} },
    ];
    let server: Server;
    let base: string;
    let token: string;

    before(async () => {
      const endpoints = cases.map((c, i) =>
        endpoint({
          method: 'GET',
          path: `test/error/${i}/`,
          summary: c.name,
          response: [],
          handle: async () => {
            throw c.error();
          },
        }),
      );
      server = createApp(endpoints).listen(0, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      token = (await newSeller()).token;
    });
    after(() => {
      server.close();
    });

    cases.forEach((c, i) => {
      it(`when the error is ${c.name}, then the client gets ${c.status}, its id and the headers of its kind`, async () => {
        const thrown = c.error();
        const res = await call(`test/error/${i}/`, { token, base });
        expect(res.status).to.equal(c.status);
        expect(res.body.ack).to.equal('error');
        expect(res.body.error![0]).to.deep.include({ error: thrown.id, code: c.status });
        for (const [name, value] of Object.entries(c.headers)) expect(res.headers.get(name), name).to.equal(value);
      });
    });
  });

  describe("the framework's own errors on real endpoints", () => {
    it('when no token is sent, then 401 missing_token with a Bearer challenge (no error code: RFC 6750 3.1)', async () => {
      const res = await call('stock/');
      expect(res.status).to.equal(401);
      expect(res.body.error![0]!.error).to.equal('missing_token');
      expect(res.headers.get('www-authenticate')).to.equal('Bearer realm="kontor"');
    });

    it('when token.php gets a wrong password, then 401 invalid_client with a Basic challenge', async () => {
      const seller = await newSeller();
      const res = await call('token.php', {
        headers: { Authorization: `Basic ${Buffer.from(`${seller.login}:wrong`).toString('base64')}`, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials',
      });
      expect(res.status).to.equal(401);
      expect(res.body.error![0]!.error).to.equal('invalid_client');
      expect(res.headers.get('www-authenticate')).to.equal('Basic realm="kontor"');
    });

    it('when the token lacks the scope, then 403 insufficient_scope', async () => {
      const seller = await newSeller('order_r');
      const res = await call('stock/', { token: seller.token });
      expect(res.status).to.equal(403);
      expect(res.body.error![0]!.error).to.equal('insufficient_scope');
      expect(res.headers.get('www-authenticate')).to.equal('Bearer error="insufficient_scope", scope="stock_r"');
    });

    it('when a path does not take the method, then 405 method_not_allowed with Allow', async () => {
      const seller = await newSeller();
      const res = await call('system/currency/', { token: seller.token, method: 'DELETE' });
      expect(res.status).to.equal(405);
      expect(res.body.error![0]!.error).to.equal('method_not_allowed');
      expect(res.headers.get('allow')).to.equal('GET, OPTIONS');
    });

    it('when a path is not an endpoint, then 404 unknown_path', async () => {
      const seller = await newSeller();
      const res = await call('no/such/path/', { token: seller.token });
      expect(res.status).to.equal(404);
      expect(res.body.error![0]!.error).to.equal('unknown_path');
    });
  });
});
