import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { expect } from 'chai';
import nock from 'nock';
import { AuctionAAdapter } from '../../lib/portals/auction-a.adapter';
import type { PortalTarget } from '../../lib/portals/portal.type';
import { createSandbox, SandboxState } from '../../sandbox/sandbox.app';
import { failure } from '../support/failure';

const adapter = new AuctionAAdapter();
let nextAccount = 9_000_000 + (process.pid % 1000) * 100;

const listable = {
  name: 'Desk lamp',
  price: '19.90',
  category_1_id: '112581',
  seller_profile: { payment: [{ id: 11 }], refund: [{ id: 12 }], shipping: [{ id: 13 }] },
};

describe('auction_a speaks eBay (adapter against the sandbox eBay and nock)', function () {
  this.timeout(20000);
  let server: Server;
  let state: SandboxState;
  let url: string;

  before(async () => {
    const sandbox = createSandbox();
    state = sandbox.state;
    server = sandbox.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  const bare = (): PortalTarget => ({ portalAccountId: nextAccount++, baseUrl: url, credentials: {} });
  async function consented(): Promise<PortalTarget> {
    const id = nextAccount++;
    const res = await fetch(`${url}/_sandbox/ebay/consent`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ portal_account: id }),
    });
    return { portalAccountId: id, baseUrl: url, credentials: (await res.json()) as Record<string, unknown> };
  }
  const calls = (target: PortalTarget) => state.requests.filter((r) => r.portalAccount === String(target.portalAccountId)).map((r) => `${r.method} ${r.path}`);
  const sell = async (target: PortalTarget, sku: string, quantity = 1) =>
    (
      (await (
        await fetch(`${url}/_sandbox/sell`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({
            portal: 'auction_a',
            portal_account: target.portalAccountId,
            sku,
            quantity,
            buyer: { username: 'lampfan', email: 'fan@example.com', name: 'Fan Lamp' },
          }),
        })
      ).json()) as { order_id: string }
    ).order_id;

  it('when an item is listed, then eBay gets the inventory item, a new offer and publishOffer, and the listing id comes back', async () => {
    const target = bare();
    const { portalItemId } = await adapter.list(
      target,
      { stockId: 1, name: 'Lamp', sku: 'LAMP-1', ean: null, price: '19.90', quantityAvailable: 4, group: listable },
      'k1',
    );
    expect(calls(target)).to.deep.equal([
      'PUT /sell/inventory/v1/inventory_item/LAMP-1',
      'GET /sell/inventory/v1/offer',
      'POST /sell/inventory/v1/offer',
      `POST /sell/inventory/v1/offer/${[...state.ebay.offers.values()].find((o) => o.sku === 'LAMP-1' && o.account === String(target.portalAccountId))!.offerId}/publish`,
    ]);
    const [put, lookup, create] = state.requests.filter((r) => r.portalAccount === String(target.portalAccountId));
    expect(put!.body).to.deep.include({ availability: { shipToLocationAvailability: { quantity: 4 } } });
    expect(lookup!.body).to.deep.equal({ sku: 'LAMP-1', marketplace_id: 'EBAY_DE' });
    expect(create!.body).to.deep.include({
      sku: 'LAMP-1',
      marketplaceId: 'EBAY_DE',
      format: 'FIXED_PRICE',
      listingDuration: 'GTC',
      availableQuantity: 4,
      categoryId: '112581',
    });
    expect(portalItemId).to.match(/^\d{12}$/);
    expect(state.quantities(String(target.portalAccountId)).auction_a).to.deep.equal({ 'LAMP-1': 4 });
  });

  it('when a listed item is revised, then only the calls its revise_values need are made (price: updateOffer without the offer keys)', async () => {
    const target = bare();
    const lamp = { stockId: 2, name: 'Lamp', sku: 'LAMP-2', ean: null, price: '19.90', quantityAvailable: 4, group: listable };
    const { portalItemId } = await adapter.list(target, lamp, 'k1');
    state.requests = [];
    await adapter.revise(target, { ...lamp, group: { ...listable, price: '17.50' } }, portalItemId, ['price'], 'k2');
    expect(calls(target)).to.have.length(2);
    expect(calls(target)[0]).to.equal('GET /sell/inventory/v1/offer');
    expect(calls(target)[1]).to.match(/^PUT \/sell\/inventory\/v1\/offer\/\d+$/);
    const update = state.requests.find((r) => r.method === 'PUT')!;
    expect(update.path).to.match(/^\/sell\/inventory\/v1\/offer\/\d+$/);
    expect(update.body).to.deep.include({ pricingSummary: { price: { value: '17.50', currency: 'EUR' } } });
    expect(update.body).to.not.have.any.keys('sku', 'marketplaceId', 'format');
    state.requests = [];
    await adapter.revise(target, { ...lamp, group: { ...listable, name: 'Brass desk lamp' } }, portalItemId, ['title'], 'k3');
    expect(calls(target)).to.deep.equal(['PUT /sell/inventory/v1/inventory_item/LAMP-2']);
  });

  it('when a listing is ended, then the SKU’s published offer is withdrawn and the sandbox shows 0', async () => {
    const target = bare();
    await adapter.list(target, { stockId: 3, name: 'Lamp', sku: 'LAMP-3', ean: null, price: '19.90', quantityAvailable: 4, group: listable }, 'k1');
    await adapter.end(target, 3, null, 'k2', { sku: 'LAMP-3', group: listable });
    expect(calls(target).at(-1)).to.match(/^POST \/sell\/inventory\/v1\/offer\/\d+\/withdraw$/);
    expect(state.quantities(String(target.portalAccountId)).auction_a).to.deep.equal({ 'LAMP-3': 0 });
  });

  it('when the listing breaks eBay limits (no policies, 56-character subtitle, GTC auction), then it fails before anything is sent', async () => {
    const target = bare();
    const base = { stockId: 4, name: 'Lamp', sku: 'L4', ean: null, price: '1.00', quantityAvailable: 1 };
    expect((await failure(adapter.list(target, { ...base, group: { name: 'Lamp', category_1_id: '1' } }, 'k'))).message).to.match(/business policies/);
    expect((await failure(adapter.list(target, { ...base, group: { ...listable, subtitle: 'x'.repeat(56) } }, 'k'))).message).to.match(/55/);
    expect((await failure(adapter.list(target, { ...base, group: { ...listable, type_id: '1', duration: 'GTC' } }, 'k'))).message).to.match(/auction runs/);
    expect(calls(target)).to.deep.equal([]);
  });

  it('when 30 quantities are set and eBay refuses one SKU, then they go in calls of at most 25 and each item has its own outcome', async () => {
    const target = bare();
    state.faults.push({ portal: 'auction_a', reference: '105', status: 400, remaining: 1, message: 'Invalid SKU' });
    state.faults.push({ portal: 'auction_a', reference: '106', status: 500, remaining: 1, message: 'System error' });
    const updates = Array.from({ length: 30 }, (_, i) => ({ stockId: 100 + i, quantity: i, key: `q${i}`, sku: null, group: {} }));
    const outcomes = await adapter.setQuantities(target, updates, 'k');
    const bulk = state.requests.filter((r) => r.portalAccount === String(target.portalAccountId));
    expect(bulk.map((r) => [r.path, (r.body as { requests: unknown[] }).requests.length])).to.deep.equal([
      ['/sell/inventory/v1/bulk_update_price_quantity', 25],
      ['/sell/inventory/v1/bulk_update_price_quantity', 5],
    ]);
    expect(bulk[0]!.status).to.equal(207);
    expect((bulk[0]!.body as { requests: unknown[] }).requests[0]).to.deep.equal({ sku: '100', shipToLocationAvailability: { quantity: 0 } });
    expect(outcomes.filter((o) => o.outcome === 'accepted')).to.have.length(28);
    expect(outcomes[5]).to.deep.include({ stockId: 105, outcome: 'refused' });
    expect((outcomes[5] as { message: string }).message).to.match(/SKU 105.*\[25001 API_INVENTORY\] Invalid SKU/);
    expect(outcomes[6]).to.deep.include({ stockId: 106, outcome: 'retry' });
  });

  it('when credentials are given, then one token is minted with Basic auth and the refresh token, cached, and the calls carry it', async () => {
    const target = await consented();
    const token = nock(url, { allowUnmocked: true })
      .post('/identity/v1/oauth2/token')
      .reply(function (_uri, body) {
        expect(this.req.headers.authorization).to.equal(
          `Basic ${Buffer.from(`${target.credentials.client_id as string}:${target.credentials.client_secret as string}`).toString('base64')}`,
        );
        const form = new URLSearchParams(String(body));
        expect(form.get('grant_type')).to.equal('refresh_token');
        expect(form.get('refresh_token')).to.equal(target.credentials.refresh_token);
        expect(form.get('scope')).to.contain('https://api.ebay.com/oauth/api_scope/sell.inventory');
        return [200, { access_token: `v^1.1#i^1#sandbox#${target.portalAccountId}#x`, expires_in: 7200, token_type: 'User Access Token' }];
      });
    state.ebay.tokens.set(`v^1.1#i^1#sandbox#${target.portalAccountId}#x`, String(target.portalAccountId));
    await adapter.setQuantities(target, [{ stockId: 1, quantity: 1, key: 'a', sku: 'S1', group: {} }], 'k');
    await adapter.setQuantities(target, [{ stockId: 1, quantity: 2, key: 'b', sku: 'S1', group: {} }], 'k');
    expect(token.isDone()).to.equal(true);
    expect(state.requests.filter((r) => r.portalAccount === String(target.portalAccountId) && r.bearer)).to.have.length(2);
  });

  it('when the refresh token is revoked, then the job fails for good naming the portal account, and nothing is retried', async () => {
    const target = await consented();
    await adapter.setQuantities(target, [{ stockId: 1, quantity: 1, key: 'a', sku: 'S1', group: {} }], 'k');
    await fetch(`${url}/_sandbox/ebay/revoke`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ portal_account: target.portalAccountId }),
    });
    const err = await failure(adapter.setQuantities(target, [{ stockId: 1, quantity: 2, key: 'b', sku: 'S1', group: {} }], 'k'));
    expect(err.id).to.equal('portal_refused');
    expect(err.message).to.contain(`auction_a portal account ${target.portalAccountId}`);
    expect(err.message).to.contain('invalid_grant');
  });

  it("when eBay answers 429 with Retry-After, then the job is to be retried after that time, with eBay's error text", async () => {
    const target: PortalTarget = { portalAccountId: nextAccount++, baseUrl: 'https://api.ebay.test', credentials: {} };
    nock('https://api.ebay.test')
      .post('/sell/inventory/v1/bulk_update_price_quantity')
      .reply(
        429,
        {
          errors: [
            {
              errorId: 2001,
              domain: 'ACCESS',
              category: 'REQUEST',
              message: 'Too many requests.',
              longMessage: 'The request limit has been reached for the resource.',
            },
          ],
        },
        { 'Retry-After': '7' },
      );
    const err = await failure(adapter.setQuantities(target, [{ stockId: 1, quantity: 1, key: 'a', sku: 'S1', group: {} }], 'k'));
    expect(err.id).to.equal('portal_unavailable');
    expect(err.retryAfterSeconds).to.equal(7);
    expect(err.message).to.contain('[2001 ACCESS] Too many requests.: The request limit has been reached for the resource.');
  });

  it('when orders were sold, then fetchOrders maps them to ChannelOrder and pages by offset', async () => {
    const target = bare();
    await adapter.list(target, { stockId: 5, name: 'Lamp', sku: 'LAMP-5', ean: null, price: '19.90', quantityAvailable: 4, group: listable }, 'k1');
    const since = new Date(Date.now() - 1000);
    const orderId = await sell(target, 'LAMP-5', 2);
    const page = await adapter.fetchOrders(target, since, null);
    expect(page.next).to.equal(null);
    const fetch1 = state.requests.filter((r) => r.portalAccount === String(target.portalAccountId) && r.path === '/sell/fulfillment/v1/order').at(-1)!;
    expect(fetch1.body).to.deep.equal({ filter: `lastmodifieddate:[${since.toISOString()}..]`, limit: '200', offset: '0' });
    const [order] = page.orders;
    expect(order).to.deep.include({ external_order_id: orderId, currency_id: 'EUR', paid_amount: '39.80' });
    expect(order!.customer).to.deep.include({ username: 'lampfan', email: 'fan@example.com' });
    expect(order!.customer.address).to.deep.include({ name: 'Fan Lamp', country_iso2: 'DE' });
    expect(order!.shipping.address).to.deep.include({ name: 'Fan Lamp' });
    expect(order!.line).to.deep.equal([
      { transaction_id: state.ebay.orders.get(orderId)!.order.lineItems![0]!.lineItemId, sku: 'LAMP-5', name: 'Desk lamp', quantity: 2, price: '19.90' },
    ]);
    expect(order!.status).to.deep.equal({ is_paid: true, is_shipped: false, is_cancelled: false });
    expect(order!.payment_provider_transaction_id).to.match(/^SBX/);
    // eBay took the sold units off the listing.
    expect(state.quantities(String(target.portalAccountId)).auction_a).to.deep.equal({ 'LAMP-5': 2 });

    const paged: PortalTarget = { portalAccountId: nextAccount++, baseUrl: 'https://api.ebay.test', credentials: {} };
    nock('https://api.ebay.test')
      .get('/sell/fulfillment/v1/order')
      .query({ filter: 'lastmodifieddate:[2026-11-01T00:00:00.000Z..]', limit: '200', offset: '0' })
      .reply(200, { total: 201, offset: 0, limit: 200, next: 'x', orders: Array.from({ length: 200 }, (_, i) => ({ orderId: `O${i}` })) })
      .get('/sell/fulfillment/v1/order')
      .query({ filter: 'lastmodifieddate:[2026-11-01T00:00:00.000Z..]', limit: '200', offset: '200' })
      .reply(200, { total: 201, offset: 200, limit: 200, orders: [{ orderId: 'O200' }] });
    const first = await adapter.fetchOrders(paged, new Date('2026-11-01T00:00:00Z'), null);
    expect([first.orders.length, first.next]).to.deep.equal([200, '200']);
    const second = await adapter.fetchOrders(paged, new Date('2026-11-01T00:00:00Z'), first.next);
    expect([second.orders.map((o) => o.external_order_id), second.next]).to.deep.equal([['O200'], null]);
  });
});
