/**
 * SP-API usage plans (issue 30): the sandbox plays every operation's plan from Amazon's contracts
 * (rate and burst per selling partner, application and operation; x-amzn-RateLimit-Limit on every
 * answer, 429 QuotaExceeded past the burst), and Kontor's own pacing (lib/portals/amazon/
 * sp-api-limits.ts) never draws a 429 from it in a normal CIA and order import flow.
 */
import type { Worker } from 'bullmq';
import { expect } from 'chai';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { db } from '../../lib/db';
import { ciaProcessors } from '../../lib/cia/cia.processor';
import { orderImportProcessors } from '../../lib/order-import/order-import.processor';
import { portalUploadProcessors } from '../../lib/portal-offer/portal-upload.processor';
import { startWorker } from '../../lib/queue/worker';
import { amazonOf, sellerCentralListing } from '../../sandbox/amazon.sandbox';
import { forgetOtherSellersBacklog, Sandbox, sandboxKeepingContract, startSandbox, waitFor } from '../fleet/support';
import { importNow } from '../order-import/support';
import { call, newSeller } from '../support/api';
import { startQueueWorker } from '../support/queue-worker';

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
  // The requests above keep to Amazon's contracts: what is throttled is the plan, not a bad request.
  sandboxKeepingContract('amazon', (started) => (sandbox = started));

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

describe("market_d: Kontor's pacing keeps a normal CIA and order import flow within every usage plan", () => {
  let sandbox: Sandbox;
  let importer: { stop(): Promise<void> } | undefined;
  const workers: Worker[] = [];
  /** Runs the quantity pushes (portal.set_quantity). */
  let pusher: Worker;
  before(async () => {
    sandbox = await startSandbox();
    await forgetOtherSellersBacklog();
    // The import worker first: it gives the test process queues of their own, which the CIA and upload workers then share.
    importer = await startQueueWorker('order_import', orderImportProcessors, 'plans');
    const common = { skipEvictionCheck: true, registerShutdown: false };
    workers.push(await startWorker('cia', ciaProcessors, { ...common, concurrency: 4 }));
    pusher = await startWorker('portal_upload', portalUploadProcessors, { ...common, concurrency: 8 });
    workers.push(pusher);
  });
  after(async () => {
    for (const w of workers) await w.close(true);
    await importer?.stop();
    await sandbox.close();
  });

  it('when 20 items are put on Amazon at once and 30 Amazon orders (Pending first, every fifth AFN) are imported, completed and sold down everywhere, then the sandbox throttled none of the calls', async function () {
    this.timeout(90000);
    const seller = await newSeller();
    const cia = { account: String(seller.portalAccountId) };
    const shown = () => sandbox.state.quantities(cia.account).market_d ?? {};
    const stock = Array.from({ length: 20 }, (_, i) => ({ name: `Plan ${i}`, sku: `PLAN-${i}`, quantity: 50, cia: { market_d: { is_active: true } } }));
    // The seller's SKUs at Amazon, listed in Seller Central (Amazon.de): CIA keeps their quantities.
    for (const s of stock) sellerCentralListing(sandbox.state, cia.account, s.sku, ['A1PA6795UKMFR9']);
    // The 20 go to Amazon in one push: how many a push gathers otherwise depends on how fast the
    // list's adjustments run against the push window (on a busy machine, a few at a time, which
    // the patch plan carries all of: no feed), and the feed is what is checked here.
    await pusher.pause();
    const listed = await call('stock/list/', { token: seller.token, body: { stock } });
    expect(listed.status, listed.text).to.equal(207);
    await waitFor('all 20 quantities waiting for their push', async () => {
      const waiting = await db()('cia_portal_state')
        .where({ account_id: seller.id, portal: 'market_d', portal_account_id: seller.portalAccountId, desired_quantity: 50 })
        .whereRaw('acked_seq < desired_seq')
        .count<{ count: string }[]>('* as count');
      return Number(waiting[0]!.count) === stock.length;
    });
    pusher.resume();
    await waitFor('all 20 quantities at Amazon', () => stock.every((s) => shown()[s.sku] === 50), 20000);
    // More than the patch plan carries within the token wait (a burst of 5 less 3 kept, and 5/s
    // for 2 s: 12): patches, each after its SKU's getListingsItem, and the rest as one feed.
    const firstPush = sandbox.state.requests.filter((r) => r.portal === 'market_d' && r.portalAccount === cia.account);
    const patched = new Set(firstPush.filter((r) => r.method === 'PATCH').map((r) => r.path));
    expect(patched.size).to.be.within(10, stock.length - 1);
    expect(firstPush.filter((r) => r.method === 'PATCH')).to.have.length(patched.size);
    expect(firstPush.filter((r) => r.path === '/feeds/2021-06-30/feeds' && r.method === 'POST')).to.have.length(1);

    const shop = (await createPortalAccount(seller.id, { name: 'Amazon.de', platform: 'market_d' })).id as number;
    for (const s of stock) sellerCentralListing(sandbox.state, String(shop), s.sku, ['A1PA6795UKMFR9']);
    const sold = new Map<string, number>();
    for (let n = 0; n < 30; n++) {
      const sku = `PLAN-${n % 20}`;
      const afn = n % 5 === 4;
      if (!afn) sold.set(sku, (sold.get(sku) ?? 0) + 1);
      const res = await fetch(`${sandbox.url}/_sandbox/amazon/orders`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          portal_account: shop,
          lines: [{ sku, quantity: 1, price: '9.90' }],
          fulfilled_by: afn ? 'AMAZON' : 'MERCHANT',
          pending_ms: 2000,
        }),
      });
      expect(res.status).to.equal(201);
    }
    const placedAt = Date.now();
    const first = await importNow(seller, shop);
    expect(first.state, first.error).to.equal('completed');
    expect((first.result as { orders: Record<string, number> }).orders).to.include({ created: 30 });
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, placedAt + 2200 - Date.now())));
    // Unshipped now: completed with prices and address.
    const second = await importNow(seller, shop);
    expect(second.state, second.error).to.equal('completed');
    expect((second.result as { orders: Record<string, number> }).orders).to.include({ updated: 30 });
    // The quantities of the MFN sales at Amazon (CIA's market_d target: the seller's market_d account).
    const at = (account: string) => sandbox.state.quantities(account).market_d ?? {};
    await waitFor('the sales at Amazon', () => [...sold].every(([sku, n]) => at(cia.account)[sku] === 50 - n || at(String(shop))[sku] === 50 - n), 30000);

    const amazonCalls = sandbox.state.requests.filter((r) => r.portal === 'market_d' && (r.portalAccount === cia.account || r.portalAccount === String(shop)));
    // The sales' pushes go by patch or feed as they gather (timing): each sold SKU's quantity is
    // checked above, and no call of either path was throttled.
    expect(amazonCalls.filter((r) => r.method === 'PATCH').length).to.be.at.least(patched.size + 1);
    expect(amazonCalls.filter((r) => r.path === '/orders/2026-01-01/orders')).to.have.length(2);
    expect(amazonCalls.filter((r) => r.status === 429).map((r) => `${r.method} ${r.path}`)).to.deep.equal([]);
    expect(Object.fromEntries(amazonOf(sandbox.state).throttled)).to.deep.equal({});
  });
});
