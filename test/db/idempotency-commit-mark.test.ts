/**
 * The Idempotency-Key row's commit mark (lib/db commit-marks.ts, lib/http idempotency): each
 * transaction of a keyed request writes its id onto the key's row just before its COMMIT, in the
 * COMMIT's message, so the row tells, atomically with the request's writes, that they committed.
 * A process that dies after COMMIT and before its answer is stored left the key's running lock to
 * lapse (5 minutes), after which a resend ran the request a second time. Here the death is played
 * in-process (the answer's store never runs) and the clock moved past the lock;
 * test/db/crash-after-commit.test.ts kills a real web process.
 */
import { expect } from 'chai';
import crypto from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setClock } from '../../lib/clock';
import { db } from '../../lib/db/knex';
import { changesSettled } from '../../lib/db/change-notices';
import { commitMarkOf, openRequest, publicRequestId } from '../../lib/db/commit-marks';
import { transaction } from '../../lib/db/transaction';
import { DomainError } from '../../lib/errors';
import { created, endpoint } from '../../lib/http/endpoint';
import { runningLockMs } from '../../lib/http/idempotency/idempotency';
import { idempotencyRepository } from '../../lib/http/idempotency/idempotency.repository';
import { Joi } from '../../lib/http/schema';
import { createApp } from '../../server/app';
import { ApiResponse, call, newSeller, Seller } from '../support/api';
import { createStock } from '../order/helpers';
import { capturedLog } from '../security/log-capture';
import { heldEndpoint } from '../support/held-endpoint';

const newKey = () => crypto.randomUUID();

/** The answer's store does not run, once: the process died after the request's work, before storing. */
function dieBeforeStoring(): () => void {
  const store = idempotencyRepository.store;
  idempotencyRepository.store = async () => {
    idempotencyRepository.store = store;
  };
  return () => {
    idempotencyRepository.store = store;
  };
}

/** The key's running lock has lapsed: the clock is past it. */
function afterLockLapsed(): void {
  const at = Date.now() + runningLockMs + 1000;
  setClock(() => at);
}

async function keyRow(seller: Seller, key: string): Promise<{ status: number | null; commit_xid: string | null; outcome: string | null }> {
  const row = await db()('idempotency_key')
    .where({ account_id: seller.id, key })
    .first<{ status: number | null; commit_xid: string | null; outcome: string | null }>(
      'status',
      'commit_xid',
      db().raw('txid_status(commit_xid) AS outcome'),
    );
  expect(row, 'the key has its row').not.to.equal(undefined);
  return row!;
}

function expectCarriedOut(res: ApiResponse): void {
  expect(res.status, res.text).to.equal(503);
  expect(res.body.error?.map((e) => [e.error, e.code])).to.deep.equal([['already_carried_out', 503]]);
  expect(String(res.body.error_description)).to.match(/was carried out/);
  expect(res.headers.get('idempotent-replayed')).to.equal('true');
}

describe('Idempotency-Key: the key row marked by the request transaction that committed', function () {
  this.timeout(30000);
  let restore = () => undefined as void;
  afterEach(() => {
    restore();
    setClock(undefined);
  });

  describe('POST order/', () => {
    const body = { order: { customer: { email: 'marked@example.com' }, line: [{ id: 1, quantity: 1, price: '2.50', stock_align_id: 'CUP' }] } };
    const order = (seller: Seller, key?: string) => call('order/', { token: seller.token, body, headers: key ? { 'Idempotency-Key': key } : {} });
    const orders = async (seller: Seller) => Number((await db()('sales_order').where({ account_id: seller.id }).count({ n: '*' }))[0]!.n);

    async function returningBuyer(): Promise<Seller> {
      const seller = await newSeller();
      // Listening before the first call, so the first call keeps the token's grant in the cache.
      await changesSettled();
      await createStock(seller, 'CUP', 10);
      expect((await order(seller)).status).to.equal(201);
      await changesSettled();
      return seller;
    }

    it('when a returning buyer posts an order with a key, then the web sends the 7 statements of one without a key, the claim and the stored answer: the mark rides in the COMMIT message', async () => {
      const seller = await returningBuyer();
      const statements: string[] = [];
      const onQuery = (q: { sql: string }) => statements.push(q.sql);
      db().on('query', onQuery);
      try {
        expect((await order(seller, newKey())).status).to.equal(201);
      } finally {
        db().off('query', onQuery);
      }
      expect(statements, statements.join('\n')).to.have.length(9);
      expect(statements.filter((sql) => sql === 'BEGIN;')).to.have.length(1);
      expect(statements.filter((sql) => sql === 'COMMIT;')).to.have.length(1);
    });

    it('when the process dies after the order COMMIT and before its answer is stored, then a resend with the key after the running lock lapsed is 503 already_carried_out, and the order exists once', async () => {
      const seller = await returningBuyer();
      const key = newKey();
      restore = dieBeforeStoring();
      expect((await order(seller, key)).status).to.equal(201);
      expect(await orders(seller)).to.equal(2);
      const left = await keyRow(seller, key);
      afterLockLapsed();
      const again = await order(seller, key);
      expectCarriedOut(again);
      expect(await orders(seller), 'the resend wrote no second order').to.equal(2);
      // Every later resend is the same answer, for the key's 24 hours.
      const third = await order(seller, key);
      expect([third.status, third.body.error_description]).to.deep.equal([again.status, again.body.error_description]);
      expect(await orders(seller)).to.equal(2);
      // What the dead request left: no answer, and the mark of its committed transaction.
      expect(left.status).to.equal(null);
      expect([left.commit_xid === null, left.outcome]).to.deep.equal([false, 'committed']);
    });

    it('when the process dies after the order COMMIT and the resend comes before the lock lapsed, then it is 409 idempotency_key_in_use', async () => {
      const seller = await returningBuyer();
      const key = newKey();
      restore = dieBeforeStoring();
      expect((await order(seller, key)).status).to.equal(201);
      const again = await order(seller, key);
      expect(again.status, again.text).to.equal(409);
      expect(again.body.error?.[0]?.error).to.equal('idempotency_key_in_use');
      expect(await orders(seller)).to.equal(2);
    });
  });

  describe('a test endpoint whose transaction commits or rolls back', () => {
    let server: Server;
    let base = '';
    let runs = 0;
    let outcome:
      | 'created'
      | 'refused in its transaction'
      | 'crash in its transaction'
      | 'failed after its commit'
      | 'slow, then failed after its commit'
      | 'slow before its commit' = 'created';
    /** A slow attempt, after its commit: it tells that it committed, then waits for `until`. */
    let slow: { committed: () => void; until: Promise<void> } | undefined;
    /** Another request kept in flight, to share the probe's X-Request-Id. */
    const held = heldEndpoint();
    before(async () => {
      const probe = endpoint<Record<string, never>, { n: number }>({
        method: 'POST',
        path: 'test/commit_mark_probe/',
        summary: 'test',
        creates: true,
        body: Joi.object({ n: Joi.number().integer() }),
        response: ['run'],
        async handle({ caller }) {
          runs++;
          const run = runs;
          const slowBeforeCommit = outcome === 'slow before its commit' ? slow : undefined;
          await transaction(async (trx) => {
            await trx('commit_mark_probe').insert({ account_id: caller.accountId, run });
            if (outcome === 'refused in its transaction') throw new DomainError('invalid_field', 'the request is refused');
            if (outcome === 'crash in its transaction') throw new Error('boom in the transaction');
            if (slowBeforeCommit) {
              slowBeforeCommit.committed();
              await slowBeforeCommit.until;
            }
          }, caller.requestId);
          if (outcome === 'failed after its commit') throw new Error('boom after the commit');
          if (outcome === 'slow, then failed after its commit') {
            slow!.committed();
            await slow!.until;
            throw new Error('boom after the commit, past the running lock');
          }
          return created({ run: runs });
        },
      });
      // What the probe's transactions wrote, to count those that committed.
      await db().raw('CREATE TABLE IF NOT EXISTS commit_mark_probe (account_id integer NOT NULL, run integer NOT NULL)');
      server = createApp([probe, held.endpoint]).listen(0, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    after(async () => {
      await new Promise((resolve) => server.close(resolve));
      await db().raw('DROP TABLE IF EXISTS commit_mark_probe');
    });
    const committedRuns = async (seller: Seller) =>
      (await db()('commit_mark_probe').where({ account_id: seller.id }).orderBy('run').select<{ run: number }[]>('run')).map((r) => r.run);

    const probe = (seller: Seller, key: string) =>
      call('test/commit_mark_probe/', { base, token: seller.token, body: { n: 1 }, headers: { 'Idempotency-Key': key } });

    it('when the transaction rolled back (refused inside it) and the process died before storing the refusal, then after the lock lapsed the resend runs, once', async () => {
      const seller = await newSeller();
      const key = newKey();
      const start = runs;
      outcome = 'refused in its transaction';
      restore = dieBeforeStoring();
      expect((await probe(seller, key)).status).to.equal(400);
      expect(await keyRow(seller, key)).to.include({ status: null, commit_xid: null });
      outcome = 'created';
      afterLockLapsed();
      const again = await probe(seller, key);
      expect(again.status, again.text).to.equal(201);
      expect(again.headers.get('idempotent-replayed')).to.equal(null);
      const replay = await probe(seller, key);
      expect([replay.status, replay.body.run, replay.headers.get('idempotent-replayed')]).to.deep.equal([201, again.body.run, 'true']);
      expect(runs - start).to.equal(2);
    });

    it('when the request fails (500) after its transaction committed, then the key is not freed: the resend is 503 already_carried_out and does not run', async () => {
      const seller = await newSeller();
      const key = newKey();
      const start = runs;
      outcome = 'failed after its commit';
      const first = await probe(seller, key);
      expect(first.status, first.text).to.equal(500);
      outcome = 'created';
      expectCarriedOut(await probe(seller, key));
      expect(runs - start, 'the resend did not run').to.equal(1);
    });

    it('when the first attempt, still running past its lock, committed, a resend was told already_carried_out, and then the first fails (500), then the key stays taken: a later resend is already_carried_out again and does not run', async () => {
      const seller = await newSeller();
      const key = newKey();
      const start = runs;
      outcome = 'slow, then failed after its commit';
      let fail = () => undefined as void;
      const committed = new Promise<void>((resolve) => {
        slow = { committed: resolve, until: new Promise<void>((go) => (fail = go)) };
      });
      const first = probe(seller, key);
      await committed;
      // The first attempt still holds the key, past its running lock: a slow request, not a dead one.
      afterLockLapsed();
      outcome = 'created';
      expectCarriedOut(await probe(seller, key));
      fail();
      expect((await first).status).to.equal(500);
      const later = await probe(seller, key);
      expectCarriedOut(later);
      expect(runs - start, 'the first attempt ran once, nothing ran again').to.equal(1);
    });

    it('when the first attempt, still running past its lock, has not committed yet and a resend took the key over and ran, then the first attempt’s COMMIT is refused: 409 idempotency_key_in_use, its writes rolled back, and the key keeps the resend’s answer', async () => {
      const seller = await newSeller();
      const key = newKey();
      outcome = 'slow before its commit';
      let go = () => undefined as void;
      const inTransaction = new Promise<void>((resolve) => {
        slow = { committed: resolve, until: new Promise<void>((resume) => (go = resume)) };
      });
      const first = probe(seller, key);
      await inTransaction;
      // The first attempt's process paused (not dead) past its running lock, its transaction open.
      afterLockLapsed();
      outcome = 'created';
      const resend = await probe(seller, key);
      expect(resend.status, resend.text).to.equal(201);
      let late: ApiResponse | undefined;
      const { lines } = await capturedLog(async () => {
        go();
        late = await first;
      });
      if (!late) throw new Error('the first attempt was not answered');
      expect(late.status, late.text).to.equal(409);
      // The operator learns that a process ran past the lock (a pause of 5 minutes), not only a 409 among duplicates'.
      const fenced = lines.filter((l) => l.level === 40 && /took the key over/.test(String(l.msg)));
      expect(fenced, JSON.stringify(lines)).to.have.length(1);
      expect(late.body.error?.map((e) => [e.error, e.field])).to.deep.equal([['idempotency_key_in_use', 'Idempotency-Key']]);
      expect(String(late.body.error_description)).to.match(/took it over/);
      expect(await committedRuns(seller), 'only the resend’s transaction committed').to.deep.equal([resend.body.run]);
      const replay = await probe(seller, key);
      expect([replay.status, replay.body.run, replay.headers.get('idempotent-replayed')]).to.deep.equal([201, resend.body.run, 'true']);
      expect(await committedRuns(seller)).to.have.length(1);
    });

    it('when another seller’s request with the same X-Request-Id is in flight (two sellers of one connector, or a guessed id) and the first attempt, past its lock, commits after a resend took the key over, then that COMMIT is still refused, and every request keeps the id it sent: the first attempt answers 409 under it, a third seller’s job carries it, and only the resend’s writes are there', async () => {
      const seller = await newSeller();
      const other = await newSeller();
      const third = await newSeller();
      const stockId = await createStock(third, `RID-${third.id}`, 2);
      const key = newKey();
      const shared = `shared-${key}`;
      const entered = held.nextEntry();
      const otherCall = call('test/held/', { base, token: other.token, headers: { 'X-Request-Id': shared } });
      await entered;
      // Let go of the other request however this test ends (a request held past the test holds the server's close).
      restore = () => held.release();
      outcome = 'slow before its commit';
      let go = () => undefined as void;
      const inTransaction = new Promise<void>((resolve) => {
        slow = { committed: resolve, until: new Promise<void>((resume) => (go = resume)) };
      });
      const first = call('test/commit_mark_probe/', { base, token: seller.token, body: { n: 1 }, headers: { 'Idempotency-Key': key, 'X-Request-Id': shared } });
      await inTransaction;
      // A third seller's request of the id while both are in flight: its answer and its job carry the id it sent.
      const cia = await call(`stock/${stockId}/cia/`, { base, token: third.token, body: {}, headers: { 'X-Request-Id': shared } });
      expect(cia.status, cia.text).to.equal(202);
      const job = await db()('outbox')
        .where({ job_id: cia.body.job_id as string })
        .first<{ payload: { request_id?: string } }>('payload');
      // Before, the id was held process-wide: another seller's request in flight made this one answer (and queue) a made id.
      expect([cia.headers.get('x-request-id'), job?.payload.request_id]).to.deep.equal([shared, shared]);
      afterLockLapsed();
      outcome = 'created';
      const resend = await probe(seller, key);
      expect(resend.status, resend.text).to.equal(201);
      go();
      const late = await first;
      expect(late.status, late.text).to.equal(409);
      expect(late.headers.get('x-request-id')).to.equal(shared);
      expect(await committedRuns(seller), 'only the resend’s transaction committed').to.deep.equal([resend.body.run]);
      held.release();
      const otherAnswer = await otherCall;
      expect([otherAnswer.status, otherAnswer.headers.get('x-request-id')]).to.deep.equal([200, shared]);
    });

    it('when the request fails (500) inside its transaction (rolled back), then the key is freed as before: the resend runs', async () => {
      const seller = await newSeller();
      const key = newKey();
      const start = runs;
      outcome = 'crash in its transaction';
      expect((await probe(seller, key)).status).to.equal(500);
      outcome = 'created';
      const again = await probe(seller, key);
      expect(again.status, again.text).to.equal(201);
      expect(runs - start).to.equal(2);
    });
  });

  describe('two requests in flight in one process with the same request id (a client-chosen X-Request-Id)', () => {
    it('when they overlap, then each has a key of its own and its transactions write its own mark; both keys stand for the id', () => {
      const first = openRequest('same-id');
      first.markCommits('UPDATE first');
      const second = openRequest('same-id');
      second.markCommits('UPDATE second');
      expect(first.key).to.equal('same-id');
      expect(second.key).not.to.equal('same-id');
      expect([commitMarkOf(first.key), commitMarkOf(second.key)]).to.deep.equal(['UPDATE first', 'UPDATE second']);
      expect([publicRequestId(first.key), publicRequestId(second.key)]).to.deep.equal(['same-id', 'same-id']);
      first.close();
      expect([commitMarkOf(first.key), commitMarkOf(second.key)]).to.deep.equal([undefined, 'UPDATE second']);
      const third = openRequest('same-id');
      expect(third.key, 'the id is free again as a key').to.equal('same-id');
      second.close();
      third.close();
      expect(commitMarkOf('same-id')).to.equal(undefined);
    });
  });
});
