import type { ChildProcess } from 'node:child_process';
import net from 'node:net';
import { expect } from 'chai';
import { config } from '../../config';
import { db } from '../../lib/db/knex';
import { call, newSeller, Seller } from '../support/api';
import { freePort, killChild, runEntry, Running, startRedisServer } from '../support/process';
import { forgetOtherSellersBacklog, waitFor } from './support';

/** A TCP proxy in front of a port that the test can cut (connections dropped, refused) and restore. */
async function tcpProxy(target: number): Promise<{ port: number; cut(): Promise<void>; restore(): Promise<void>; close(): Promise<void> }> {
  const port = await freePort();
  const sockets = new Set<net.Socket>();
  let server: net.Server | undefined;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server = net.createServer((client) => {
        const upstream = net.connect(target, '127.0.0.1');
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on('close', () => sockets.delete(s));
          s.on('error', () => undefined);
        }
        client.pipe(upstream).pipe(client);
      });
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
  const cut = async () => {
    const closed = new Promise((resolve) => server?.close(resolve));
    for (const s of sockets) s.destroy();
    await closed;
  };
  await listen();
  return { port, cut, restore: listen, close: cut };
}

async function web(env: Record<string, string>): Promise<{ process: Running; base: string }> {
  const port = await freePort();
  const process = runEntry('server/index.ts', { NODE_ENV: 'test', LOG_LEVEL: 'info', PORT: String(port), DATABASE_URL: config().databaseUrl, ...env });
  await process.waitFor(/api listening/);
  return { process, base: `http://127.0.0.1:${port}` };
}

const order = (base: string, seller: Seller) =>
  call('order/', {
    base,
    token: seller.token,
    body: { order: { customer: { email: 'd@example.com' }, line: [{ id: 1, name: 'cup', quantity: 1, price: '2.50' }] } },
  });

function expectUnavailable(res: { status: number; headers: Headers; text: string; body: { error?: { error: string }[] } }): void {
  expect(res.status, res.text).to.equal(503);
  expect(res.headers.get('retry-after')).to.match(/^\d+$/);
  expect(res.body.error?.[0]?.error).to.equal('service_unavailable');
}

describe('fleet: dependencies unreachable', function () {
  this.timeout(60000);
  let seller: Seller;
  let server: { process: Running; base: string } | undefined;
  beforeEach(async () => {
    seller = await newSeller();
  });
  afterEach(async () => {
    await server?.process.stop();
    server = undefined;
  });

  it('when PostgreSQL cannot be reached, then requests are answered 503 with Retry-After and /health/ready names postgres; when it is back, then the same requests succeed without a restart', async () => {
    const proxy = await tcpProxy(Number(new URL(config().databaseUrl).port || 5432));
    try {
      const url = new URL(config().databaseUrl);
      url.port = String(proxy.port);
      server = await web({ DATABASE_URL: url.toString() });
      const base = server.base;
      expect((await call('stock/', { base, token: seller.token })).status).to.equal(200);

      await proxy.cut();
      expectUnavailable(await call('stock/', { base, token: seller.token }));
      expectUnavailable(await call('stock/', { base, token: seller.token, body: { stock: { name: 'P1', sku: 'P1', quantity: 1 } } }));
      expectUnavailable(await order(base, seller));
      expectUnavailable(
        await call('token.php', {
          base,
          body: 'grant_type=client_credentials',
          headers: {
            Authorization: `Basic ${Buffer.from(`${seller.login}:${seller.password}`).toString('base64')}`,
            'Content-Type': 'application/x-www-form-urlencoded',
          },
        }),
      );
      const page = await fetch(`${base}/v1.1/authorize.php?client_id=any&response_type=code`);
      expect(page.status).to.equal(503);
      expect(page.headers.get('retry-after')).to.match(/^\d+$/);
      const ready = await fetch(`${base}/health/ready`);
      expect(ready.status).to.equal(503);
      expect(ready.headers.get('retry-after')).to.match(/^\d+$/);
      expect(((await ready.json()) as { down: string[] }).down).to.deep.equal(['postgres']);
      expect(server.process.output()).not.to.include('"level":50');

      await proxy.restore();
      await waitFor('the API answering again', async () => (await call('stock/', { base, token: seller.token })).status === 200, 15000, 100);
      const created = await call('stock/', { base, token: seller.token, body: { stock: { name: 'P1', sku: 'P1', quantity: 1 } } });
      expect(created.status, created.text).to.equal(201);
      expect((await order(base, seller)).status).to.equal(201);
      expect((await fetch(`${base}/health/ready`)).status).to.equal(200);
    } finally {
      await proxy.close();
    }
  });

  it('when Redis cannot be reached, then orders are still taken, GET job/{job_id}/ is a 503 with Retry-After and /health/ready names redis; when it is back, then the job is answered again', async () => {
    const redisPort = await freePort();
    let redis: ChildProcess | undefined = await startRedisServer(redisPort);
    const env = { REDIS_URL: `redis://127.0.0.1:${redisPort}`, QUEUE_PREFIX: `kt-deps-${process.pid}-${Date.now()}` };
    await forgetOtherSellersBacklog(seller.id);
    // A worker process whose relay moves the job into Redis; no mail worker takes it, so it waits there.
    const relay = runEntry('workers/cia.ts', { NODE_ENV: 'test', LOG_LEVEL: 'info', DATABASE_URL: config().databaseUrl, ...env });
    try {
      server = await web(env);
      const base = server.base;
      const created = await order(base, seller);
      expect(created.status, created.text).to.equal(201);
      const orderId = String(created.body.order_id);
      const sent = await call(`order/${orderId}/send_mit/`, { base, token: seller.token, body: {} });
      expect(sent.status, sent.text).to.equal(202);
      const jobPath = `job/${String(sent.body.job_id)}/`;
      const jobId = String(sent.body.job_id);
      await waitFor(
        'the job relayed into Redis',
        async () => Boolean(await db()('outbox').where({ job_id: jobId }).whereNotNull('relayed_at').first()),
        20000,
        100,
      );
      const queued = await call(jobPath, { base, token: seller.token });
      expect(queued.status, queued.text).to.equal(200);
      expect((queued.body.job as { state: string }).state).to.equal('queued');

      await killChild(redis);
      redis = undefined;
      expectUnavailable(await call(jobPath, { base, token: seller.token }));
      const taken = await order(base, seller);
      expect(taken.status, taken.text).to.equal(201);
      const ready = await fetch(`${base}/health/ready`);
      expect(ready.status).to.equal(503);
      expect(((await ready.json()) as { down: string[] }).down).to.deep.equal(['redis']);

      redis = await startRedisServer(redisPort);
      await waitFor('the job answered again', async () => (await call(jobPath, { base, token: seller.token })).status === 200, 15000, 100);
      expect((await fetch(`${base}/health/ready`)).status).to.equal(200);
      expect(server.process.output()).not.to.include('"level":50');
    } finally {
      await relay.stop().catch(() => killChild(relay.child));
      await killChild(redis);
    }
  });
});
