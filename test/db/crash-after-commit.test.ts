/**
 * What a client meets when the web process serving its POST order/ with an Idempotency-Key dies
 * (a deploy, the OOM killer: SIGKILL) around the order's COMMIT, and the client resends with the
 * key once the key's running lock (5 minutes, lib/http runningLockMs) has lapsed. A web process of
 * its own reaches PostgreSQL through the commit proxy (test/support/commit-proxy.ts), which holds
 * back the answer to the order's COMMIT (or the COMMIT itself) so the process can be killed at that
 * moment; a second web process answers the resend. The lapse of the lock is the one thing written
 * here: its locked_until is put in the past, as five minutes would have done.
 */
import { expect } from 'chai';
import { config } from '../../config';
import { createKnex, Knex } from '../../lib/db/knex';
import { newSeller, Seller } from '../support/api';
import { CommitLoss, CommitProxy, startCommitProxy } from '../support/commit-proxy';
import { freePort, runEntry, Running } from '../support/process';

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  body: { order_id?: string; error?: { error: string; code: number }[]; error_description?: string };
}

describe('db: a web process that dies around an order COMMIT, and a resend with the Idempotency-Key after its lock lapsed', function () {
  this.timeout(90000);
  let proxy: CommitProxy;
  let webs: Running[] = [];
  let seller: Seller;
  let side: Knex;
  const pgPort = Number(new URL(config().databaseUrl).port || 5432);
  const orderBody = { order: { customer: { email: 'crash@example.com' }, line: [{ id: 1, name: 'cup', quantity: 1, price: '2.50' }] } };

  /** A web process reaching PostgreSQL through the proxy; resolves with its base URL. */
  async function startWeb(): Promise<{ web: Running; base: string }> {
    const url = new URL(config().databaseUrl);
    url.port = String(proxy.port);
    const port = await freePort();
    const web = runEntry('server/index.ts', {
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      PORT: String(port),
      DATABASE_URL: url.toString(),
      DATABASE_STATEMENT_TIMEOUT_MS: '1000',
      QUEUE_PREFIX: `kt-crash-commit-${process.pid}-${Date.now()}`,
    });
    webs.push(web);
    await web.waitFor(/api listening/);
    return { web, base: `http://127.0.0.1:${port}` };
  }

  async function post(base: string, key?: string): Promise<Answer> {
    const res = await fetch(`${base}/v1.1/order/`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${seller.token}`, 'Content-Type': 'application/json', ...(key ? { 'Idempotency-Key': key } : {}) },
      body: JSON.stringify(orderBody),
      signal: AbortSignal.timeout(30000),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, body: JSON.parse(text) as Answer['body'] };
  }

  async function orders(): Promise<number> {
    const counted = await side('sales_order').where({ account_id: seller.id }).count<{ count: string }[]>('* as count');
    return Number(counted[0]!.count);
  }

  async function until(what: string, check: () => boolean | Promise<boolean>, ms = 20000): Promise<void> {
    const end = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > end) throw new Error(`not within ${ms} ms: ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** SIGKILL, as the OOM killer or a hard deploy does: nothing after it runs. */
  async function kill(web: Running): Promise<void> {
    const exited = new Promise((resolve) => web.child.once('exit', resolve));
    web.child.kill('SIGKILL');
    await exited;
  }

  /** What the dead process left on the key's row, then the lock's five minutes passed. */
  async function lapseLock(key: string): Promise<{ status: number | null; marked: boolean }> {
    const row = await side('idempotency_key')
      .where({ account_id: seller.id, key })
      .first<{ status: number | null; commit_xid: string | null }>('status', 'commit_xid');
    expect(row, 'the key has its row').not.to.equal(undefined);
    await side('idempotency_key')
      .where({ account_id: seller.id, key })
      .update({ locked_until: side.raw("now() - interval '1 second'") });
    return { status: row!.status, marked: row!.commit_xid !== null };
  }

  /** Starts the POST with the proxy armed; its answer may never come (the process dies). */
  function postLosing(base: string, loss: CommitLoss, key: string): Promise<Answer | undefined> {
    proxy.arm(loss, 'sales_order');
    return post(base, key).catch(() => undefined);
  }

  function expectCarriedOut(res: Answer): void {
    expect(res.status, res.text).to.equal(503);
    expect(res.body.error?.map((e) => [e.error, e.code])).to.deep.equal([['already_carried_out', 503]]);
    expect(String(res.body.error_description)).to.match(/was carried out/);
    expect(res.headers.get('idempotent-replayed')).to.equal('true');
  }

  beforeEach(async () => {
    seller = await newSeller();
    proxy = await startCommitProxy(pgPort);
    side = createKnex(config().databaseUrl, 2);
  });
  afterEach(async () => {
    for (const web of webs) web.child.kill('SIGKILL');
    webs = [];
    await proxy.close();
    await side.destroy();
  });

  it('when the process dies after PostgreSQL committed the order and before the answer was stored, then the resend is 503 already_carried_out and the order exists once', async () => {
    const first = await startWeb();
    expect((await post(first.base)).status, 'a returning buyer').to.equal(201);
    const key = `crash-${Date.now()}`;
    void postLosing(first.base, 'answer', key);
    await until('the order COMMIT went through the proxy', () => proxy.struck);
    await until('PostgreSQL committed the order', async () => (await orders()) === 2);
    await kill(first.web);
    const left = await lapseLock(key);
    const second = await startWeb();
    const again = await post(second.base, key);
    expectCarriedOut(again);
    expect(await orders(), 'the resend wrote no second order').to.equal(2);
    const third = await post(second.base, key);
    expect([third.status, third.body.error_description]).to.deep.equal([again.status, again.body.error_description]);
    expect(await orders()).to.equal(2);
    // What the dead request left, written by its own transaction: no answer, the commit's mark.
    expect(left).to.deep.equal({ status: null, marked: true });
    expect(second.web.output()).not.to.include('"level":50');
  });

  it('when the process dies before its COMMIT reached PostgreSQL (rolled back), then the resend runs and writes the order once', async () => {
    const first = await startWeb();
    expect((await post(first.base)).status).to.equal(201);
    const key = `crash-before-${Date.now()}`;
    void postLosing(first.base, 'commit-and-network', key);
    await until('the order COMMIT was held at the proxy', () => proxy.struck);
    await kill(first.web);
    proxy.heal();
    // PostgreSQL rolls the transaction back once the dead process's connection is gone.
    await until('the transaction rolled back', async () => {
      const open = await side('pg_stat_activity')
        .where({ state: 'idle in transaction', datname: side.raw('current_database()') })
        .count<{ count: string }[]>('* as count');
      return open[0]!.count === '0';
    });
    expect(await orders()).to.equal(1);
    const left = await lapseLock(key);
    expect(left).to.deep.equal({ status: null, marked: false });
    const second = await startWeb();
    const again = await post(second.base, key);
    expect(again.status, again.text).to.equal(201);
    expect(again.headers.get('idempotent-replayed')).to.equal(null);
    expect(await orders(), 'the resend wrote the order, once').to.equal(2);
    const replay = await post(second.base, key);
    expect([replay.status, replay.body.order_id, replay.headers.get('idempotent-replayed')]).to.deep.equal([201, again.body.order_id, 'true']);
    expect(await orders()).to.equal(2);
  });

  it('when the answer to the order COMMIT was lost, the client was told the outcome is unknown, and the process died before it could store that answer, then the resend is 503 already_carried_out and the order exists once', async () => {
    const first = await startWeb();
    expect((await post(first.base)).status).to.equal(201);
    const key = `crash-unknown-${Date.now()}`;
    const answer = await postLosing(first.base, 'answer-and-network', key);
    expect(
      answer?.body.error?.map((e) => e.error),
      answer?.text,
    ).to.deep.equal(['outcome_unknown']);
    // PostgreSQL is still unreachable: the answer waits to be stored, every second, and the process dies.
    await kill(first.web);
    proxy.heal();
    expect(await orders(), 'PostgreSQL committed the order').to.equal(2);
    const left = await lapseLock(key);
    const second = await startWeb();
    expectCarriedOut(await post(second.base, key));
    expect(await orders(), 'the resend wrote no second order').to.equal(2);
    expect(left).to.deep.equal({ status: null, marked: true });
  });
});
