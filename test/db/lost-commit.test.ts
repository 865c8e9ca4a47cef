/**
 * What a client meets when PostgreSQL's answer to a transaction's COMMIT is lost (lib/db
 * commit-outcome.ts): the request may have been carried out or not, and a resend must not write
 * the order twice. A web process of its own reaches PostgreSQL through a proxy of the test's
 * (test/support/commit-proxy.ts) that drops the answer to the order's COMMIT, or the COMMIT
 * itself, and may cut the network at that moment; DATABASE_STATEMENT_TIMEOUT_MS=1000, so the web
 * gives an answer up after 6 s (lib/db/knex.ts boundStatements).
 */
import { expect } from 'chai';
import { config } from '../../config';
import { createKnex, Knex } from '../../lib/db/knex';
import { db } from '../../lib/db';
import { changesSettled } from '../../lib/db/change-notices';
import { ApiResponse, call, newSeller, Seller } from '../support/api';
import { createStock } from '../order/helpers';
import { CommitLoss, CommitProxy, startCommitProxy } from '../support/commit-proxy';
import { freePort, runEntry, Running } from '../support/process';

describe('db: a COMMIT whose answer is lost', function () {
  this.timeout(90000);
  let proxy: CommitProxy;
  let web: Running;
  let base = '';
  let seller: Seller;
  let side: Knex;
  const pgPort = Number(new URL(config().databaseUrl).port || 5432);

  const orderBody = { order: { customer: { email: 'lost-commit@example.com' }, line: [{ id: 1, name: 'cup', quantity: 1, price: '2.50' }] } };

  /** A creating endpoint: its path and body, a text of the statement that writes its record (the proxy's marker), and its table. */
  interface Creating {
    path: string;
    body: unknown;
    marker: string;
    table: string;
  }
  const order: Creating = { path: 'order/', body: orderBody, marker: 'sales_order', table: 'sales_order' };

  async function post(key?: string, target = order): Promise<ApiResponse> {
    const res = await fetch(`${base}/v1.1/${target.path}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${seller.token}`, 'Content-Type': 'application/json', ...(key ? { 'Idempotency-Key': key } : {}) },
      body: JSON.stringify(target.body),
      signal: AbortSignal.timeout(30000),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, body: JSON.parse(text) as ApiResponse['body'] };
  }

  /** POSTs with the proxy armed to lose what happens at the COMMIT of the transaction that writes the record. */
  async function postLosing(loss: CommitLoss, key?: string, target = order): Promise<ApiResponse> {
    proxy.arm(loss, target.marker);
    const res = await post(key, target);
    expect(proxy.struck, `the ${target.table} COMMIT went through the armed proxy`).to.equal(true);
    return res;
  }

  /**
   * Resends with the key as a client does on 409 idempotency_key_in_use: the web stores the
   * unknown outcome once PostgreSQL answers again (every second), and holds the key until then.
   */
  async function resend(key: string, target = order, most = 2): Promise<ApiResponse> {
    for (let i = 0; ; i++) {
      const res = await post(key, target);
      if (res.status !== 409 || i >= 20) return res;
      expect(res.body.error?.[0]?.error).to.equal('idempotency_key_in_use');
      expect(await rows(target), 'a resend answered 409 wrote nothing').to.be.at.most(most);
      await new Promise((resolve) => setTimeout(resolve, Number(res.headers.get('retry-after') ?? 1) * 1000));
    }
  }

  async function rows(target: Creating): Promise<number> {
    const counted = await side(target.table).where({ account_id: seller.id }).count<{ count: string }[]>('* as count');
    return Number(counted[0]!.count);
  }
  const orders = () => rows(order);

  function expectUnknownOutcome(res: ApiResponse): void {
    expect(res.status, res.text).to.equal(503);
    expect(res.body.error?.map((e) => [e.error, e.code])).to.deep.equal([['outcome_unknown', 503]]);
    const description = String(res.body.error_description);
    expect(description).to.match(/may (or may not )?have been carried out/);
    expect(description).to.include('Idempotency-Key');
    // A resend without a key could write it twice: no Retry-After inviting one.
    expect(res.headers.get('retry-after')).to.equal(null);
    expect(res.text).not.to.match(/\n\s+at |Error:|COMMIT|127\.0\.0\.1/);
  }

  beforeEach(async () => {
    seller = await newSeller();
    proxy = await startCommitProxy(pgPort);
    const url = new URL(config().databaseUrl);
    url.port = String(proxy.port);
    const port = await freePort();
    web = runEntry('server/index.ts', {
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      PORT: String(port),
      DATABASE_URL: url.toString(),
      DATABASE_STATEMENT_TIMEOUT_MS: '1000',
      QUEUE_PREFIX: `kt-lost-commit-${process.pid}-${Date.now()}`,
    });
    await web.waitFor(/api listening/);
    base = `http://127.0.0.1:${port}`;
    side = createKnex(config().databaseUrl, 2);
    // The buyer is a returning one, every cache of the web is warm.
    expect((await post()).status).to.equal(201);
  });
  afterEach(async () => {
    web.child.kill('SIGKILL');
    await proxy.close();
    await side.destroy();
  });

  it('when the answer to the order COMMIT is lost and PostgreSQL answers on a new connection, then the client gets its 201 with the order, written once', async () => {
    const res = await postLosing('answer');
    expect(res.status, res.text).to.equal(201);
    expect(res.body.order_id).to.be.a('string');
    expect(await orders()).to.equal(2);
    const [row] = await side('sales_order')
      .where({ account_id: seller.id, id: res.body.order_id as string })
      .select('id');
    expect(row, 'the order the answer names exists').not.to.equal(undefined);
    expect(web.output()).not.to.include('"level":50');
  });

  it('when the answer to the order COMMIT is lost and PostgreSQL stays unreachable, then the client is told the outcome is unknown, and a resend with the same Idempotency-Key after the outage writes no second order', async () => {
    const key = `lost-${Date.now()}`;
    expectUnknownOutcome(await postLosing('answer-and-network', key));
    proxy.heal();
    expect(await orders(), 'PostgreSQL committed the order').to.equal(2);
    const again = await resend(key);
    expect(again.status, again.text).to.equal(503);
    expect(again.body.error?.map((e) => e.error)).to.deep.equal(['already_carried_out']);
    expect(String(again.body.error_description)).to.match(/was carried out/);
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    expect(await orders(), 'the resend wrote nothing').to.equal(2);
    // And so every later resend with the key, for its 24 hours.
    const third = await post(key);
    expect([third.status, third.body.error_description]).to.deep.equal([again.status, again.body.error_description]);
    expect(await orders()).to.equal(2);
    expect(web.output()).not.to.include('"level":50');
  });

  it('when the order COMMIT itself is lost and PostgreSQL stays unreachable, then the client is told the outcome is unknown, and a resend with the same Idempotency-Key after the outage writes the order once', async () => {
    const key = `never-${Date.now()}`;
    expectUnknownOutcome(await postLosing('commit-and-network', key));
    proxy.heal();
    // PostgreSQL rolls the transaction back once the web's connection is gone.
    expect(await orders()).to.equal(1);
    const again = await resend(key);
    expect(again.status, again.text).to.equal(201);
    expect(again.headers.get('idempotent-replayed')).to.equal(null);
    expect(await orders(), 'the resend wrote the order, once').to.equal(2);
    const replay = await post(key);
    expect([replay.status, replay.body.order_id, replay.headers.get('idempotent-replayed')]).to.deep.equal([201, again.body.order_id, 'true']);
    expect(await orders()).to.equal(2);
  });

  // Every creating endpoint, not only POST order/: POST task/ opened its transaction with
  // db().transaction, without the request id, so the outcome could never be asked.
  describe('of another creating endpoint (POST task/)', () => {
    const task: Creating = { path: 'task/', body: { task: { title: 'Call the carrier' } }, marker: 'insert into "task"', table: 'task' };

    it('when the answer to the task COMMIT is lost and PostgreSQL answers on a new connection, then the client gets its 201 with the task, written once', async () => {
      const res = await postLosing('answer', `task-${Date.now()}`, task);
      expect(res.status, res.text).to.equal(201);
      expect(await rows(task)).to.equal(1);
      const [row] = await side('task').where({ account_id: seller.id }).select('id');
      expect(res.body.task_id).to.equal(row!.id);
    });

    it('when the answer to the task COMMIT is lost and PostgreSQL stays unreachable, then a resend with the same Idempotency-Key after the outage learns that it was carried out, and writes no second task', async () => {
      const key = `task-lost-${Date.now()}`;
      expectUnknownOutcome(await postLosing('answer-and-network', key, task));
      proxy.heal();
      expect(await rows(task), 'PostgreSQL committed the task').to.equal(1);
      const again = await resend(key, task, 1);
      expect(again.status, again.text).to.equal(503);
      expect(again.body.error?.map((e) => e.error)).to.deep.equal(['already_carried_out']);
      expect(again.headers.get('idempotent-replayed')).to.equal('true');
      expect(await rows(task), 'the resend wrote nothing').to.equal(1);
      expect(web.output()).not.to.include('"level":50');
    });
  });
});

describe('db: a request transaction reads its id with its BEGIN', () => {
  it('when a returning buyer posts a one-line order, then the web sends the same 7 statements (issue 32): the transaction id is read within the BEGIN message', async () => {
    const seller = await newSeller();
    // Listening before the first call: a grant read while the process did not yet listen is not
    // cached, and the counted call would read the token once more (seen under load).
    await changesSettled();
    await createStock(seller, 'CUP', 10);
    const body = { order: { customer: { email: 'counted@example.com' }, line: [{ id: 1, quantity: 1, price: '2.50', stock_align_id: 'CUP' }] } };
    expect((await call('order/', { token: seller.token, body })).status).to.equal(201);
    await changesSettled();
    const statements: string[] = [];
    const onQuery = (q: { sql: string }) => statements.push(q.sql);
    db().on('query', onQuery);
    try {
      expect((await call('order/', { token: seller.token, body })).status).to.equal(201);
    } finally {
      db().off('query', onQuery);
    }
    expect(statements, statements.join('\n')).to.have.length(7);
    expect(statements.filter((sql) => sql === 'BEGIN;')).to.have.length(1);
    expect(statements[statements.length - 1]).to.equal('COMMIT;');
  });
});
