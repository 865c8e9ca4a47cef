/**
 * What a client meets when PostgreSQL holds a request up: a lock held by another session, a
 * database that stopped answering (a TCP proxy of the test's own that stops passing bytes, as a
 * partition does, and heals on new connections only). A web process of its own with
 * DATABASE_STATEMENT_TIMEOUT_MS=1000; the machine's PostgreSQL is never reconfigured
 * (lib/db/knex.ts boundStatements, lib/db/lost-answer.ts).
 */
import { expect } from 'chai';
import { config } from '../config';
import { createKnex, Knex } from '../lib/db/knex';
import { ApiResponse, call, newSeller, Seller } from './support/api';
import { clientToken } from './support/bound-client';
import { CuttableProxy, startCuttableProxy } from './support/cuttable-proxy';
import { freePort, runEntry, Running } from './support/process';

/** An answer within ms, else the test fails naming the hang (the request is dropped). */
async function within(ms: number, request: (signal: AbortSignal) => Promise<ApiResponse>): Promise<ApiResponse & { ms: number }> {
  const started = Date.now();
  const res = await request(AbortSignal.timeout(ms)).catch((err: Error) => {
    throw new Error(`no answer within ${ms} ms (${err.name})`);
  });
  return { ...res, ms: Date.now() - started };
}

function expectUnavailable(res: ApiResponse, pgPort: number): void {
  expect(res.status, res.text).to.equal(503);
  expect(res.headers.get('retry-after')).to.match(/^\d+$/);
  expect(res.body.error?.map((e) => [e.error, e.code])).to.deep.equal([['service_unavailable', 503]]);
  expect(res.body.error_description).to.be.a('string').and.not.equal('');
  expect(res.text).not.to.match(/\n\s+at |Error:|canceling statement|127\.0\.0\.1/);
  expect(res.text).not.to.include(String(pgPort));
}

describe('failure: PostgreSQL holds a request up', function () {
  this.timeout(90000);
  let proxy: CuttableProxy;
  let web: Running;
  let base = '';
  let seller: Seller;
  let side: Knex;
  const pgPort = Number(new URL(config().databaseUrl).port || 5432);

  const order = (signal: AbortSignal) =>
    fetchCall('order/', { body: { order: { customer: { email: 'slow@example.com' }, line: [{ id: 1, name: 'cup', quantity: 1, price: '2.50' }] } } }, signal);
  const orders = (signal: AbortSignal) => fetchCall('order/', {}, signal);

  /** call() through the spawned web process, given up with the signal. */
  async function fetchCall(path: string, options: { body?: unknown }, signal: AbortSignal): Promise<ApiResponse> {
    const res = await fetch(`${base}/v1.1/${path}`, {
      method: options.body === undefined ? 'GET' : 'POST',
      headers: { Authorization: `Bearer ${seller.token}`, ...(options.body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal,
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, body: JSON.parse(text) as ApiResponse['body'] };
  }

  /** A web process whose pool reaches PostgreSQL through the proxy; base names it from then on. */
  async function startWeb(): Promise<Running> {
    const url = new URL(config().databaseUrl);
    url.port = String(proxy.port);
    const port = await freePort();
    const started = runEntry('server/index.ts', {
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      PORT: String(port),
      DATABASE_URL: url.toString(),
      DATABASE_STATEMENT_TIMEOUT_MS: '1000',
      QUEUE_PREFIX: `kt-failure-pg-${process.pid}-${Date.now()}`,
    });
    await started.waitFor(/api listening/);
    base = `http://127.0.0.1:${port}`;
    return started;
  }

  beforeEach(async () => {
    seller = await newSeller();
    proxy = await startCuttableProxy(pgPort);
    web = await startWeb();
    side = createKnex(config().databaseUrl, 2);
  });
  afterEach(async () => {
    web.child.kill('SIGKILL');
    await proxy.close();
    await side.destroy();
  });

  it('when another session holds a lock the request needs, then GET and POST order/ are answered 503 with Retry-After within seconds, nothing is written, and once it is released the same calls succeed', async () => {
    expect((await within(10000, order)).status).to.equal(201);
    const trx = await side.transaction();
    try {
      await trx.raw('LOCK TABLE sales_order IN ACCESS EXCLUSIVE MODE');
      const read = await within(8000, orders);
      expectUnavailable(read, proxy.port);
      const write = await within(8000, order);
      expectUnavailable(write, proxy.port);
    } finally {
      await trx.rollback();
    }
    expect((await within(10000, order)).status).to.equal(201);
    // GET order/ lists orders 10 s old only (document 1): the database says what was written.
    const written = await side('sales_order').where({ account_id: seller.id }).count<{ count: string }[]>('* as count');
    expect(Number(written[0]!.count), 'the refused POST left no order').to.equal(2);
    expect(web.output()).not.to.include('"level":50');
  });

  it('when PostgreSQL stops answering (no refusal, no reset), then GET and POST order/ are answered 503 with Retry-After, never a hang or a 500', async () => {
    expect((await within(10000, order)).status).to.equal(201);
    expect((await within(10000, orders)).status).to.equal(200);
    proxy.cut();
    // A pooled connection: the statement's answer never comes (1 s bound + 5 s on the client's side).
    expectUnavailable(await within(15000, orders), proxy.port);
    // The pool's other connection or a new one (its connect timeout, 5 s, answered 500 before).
    expectUnavailable(await within(20000, order), proxy.port);
    expectUnavailable(await within(20000, orders), proxy.port);
    expect(web.output()).not.to.include('"level":50');
    // A web process started during the outage has only new connections: each gives up after 5 s ('timeout expired').
    web.child.kill('SIGKILL');
    web = await startWeb();
    expectUnavailable(await within(20000, orders), proxy.port);
    expect(web.output()).not.to.include('"level":50');
  });

  it('when the network heals but the connections that were cut stay silent (a flow a NAT forgot), then the next calls are served on new connections, not refused for as long as the old ones live', async () => {
    expect((await within(10000, order)).status).to.equal(201);
    expect((await within(10000, orders)).status).to.equal(200);
    proxy.cut();
    expectUnavailable(await within(15000, orders), proxy.port);
    proxy.heal();
    // The pool held the connection whose answer was lost: pg sends nothing more on it, so it
    // answered 503 every time after 1 + 5 s (lib/db lost-answer.ts drops it).
    const read = await within(15000, orders);
    expect(read.status, read.text).to.equal(200);
    expect((await within(10000, order)).status).to.equal(201);
    expect(web.output()).not.to.include('"level":50');
  });
});

describe('failure: PostgreSQL ends the session of a request (pg_terminate_backend: a failover, an operator, a restart)', function () {
  this.timeout(30000);
  let seller: Seller;
  let side: Knex;

  /** The backend of a statement of this database waiting for a lock, whose text contains `like`. */
  async function waitingPid(like: string): Promise<number> {
    for (let i = 0; i < 200; i++) {
      const { rows } = (await side.raw("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE ?", [
        like,
      ])) as { rows: { pid: number }[] };
      if (rows[0]) return rows[0].pid;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error('no statement came to wait for a lock within 5 s');
  }

  /** Holds the lock `hold` takes while `request` runs, ends the session that waits for it, and answers what the client got. */
  async function terminatedWhileWaiting(
    hold: (trx: Knex.Transaction) => Promise<unknown>,
    like: string,
    request: () => Promise<ApiResponse>,
  ): Promise<ApiResponse> {
    const trx = await side.transaction();
    try {
      await hold(trx);
      const pending = request();
      await side.raw('SELECT pg_terminate_backend(?)', [await waitingPid(like)]);
      return await pending;
    } finally {
      await trx.rollback();
    }
  }
  const holdStock = (trx: Knex.Transaction) => trx.raw('SELECT id FROM stock WHERE account_id = ? FOR UPDATE', [seller.id]);
  const ordersOf = async () => Number((await side('sales_order').where({ account_id: seller.id }).count<{ count: string }[]>('* as count'))[0]!.count);
  const line = { id: 1, quantity: 1, price: '1.00', stock_align_id: 'T1' };

  beforeEach(async () => {
    seller = await newSeller();
    side = createKnex(config().databaseUrl, 3);
    const res = await call('stock/', { token: seller.token, body: { stock: { name: 'T1', sku: 'T1', quantity: 10 } } });
    expect(res.status, res.text).to.equal(201);
  });
  afterEach(async () => {
    await side.destroy();
  });

  for (const keyed of [false, true])
    it(`when the session of a POST order/ ${keyed ? 'with' : 'without'} Idempotency-Key is ended while it waits for its item's lock, then it is answered 503 service_unavailable (not 500) and nothing is written`, async () => {
      const res = await terminatedWhileWaiting(holdStock, '%stock%', () =>
        call('order/', {
          token: seller.token,
          headers: keyed ? { 'Idempotency-Key': `terminated-${seller.id}` } : {},
          body: { order: { customer: { email: 'x@example.com' }, line: [line] } },
        }),
      );
      expect(res.status, res.text).to.equal(503);
      expect(res.body.error?.map((e) => [e.error, e.code])).to.deep.equal([['service_unavailable', 503]]);
      expect(res.text).not.to.match(/Connection terminated|\n\s+at /);
      expect(await ordersOf()).to.equal(0);
    });

  for (const keyed of [false, true])
    it(`when the session of a POST send_mit/ ${keyed ? 'with' : 'without'} Idempotency-Key is ended after its transaction committed (recording the job for a client bound to a portal account), then it is answered 500 internal_error, never 503 "send again", and a resend does not send a second mail`, async () => {
      const made = await call('order/', { token: seller.token, body: { order: { customer: { email: 'b@example.com' }, line: [line] } } });
      expect(made.status, made.text).to.equal(201);
      const bound = await clientToken(seller, `ended-after-commit-${seller.id}`, seller.portalAccountId, 'order_r order_w');
      const sendMit = () =>
        call(`order/${made.body.order_id}/send_mit/`, {
          token: bound,
          headers: keyed ? { 'Idempotency-Key': `ended-after-commit-${seller.id}` } : {},
          body: { send_mit: { deliverer: 'DHL', mail_text: 'Thanks' } },
        });
      const mailJobs = async () =>
        Number((await side('outbox').where({ account_id: seller.id, job_name: 'order.send_mit' }).count<{ count: string }[]>('* as count'))[0]!.count);
      const res = await terminatedWhileWaiting((trx) => trx.raw('LOCK TABLE job_creator IN ACCESS EXCLUSIVE MODE'), '%job_creator%', sendMit);
      expect([res.status, res.body.error?.map((e) => e.error), res.headers.get('retry-after')], res.text).to.deep.equal([500, ['internal_error'], null]);
      expect(res.text).not.to.match(/Connection terminated|\n\s+at /);
      expect(await mailJobs()).to.equal(1);
      // With its key, a resend is not carried out again (lib/http idempotency.ts): already_carried_out, or, while the key's
      // answer could not be stored (the pool handed the settle the ended session too), 409 until the key's running lock ends.
      if (keyed) {
        const again = await sendMit();
        expect(['already_carried_out', 'idempotency_key_in_use'], again.text).to.include(again.body.error?.[0]?.error);
        expect(await mailJobs()).to.equal(1);
      }
    });

  it('when the session of a GET order/ is ended while it waits for a lock, then it is answered 503 (not 500)', async () => {
    const res = await terminatedWhileWaiting(
      (trx) => trx.raw('LOCK TABLE sales_order IN ACCESS EXCLUSIVE MODE'),
      '%sales_order%',
      () => call('order/', { token: seller.token }),
    );
    expect(res.status, res.text).to.equal(503);
  });

  it('when the session of a POST order/list/ is ended while an item waits for its lock, then no item is answered 500, and every item answered 201 is written once', async () => {
    const res = await terminatedWhileWaiting(holdStock, '%stock%', () =>
      call('order/list/', { token: seller.token, body: { order: [1, 2, 3].map((i) => ({ customer: { email: `l${i}@example.com` }, line: [line] })) } }),
    );
    const codes = res.status === 207 ? (res.body.response as { code: number }[]).map((r) => r.code) : [res.status];
    expect(codes, res.text).not.to.include(500);
    expect(
      codes.every((c) => c === 201 || c === 503),
      res.text,
    ).to.equal(true);
    expect(await ordersOf()).to.equal(codes.filter((c) => c === 201).length);
  });
});
