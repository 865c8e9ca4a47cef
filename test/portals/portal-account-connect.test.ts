import crypto from 'node:crypto';
import { expect } from 'chai';
import { config, setConfig } from '../../config';
import { connectPaths } from '../../config/channel-apps';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { adjustItem } from '../../lib/cia/cia.service';
import { db } from '../../lib/db/knex';
import { pushQuantities } from '../../lib/portal-offer/portal-push.service';
import { AuctionAAdapter } from '../../lib/portals/auction-a.adapter';
import { MarketDAdapter } from '../../lib/portals/market-d.adapter';
import { ebayChallengeResponse } from '../../lib/portals/ebay/ebay-account-deletion';
import { ebayScopes } from '../../lib/portals/ebay/ebay-token';
import { portalTargetRepository } from '../../lib/portal-account/portal-target.repository';
import type { PortalTarget } from '../../lib/portals/portal.type';
import { redis } from '../../lib/redis';
import { apiBase, call, newSeller, Seller, tokenFor } from '../support/api';
import { kontor } from '../support/cli';
import { sandboxForSuite } from './sandbox-server';
import { answeredAddress } from '../support/order-address';
import { capturedLog } from '../security/log-capture';

describe('connecting eBay and Amazon accounts as a seller does: consent, callbacks, take-over, account deletion (sandbox)', function () {
  this.timeout(30000);
  let url: string;
  let base: string;
  let original: ReturnType<typeof config>;
  const verificationToken = 'kontor-test-verification-token-0123456789';
  // Quantities pushed here only show that the credentials reach eBay: the seller holds those SKUs' inventory items at eBay.
  sandboxForSuite((sandbox) => {
    ({ url } = sandbox);
    sandbox.state.ebay.itemsMadeElsewhere = true;
  }, 'ebay');

  before(async () => {
    base = await apiBase();
    original = config();
    const res = await fetch(`${url}/_sandbox/ebay/apps`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ ru_name: 'Kontor-Test-RuName', accept_url: `${base}${connectPaths.ebayAccepted}` }),
    });
    const keys = (await res.json()) as { client_id: string; client_secret: string; ru_name: string };
    setConfig({
      ...original,
      ebayApplication: {
        clientId: keys.client_id,
        clientSecret: keys.client_secret,
        ruName: keys.ru_name,
        authUrl: url,
        apiUrl: url,
        deletionVerificationToken: verificationToken,
        deletionEndpointUrl: `https://kontor.example${connectPaths.ebayAccountDeletion}`,
      },
      spApiApplication: {
        applicationId: 'amzn1.sp.solution.kontor-test',
        clientId: 'amzn1.application-oa2-client.kontor-test',
        clientSecret: 'test-secret',
        redirectUri: `${base}${connectPaths.amazonAuthorized}`,
        sellerCentralUrl: url,
        lwaUrl: `${url}/auth/o2/token`,
        apiUrl: url,
        draft: false,
      },
    });
  });
  after(() => setConfig(original));

  const ebayLogin = () => `shop${crypto.randomBytes(4).toString('hex')}`;

  async function portalAccount(seller: Seller, platform?: string, name = `Channel ${crypto.randomBytes(3).toString('hex')}`): Promise<number> {
    return (await createPortalAccount(seller.id, { name, ...(platform ? { platform } : {}) })).id as number;
  }
  async function consentLink(seller: Seller, portalAccountId: number, connector: string): Promise<string> {
    const res = await call(`admin/portal_account/${portalAccountId}/consent/`, { token: seller.token, body: { connector } });
    expect(res.status, res.text).to.equal(200);
    return res.body.url as string;
  }
  /** The seller at the channel: consents, and the channel sends the browser to Kontor's callback. */
  async function consentAtChannel(link: string, as: Record<string, string>): Promise<URL> {
    const res = await fetch(`${link}&${new URLSearchParams(as).toString()}`, { redirect: 'manual' });
    expect(res.status).to.equal(302);
    return new URL(res.headers.get('location')!);
  }
  async function page(at: URL | string): Promise<{ status: number; text: string; type: string }> {
    const res = await fetch(at);
    return { status: res.status, text: await res.text(), type: res.headers.get('content-type') ?? '' };
  }
  async function target(seller: Seller, portalAccountId: number): Promise<PortalTarget> {
    portalTargetRepository.forget(seller.id, portalAccountId);
    return (await portalTargetRepository.target(db(), seller.id, portalAccountId))!;
  }
  async function row(portalAccountId: number) {
    return (await db()('portal_account').where({ id: portalAccountId }).first())!;
  }

  it('when the seller asks for the eBay link, consents at eBay and comes back, then the account is connected with sealed credentials and CIA and the order fetch work', async () => {
    const seller = await newSeller();
    await db()('account')
      .where({ id: seller.id })
      .update({ address: JSON.stringify({ name: 'Lamp Shop', street: 'Hafenstr. 1', zip: '20457', city: 'Hamburg', country_iso2: 'DE' }) });
    const pa = await portalAccount(seller, undefined, 'Lamp <b>shop</b>');
    const login = ebayLogin();
    // A seller without any inventory location: Kontor makes one from the account's address.
    await fetch(`${url}/_sandbox/ebay/locations`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ portal_account: login }),
    });
    const link = new URL(await consentLink(seller, pa, 'ebay'));
    expect(link.origin + link.pathname).to.equal(`${url}/oauth2/authorize`);
    expect(link.searchParams.get('scope')!.split(' ')).to.deep.equal(ebayScopes);
    expect(link.searchParams.get('state')).to.match(/^[A-Za-z0-9_-]{43}$/);

    const callback = await consentAtChannel(link.toString(), { login });
    expect(callback.pathname).to.equal(connectPaths.ebayAccepted);
    const answer = await page(callback);
    expect(answer.status, answer.text).to.equal(200);
    expect(answer.type).to.match(/text\/html/);
    expect(answer.text).to.contain('eBay connected').and.contain(`Kontor account ${seller.login}`);
    // The portal account's name is shown escaped.
    expect(answer.text).to.contain('Lamp &#60;b&#62;shop&#60;/b&#62;').and.not.contain('<b>');

    const stored = await row(pa);
    expect(stored).to.deep.include({ connector: 'ebay', platform: 'auction_a', base_url: url, order_import_error: null });
    const opened = (await target(seller, pa)).credentials as Record<string, string>;
    expect(opened).to.include({ client_id: config().ebayApplication.clientId, scopes: ebayScopes.join(' '), merchant_location_key: 'kontor-warehouse' });
    expect(Date.parse(opened.refresh_token_expires_at!)).to.be.above(Date.now() + 500 * 86400_000);
    // Sealed at rest, and never in an answer.
    expect(String(stored.credentials)).to.not.contain(opened.refresh_token);
    const read = await call(`admin/portal_account/${pa}/`, { token: seller.token });
    expect(read.text).to.not.contain(opened.refresh_token).and.not.contain(opened.client_secret);

    // The stored credentials reach eBay: a quantity push and an order fetch.
    const adapter = new AuctionAAdapter();
    const t = await target(seller, pa);
    expect(await adapter.setQuantities(t, [{ stockId: 1, quantity: 4, key: 'k1', sku: 'LAMP-1', group: {} }], 'k1')).to.deep.equal([
      { stockId: 1, outcome: 'accepted' },
    ]);
    const sold = await fetch(`${url}/_sandbox/sell`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ portal: 'auction_a', portal_account: login, sku: 'LAMP-1', quantity: 1, price: '20.00' }),
    });
    const { order_id: orderId } = (await sold.json()) as { order_id: string };
    const fetched = await adapter.fetchOrders(t, new Date(Date.now() - 3600_000), null);
    expect(fetched.orders.map((o) => o.external_order_id)).to.include(orderId);

    // The link is good once: the same callback again changes nothing.
    const again = await page(callback);
    expect(again.status).to.equal(400);
    expect(again.text).to.contain('not valid');
    expect((await row(pa)).credentials).to.equal(stored.credentials);
  });

  it('when the consent asked for fewer scopes, then the account keeps those and its token refreshes ask for exactly those; eBay refuses a wider refresh', async () => {
    const seller = await newSeller();
    const pa = await portalAccount(seller, 'auction_a');
    const [inventory, fulfillment] = ebayScopes as [string, string, string];
    const asked = await call(`admin/portal_account/${pa}/consent/`, { token: seller.token, body: { connector: 'ebay', scope: [fulfillment, inventory] } });
    expect(asked.status, asked.text).to.equal(200);
    const link = new URL(asked.body.url as string);
    expect(link.searchParams.get('scope')).to.equal(`${inventory} ${fulfillment}`);
    expect((await page(await consentAtChannel(link.toString(), { login: ebayLogin() }))).status).to.equal(200);
    const t = await target(seller, pa);
    expect((t.credentials as Record<string, string>).scopes).to.equal(`${inventory} ${fulfillment}`);
    // The sandbox refuses a refresh wider than the consent (invalid_scope): the push works, so the refresh asked no more.
    const adapter = new AuctionAAdapter();
    expect(await adapter.setQuantities(t, [{ stockId: 1, quantity: 2, key: 'k', sku: 'S1', group: {} }], 'k')).to.deep.equal([
      { stockId: 1, outcome: 'accepted' },
    ]);
    const wider: PortalTarget = { ...t, portalAccountId: t.portalAccountId + 1_000_000, credentials: { ...t.credentials, scopes: ebayScopes.join(' ') } };
    const refused = await adapter.setQuantities(wider, [{ stockId: 1, quantity: 2, key: 'k2', sku: 'S1', group: {} }], 'k2').catch((err: Error) => err);
    expect(refused).to.be.instanceOf(Error);
    expect((refused as Error).message)
      .to.match(/invalid_scope/)
      .and.not.match(/client_secret/);
    // A scope Kontor does not ask for, or one for Amazon, is refused naming the field.
    const foreign = await call(`admin/portal_account/${pa}/consent/`, {
      token: seller.token,
      body: { connector: 'ebay', scope: ['https://api.ebay.com/oauth/api_scope/sell.account'] },
    });
    expect(foreign.status).to.equal(400);
    expect(foreign.body.error![0]!.field).to.match(/scope/);
  });

  it('when the state is expired, replayed, made up or of the other channel, or the seller declines, then a 400 page and nothing changes', async () => {
    const seller = await newSeller();
    const pa = await portalAccount(seller, 'auction_a');
    const before = await row(pa);
    // Expired: the state outlived its 10 minutes.
    const expired = new URL(await consentLink(seller, pa, 'ebay'));
    const expiredState = expired.searchParams.get('state')!;
    await redis().del(`${config().queuePrefix}:consent-state:${crypto.createHash('sha256').update(expiredState).digest('hex')}`);
    const late = await consentAtChannel(expired.toString(), { login: ebayLogin() });
    expect((await page(late)).status).to.equal(400);
    // Made up.
    expect((await page(`${base}${connectPaths.ebayAccepted}?code=x&state=${'A'.repeat(43)}`)).status).to.equal(400);
    expect((await page(`${base}${connectPaths.ebayAccepted}?code=x`)).status).to.equal(400);
    // An Amazon state at eBay's callback is used up and refused.
    const amazonPa = await portalAccount(seller, 'market_d');
    const amazonState = new URL(await consentLink(seller, amazonPa, 'amazon_sp')).searchParams.get('state')!;
    expect((await page(`${base}${connectPaths.ebayAccepted}?code=x&state=${amazonState}`)).status).to.equal(400);
    expect((await page(`${base}${connectPaths.amazonAuthorized}?spapi_oauth_code=x&selling_partner_id=A1&state=${amazonState}`)).status).to.equal(400);
    // Declined at eBay.
    const declined = new URL(await consentLink(seller, pa, 'ebay')).searchParams.get('state')!;
    const no = await page(`${base}${connectPaths.ebayDeclined}?error=access_denied&state=${declined}`);
    expect(no.status).to.equal(400);
    expect(no.text).to.contain('not granted');
    // Hostile input is escaped, never echoed as markup.
    const hostile = await page(`${base}${connectPaths.ebayAccepted}?state=<script>alert(1)</script>`);
    expect(hostile.status).to.equal(400);
    expect(hostile.text).to.not.contain('<script>');
    expect(await row(pa)).to.deep.equal(before);
    expect(await row(amazonPa)).to.deep.include({ credentials: null });
  });

  it("when another seller's portal account, an unknown connector or an unconfigured application is asked for, then 404, 400 and 503 naming what to set", async () => {
    const seller = await newSeller();
    const other = await newSeller();
    const pa = await portalAccount(seller, 'auction_a');
    expect((await call(`admin/portal_account/${pa}/consent/`, { token: other.token, body: { connector: 'ebay' } })).status).to.equal(404);
    const bad = await call(`admin/portal_account/${pa}/consent/`, { token: seller.token, body: { connector: 'json' } });
    expect(bad.status).to.equal(400);
    expect(bad.body.error![0]!.field).to.equal('connector');
    // An eBay account cannot be connected to Amazon.
    expect((await call(`admin/portal_account/${pa}/consent/`, { token: seller.token, body: { connector: 'amazon_sp' } })).status).to.equal(400);
    const configured = config();
    setConfig({ ...configured, ebayApplication: { ...configured.ebayApplication, clientId: null } });
    try {
      const off = await call(`admin/portal_account/${pa}/consent/`, { token: seller.token, body: { connector: 'ebay' } });
      expect(off.status).to.equal(503);
      expect(off.body.error![0]!.error).to.equal('service_unavailable');
      expect(String(off.body.error_description)).to.contain('EBAY_APP_CLIENT_ID');
    } finally {
      setConfig(configured);
    }
    // The endpoint is declared once, so it is in the OpenAPI document.
    const openapi = (await (await fetch(`${base}/v1.1/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(openapi.paths).some((p) => p.includes('portal_account/{portal_account_id}/consent'))).to.equal(true);
  });

  it('when the seller authorizes Kontor in Seller Central, then the Amazon account is connected with its seller id and marketplaces, and its orders can be fetched', async () => {
    const seller = await newSeller();
    const pa = await portalAccount(seller, 'market_d');
    const link = new URL(await consentLink(seller, pa, 'amazon_sp'));
    expect(link.pathname).to.equal('/apps/authorize/consent');
    expect(link.searchParams.get('application_id')).to.equal('amzn1.sp.solution.kontor-test');
    const callback = await consentAtChannel(link.toString(), { portal_account: String(pa) });
    expect(callback.pathname).to.equal(connectPaths.amazonAuthorized);
    const answer = await page(callback);
    expect(answer.status, answer.text).to.equal(200);
    expect(answer.text).to.contain('Amazon connected');
    expect(await row(pa)).to.deep.include({ connector: 'amazon_sp', platform: 'market_d', base_url: url });
    const t = await target(seller, pa);
    expect(t.credentials).to.deep.equal({
      client_id: 'amzn1.application-oa2-client.kontor-test',
      client_secret: 'test-secret',
      refresh_token: `Atzr|sandbox-${pa}`,
      seller_id: `SANDBOX${pa}`,
      marketplace_id: 'A1PA6795UKMFR9',
    });
    const page1 = await new MarketDAdapter().fetchOrders(t, new Date(Date.now() - 3600_000), null);
    expect(page1.orders).to.be.an('array');
    expect((await page(callback)).status).to.equal(400);
  });

  it('when the Amazon account also lists a Non-Amazon (Multi-Channel Fulfilment) id, then the account keeps the Amazon marketplaces, Ireland among them, and the page names the one left out', async () => {
    const seller = await newSeller();
    const pa = await portalAccount(seller, 'market_d');
    const link = new URL(await consentLink(seller, pa, 'amazon_sp'));
    // getMarketplaceParticipations of a unified European account with MCF: DE, IE and a Non-Amazon id.
    await fetch(`${url}/_sandbox/amazon/marketplaces`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ portal_account: String(pa), marketplace_ids: ['A1PA6795UKMFR9', 'A28R8C7NBKEWEA', 'A1ZFFQZ3HTUKT9'] }),
    });
    const answer = await page(await consentAtChannel(link.toString(), { portal_account: String(pa) }));
    expect(answer.status, answer.text).to.equal(200);
    expect(answer.text).to.contain('Amazon connected').and.contain('Left out').and.contain('A1ZFFQZ3HTUKT9');
    expect((await target(seller, pa)).credentials).to.deep.include({ marketplace_id: 'A1PA6795UKMFR9,A28R8C7NBKEWEA' });
  });

  it('when listings made in Seller Hub are taken over, then each is migrated and linked to the stock item of its SKU, and a quantity change reaches the listing', async () => {
    const seller = await newSeller();
    const pa = await portalAccount(seller);
    const login = ebayLogin();
    expect((await page(await consentAtChannel(await consentLink(seller, pa, 'ebay'), { login }))).status).to.equal(200);
    const sku = `LAMP-${seller.id}`;
    const stock = await call('stock/', { token: seller.token, body: { stock: { name: 'Lamp', sku, quantity: 7 } } });
    expect(stock.status, stock.text).to.equal(201);
    const stockId = Number(stock.body.stock_id);
    const legacy = async (body: Record<string, unknown>) =>
      (
        (await (
          await fetch(`${url}/_sandbox/ebay/legacy_listings`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify({ portal_account: login, ...body }),
          })
        ).json()) as { listing_id: string }
      ).listing_id;
    const mine = await legacy({ sku, quantity: 3 });
    const unknownSku = await legacy({ sku: 'NOT-IN-KONTOR', quantity: 1 });
    const auction = await legacy({ sku: 'AUCTION-1', format: 'AUCTION' });

    const res = await call(`admin/portal_account/${pa}/take_over/`, { token: seller.token, body: { listing_id: [mine, unknownSku, auction] } });
    expect(res.status, res.text).to.equal(200);
    const report = res.body.take_over as Record<string, unknown>[];
    expect(report[0]).to.deep.equal({ listing_id: mine, outcome: 'taken_over', sku, stock_id: stockId });
    expect(report[1]).to.deep.include({ listing_id: unknownSku, outcome: 'no_stock_item', sku: 'NOT-IN-KONTOR' });
    expect(report[2]).to.deep.include({ listing_id: auction, outcome: 'refused' });
    expect(String(report[2]!.message)).to.match(/Auction listings cannot be migrated/);
    const item = await call(`stock/${stockId}/`, { token: seller.token });
    expect((item.body.stock as { cia: { auction_a: { is_active: boolean } } }).cia.auction_a.is_active).to.equal(true);

    // CIA now reaches the listing: the item's quantity is what a buyer sees at eBay.
    await adjustItem(seller.id, stockId, {});
    await pushQuantities(seller.id, { portal: 'auction_a', portalAccountId: pa });
    const listings = (await (await fetch(`${url}/_sandbox/ebay/listings?portal_account=${login}`)).json()) as Record<string, unknown>[];
    // Migrated with the Seller Hub quantity 3; the stock's 7 now shows at the item and the offer.
    expect(listings.filter((l) => l.sku === sku)).to.deep.equal([
      {
        offerId: listings.find((l) => l.sku === sku)!.offerId,
        portal_account: login,
        sku,
        format: 'FIXED_PRICE',
        status: 'PUBLISHED',
        listingId: mine,
        availableQuantity: 7,
        itemQuantity: 7,
        quantity: 7,
      },
    ]);

    // Now an Inventory API listing: migrating it again is refused by eBay, naming it by SKU links it (as for one made by another tool).
    const again = await call(`admin/portal_account/${pa}/take_over/`, { token: seller.token, body: { listing_id: [mine] } });
    expect((again.body.take_over as Record<string, unknown>[])[0]).to.deep.include({ listing_id: mine, outcome: 'refused' });
    const bySku = await call(`admin/portal_account/${pa}/take_over/`, { token: seller.token, body: { sku: [sku, 'NOWHERE-1'] } });
    expect(bySku.status, bySku.text).to.equal(200);
    expect(bySku.body.take_over).to.deep.equal([
      { sku, outcome: 'taken_over', stock_id: stockId },
      { sku: 'NOWHERE-1', outcome: 'refused', message: 'eBay has no published offer with the SKU NOWHERE-1' },
    ]);

    // Bad input: 400 naming the field; an account not connected to eBay: 400.
    expect((await call(`admin/portal_account/${pa}/take_over/`, { token: seller.token, body: { listing_id: ['12ab'] } })).body.error![0]!.field).to.equal(
      'listing_id',
    );
    const unconnected = await portalAccount(seller, 'shop_g');
    expect((await call(`admin/portal_account/${unconnected}/take_over/`, { token: seller.token, body: { listing_id: [mine] } })).status).to.equal(400);
  });

  it('when a token with admin_w but not stock_w (or not stock_r) takes over a listing, then 403 insufficient_scope naming what is missing, and the stock item is unchanged', async () => {
    const seller = await newSeller();
    const pa = await portalAccount(seller);
    const login = ebayLogin();
    expect((await page(await consentAtChannel(await consentLink(seller, pa, 'ebay'), { login }))).status).to.equal(200);
    const sku = `LAMP-${seller.id}`;
    const stockId = Number((await call('stock/', { token: seller.token, body: { stock: { name: 'Lamp', sku, quantity: 7 } } })).body.stock_id);
    const listing = (await (
      await fetch(`${url}/_sandbox/ebay/legacy_listings`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ portal_account: login, sku, quantity: 3 }),
      })
    ).json()) as { listing_id: string };
    const item = async () => (await call(`stock/${stockId}/`, { token: seller.token })).body.stock as { cia?: { auction_a?: { is_active: boolean } } };
    const before = await item();
    expect(before.cia?.auction_a?.is_active ?? false).to.equal(false);

    for (const [scope, missing] of [
      ['admin_w', 'stock_r stock_w'],
      ['admin_w stock_r', 'stock_w'],
      ['admin_w stock_w', 'stock_r'],
    ] as const) {
      const token = await tokenFor(seller.login, seller.password, scope);
      const res = await call(`admin/portal_account/${pa}/take_over/`, { token, body: { listing_id: [listing.listing_id] } });
      expect([res.status, res.body.error?.[0]?.error, res.headers.get('www-authenticate')], `${scope}: ${res.text}`).to.deep.equal([
        403,
        'insufficient_scope',
        `Bearer error="insufficient_scope", scope="${missing}"`,
      ]);
      expect(await item(), scope).to.deep.equal(before);
    }
    // OPTIONS and openapi.json state every scope the endpoint needs.
    const options = await call(`admin/portal_account/${pa}/take_over/`, { method: 'OPTIONS' });
    expect((options.body.options as { methods: { scope: string }[] }).methods[0]!.scope).to.equal('admin_w stock_r stock_w');
    const doc = (await (await fetch(`${base}/v1.1/openapi.json`)).json()) as { paths: Record<string, Record<string, { security: unknown }>> };
    expect(doc.paths['/admin/portal_account/{portal_account_id}/take_over/']!.post!.security).to.deep.equal([{ oauth2: ['admin_w', 'stock_r', 'stock_w'] }]);

    const token = await tokenFor(seller.login, seller.password, 'admin_w stock_r stock_w');
    const res = await call(`admin/portal_account/${pa}/take_over/`, { token, body: { listing_id: [listing.listing_id] } });
    expect(res.status, res.text).to.equal(200);
    expect((await item()).cia?.auction_a?.is_active).to.equal(true);
  });

  it('when support runs kontor portal-account consent and take-over, then the link connects the account and the listing is taken over; unconfigured, the command names what to set', async () => {
    const seller = await newSeller();
    const pa = await portalAccount(seller);
    const refused = await kontor('portal-account', 'consent', '--login', seller.login, '--portal-account', String(pa), '--connector', 'ebay');
    expect(refused.code).to.equal(1);
    expect(refused.err).to.contain('EBAY_APP_CLIENT_ID');
    const app = config().ebayApplication;
    // The command keeps its state in the Redis keys this process reads (earlier suites may have moved the prefix).
    const prefix = process.env.QUEUE_PREFIX;
    const env = {
      QUEUE_PREFIX: config().queuePrefix,
      EBAY_APP_CLIENT_ID: app.clientId!,
      EBAY_APP_CLIENT_SECRET: app.clientSecret!,
      EBAY_APP_RU_NAME: app.ruName!,
      EBAY_AUTH_URL: url,
      EBAY_API_URL: url,
    };
    Object.assign(process.env, env);
    try {
      const printed = await kontor('portal-account', 'consent', '--login', seller.login, '--portal-account', String(pa), '--connector', 'ebay');
      expect(printed.code, printed.err).to.equal(0);
      const { url: link } = JSON.parse(printed.out) as { url: string };
      const login = ebayLogin();
      expect((await page(await consentAtChannel(link, { login }))).status).to.equal(200);
      expect(await row(pa)).to.deep.include({ connector: 'ebay', platform: 'auction_a' });
      const sku = `CUP-${seller.id}`;
      const stock = await call('stock/', { token: seller.token, body: { stock: { name: 'Cup', sku, quantity: 2 } } });
      const listing = (await (
        await fetch(`${url}/_sandbox/ebay/legacy_listings`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ portal_account: login, sku }),
        })
      ).json()) as { listing_id: string };
      const taken = await kontor('portal-account', 'take-over', '--login', seller.login, '--portal-account', String(pa), '--listing-id', listing.listing_id);
      expect(taken.code, taken.err).to.equal(0);
      expect(JSON.parse(taken.out)).to.deep.equal({
        take_over: [{ listing_id: listing.listing_id, outcome: 'taken_over', sku, stock_id: Number(stock.body.stock_id) }],
      });
      const none = await kontor('portal-account', 'take-over', '--login', seller.login, '--portal-account', String(pa));
      expect(none.code).to.equal(1);
      expect(none.err).to.contain('--listing-id or --sku is required');
    } finally {
      for (const name of Object.keys(env)) delete process.env[name];
      if (prefix !== undefined) process.env.QUEUE_PREFIX = prefix;
    }
  });

  it('when hostile requests reach the public pages, then none is a 5xx', async () => {
    const paths = [connectPaths.ebayAccepted, connectPaths.ebayDeclined, connectPaths.amazonAuthorized, connectPaths.ebayAccountDeletion];
    const queries = [
      '',
      '?state[]=a&state[]=b&code=x',
      '?state[a]=1',
      '?challenge_code[x]=1',
      `?challenge_code=${'x'.repeat(5000)}`,
      '?spapi_oauth_code=%00&state=%E0%A4%A',
      '?error=<x>',
    ];
    for (const path of paths) for (const q of queries) expect((await fetch(`${base}${path}${q}`)).status, `${path}${q}`).to.be.below(500);
    const posts: [Record<string, string>, string | Buffer][] = [
      [{}, ''],
      [{ 'Content-Type': 'application/json' }, '{"metadata":'],
      [{ 'X-EBAY-SIGNATURE': 'not base64 json' }, '{}'],
      [{ 'X-EBAY-SIGNATURE': Buffer.from('{"kid":"nope","signature":"AA=="}').toString('base64') }, '{}'],
      [{ 'X-EBAY-SIGNATURE': Buffer.from('[1,2]').toString('base64') }, '{}'],
      [{ 'Content-Type': 'application/json' }, Buffer.alloc(70_000, 'a')],
    ];
    for (const [headers, body] of posts) {
      const res = await fetch(`${base}${connectPaths.ebayAccountDeletion}`, { method: 'POST', headers, body });
      expect(res.status, JSON.stringify(headers)).to.be.oneOf([400, 412, 413]);
    }
  });

  describe('eBay Marketplace Account Deletion', () => {
    const endpoint = () => `${base}${connectPaths.ebayAccountDeletion}`;
    const notice = async (username: string) =>
      (await (
        await fetch(`${url}/_sandbox/ebay/account_deletion`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ username, user_id: 'u-1' }),
        })
      ).json()) as { body: string; headers: Record<string, string> };

    it('when eBay sends the challenge, then the answer is its hash of code, verification token and endpoint URL', async () => {
      const res = await fetch(`${endpoint()}?challenge_code=abc-123`);
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/application\/json/);
      expect(await res.json()).to.deep.equal(ebayChallengeResponse('abc-123', verificationToken, `https://kontor.example${connectPaths.ebayAccountDeletion}`));
      expect((await fetch(endpoint())).status).to.equal(400);
    });

    it("when a signed notification names a buyer, then that buyer's data in eBay orders and customers goes, invoices keep their recipient, others stay; a bad signature is 412", async () => {
      const seller = await newSeller();
      const pa = await portalAccount(seller);
      expect((await page(await consentAtChannel(await consentLink(seller, pa, 'ebay'), { login: ebayLogin() }))).status).to.equal(200);
      const buyer = `cupfan${crypto.randomBytes(3).toString('hex')}`;
      const address = { name: 'Cup Fan', street: 'Weg 2', zip: '10115', city: 'Berlin', country_iso2: 'DE' };
      const order = async (username: string, email: string) => {
        const res = await call('order/', {
          token: seller.token,
          body: {
            order: {
              portal_account_id: pa,
              platform: 'auction_a',
              customer: { username, email, phone_1: '+49 30 1234', address },
              shipping: { address },
              line: [{ id: 1, name: 'Cup', quantity: 1, price: '9.90' }],
            },
          },
        });
        expect(res.status, res.text).to.equal(201);
        return res.body.order_id as string;
      };
      const open = await order(buyer, 'fan@example.com');
      const invoiced = await order(buyer, 'fan@example.com');
      const other = await order('someone_else', 'else@example.com');
      await db()('sales_order').where({ account_id: seller.id, id: invoiced }).update({ invoice_number: 4711 });
      const readOrder = async (id: string) => (await call(`order/${id}/`, { token: seller.token })).body.order as Record<string, Record<string, unknown>>;

      const emails = async () =>
        ((await db()('customer').where({ account_id: seller.id }).select('email')) as { email: string | null }[]).map((c) => c.email).sort();
      expect(await emails()).to.deep.equal(['else@example.com', 'fan@example.com']);
      // A bad signature: 412, nothing changes.
      const signed = await notice(buyer);
      const forged = await fetch(endpoint(), {
        method: 'POST',
        headers: signed.headers,
        body: signed.body.replace('u-1', 'u-2'),
      });
      expect(forged.status).to.equal(412);
      expect((await readOrder(open)).customer!.username).to.equal(buyer);

      const res = await fetch(endpoint(), { method: 'POST', headers: signed.headers, body: signed.body });
      expect(res.status).to.equal(204);
      const gone = await readOrder(open);
      expect(gone.customer).to.deep.include({ username: null, email: null, phone_1: null });
      expect(gone.customer!.address).to.deep.equal(answeredAddress({ country_iso2: 'DE' }));
      expect(gone.shipping!.address).to.deep.equal(answeredAddress({ country_iso2: 'DE' }));
      expect(gone.line).to.have.length(1);
      const kept = await readOrder(invoiced);
      expect(kept.customer).to.deep.include({ username: null, email: null, phone_1: null });
      expect(kept.customer!.address).to.deep.include({ name: 'Cup Fan', city: 'Berlin' });
      const untouched = await readOrder(other);
      expect(untouched.customer).to.deep.include({ username: 'someone_else', email: 'else@example.com' });
      // The buyer's customer record keeps its number only; the other buyer's is untouched.
      expect(await emails()).to.deep.equal(['else@example.com', null]);
      const recorded = (await db()('ebay_account_deletion').orderBy('received_at', 'desc').first()) as Record<string, unknown>;
      expect(recorded).to.deep.include({ accounts: 1, orders: 2, customers: 1 });
      expect(JSON.stringify(recorded)).to.not.contain(buyer);
      // A redelivery is answered the same and changes nothing more.
      expect((await fetch(endpoint(), { method: 'POST', headers: signed.headers, body: signed.body })).status).to.equal(204);
    });

    it('when X-EBAY-SIGNATURE is base64 of null or of other JSON that is no signature, then 412 as for any other malformed header, and no error is logged', async () => {
      const post = (json: string) =>
        fetch(endpoint(), {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'X-EBAY-SIGNATURE': Buffer.from(json).toString('base64') },
          body: JSON.stringify({ metadata: { topic: 'MARKETPLACE_ACCOUNT_DELETION' }, notification: { data: { username: 'someone' } } }),
        });
      const { lines } = await capturedLog(async () => {
        for (const json of ['{}', 'null', '[1]', '"x"', '{"kid":7,"signature":"AA=="}', '{"kid":"k","signature":"AA==","alg":[]}']) {
          const res = await post(json);
          const text = await res.text();
          expect(res.status, `${json}: ${text}`).to.equal(412);
          expect((JSON.parse(text) as { error: string }).error, json).to.match(/X-EBAY-SIGNATURE/);
        }
      });
      expect(lines.filter((l) => Number(l.level) >= 50).map((l) => l.msg)).to.deep.equal([]);
    });

    it("when signatures name one unknown key id after another, then eBay is asked for at most 10 a minute, the rest answered 503 with Retry-After, and eBay's own key still taken", async () => {
      // eBay's key looked up once and cached, as on a running service that has had a notification.
      const first = await notice('early_buyer');
      expect((await fetch(endpoint(), { method: 'POST', headers: first.headers, body: first.body })).status).to.equal(204);
      const forged = (kid: string) => ({
        'Content-Type': 'application/json',
        'X-EBAY-SIGNATURE': Buffer.from(JSON.stringify({ alg: 'ecdsa', kid, signature: 'AA==', digest: 'SHA1' })).toString('base64'),
      });
      const statuses: number[] = [];
      let retryAfter: string | null = null;
      for (let i = 0; i < 14; i++) {
        const res = await fetch(endpoint(), { method: 'POST', headers: forged(`tried-${i}-${Date.now()}`), body: '{}' });
        statuses.push(res.status);
        if (res.status === 503) retryAfter = res.headers.get('retry-after');
      }
      // 10 looked up (eBay knows none: 412), fewer when earlier tests of the minute looked some up.
      expect(statuses.filter((s) => s === 412).length).to.be.within(7, 10);
      expect(statuses.slice(10)).to.deep.equal([503, 503, 503, 503]);
      expect(statuses.every((s) => s === 412 || s === 503)).to.equal(true);
      expect(Number(retryAfter)).to.be.above(0);
      const signed = await notice('late_buyer');
      expect((await fetch(endpoint(), { method: 'POST', headers: signed.headers, body: signed.body })).status).to.equal(204);
    });
  });
});
