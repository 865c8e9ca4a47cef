import { expect } from 'chai';
import { channelOrder } from '../../lib/portals/amazon/order-mapping';
import type { Order2026 } from '../../lib/portals/amazon/orders-2026';
import type { PortalTarget } from '../../lib/portals/portal.type';
import { MarketDAdapter } from '../../lib/portals/market-d.adapter';
import { amazonOf } from '../../sandbox/amazon.sandbox';
import { violationsOf } from '../../sandbox/contract/contract-gate';
import type { NewAmazonOrder } from '../../sandbox/amazon-orders.sandbox';
import type { SandboxRequest } from '../../sandbox/sandbox.app';
import { Sandbox, sandboxKeepingContract } from '../fleet/support';
import { failure } from '../support/failure';

const DE = 'A1PA6795UKMFR9';
const adapter = new MarketDAdapter();

describe('market_d: orders through the Orders API v2026-01-01 against the sandbox played from the contracts', () => {
  let sandbox: Sandbox;
  let account: number;
  let target: PortalTarget;
  // Every request the adapters sent keeps to Amazon's published contracts.
  sandboxKeepingContract('amazon', (started) => (sandbox = started));
  beforeEach(() => {
    account = 700000 + Math.floor(Math.random() * 100000);
    target = { portalAccountId: account, baseUrl: sandbox.url, credentials: {} };
  });

  const calls = (path: string | RegExp): SandboxRequest[] =>
    sandbox.state.requests.filter(
      (r) => r.portal === 'market_d' && r.portalAccount === String(account) && (typeof path === 'string' ? r.path === path : path.test(r.path)),
    );
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${sandbox.url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown>, headers: res.headers };
  };
  const place = async (order: Omit<NewAmazonOrder, 'portal_account'>) =>
    (await post('/_sandbox/amazon/orders', { portal_account: account, ...order })).body as { order_id: string; order_item_ids: string[] };
  const status = (orderId: string, s: string) => post(`/_sandbox/amazon/orders/${orderId}/status`, { status: s });

  it('fetchOrders: searchOrders by lastUpdatedAfter in the account marketplaces with includedData, paged by its pagination token; items come with the order, no call per order', async () => {
    const since = new Date(Date.now() - 1000);
    const a = await place({
      lines: [{ sku: 'O-1', quantity: 2, price: '7.50' }],
      buyer: { name: 'Max Muster', email: 'max@marketplace.amazon.de', phone: '+49 221 1234' },
    });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const b = await place({
      lines: [
        { sku: 'O-2', quantity: 1, price: '3.00', shipping: '4.90' },
        { sku: 'O-3', quantity: 3, price: '2.00' },
      ],
    });
    amazonOf(sandbox.state).pageSize = 1;
    try {
      const first = await adapter.fetchOrders(target, since, null);
      expect(first.orders.map((o) => o.external_order_id)).to.deep.equal([a.order_id]);
      expect(first.next).to.be.a('string');
      const second = await adapter.fetchOrders(target, since, first.next);
      expect(second.orders.map((o) => o.external_order_id)).to.deep.equal([b.order_id]);
      expect(second.next).to.equal(null);
      expect(second.orders[0]!.line.map((l) => [l.sku, l.quantity, l.price])).to.deep.equal([
        ['O-2', 1, '3.00'],
        ['O-3', 3, '2.00'],
      ]);
      expect(second.orders[0]!.shipping.fee).to.equal('4.90');
      expect(second.orders[0]!.paid_amount).to.equal('13.90');
    } finally {
      amazonOf(sandbox.state).pageSize = 100;
    }
    const searches = calls('/orders/2026-01-01/orders');
    expect(searches.map((r) => r.status)).to.deep.equal([200, 200]);
    const asked = {
      lastUpdatedAfter: since.toISOString(),
      marketplaceIds: DE,
      includedData: 'BUYER,RECIPIENT,PROCEEDS,PROMOTION,CANCELLATION,FULFILLMENT,PACKAGES,TAX,PAYMENT',
      maxResultsPerPage: '100',
    };
    expect(searches[0]!.query).to.deep.equal(asked);
    // The token goes with the parameters of the query that made it.
    const { paginationToken, ...rest } = searches[1]!.query!;
    expect(paginationToken).to.be.a('string');
    expect(rest).to.deep.equal(asked);
    // Nothing of the deprecated v0, and no call per order.
    expect(calls(/^\/orders\/v0\//)).to.deep.equal([]);
    expect(calls(/^\/orders\/2026-01-01\/orders\/.+/)).to.deep.equal([]);

    const order = (await adapter.fetchOrders(target, since, null)).orders[0]!;
    const sandboxOrder = amazonOf(sandbox.state).orders.get(a.order_id)!;
    expect(order).to.deep.equal({
      external_order_id: a.order_id,
      modified_at: sandboxOrder.lastUpdatedTime,
      created_at: sandboxOrder.createdTime,
      currency_id: 'EUR',
      customer: {
        username: a.order_id,
        email: 'max@marketplace.amazon.de',
        phone_1: '+49 221 1234',
        address: { name: 'Max Muster', street: 'Heidestraße 17', zip: '51147', city: 'Köln', country_iso2: 'DE' },
      },
      shipping: { method: 'STANDARD', address: { name: 'Max Muster', street: 'Heidestraße 17', zip: '51147', city: 'Köln', country_iso2: 'DE' } },
      line: [{ transaction_id: a.order_item_ids[0], sku: 'O-1', name: 'O-1', quantity: 2, price: '7.50' }],
      paid_amount: '15.00',
      status: { is_paid: true, is_shipped: false, is_cancelled: false },
    });
    // getOrder: the same order and data sets, one call.
    expect(await adapter.fetchOrder(target, a.order_id)).to.deep.equal(order);
    expect(calls(`/orders/2026-01-01/orders/${a.order_id}`)[0]!.query).to.deep.equal({
      includedData: 'BUYER,RECIPIENT,PROCEEDS,PROMOTION,CANCELLATION,FULFILLMENT,PACKAGES,TAX,PAYMENT',
    });
  });

  it('Pending: no prices, no address, no e-mail, unpaid; once Unshipped the same order has them, with a later lastUpdatedTime', async () => {
    const since = new Date(Date.now() - 1000);
    const sold = await place({ lines: [{ sku: 'P-1', quantity: 2, price: '12.50', shipping: '3.90' }], pending_ms: 60_000, buyer: { name: 'Eva Pending' } });
    const pending = (await adapter.fetchOrders(target, since, null)).orders[0]!;
    expect(pending.status).to.deep.equal({ is_paid: false, is_shipped: false, is_cancelled: false });
    expect(pending.line[0]).to.include({ price: '0.00', quantity: 2 });
    expect(pending.shipping).to.deep.equal({ method: 'STANDARD', address: {} });
    expect(pending.customer).to.deep.equal({ username: sold.order_id, address: { name: 'Eva Pending' } });
    expect(pending.paid_amount).to.equal('0.00');
    // Pending: the currency is the marketplace's (Amazon.de), not a guess.
    expect(pending.currency_id).to.equal('EUR');

    await new Promise((resolve) => setTimeout(resolve, 5));
    await status(sold.order_id, 'UNSHIPPED');
    const paid = (await adapter.fetchOrders(target, since, null)).orders[0]!;
    expect(Date.parse(paid.modified_at)).to.be.greaterThan(Date.parse(pending.modified_at));
    expect(paid.line[0]).to.include({ price: '12.50' });
    expect(paid.shipping).to.deep.include({ fee: '3.90' });
    expect(paid.shipping.address).to.deep.include({ street: 'Heidestraße 17', city: 'Köln' });
    expect(paid.paid_amount).to.equal('28.90');
    expect(paid.status.is_paid).to.equal(true);
  });

  it('AFN: fulfilled by Amazon, read as fulfilled_by_channel with the marketplace country; Amazon gives no buyer e-mail or phone', async () => {
    const since = new Date(Date.now() - 1000);
    await place({ lines: [{ sku: 'F-1', quantity: 1, price: '20.00' }], fulfilled_by: 'AMAZON', buyer: { phone: '+49 1' } });
    const [afn] = (await adapter.fetchOrders(target, since, null)).orders;
    expect(afn!.fulfilled_by_channel).to.deep.equal({ country_iso2: 'DE' });
    expect(afn!.customer.email).to.equal(undefined);
    expect(afn!.customer.phone_1).to.equal(undefined);
    expect(afn!.status.is_paid).to.equal(true);
  });

  it('money: promotion discounts lower the unit price, shipping discounts the fee, the currency is the order one, no tax amount lands in the VAT field', async () => {
    const since = new Date(Date.now() - 1000);
    await place({
      currency: 'GBP',
      marketplace_id: 'A1F83G8C2ARO7P',
      lines: [
        { sku: 'M-1', quantity: 2, price: '10.00', promotion_discount: '3.00', shipping: '5.00', shipping_discount: '5.00' },
        { sku: 'M-2', quantity: 1, price: '4.00', shipping: '2.50' },
      ],
    });
    // An Amazon.co.uk account: the refresh token names the sandbox's portal account.
    const uk = {
      ...target,
      credentials: { client_id: 'c', client_secret: 's', refresh_token: `Atzr|sandbox-${account}`, seller_id: 'A2UK', marketplace_id: 'A1F83G8C2ARO7P' },
    };
    const [order] = (await adapter.fetchOrders(uk, since, null)).orders;
    expect(calls('/orders/2026-01-01/orders')[0]!.query!.marketplaceIds).to.equal('A1F83G8C2ARO7P');
    expect(order!.currency_id).to.equal('GBP');
    expect(order!.line.map((l) => [l.sku, l.price])).to.deep.equal([
      ['M-1', '8.50'],
      ['M-2', '4.00'],
    ]);
    expect(order!.line.every((l) => l.tax === undefined)).to.equal(true);
    expect(order!.shipping.fee).to.equal('2.50');
    // 2 x 8.50 + 4.00 + 2.50: what the buyer paid is the order's total.
    expect(order!.paid_amount).to.equal('23.50');
  });

  it('the sandbox plays the contract: usage plans with x-amzn-RateLimit-Limit and 429, exactly one of createdAfter and lastUpdatedAfter, the deprecated v0 operations until their removal date', async () => {
    const token = await accessToken(sandbox.url, account);
    const get = (path: string) => fetch(`${sandbox.url}${path}`, { headers: { 'x-amz-access-token': token } });
    const both = await get(`/orders/2026-01-01/orders?createdAfter=2026-11-01T00:00:00Z&lastUpdatedAfter=2026-11-01T00:00:00Z&marketplaceIds=${DE}`);
    expect(both.status).to.equal(400);
    expect(((await both.json()) as { errors: { code: string }[] }).errors[0]!.code).to.equal('InvalidInput');
    // searchOrders: 0.0056 requests a second after a burst of 20 (the contract's usage plan); one was used above.
    const answers: number[] = [];
    let limit = '';
    for (let i = 0; i < 20; i++) {
      const res = await get(`/orders/2026-01-01/orders?lastUpdatedAfter=2026-11-01T00:00:00Z&marketplaceIds=${DE}`);
      answers.push(res.status);
      limit = res.headers.get('x-amzn-ratelimit-limit') ?? '';
    }
    expect(answers.slice(0, 19).every((s) => s === 200)).to.equal(true);
    expect(answers[19]).to.equal(429);
    expect(limit).to.equal('0.0056');
    // getOrder has its own plan (0.5/s, burst 30).
    const other = await get('/orders/2026-01-01/orders/302-0000000-0000000');
    expect(other.status).to.equal(404);
    expect(other.headers.get('x-amzn-ratelimit-limit')).to.equal('0.5');

    // v0 getOrders: deprecated, still answering before 2027-03-27, and counted; refused after.
    const v0 = await get(`/orders/v0/orders?MarketplaceIds=${DE}&LastUpdatedAfter=2026-11-01T00:00:00Z`);
    expect(v0.status).to.equal(200);
    expect(v0.headers.get('x-amzn-ratelimit-limit')).to.equal('0.0167');
    expect(
      amazonOf(sandbox.state)
        .deprecatedCalls.filter((c) => c.account === String(account))
        .map((c) => c.operation),
    ).to.deep.equal(['getOrders']);
    await post('/_sandbox/amazon/config', { today: '2027-03-27' });
    try {
      const gone = await get(`/orders/v0/orders?MarketplaceIds=${DE}&LastUpdatedAfter=2026-11-01T00:00:00Z`);
      expect(gone.status).to.equal(404);
      expect(JSON.stringify(await gone.json())).to.contain('removed on 2027-03-27');
    } finally {
      await post('/_sandbox/amazon/config', { today: null });
    }
  });

  /** Every page of a fetch from `since`, by fetchOrders' cursors, as [order id, shipped]. */
  const walk = async (since: Date, between?: () => Promise<void>) => {
    const seen: { id: string; shipped: boolean }[] = [];
    let next: string | null = null;
    do {
      const page = await adapter.fetchOrders(target, since, next);
      seen.push(...page.orders.map((o) => ({ id: o.external_order_id, shipped: o.status.is_shipped })));
      next = page.next;
      if (between && next !== null) await between();
      expect(seen.length, 'the walk ends').to.be.below(20);
    } while (next !== null);
    return seen;
  };
  /** An order of the account with the times a test gives it (minutes after `base`). */
  const timed = async (sku: string, base: number, created: number, updated: number) => {
    const { order_id } = await place({ status: 'UNSHIPPED', lines: [{ sku, quantity: 1, price: '5.00' }] });
    const o = amazonOf(sandbox.state).orders.get(order_id)!;
    o.createdTime = new Date(base + created * 60_000).toISOString();
    o.lastUpdatedTime = new Date(base + updated * 60_000).toISOString();
    return order_id;
  };

  for (const by of ['createdTime', 'lastUpdatedTime'] as const) {
    it(`every order of a fetch is read by the pagination token, whatever order Amazon lists them in (the contract names none): listed by ${by}, a page that happens to be ascending in lastUpdatedTime is no bound of the rest`, async () => {
      const base = Date.now() - 60 * 60_000;
      // The reviewer's case: A 10:00 updated 10:30, B 10:01 -> 10:31, C 10:02 -> 10:05, two a page.
      const a = await timed('R-A', base, 0, 30);
      const b = await timed('R-B', base, 1, 31);
      const c = await timed('R-C', base, 2, 5);
      amazonOf(sandbox.state).pageSize = 2;
      amazonOf(sandbox.state).searchOrdersBy = by;
      let seen: { id: string }[];
      try {
        seen = await walk(new Date(base));
      } finally {
        amazonOf(sandbox.state).pageSize = 100;
        amazonOf(sandbox.state).searchOrdersBy = 'createdTime';
      }
      expect(seen.map((o) => o.id)).to.deep.equal(by === 'createdTime' ? [a, b, c] : [c, a, b]);
      // One query: every later page by its token, with the first query's lastUpdatedAfter.
      const searches = calls('/orders/2026-01-01/orders');
      expect(searches.map((r) => [r.query!.lastUpdatedAfter, typeof r.query!.paginationToken])).to.deep.equal([
        [new Date(base).toISOString(), 'undefined'],
        [new Date(base).toISOString(), 'string'],
      ]);
    });
  }

  it('an order that changes between two pages pushes no other order out of the fetch, and its change is read by a fetch from the time the pages began; an older order that newly matches the query brings one order again, skipping none', async () => {
    const since = new Date(Date.now() - 1000);
    // Sold before the fetch's window, changed only once the first page is read.
    const old = await timed('W-0', Date.now(), -30, -20);
    const placed: string[] = [];
    for (const sku of ['W-1', 'W-2', 'W-3', 'W-4']) {
      placed.push((await place({ lines: [{ sku, quantity: 1, price: '5.00' }] })).order_id);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const [a, b] = placed as [string, string, string, string];
    amazonOf(sandbox.state).pageSize = 2;
    const began = new Date();
    let seen: { id: string; shipped: boolean }[];
    try {
      let once = false;
      seen = await walk(since, async () => {
        if (once) return;
        once = true;
        // The seller ships a and the old order (Seller Central) before the next page is asked.
        expect((await status(a, 'SHIPPED')).status).to.equal(200);
        expect((await status(old, 'SHIPPED')).status).to.equal(200);
      });
    } finally {
      amazonOf(sandbox.state).pageSize = 100;
    }
    // The old order came in first, so the second page begins with b again: read twice, none passed over.
    expect(seen.map((o) => o.id)).to.deep.equal([...placed.slice(0, 2), b, ...placed.slice(2)]);
    // The next fetch reads from the time the pages began (lib/order-import: the chain's start less its overlap): both changes are in it.
    const after = await walk(new Date(began.getTime() - 1000));
    expect(after.filter((o) => o.id === a || o.id === old)).to.deep.equal([
      { id: old, shipped: true },
      { id: a, shipped: true },
    ]);
  });

  it('a kept cursor without a token (the earlier paging by time) asks the query again from its since: an order before that time is read', async () => {
    const base = Date.now() - 60 * 60_000;
    const early = await timed('K-1', base, 0, 5);
    const late = await timed('K-2', base, 1, 30);
    const kept = JSON.stringify({ after: new Date(base + 30 * 60_000).toISOString() });
    const page = await adapter.fetchOrders(target, new Date(base), kept);
    expect(page.orders.map((o) => o.external_order_id)).to.deep.equal([early, late]);
    expect(calls('/orders/2026-01-01/orders')[0]!.query!.lastUpdatedAfter).to.equal(new Date(base).toISOString());
  });

  it('the sandbox refuses a pagination token sent with other parameters than the query that made it (but maxResultsPerPage and includedData), as Pagination says', async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    for (const sku of ['T-1', 'T-2']) await place({ lines: [{ sku, quantity: 1, price: '5.00' }] });
    const token = await accessToken(sandbox.url, account);
    const get = async (query: string) => {
      const res = await fetch(`${sandbox.url}/orders/2026-01-01/orders?${query}`, { headers: { 'x-amz-access-token': token } });
      return {
        status: res.status,
        body: (await res.json()) as {
          orders?: { orderId: string }[];
          pagination?: { nextToken: string };
          errors?: { code: string; message: string; details: string }[];
        },
      };
    };
    const base = `lastUpdatedAfter=${encodeURIComponent(since)}&marketplaceIds=${DE}`;
    const first = await get(`${base}&maxResultsPerPage=1`);
    expect(first.status).to.equal(200);
    const next = encodeURIComponent(first.body.pagination!.nextToken);
    // Another start time, another marketplace, or none of the query's parameters: refused, nothing answered.
    for (const other of [
      `lastUpdatedAfter=${encodeURIComponent(new Date(Date.parse(since) - 60_000).toISOString())}&marketplaceIds=${DE}`,
      `${base},A13V1IB3VIYZZH`,
      `marketplaceIds=${DE}`,
      '',
    ]) {
      const refused = await get(`${other}&paginationToken=${next}`);
      expect(refused.status, other).to.equal(400);
      expect(refused.body.errors![0]!.code).to.equal('InvalidInput');
      expect(refused.body.orders).to.equal(undefined);
    }
    // The same parameters, another page size and data sets: the next page.
    const second = await get(`${base}&maxResultsPerPage=5&includedData=BUYER&paginationToken=${next}`);
    expect(second.status).to.equal(200);
    expect(second.body.orders!.map((o) => o.orderId)).to.have.length(1);
    expect(second.body.orders![0]!.orderId).not.to.equal(first.body.orders![0]!.orderId);
  });

  it("a request that breaks the contract is answered 400 with SP-API's ErrorList and recorded as a violation", async () => {
    const token = await accessToken(sandbox.url, account);
    const res = await fetch(`${sandbox.url}/orders/2026-01-01/orders?lastUpdatedAfter=2026-11-01T00:00:00Z&includedData=BUYER,ADDRESS&maxResultsPerPage=many`, {
      headers: { 'x-amz-access-token': token },
    });
    expect(res.status).to.equal(400);
    const body = (await res.json()) as { errors: { code: string; message: string }[] };
    expect(body.errors.map((e) => e.code)).to.include('InvalidInput');
    expect(JSON.stringify(body)).to.contain('includedData').and.contain('maxResultsPerPage');
    const log = violationsOf(sandbox.state);
    expect(log.of('amazon').map((v) => v.operationId)).to.deep.equal(['searchOrders']);
    log.clear();
  });

  it('send_mit: one confirmShipment per tracking code, packageReferenceId 1, 2 ..., each line confirmed once, Amazon carrier codes from the deliverer', async () => {
    const sold = await place({
      lines: [
        { sku: 'S-1', quantity: 2, price: '5.00' },
        { sku: 'S-2', quantity: 1, price: '8.00' },
      ],
    });
    const [first, second] = sold.order_item_ids;
    const lines = [
      { transactionId: first!, quantity: 2 },
      { transactionId: second!, quantity: 1 },
    ];
    const ship = (code: string, index: number, carrier: string) =>
      adapter.markShipped(
        target,
        { orderId: '7_2026_11', externalOrderId: sold.order_id, lines, carrier, trackingCode: code, shipDate: '2026-11-24', package: { index, count: 2 } },
        `ship-${index}`,
      );
    await ship('H-111', 0, 'Hermes');
    await ship('X-222', 1, 'Spedition Maier');
    const confirms = calls(`/orders/v0/orders/${sold.order_id}/shipmentConfirmation`);
    expect(confirms.map((r) => r.status)).to.deep.equal([204, 204]);
    expect(confirms.map((r) => (r.body as { packageDetail: unknown }).packageDetail)).to.deep.equal([
      {
        packageReferenceId: '1',
        carrierCode: 'Hermes Logistik Gruppe',
        trackingNumber: 'H-111',
        shipDate: '2026-11-24T12:00:00Z',
        orderItems: [{ orderItemId: first, quantity: 2 }],
      },
      {
        packageReferenceId: '2',
        carrierCode: 'Other',
        carrierName: 'Spedition Maier',
        trackingNumber: 'X-222',
        shipDate: '2026-11-24T12:00:00Z',
        orderItems: [{ orderItemId: second, quantity: 1 }],
      },
    ]);
    const order = amazonOf(sandbox.state).orders.get(sold.order_id)!;
    expect(order.status).to.equal('SHIPPED');
    expect(order.packages.map((k) => [k.packageReferenceId, k.carrier, k.trackingNumber])).to.deep.equal([
      ['1', 'Hermes Logistik Gruppe', 'H-111'],
      ['2', 'Spedition Maier', 'X-222'],
    ]);
    // The order's packages come back with searchOrders (PACKAGES).
    const fetched = await adapter.fetchOrder(target, sold.order_id);
    expect(fetched.status.is_shipped).to.equal(true);
  });

  it("a throttled searchOrders is retried later: the fetch fails for a retry with Amazon's QuotaExceeded, not for good", async () => {
    await post('/_sandbox/amazon/config', { orders_rate_limit: 0.001 });
    try {
      const since = new Date(Date.now() - 1000);
      await adapter.fetchOrders(target, since, null);
      const err = await failure(adapter.fetchOrders({ ...target }, since, null));
      expect(err.id).to.equal('portal_unavailable');
      expect(err.message).to.contain('QuotaExceeded');
      expect(calls('/orders/2026-01-01/orders').map((r) => r.status)).to.deep.equal([200, 429]);
    } finally {
      await post('/_sandbox/amazon/config', { orders_rate_limit: null });
    }
  });
});

describe('market_d: the money of an Amazon order', () => {
  const base = (fields: Partial<Order2026>): Order2026 => ({
    orderId: '302-1111111-2222222',
    createdTime: '2026-11-25T10:00:00Z',
    lastUpdatedTime: '2026-11-25T10:05:00Z',
    salesChannel: { channelName: 'AMAZON', marketplaceId: DE },
    orderItems: [{ orderItemId: '1', quantityOrdered: 1, product: { sellerSku: 'X', price: { unitPrice: { amount: '20.00', currencyCode: 'EUR' } } } }],
    ...fields,
  });

  it('a pre-order (PENDING_AVAILABILITY: payment not authorised) is not paid, whatever its proceeds say', () => {
    const order = channelOrder(
      base({ fulfillment: { fulfillmentStatus: 'PENDING_AVAILABILITY' }, proceeds: { grandTotal: { amount: '20.00', currencyCode: 'EUR' } } }),
    );
    expect(order.status.is_paid).to.equal(false);
    expect(order.paid_amount).to.equal('0.00');
  });

  it('the currency is the order one, else the marketplace one; an order that names none gets none (the import refuses it with a task), never EUR', () => {
    expect(channelOrder(base({ proceeds: { grandTotal: { amount: '5.00', currencyCode: 'SEK' } } })).currency_id).to.equal('SEK');
    expect(channelOrder(base({ salesChannel: { channelName: 'AMAZON', marketplaceId: 'A1C3SOZRARQ6R3' }, orderItems: [] })).currency_id).to.equal('PLN');
    expect(channelOrder(base({ salesChannel: { channelName: 'AMAZON', marketplaceId: 'UNKNOWN' }, orderItems: [] })).currency_id).to.equal('');
  });

  it('a discount that is no whole number of cents per unit is rounded per unit; item prices without unitPrice come from the ITEM proceeds', () => {
    const order = channelOrder(
      base({
        orderItems: [
          {
            orderItemId: '1',
            quantityOrdered: 3,
            product: { sellerSku: 'Y' },
            proceeds: {
              breakdowns: [
                { type: 'ITEM', subtotal: { amount: '30.00', currencyCode: 'EUR' } },
                { type: 'DISCOUNT', subtotal: { amount: '-1.50', currencyCode: 'EUR' } },
                { type: 'TAX', subtotal: { amount: '4.79', currencyCode: 'EUR' } },
              ],
            },
          },
        ],
      }),
    );
    expect(order.line[0]).to.deep.equal({ transaction_id: '1', sku: 'Y', name: 'Y', quantity: 3, price: '9.50' });
  });

  /** An item of the contract's US example (proceedsTotal = ITEM + TAX), with its tax collection model. */
  const usItem = (id: string, quantity: number, item: string, tax: string, model?: string): Order2026['orderItems'][number] => {
    const usd = (amount: string) => ({ amount, currencyCode: 'USD' });
    const total = ((Math.round(Number(item) * 100) + Math.round(Number(tax) * 100)) / 100).toFixed(2);
    return {
      orderItemId: id,
      quantityOrdered: quantity,
      product: { sellerSku: `SKU-${id}`, price: { unitPrice: usd((Number(item) / quantity).toFixed(2)) } },
      proceeds: {
        proceedsTotal: usd(total),
        breakdowns: [{ type: 'ITEM', subtotal: usd(item) }, ...(tax !== '0.00' ? [{ type: 'TAX', subtotal: usd(tax) }] : [])],
      },
      ...(model ? { tax: { taxCollections: [{ model, responsibleParty: 'Amazon Services, Inc.' }] } } : {}),
    };
  };
  const usOrder = (items: Order2026['orderItems'], tip?: string): Order2026 =>
    base({
      salesChannel: { channelName: 'AMAZON', marketplaceId: 'ATVPDKIKX0DER' },
      fulfillment: { fulfillmentStatus: 'SHIPPED' },
      proceeds: {
        grandTotal: { amount: '154.99', currencyCode: 'USD' },
        breakdowns: [
          { type: 'ITEM', subtotal: { amount: '149.97', currencyCode: 'USD' } },
          { type: 'TAX', subtotal: { amount: '0.02', currencyCode: 'USD' } },
          ...(tip ? [{ type: 'DELIVERY_TIP', subtotal: { amount: tip, currencyCode: 'USD' } }] : []),
        ],
      },
      orderItems: items,
    });

  it('the contract’s US example (grandTotal 154.99 = ITEM 149.97 + TAX 0.02 + DELIVERY_TIP 5.00) with the tax Amazon withholds as marketplace facilitator is paid at its lines, 149.97', () => {
    const order = channelOrder(
      usOrder([usItem('1', 2, '99.98', '0.02', 'MARKETPLACE_FACILITATOR'), usItem('2', 1, '49.99', '0.00', 'MARKETPLACE_FACILITATOR')], '5.00'),
    );
    expect(order.line.map((l) => [l.quantity, l.price])).to.deep.equal([
      [2, '49.99'],
      [1, '49.99'],
    ]);
    expect(order.paid_amount).to.equal('149.97');
  });

  it('tax that no collection model says Amazon withholds stays in the paid amount; the VAT inside gross prices (proceedsTotal without it) is not taken off', () => {
    // Without the TAX data set (no taxCollections): the tax was not shown to be Amazon's; only the tip leaves.
    expect(channelOrder(usOrder([usItem('1', 2, '99.98', '0.02'), usItem('2', 1, '49.99', '0.00')], '5.00')).paid_amount).to.equal('149.99');
    // An EU item read gross: its TAX is the VAT inside ITEM, its proceedsTotal does not add it again.
    const eur = (amount: string) => ({ amount, currencyCode: 'EUR' });
    const gross = channelOrder(
      base({
        fulfillment: { fulfillmentStatus: 'UNSHIPPED' },
        proceeds: { grandTotal: eur('119.00') },
        orderItems: [
          {
            orderItemId: '1',
            quantityOrdered: 1,
            product: { sellerSku: 'G', price: { unitPrice: eur('119.00') } },
            proceeds: {
              proceedsTotal: eur('119.00'),
              breakdowns: [
                { type: 'ITEM', subtotal: eur('119.00') },
                { type: 'TAX', subtotal: eur('19.00') },
              ],
            },
            tax: { taxCollections: [{ model: 'MARKETPLACE_FACILITATOR' }] },
          },
        ],
      }),
    );
    expect(gross.paid_amount).to.equal('119.00');
  });
});

/** An LWA access token of the sandbox for the portal account (its refresh token names it). */
async function accessToken(url: string, account: number): Promise<string> {
  const res = await fetch(`${url}/auth/o2/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: `Atzr|sandbox-${account}`, client_id: 'c', client_secret: 's' }).toString(),
  });
  return ((await res.json()) as { access_token: string }).access_token;
}
