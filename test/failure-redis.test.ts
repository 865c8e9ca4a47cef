/**
 * What a client and an operator meet when Redis goes away or stalls, with a redis-server of the
 * test's own (killed, paused with SIGSTOP, started again): never the shared one. The limits hold
 * without Redis, counted by the web process (lib/http rate-limit-local.ts); the login throttles
 * never let guesses through uncounted (lib/auth login-throttle.ts and client-throttle.ts, lib/operator
 * operator-throttle.ts).
 */
import type { ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import { expect } from 'chai';
import IORedis from 'ioredis';
import { config, Config, setConfig } from '../config';
import { connectPaths, developmentShopifyApplication } from '../config/channel-apps';
import { createPortalAccount } from '../lib/admin/portal-account-admin.service';
import { createClient } from '../lib/auth/client.service';
import { closeQueues } from '../lib/queue';
import { closeRedis, redis as producer, whenReady } from '../lib/redis';
import { counterRepository } from '../lib/account/counter.repository';
import { db } from '../lib/db/knex';
import { webhookSignature } from '../lib/portals/shopify/shopify-webhooks';
import { withDevelopmentShopifyApp } from './portals/shopify-support';
import { apiBase, ApiResponse, call, newSeller, Seller } from './support/api';
import { untilOneWaitsForALock } from './support/lock-wait';
import { createOrder } from './order/helpers';
import { authorizeClient, openAuthorize, sendForm } from './support/authorize';
import { freePort, killChild, runEntry, Running, startRedisServer } from './support/process';

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** An answer of the service's own, not a crash: no stack trace, no internal address or port. */
function expectNoInternals(text: string, redisPort: number): void {
  expect(text).not.to.match(/\n\s+at |Error:|ECONNREFUSED|127\.0\.0\.1/);
  expect(text).not.to.include(String(redisPort));
}

function expectUnavailable(res: ApiResponse, redisPort: number): void {
  expect(res.status, res.text).to.equal(503);
  expect(res.headers.get('retry-after')).to.match(/^\d+$/);
  expect(res.body.ack).to.equal('error');
  expect(res.body.error?.map((e) => [e.error, e.code])).to.deep.equal([['service_unavailable', 503]]);
  expect(res.body.error_description).to.be.a('string').and.not.equal('');
  expectNoInternals(res.text, redisPort);
}

describe('failure: Redis away or stalled', function () {
  this.timeout(60000);

  describe('the web process (its own process, its own Redis)', () => {
    let redisPort = 0;
    let redis: ChildProcess | undefined;
    let web: Running | undefined;
    let base = '';
    let seller: Seller;
    let webEnv: Record<string, string> = {};

    beforeEach(async () => {
      seller = await newSeller();
      redisPort = await freePort();
      redis = await startRedisServer(redisPort);
      const port = await freePort();
      webEnv = {
        NODE_ENV: 'test',
        LOG_LEVEL: 'info',
        PORT: String(port),
        DATABASE_URL: config().databaseUrl,
        REDIS_URL: `redis://127.0.0.1:${redisPort}`,
        QUEUE_PREFIX: `kt-failure-${process.pid}-${Date.now()}`,
        // A quota a test can use up; a day's window, so that none ends during a test but at midnight.
        RATE_LIMIT_PER_WINDOW: '4',
        RATE_LIMIT_WINDOW_SECONDS: '86400',
      };
      web = runEntry('server/index.ts', webEnv);
      await web.waitFor(/api listening/, 60_000);
      base = `http://127.0.0.1:${port}`;
    });
    afterEach(async () => {
      redis?.kill('SIGCONT');
      await web?.stop();
      await killChild(redis);
      web = redis = undefined;
    });

    it("when Redis stalls for a moment, then the call that waited for it is answered and the account's next call too, not 429 too_many_concurrent_calls for minutes", async () => {
      const get = () => call('system/currency/EUR/', { base, token: seller.token });
      expect((await get()).status).to.equal(200);

      redis!.kill('SIGSTOP');
      const started = Date.now();
      const during = await get();
      expect(during.status, during.text).to.equal(200);
      expect(Date.now() - started, 'bounded by the producer connection').to.be.below(5000);
      redis!.kill('SIGCONT');
      // Redis now runs what its socket held: the acquire that timed out, then its release.
      await new Promise((resolve) => setTimeout(resolve, 300));

      const after = await get();
      expect(after.status, after.text).to.equal(200);
      expect(after.headers.get('x-ratelimit-remaining')).to.match(/^\d+$/);
      expect(web!.output()).not.to.include('"level":50');
    });

    it('when the web process is killed (kill -9) while a call of the account is in flight, then the next web process serves the account within seconds, not 429 too_many_concurrent_calls with a false Retry-After for 2 minutes', async () => {
      const orderId = await createOrder(seller, { line: [{ id: 1, name: 'Tasse', quantity: 1, price: '10.00' }] });
      // A paying update waits for the invoice counter the test holds: the account's one call in flight.
      const holder = await db().transaction();
      try {
        await counterRepository.take(holder, seller.id, 'invoice', 0);
        const paying = call(`order/${orderId}/`, { base, token: seller.token, body: { order: { paid_amount: '10.00' } } }).catch((err: Error) => err);
        await untilOneWaitsForALock();
        const inFlight = await call('system/currency/EUR/', { base, token: seller.token });
        expect(
          inFlight.body.error?.map((e) => e.error),
          'a live call in flight',
        ).to.deep.equal(['too_many_concurrent_calls']);
        expect(inFlight.headers.get('retry-after')).to.equal('1');
        await killChild(web!.child);
        expect(await paying).to.be.instanceOf(Error);
      } finally {
        await holder.rollback();
      }
      const port = await freePort();
      web = runEntry('server/index.ts', { ...webEnv, PORT: String(port) });
      await web.waitFor(/api listening/, 60_000);
      base = `http://127.0.0.1:${port}`;
      const listening = Date.now();

      // As a client obeying Retry-After: each refusal says 1 s, and the account is served once the
      // killed process's liveness key has run out (5 s), well before the 120 s bound.
      const refusals: ApiResponse[] = [];
      for (;;) {
        const res = await call('system/currency/EUR/', { base, token: seller.token });
        if (res.status === 200) break;
        expect(
          res.body.error?.map((e) => e.error),
          res.text,
        ).to.deep.equal(['too_many_concurrent_calls']);
        refusals.push(res);
        expect(Date.now() - listening, "served within the liveness key's lifetime").to.be.below(15_000);
        await new Promise((resolve) => setTimeout(resolve, Number(res.headers.get('retry-after')) * 1000));
      }
      expect(refusals.map((r) => r.headers.get('retry-after'))).to.deep.equal(refusals.map(() => '1'));
      expect(refusals.length).to.be.at.most(6);

      // A process stopped as operators stop it (SIGTERM) takes its liveness key along.
      const own = new IORedis(redisPort, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 1 });
      try {
        await own.connect();
        const liveKeys = () => own.keys(`${webEnv.QUEUE_PREFIX}:live:*`);
        expect(await liveKeys(), 'the running process').to.have.length(1);
        expect(await web.stop()).to.equal(0);
        expect(await liveKeys()).to.deep.equal([]);
      } finally {
        own.disconnect();
      }
    });

    it('when Redis is away, then the web process counts the limits itself: one call of an account at a time, and its quota, each 429 with Retry-After and the X-RateLimit headers, never let through unlimited', async () => {
      const orderId = await createOrder(seller, { line: [{ id: 1, name: 'Tasse', quantity: 1, price: '10.00' }] });
      await killChild(redis);
      redis = undefined;
      const get = () => call('system/currency/EUR/', { base, token: seller.token });

      // A paying update waits for the invoice counter the test holds: the account's one call in flight.
      const holder = await db().transaction();
      let paying: Promise<ApiResponse> | undefined;
      try {
        await counterRepository.take(holder, seller.id, 'invoice', 0);
        paying = call(`order/${orderId}/`, { base, token: seller.token, body: { order: { paid_amount: '10.00' } } });
        await untilOneWaitsForALock();
        const second = await get();
        expect(second.status, second.text).to.equal(429);
        expect(second.body.error?.map((e) => e.error)).to.deep.equal(['too_many_concurrent_calls']);
        expect(second.headers.get('retry-after')).to.equal('1');
        expectNoInternals(second.text, redisPort);
      } finally {
        await holder.rollback();
      }
      expect((await paying).status).to.equal(200);

      // The quota of 4 counts here from the outage on: the update and three more calls, then 429.
      expect([(await get()).status, (await get()).status, (await get()).status]).to.deep.equal([200, 200, 200]);
      const over = await get();
      expect(over.status, over.text).to.equal(429);
      expect(over.body.error?.map((e) => e.error)).to.deep.equal(['too_many_requests']);
      expect(Number(over.headers.get('retry-after'))).to.be.above(0);
      expect([over.headers.get('x-ratelimit-limit'), over.headers.get('x-ratelimit-remaining')]).to.deep.equal(['4', '0']);
      expect(web!.output()).to.include('calls counted by this process alone');
    });
  });

  describe('the login throttles (this process, a Redis of its own)', () => {
    // Read when the block runs, not when the file loads: files loaded after this one set the run's
    // configuration (test/fleet/support.ts: its queue prefix), which restoring a copy taken at load
    // time undid for every later test file.
    let original: Config;
    before(() => {
      original = config();
    });
    let redisPort = 0;
    let redis: ChildProcess | undefined;
    let seller: Seller;

    const tokenPhp = (password: string) =>
      call('token.php', {
        body: 'grant_type=client_credentials',
        headers: { Authorization: basic(seller.login, password), 'Content-Type': 'application/x-www-form-urlencoded' },
      });

    /** This process's producer connection anew, on the test's Redis, once it is ready (a producer refuses commands before). */
    const reconnect = async () => {
      await closeRedis();
      await whenReady(producer());
    };

    beforeEach(async () => {
      seller = await newSeller();
      redisPort = await freePort();
      redis = await startRedisServer(redisPort);
      setConfig({ ...original, redisUrl: `redis://127.0.0.1:${redisPort}`, loginAttemptsPerLoginAndAddress: 2 });
      await reconnect();
    });
    afterEach(async () => {
      // The queues too: a scrape of /operator/metrics made them on the test's Redis, and later
      // test files would add their jobs there.
      await Promise.all([closeRedis(), closeQueues()]);
      setConfig(original);
      await killChild(redis);
      redis = undefined;
    });

    it('when Redis is away, then token.php refuses a password login 503 with Retry-After before checking it (a guess is never let through uncounted); when Redis is back, then the throttle counts again', async () => {
      await killChild(redis);
      for (const password of ['wrong-1', 'wrong-2', 'wrong-3', seller.password]) expectUnavailable(await tokenPhp(password), redisPort);

      redis = await startRedisServer(redisPort);
      await whenReady(producer(), 10000);
      expect((await tokenPhp(seller.password)).status).to.equal(200);
      expect([(await tokenPhp('wrong-1')).status, (await tokenPhp('wrong-2')).status, (await tokenPhp('wrong-3')).status]).to.deep.equal([401, 401, 429]);
    });

    it('when Redis is away, then the sign-in step of authorize.php answers its page 503 with Retry-After, not the next step', async () => {
      const client = await createClient('Failure ERP', 'https://erp.example.com/callback');
      const page = await openAuthorize({ response_type: 'code', client_id: client.client_id });
      expect(page.status, page.html).to.equal(200);
      await killChild(redis);
      const tick = [...page.html.matchAll(/name="scope_item" value="([^"]+)"/g)].map((m) => m[1]!);
      for (const password of ['wrong-1', 'wrong-2', seller.password]) {
        const signedIn = await sendForm(page, { login: seller.login, password, scope_item: tick, decision: 'allow' });
        expect(signedIn.status, signedIn.html).to.equal(503);
        expect(signedIn.headers.get('retry-after')).to.match(/^\d+$/);
        expect(signedIn.hidden.consent, 'no consent step').to.equal(undefined);
        expectNoInternals(signedIn.html, redisPort);
      }
    });

    it("when Redis is away, then a client's refresh still gets a token, and wrong client secrets still count (in the web process) and refuse the address with 429, even for the right secret", async () => {
      const client = await createClient('Failure connector', 'https://connector.example.com/cb');
      const { code } = await authorizeClient({ clientId: client.client_id, login: seller.login, password: seller.password, query: { scope: 'order_r' } });
      const tokenPhp = (secret: string, body: Record<string, string>, address: string) =>
        call('token.php', { headers: { Authorization: basic(client.client_id, secret), 'X-Forwarded-For': address }, body });
      const exchanged = await tokenPhp(client.client_secret, { grant_type: 'authorization_code', code }, '192.0.2.30');
      expect(exchanged.status, exchanged.text).to.equal(200);
      const refresh = (secret: string, address: string) =>
        tokenPhp(secret, { grant_type: 'refresh_token', refresh_token: exchanged.body.refresh_token as string }, address);
      await killChild(redis);
      // Issued refresh tokens keep working: a client's secret is 256 random bits, nothing to guess.
      const refreshed = await refresh(client.client_secret, '192.0.2.30');
      expect(refreshed.status, refreshed.text).to.equal(200);
      // An address of its own (X-Forwarded-For from loopback is believed in tests): other runs' failures do not count here.
      const address = `198.51.100.${(process.pid % 200) + 1}`;
      expect([(await refresh('wrong-1', address)).status, (await refresh('wrong-2', address)).status]).to.deep.equal([401, 401]);
      const refused = await refresh(client.client_secret, address);
      expect(refused.status, refused.text).to.equal(429);
      expect(refused.body.error?.map((e) => e.error)).to.deep.equal(['too_many_login_attempts']);
      expect(Number(refused.headers.get('retry-after'))).to.be.above(0);
      expectNoInternals(refused.text, redisPort);
      expect((await refresh(client.client_secret, '192.0.2.31')).status).to.equal(200);
    });

    it('when Redis is away, then failed operator logins still count (in the web process) and refuse the address with 429, even for the right password', async () => {
      const password = 'a-long-operator-password-0815';
      setConfig({ ...config(), operatorUser: 'ops', operatorPassword: password });
      const metrics = async (user: string, pw: string) => fetch(`${await apiBase()}/operator/metrics`, { headers: { Authorization: basic(user, pw) } });
      await killChild(redis);
      // An address of its own (X-Forwarded-For from loopback is believed in tests): other tests' failures do not count here.
      const address = `198.51.100.${(process.pid % 200) + 1}`;
      const from = async (pw: string) =>
        fetch(`${await apiBase()}/operator/metrics`, { headers: { Authorization: basic('ops', pw), 'X-Forwarded-For': address } });
      expect([(await from('wrong-1')).status, (await from('wrong-2')).status]).to.deep.equal([401, 401]);
      const refused = await from(password);
      expect(refused.status).to.equal(429);
      expect(Number(refused.headers.get('retry-after'))).to.be.above(0);
      // Another address with the right password is served: the operator still has the web's
      // metrics while Redis is away, also from queues made during the outage (a web process
      // started then), whose reads wait for Redis without end (lib/operator metrics.ts bounds them).
      await closeQueues();
      const scraped = await metrics('ops', password);
      expect(scraped.status).to.equal(200);
      expect(await scraped.text()).to.include('kontor_http_request_duration_seconds');
    });
  });
});

describe('failure: Redis full (at its maxmemory, noeviction: a Redis of its own)', function () {
  this.timeout(60000);
  let original: Config;
  let redis: ChildProcess | undefined;
  let redisPort = 0;
  let seller: Seller;
  let portalAccountId = 0;
  let base = '';
  const shop = () => `full-${seller.id}.myshopify.com`;

  before(async () => {
    original = config();
    base = await apiBase();
    seller = await newSeller();
    ({ id: portalAccountId } = await createPortalAccount(seller.id, { name: 'Shopify store', platform: 'webshop' }));
    await db()('shopify_store').insert({ portal_account_id: portalAccountId, account_id: seller.id, shop_domain: shop() });
    redisPort = await freePort();
    redis = await startRedisServer(redisPort);
    setConfig({ ...withDevelopmentShopifyApp(original, base, 'http://127.0.0.1:9'), redisUrl: `redis://127.0.0.1:${redisPort}` });
    await Promise.all([closeRedis(), closeQueues()]);
    await whenReady(producer());
    // Full: Redis refuses every write from now on ("OOM command not allowed"), as when a queue grew to maxmemory.
    await producer().config('SET', 'maxmemory', '1');
  });
  after(async () => {
    await Promise.all([closeRedis(), closeQueues()]);
    setConfig(original);
    await killChild(redis);
  });

  it("when Redis is full, then Shopify's order webhook is answered 503 (Shopify delivers it again), not 500", async () => {
    const body = JSON.stringify({ id: 1 });
    const res = await fetch(`${base}${connectPaths.shopifyWebhooks}`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'X-Shopify-Topic': 'orders/create',
        'X-Shopify-Hmac-Sha256': webhookSignature(body, developmentShopifyApplication.apiSecret),
        'X-Shopify-Shop-Domain': shop(),
        'X-Shopify-Webhook-Id': crypto.randomUUID(),
      },
      body,
    });
    const text = await res.text();
    expect(res.status, text).to.equal(503);
    expect(res.headers.get('retry-after')).to.match(/^\d+$/);
    expectNoInternals(text, redisPort);
  });

  it('when Redis is full, then POST admin/portal_account/{id}/consent/ is answered 503 service_unavailable with Retry-After, not 500', async () => {
    const res = await call(`admin/portal_account/${portalAccountId}/consent/`, {
      token: seller.token,
      body: { connector: 'shopify', shop_domain: shop() },
    });
    expectUnavailable(res, redisPort);
    expect(res.text).not.to.include('OOM');
  });
});
