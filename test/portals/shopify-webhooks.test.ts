/**
 * webshop at Shopify, the push path (issue 33): the store's webhooks subscribed through
 * webhookSubscriptionCreate, each delivery verified by its HMAC and turned into the poll's own
 * order import (so an order is imported once, whichever comes first), duplicates and forgeries
 * changing nothing; and the install of Kontor's app (OAuth: state once, hmac checked, token sealed,
 * webhooks subscribed) against the sandbox's store.
 */
import crypto from 'node:crypto';
import { expect } from 'chai';
import { config, setConfig } from '../../config';
import { connectPaths, developmentShopifyApplication } from '../../config/channel-apps';
import { withDevelopmentShopifyApp } from './shopify-support';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { db } from '../../lib/db/knex';
import { importOrders } from '../../lib/order-import/order-import.service';
import { orderImportProcessors } from '../../lib/order-import/order-import.processor';
import { portalTargetRepository } from '../../lib/portal-account/portal-target.repository';
import { shopifyStoreRepository } from '../../lib/portals/shopify/shopify-store.repository';
import { WebshopAdapter } from '../../lib/portals/webshop.adapter';
import { webhookSignature } from '../../lib/portals/shopify/shopify-webhooks';
import type { WebhookDelivery } from '../../sandbox/shopify-webhooks.sandbox';
import { Sandbox, sandboxKeepingContract, waitFor } from '../fleet/support';
import { apiBase, call, newSeller, Seller } from '../support/api';
import { kontor } from '../support/cli';
import { startQueueWorker } from '../support/queue-worker';

describe('webshop at Shopify: webhooks (HMAC-verified, deduplicated, the poll’s import) and the app install', function () {
  this.timeout(60000);
  let sandbox: Sandbox;
  let base: string;
  let worker: { stop(): Promise<void> } | undefined;
  let original: ReturnType<typeof config>;
  sandboxKeepingContract('shopify', (started) => (sandbox = started));

  before(async () => {
    base = await apiBase();
    worker = await startQueueWorker('order_import', orderImportProcessors, 'shopwh');
    original = config();
    setConfig(withDevelopmentShopifyApp(original, base, sandbox.url));
    await post('/_sandbox/shopify/config', { webhook_retry_ms: 20 });
  });
  after(async () => {
    setConfig(original);
    await worker?.stop();
  });

  async function post(path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> & unknown[] }> {
    const res = await fetch(`${sandbox.url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> & unknown[] };
  }
  const webhooksOf = async (account: string) =>
    (await (await fetch(`${sandbox.url}/_sandbox/shopify/webhooks?portal_account=${encodeURIComponent(account)}`)).json()) as {
      subscriptions: { topic: string; callback_url: string }[];
      deliveries: WebhookDelivery[];
    };
  const ordersOf = (seller: Seller, pa: number) =>
    db()('channel_order').where({ account_id: seller.id, portal_account_id: pa }).select('external_order_id') as Promise<{ external_order_id: string }[]>;
  const orderQueries = (account: string) =>
    sandbox.state.requests.filter(
      (r) => r.portal === 'webshop' && r.portalAccount === account && String((r.body as { query?: string }).query).includes('orders('),
    ).length;
  /** A delivery as Shopify would send it, straight to Kontor. */
  async function deliver(body: string, headers: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> {
    const res = await fetch(`${base}${connectPaths.shopifyWebhooks}`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body });
    return { status: res.status, body: (await res.json().catch(() => ({}))) as Record<string, unknown> };
  }
  const signed = (body: string, shop: string, id = crypto.randomUUID(), topic = 'orders/create') => ({
    'X-Shopify-Topic': topic,
    'X-Shopify-Hmac-Sha256': webhookSignature(body, developmentShopifyApplication.apiSecret),
    'X-Shopify-Shop-Domain': shop,
    'X-Shopify-Webhook-Id': id,
    'X-Shopify-Triggered-At': new Date().toISOString(),
    'X-Shopify-API-Version': '2025-01',
  });

  /** A development account with a product of the SKU in its store, subscribed by its first order import. */
  async function subscribedStore(seller: Seller, sku: string): Promise<number> {
    const { id: pa } = await createPortalAccount(seller.id, { name: 'Shopify store', platform: 'webshop' });
    const created = await call('stock/', {
      token: seller.token,
      body: { stock: { name: `Becher ${sku}`, sku, quantity: 10, price: '12.90', webshop: [{ shop_id: 'main' }], cia: { webshop: { is_active: true } } } },
    });
    expect(created.status, created.text).to.equal(201);
    const target = { portalAccountId: pa, connector: 'shopify' as const, baseUrl: sandbox.url, credentials: {} };
    await new WebshopAdapter().list(
      target,
      { stockId: Number(created.body.stock_id), name: 'Becher', sku, ean: null, price: '12.90', quantityAvailable: 10, group: { shop_id: 'main' } },
      'l',
    );
    const first = await importOrders({ accountId: seller.id, portalAccountId: pa }, `sub-${pa}`);
    expect(first.orders.created).to.equal(0);
    return pa;
  }

  it('when a store is subscribed and sells, then the signed webhook queues the import and the order comes in once; a later poll and a duplicate delivery add nothing', async () => {
    const seller = await newSeller();
    const pa = await subscribedStore(seller, 'WH-1');
    const hooks = await webhooksOf(String(pa));
    expect(hooks.subscriptions.map((s) => s.topic).sort()).to.deep.equal(['APP_UNINSTALLED', 'ORDERS_CANCELLED', 'ORDERS_CREATE', 'ORDERS_UPDATED']);
    expect(new Set(hooks.subscriptions.map((s) => s.callback_url))).to.deep.equal(new Set([`${base}${connectPaths.shopifyWebhooks}`]));
    expect(await db()('shopify_store').where({ portal_account_id: pa }).first('shop_domain', 'account_id')).to.deep.equal({
      shop_domain: `sandbox-${pa}.myshopify.com`,
      account_id: seller.id,
    });
    // A second import subscribes nothing again.
    await importOrders({ accountId: seller.id, portalAccountId: pa }, `again-${pa}`);
    expect((await webhooksOf(String(pa))).subscriptions).to.have.length(4);

    const sale = await post('/_sandbox/sell', { portal: 'webshop', portal_account: pa, sku: 'WH-1', quantity: 1 });
    expect(sale.status).to.equal(201);
    const orderId = String(sale.body.order_id).split('/').pop()!;
    const delivery = await waitFor('the delivery answered 200', async () =>
      (await webhooksOf(String(pa))).deliveries.find((d) => d.topic === 'orders/create' && d.delivered),
    );
    expect(delivery.attempts.map((a) => a.status)).to.deep.equal([200]);
    expect(delivery.shop_domain).to.equal(`sandbox-${pa}.myshopify.com`);
    // No scheduler runs here: the order came by the webhook's import.
    await waitFor('the order imported', async () => ((await ordersOf(seller, pa)).length > 0 ? true : undefined), 20000);
    expect((await ordersOf(seller, pa)).map((o) => o.external_order_id)).to.deep.equal([orderId]);

    const poll = await importOrders({ accountId: seller.id, portalAccountId: pa }, `poll-${pa}`);
    expect(poll.orders.created).to.equal(0);
    const queries = orderQueries(String(pa));
    const again = await post('/_sandbox/shopify/webhooks/send', { duplicate_of: delivery.webhook_id });
    expect(again.status).to.equal(202);
    const second = await waitFor('the duplicate answered', async () =>
      (await webhooksOf(String(pa))).deliveries.filter((d) => d.webhook_id === delivery.webhook_id && d.attempts.length > 0).at(1),
    );
    expect(second.attempts.map((a) => a.status)).to.deep.equal([200]);
    // Kontor answers a delivery id it has seen as a duplicate, and queues nothing.
    const body = JSON.stringify({ id: Number(orderId) });
    const headers = signed(body, `sandbox-${pa}.myshopify.com`);
    expect(await deliver(body, headers)).to.deep.equal({ status: 200, body: { outcome: 'queued' } });
    expect(await deliver(body, headers)).to.deep.equal({ status: 200, body: { outcome: 'duplicate' } });
    await waitFor('the queued import ran', async () => (orderQueries(String(pa)) > queries ? true : undefined), 20000);
    expect((await ordersOf(seller, pa)).map((o) => o.external_order_id)).to.deep.equal([orderId]);
  });

  it('when fetches of a store run at once (the webhook’s import, the schedule and a retry), then each Shopify order is one Kontor order and the stock is taken once', async () => {
    const seller = await newSeller();
    const pa = await subscribedStore(seller, 'WH-TWICE');
    for (const quantity of [1, 2])
      expect((await post('/_sandbox/sell', { portal: 'webshop', portal_account: pa, sku: 'WH-TWICE', quantity })).status).to.equal(201);
    // Two fetches beside the ones the webhooks queue, all at once.
    const runs = await Promise.all([1, 2].map((n) => importOrders({ accountId: seller.id, portalAccountId: pa }, `twice-${pa}-${n}`)));
    await waitFor('both orders imported', async () => ((await ordersOf(seller, pa)).length >= 2 ? true : undefined), 20000);
    await waitFor('the webhooks’ imports done', async () => ((await webhooksOf(String(pa))).deliveries.every((d) => d.delivered) ? true : undefined));
    expect(runs.reduce((sum, r) => sum + r.orders.created, 0)).to.be.at.most(2);
    expect(await ordersOf(seller, pa)).to.have.length(2);
    const item = (await db()('stock').where({ account_id: seller.id, sku: 'WH-TWICE' }).first('quantity')) as { quantity: number };
    expect(Number(item.quantity)).to.equal(7);
  });

  it('when a delivery’s signature does not match (a tampered body, a missing or foreign signature), then 401 and nothing is imported; the store retries and then drops the subscription', async () => {
    const seller = await newSeller();
    const pa = await subscribedStore(seller, 'WH-2');
    const order = await post('/_sandbox/shopify/orders', { portal_account: pa, lines: [{ sku: 'WH-2', quantity: 1 }] });
    // The store's own delivery of that order goes through; wait for it, then send a forged one.
    await waitFor('the order imported', async () => ((await ordersOf(seller, pa)).length === 1 ? true : undefined), 20000);
    const before = (await webhooksOf(String(pa))).deliveries.length;
    const tampered = await post('/_sandbox/shopify/webhooks/send', {
      portal_account: pa,
      topic: 'ORDERS_CREATE',
      order_id: String(order.body.id).split('/').pop(),
      tamper: true,
    });
    expect(tampered.status).to.equal(202);
    const refused = await waitFor('the retries to end', async () => {
      const d = (await webhooksOf(String(pa))).deliveries.slice(before).find((x) => x.tampered);
      return d && d.attempts.length === 9 ? d : undefined;
    });
    expect(new Set(refused.attempts.map((a) => a.status))).to.deep.equal(new Set([401]));
    // Shopify removes a subscription whose deliveries keep failing.
    expect((await webhooksOf(String(pa))).subscriptions.map((s) => s.topic)).to.not.include('ORDERS_CREATE');

    const body = JSON.stringify({ id: 1 });
    const shop = `sandbox-${pa}.myshopify.com`;
    expect((await deliver(body, { ...signed(body, shop), 'X-Shopify-Hmac-Sha256': webhookSignature(body, 'another-secret') })).status).to.equal(401);
    const { 'X-Shopify-Hmac-Sha256': _dropped, ...unsigned } = signed(body, shop);
    expect(await deliver(body, unsigned)).to.deep.equal({ status: 401, body: { error: 'the X-Shopify-Hmac-Sha256 signature does not match the body' } });
    // A refused delivery does not use up its id: the genuine one with that id is read.
    const id = crypto.randomUUID();
    expect((await deliver(`${body} `, signed(body, shop, id))).status).to.equal(401);
    expect((await deliver(body, signed(body, shop, id))).body).to.deep.equal({ outcome: 'queued' });
    expect((await ordersOf(seller, pa)).length).to.equal(1);
  });

  it('when a verified delivery names a store no portal account is subscribed to, then 200 unknown_shop and nothing is queued', async () => {
    const body = JSON.stringify({ id: 77 });
    const answer = await deliver(body, signed(body, `nobody-${crypto.randomBytes(3).toString('hex')}.myshopify.com`));
    expect(answer).to.deep.equal({ status: 200, body: { outcome: 'unknown_shop' } });
    const other = await deliver(body, signed(body, 'not a domain', crypto.randomUUID(), 'products/update'));
    expect(other).to.deep.equal({ status: 200, body: { outcome: 'ignored' } });
  });

  it('when the seller installs Kontor’s app from the consent link, then the store’s token is sealed with its scopes, the webhooks are subscribed and its sales come in; the state is good once and a forged hmac is refused', async () => {
    const seller = await newSeller();
    const { id: pa } = await createPortalAccount(seller.id, { name: 'Kobalt store', platform: 'webshop' });
    const shop = `kobalt-${crypto.randomBytes(3).toString('hex')}.myshopify.com`;
    const missing = await call(`admin/portal_account/${pa}/consent/`, { token: seller.token, body: { connector: 'shopify' } });
    expect(missing.status).to.equal(400);
    expect(missing.body.error![0]).to.include({ field: 'shop_domain' });
    const wrong = await call(`admin/portal_account/${pa}/consent/`, { token: seller.token, body: { connector: 'shopify', shop_domain: 'shop.example.com' } });
    expect(wrong.status).to.equal(400);
    expect(wrong.body.error![0]).to.include({ field: 'shop_domain' });

    const asked = await call(`admin/portal_account/${pa}/consent/`, { token: seller.token, body: { connector: 'shopify', shop_domain: shop.toUpperCase() } });
    expect(asked.status, asked.text).to.equal(200);
    const link = new URL(asked.body.url as string);
    expect(link.origin + link.pathname).to.equal(`${sandbox.url}/admin/oauth/authorize`);
    expect(Object.fromEntries(link.searchParams)).to.include({
      client_id: developmentShopifyApplication.apiKey,
      redirect_uri: `${base}${connectPaths.shopifyCallback}`,
      shop,
    });
    expect(link.searchParams.get('scope')).to.equal(
      'write_products,write_inventory,read_locations,read_orders,write_orders,write_merchant_managed_fulfillment_orders,read_third_party_fulfillment_orders',
    );
    const approved = await fetch(link, { redirect: 'manual' });
    expect(approved.status).to.equal(302);
    const callback = new URL(approved.headers.get('location')!);
    expect(callback.origin + callback.pathname).to.equal(`${base}${connectPaths.shopifyCallback}`);

    // A changed parameter breaks the hmac: 403, and the state is not used up.
    const forged = new URL(callback);
    forged.searchParams.set('timestamp', String(Number(forged.searchParams.get('timestamp')) + 1));
    const refused = await fetch(forged);
    expect(refused.status).to.equal(403);
    expect(await refused.text()).to.contain('signature');
    expect((await db()('portal_account').where({ id: pa }).first('credentials'))!.credentials).to.equal(null);

    const page = await fetch(callback);
    const text = await page.text();
    expect(page.status, text).to.equal(200);
    expect(text).to.contain('Shopify connected').and.contain(seller.login);
    // Good once.
    const replay = await fetch(callback);
    expect(replay.status).to.equal(400);

    portalTargetRepository.forget(seller.id, pa);
    const target = (await portalTargetRepository.target(db(), seller.id, pa))!;
    expect(target.credentials).to.deep.include({
      shop_domain: shop,
      client_id: developmentShopifyApplication.apiKey,
      scopes:
        'write_products,write_inventory,read_locations,read_orders,write_orders,write_merchant_managed_fulfillment_orders,read_third_party_fulfillment_orders',
    });
    const token = String(target.credentials.access_token);
    expect(token).to.match(/^shpua_/);
    const row = (await db()('portal_account').where({ id: pa }).first('credentials', 'connector', 'base_url')) as Record<string, string>;
    expect(row).to.deep.include({ connector: 'shopify', base_url: sandbox.url });
    expect(row.credentials).to.not.contain(token);
    const read = await call(`admin/portal_account/${pa}/`, { token: seller.token });
    expect(read.status).to.equal(200);
    expect(read.text).to.not.contain(token).and.not.contain(developmentShopifyApplication.apiSecret);

    // The install subscribed the store's webhooks; a sale there comes in through them.
    expect((await webhooksOf(shop)).subscriptions).to.have.length(4);
    expect((await db()('shopify_store').where({ portal_account_id: pa }).first('shop_domain')).shop_domain).to.equal(shop);
    await new WebshopAdapter().list(target, { stockId: 1, name: 'Becher', sku: 'WH-OAUTH', ean: null, price: '9.90', quantityAvailable: 3, group: {} }, 'l');
    const order = await post('/_sandbox/shopify/orders', { portal_account: shop, lines: [{ sku: 'WH-OAUTH', quantity: 1 }] });
    expect(order.status).to.equal(201);
    await waitFor('the order imported', async () => ((await ordersOf(seller, pa)).length === 1 ? true : undefined), 20000);
    expect((await ordersOf(seller, pa))[0]!.external_order_id).to.equal(String(order.body.id).split('/').pop());
  });

  it('when two Kontor accounts connected the same store, then one delivery queues the import of each', async () => {
    const shop = `shared-${crypto.randomBytes(3).toString('hex')}.myshopify.com`;
    const accounts: number[] = [];
    for (const seller of [await newSeller(), await newSeller()]) {
      const { id } = await createPortalAccount(seller.id, { name: 'Shared store', platform: 'webshop' });
      await shopifyStoreRepository.subscribed(seller.id, id, shop);
      accounts.push(id);
    }
    const body = JSON.stringify({ id: 9 });
    expect(await deliver(body, signed(body, shop.toUpperCase()))).to.deep.equal({ status: 200, body: { outcome: 'queued' } });
    for (const pa of accounts) await waitFor(`the import of ${pa}`, async () => (orderQueries(String(pa)) > 0 ? true : undefined), 20000);
  });

  it('when the store uninstalls the app or a buyer asks for their data or its erasure, then the sellers it reaches get a task each, once; the uninstalled store’s orders no longer come by webhook', async () => {
    const seller = await newSeller();
    const pa = await subscribedStore(seller, 'WH-3');
    const shop = `sandbox-${pa}.myshopify.com`;
    const tasks = async () =>
      ((await call('task/', { token: seller.token })).body.task as { title: string; text: string; priority: string }[]).filter((t) =>
        t.title.startsWith('Shopify'),
      );

    const request = JSON.stringify({ shop_domain: shop, customer: { id: 191167, email: 'john@example.com' }, orders_requested: [299938, 280263] });
    const requestHeaders = signed(request, shop, crypto.randomUUID(), 'customers/data_request');
    expect(await deliver(request, requestHeaders)).to.deep.equal({ status: 200, body: { outcome: 'acted' } });
    expect(await deliver(request, requestHeaders)).to.deep.equal({ status: 200, body: { outcome: 'duplicate' } });
    const redact = JSON.stringify({ shop_domain: shop, customer: { id: 191167, email: 'john@example.com' }, orders_to_redact: [299938] });
    expect((await deliver(redact, signed(redact, shop, crypto.randomUUID(), 'customers/redact'))).body).to.deep.equal({ outcome: 'acted' });
    // A compliance webhook with a bad signature: 401, as Shopify requires.
    expect(
      (await deliver(redact, { ...signed(redact, shop, crypto.randomUUID(), 'customers/redact'), 'X-Shopify-Hmac-Sha256': webhookSignature(redact, 'x') }))
        .status,
    ).to.equal(401);
    const asked = await tasks();
    expect(asked.map((t) => t.title)).to.deep.equal([`Shopify: a buyer of ${shop} asks for their data`, `Shopify: a buyer of ${shop} asks for erasure`]);
    expect(asked[0]!.text).to.contain('john@example.com').and.contain('299938, 280263').and.contain(`portal account ${pa}`);

    const uninstalled = JSON.stringify({ id: 1, domain: shop });
    expect((await deliver(uninstalled, signed(uninstalled, shop, crypto.randomUUID(), 'app/uninstalled'))).body).to.deep.equal({ outcome: 'acted' });
    expect((await tasks()).map((t) => [t.title, t.priority]).at(-1)).to.deep.equal([`Shopify: Kontor's app was uninstalled from ${shop}`, 'high']);
    const order = JSON.stringify({ id: 5 });
    expect((await deliver(order, signed(order, shop))).body).to.deep.equal({ outcome: 'unknown_shop' });
  });

  it('when support runs kontor portal-account consent --connector shopify, then it prints the store’s install link, which connects the account', async () => {
    const seller = await newSeller();
    const { id: pa } = await createPortalAccount(seller.id, { name: 'CLI store', platform: 'webshop' });
    const shop = `cli-${crypto.randomBytes(3).toString('hex')}.myshopify.com`;
    const app = config().shopifyApplication;
    const env = {
      QUEUE_PREFIX: config().queuePrefix,
      SHOPIFY_API_KEY: app.apiKey!,
      SHOPIFY_API_SECRET: app.apiSecret!,
      SHOPIFY_REDIRECT_URI: app.redirectUri,
      SHOPIFY_STORE_URL: sandbox.url,
    };
    const before = { ...process.env };
    Object.assign(process.env, env);
    try {
      const base = ['portal-account', 'consent', '--login', seller.login, '--portal-account', String(pa), '--connector', 'shopify'];
      const missing = await kontor(...base);
      expect(missing.code).to.not.equal(0);
      expect(missing.err).to.contain('shop_domain');
      const printed = await kontor(...base, '--shop-domain', shop);
      expect(printed.code, printed.err).to.equal(0);
      const link = new URL((JSON.parse(printed.out) as { url: string }).url);
      expect(link.searchParams.get('shop')).to.equal(shop);
      const approved = await fetch(link, { redirect: 'manual' });
      const page = await fetch(approved.headers.get('location')!);
      expect(page.status, await page.text()).to.equal(200);
      expect(await db()('portal_account').where({ id: pa }).first('connector')).to.deep.equal({ connector: 'shopify' });
    } finally {
      for (const k of Object.keys(env)) {
        if (before[k] === undefined) delete process.env[k];
        else process.env[k] = before[k];
      }
    }
  });

  it('the sandbox answers an exchange with a wrong secret or a used code as Shopify does, and refuses a webhookSubscriptionCreate the schema does not take', async () => {
    const exchange = (body: Record<string, string>) => post('/admin/oauth/access_token', body);
    const link = new URL('/admin/oauth/authorize', sandbox.url);
    link.search = new URLSearchParams({
      client_id: developmentShopifyApplication.apiKey,
      scope: 'read_orders',
      redirect_uri: 'https://kontor.example/cb',
      state: 's',
      shop: 'a-shop.myshopify.com',
    }).toString();
    const code = new URL((await fetch(link, { redirect: 'manual' })).headers.get('location')!).searchParams.get('code')!;
    expect((await exchange({ client_id: developmentShopifyApplication.apiKey, client_secret: 'wrong', code })).body).to.include({ error: 'invalid_client' });
    expect((await exchange({ client_id: developmentShopifyApplication.apiKey, client_secret: developmentShopifyApplication.apiSecret, code })).body).to.include(
      { scope: 'read_orders' },
    );
    expect((await exchange({ client_id: developmentShopifyApplication.apiKey, client_secret: developmentShopifyApplication.apiSecret, code })).status).to.equal(
      400,
    );

    const res = await fetch(`${sandbox.url}/admin/api/2025-01/graphql.json`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Shopify-Access-Token': 'shpat_sandbox_1' },
      body: JSON.stringify({
        query:
          'mutation W($topic: WebhookSubscriptionTopic!) { webhookSubscriptionCreate(topic: $topic, webhookSubscription: { callbackUrl: "https://kontor.example/h", secret: "x" }) { userErrors { message } } }',
        variables: { topic: 'ORDERS_EXPLODED' },
      }),
    });
    const answer = (await res.json()) as { errors: { message: string }[] };
    expect(answer.errors.map((e) => e.message)).to.deep.equal(['Field "secret" is not defined by type "WebhookSubscriptionInput".']);
    const violations = (await (await fetch(`${sandbox.url}/_sandbox/violations?vendor=shopify`)).json()) as unknown[];
    expect(violations).to.have.length(1);
    // The violation was made on purpose; the check after each test looks for Kontor's.
    sandbox.state.events.emit('reset');
  });
});
