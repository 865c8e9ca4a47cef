/**
 * SP-API usage plans (issue 30): the sandbox plays every operation's plan from Amazon's contracts
 * (rate and burst per selling partner, application and operation; x-amzn-RateLimit-Limit on every
 * answer, 429 QuotaExceeded past the burst), and Kontor's own pacing (lib/portals/amazon/
 * sp-api-limits.ts) never draws a 429 from it in a normal CIA and order import flow.
 */
import { expect } from 'chai';
import { amazonOf } from '../../sandbox/amazon.sandbox';
import { Sandbox, startSandbox } from '../fleet/support';

const DE = 'A1PA6795UKMFR9';

async function accessToken(url: string, account: number): Promise<string> {
  const res = await fetch(`${url}/auth/o2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: `Atzr|sandbox-${account}`, client_id: 'c', client_secret: 's' }).toString(),
  });
  return ((await res.json()) as { access_token: string }).access_token;
}

interface Operation {
  operationId: string;
  rate: number;
  burst: number;
  /** One valid request of the operation (the contract's method, path, query and body). */
  request: (seller: string, n: number) => { method: string; path: string; body?: unknown };
}

const patchBody = {
  productType: 'PRODUCT',
  patches: [{ op: 'replace', path: '/attributes/fulfillment_availability', value: [{ fulfillment_channel_code: 'DEFAULT', quantity: 3 }] }],
};

/** The plans as the contract files' "Usage Plan" tables state them (the Sellers API: its reference). */
const operations: Operation[] = [
  {
    operationId: 'getListingsItem',
    rate: 5,
    burst: 10,
    request: (s) => ({ method: 'GET', path: `/listings/2021-08-01/items/${s}/UP-1?marketplaceIds=${DE}` }),
  },
  {
    operationId: 'putListingsItem',
    rate: 5,
    burst: 10,
    request: (s, n) => ({
      method: 'PUT',
      path: `/listings/2021-08-01/items/${s}/UP-${n}?marketplaceIds=${DE}`,
      body: { productType: 'PRODUCT', requirements: 'LISTING_OFFER_ONLY', attributes: { condition_type: [{ value: 'new_new', marketplace_id: DE }] } },
    }),
  },
  {
    operationId: 'patchListingsItem',
    rate: 5,
    burst: 5,
    request: (s, n) => ({ method: 'PATCH', path: `/listings/2021-08-01/items/${s}/UP-${n}?marketplaceIds=${DE}`, body: patchBody }),
  },
  {
    operationId: 'deleteListingsItem',
    rate: 5,
    burst: 5,
    request: (s, n) => ({ method: 'DELETE', path: `/listings/2021-08-01/items/${s}/UP-${n}?marketplaceIds=${DE}` }),
  },
  {
    operationId: 'createFeedDocument',
    rate: 0.5,
    burst: 15,
    request: () => ({ method: 'POST', path: '/feeds/2021-06-30/documents', body: { contentType: 'application/json; charset=UTF-8' } }),
  },
  {
    operationId: 'createFeed',
    rate: 0.0083,
    burst: 15,
    request: () => ({
      method: 'POST',
      path: '/feeds/2021-06-30/feeds',
      body: { feedType: 'JSON_LISTINGS_FEED', marketplaceIds: [DE], inputFeedDocumentId: 'amzn1.tortuga.4.eu.none' },
    }),
  },
  { operationId: 'getFeed', rate: 2, burst: 15, request: () => ({ method: 'GET', path: '/feeds/2021-06-30/feeds/50000000001' }) },
  { operationId: 'getFeedDocument', rate: 0.0222, burst: 10, request: () => ({ method: 'GET', path: '/feeds/2021-06-30/documents/amzn1.tortuga.4.eu.none' }) },
  {
    operationId: 'searchOrders',
    rate: 0.0056,
    burst: 20,
    request: () => ({ method: 'GET', path: `/orders/2026-01-01/orders?lastUpdatedAfter=2026-11-01T00:00:00Z&marketplaceIds=${DE}` }),
  },
  { operationId: 'getOrder', rate: 0.5, burst: 30, request: () => ({ method: 'GET', path: '/orders/2026-01-01/orders/302-0000000-0000000' }) },
  {
    operationId: 'getOrders',
    rate: 0.0167,
    burst: 20,
    request: () => ({ method: 'GET', path: `/orders/v0/orders?MarketplaceIds=${DE}&LastUpdatedAfter=2026-11-01T00:00:00Z` }),
  },
  { operationId: 'getOrderItems', rate: 0.5, burst: 30, request: () => ({ method: 'GET', path: '/orders/v0/orders/302-0000000-0000000/orderItems' }) },
  {
    operationId: 'confirmShipment',
    rate: 2,
    burst: 10,
    request: () => ({
      method: 'POST',
      path: '/orders/v0/orders/302-0000000-0000000/shipmentConfirmation',
      body: {
        packageDetail: { packageReferenceId: '1', carrierCode: 'DHL', trackingNumber: '123', shipDate: '2026-11-20T10:00:00Z', orderItems: [] },
        marketplaceId: DE,
      },
    }),
  },
  { operationId: 'getMarketplaceParticipations', rate: 0.016, burst: 15, request: () => ({ method: 'GET', path: '/sellers/v1/marketplaceParticipations' }) },
];

describe('market_d: the sandbox plays every SP-API usage plan, and Kontor keeps to them', () => {
  let sandbox: Sandbox;
  before(async () => {
    sandbox = await startSandbox();
  });
  after(async () => {
    await sandbox.close();
  });
  // The requests above keep to Amazon's contracts: what is throttled is the plan, not a bad request.
  afterEach(async () => {
    const violations = (await (await fetch(`${sandbox.url}/_sandbox/violations?vendor=amazon`)).json()) as unknown[];
    expect(violations, JSON.stringify(violations)).to.deep.equal([]);
  });

  for (const op of operations) {
    it(`${op.operationId}: x-amzn-RateLimit-Limit ${op.rate} on every answer; past a burst of ${op.burst}, 429 QuotaExceeded with SP-API's error body`, async () => {
      const account = 800000 + Math.floor(Math.random() * 100000);
      const token = await accessToken(sandbox.url, account);
      const seller = `SANDBOX${account}`;
      const send = (n: number) => {
        const r = op.request(seller, n);
        return fetch(`${sandbox.url}${r.path}`, {
          method: r.method,
          headers: { 'x-amz-access-token': token, ...(r.body === undefined ? {} : { 'content-type': 'application/json' }) },
          body: r.body === undefined ? undefined : JSON.stringify(r.body),
        });
      };
      // All at once: the sandbox answers them within a few ms, far less than one token's refill.
      const started = Date.now();
      const answers = await Promise.all(Array.from({ length: op.burst + 5 }, (_, n) => send(n)));
      const refilled = Math.ceil(((Date.now() - started) / 1000) * op.rate);
      const statuses = answers.map((a) => a.status);
      const throttled = answers.filter((a) => a.status === 429);
      expect(answers.every((a) => a.headers.get('x-amzn-ratelimit-limit') === String(op.rate))).to.equal(true);
      expect(statuses.length - throttled.length, statuses.join(',')).to.be.within(op.burst, op.burst + refilled);
      expect(throttled.length, statuses.join(',')).to.be.at.least(1);
      expect(((await throttled[0]!.json()) as { errors: { code: string }[] }).errors[0]!.code).to.equal('QuotaExceeded');
      expect(amazonOf(sandbox.state).throttled.get(op.operationId)).to.be.at.least(1);
      // The plan is per selling partner and application: another account still has its burst.
      const other = await accessToken(sandbox.url, account + 1);
      const r = op.request(`SANDBOX${account + 1}`, 0);
      const fresh = await fetch(`${sandbox.url}${r.path}`, {
        method: r.method,
        headers: { 'x-amz-access-token': other, ...(r.body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: r.body === undefined ? undefined : JSON.stringify(r.body),
      });
      expect(fresh.status).to.not.equal(429);
    });
  }

  it('answers that are no success carry the plan too (403 of an unknown token, 404 of an unknown SKU); a lifted plan is answered as lifted', async () => {
    const denied = await fetch(`${sandbox.url}/listings/2021-08-01/items/S/X?marketplaceIds=${DE}`, { headers: { 'x-amz-access-token': 'Atza|nobody' } });
    expect(denied.status).to.equal(403);
    expect(denied.headers.get('x-amzn-ratelimit-limit')).to.equal('5');
    const account = 900000 + Math.floor(Math.random() * 50000);
    const token = await accessToken(sandbox.url, account);
    const unknown = await fetch(`${sandbox.url}/listings/2021-08-01/items/SANDBOX${account}/NONE?marketplaceIds=${DE}`, {
      headers: { 'x-amz-access-token': token },
    });
    expect(unknown.status).to.equal(404);
    expect(unknown.headers.get('x-amzn-ratelimit-limit')).to.equal('5');
    const lift = (body: unknown) =>
      fetch(`${sandbox.url}/_sandbox/amazon/config`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    await lift({ rate_limit: 50 });
    try {
      const lifted = await fetch(`${sandbox.url}/feeds/2021-06-30/feeds/1`, { headers: { 'x-amz-access-token': token } });
      expect(lifted.headers.get('x-amzn-ratelimit-limit')).to.equal('50');
      // Orders keep their contract's plan unless lifted on their own.
      const orders = await fetch(`${sandbox.url}/orders/2026-01-01/orders/1`, { headers: { 'x-amz-access-token': token } });
      expect(orders.headers.get('x-amzn-ratelimit-limit')).to.equal('0.5');
    } finally {
      await lift({ rate_limit: null });
    }
    const back = await fetch(`${sandbox.url}/feeds/2021-06-30/feeds/1`, { headers: { 'x-amz-access-token': token } });
    expect(back.headers.get('x-amzn-ratelimit-limit')).to.equal('2');
  });
});
