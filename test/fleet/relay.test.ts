import { spawn, ChildProcess } from 'node:child_process';
import net from 'node:net';
import { expect } from 'chai';
import { config, setConfig } from '../../config';
import { db } from '../../lib/db/knex';
import { addKeyedToOutbox, addToOutbox } from '../../lib/queue/outbox';
import { QueueRegistry, queues } from '../../lib/queue/queue.registry';
import { OutboxRelay } from '../../lib/queue/relay';
import { newSeller, Seller } from '../support/api';
import { startCuttableProxy } from '../support/cuttable-proxy';
import { freePort } from '../support/process';
import { waitFor } from './support';

async function commitJobs(accountId: number, n: number): Promise<string[]> {
  return db().transaction(async (trx) => {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) ids.push(await addToOutbox(trx, accountId, 'cia.adjust', { accountId, stockId: 1000 + i, reason: 'test' }));
    return ids;
  });
}

const relayedAt = async (jobIds: string[]) =>
  (await db()('outbox').whereIn('job_id', jobIds).select('relayed_at')).map((r: { relayed_at: Date | null }) => r.relayed_at);

function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--maxmemory-policy', 'noeviction'], {
    stdio: 'ignore',
  });
  return waitFor(
    'a private redis-server',
    () =>
      new Promise<ChildProcess | undefined>((resolve) => {
        const socket = net.connect(port, '127.0.0.1', () => {
          socket.end();
          resolve(child);
        });
        socket.on('error', () => resolve(undefined));
      }),
    5000,
  ).then(() => child);
}

async function stopRedis(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

describe('fleet: outbox relay', () => {
  let seller: Seller;
  let relay: OutboxRelay;
  before(async () => {
    seller = await newSeller();
  });
  afterEach(async () => {
    await relay?.stop();
  });

  it("when a transaction commits an outbox row, then the relay queues it under the row's job id, woken by NOTIFY", async () => {
    // The poll is an hour: only the NOTIFY of the commit can wake the relay in time.
    relay = new OutboxRelay({ pollMs: 3600000, repairEveryMs: 0 });
    await relay.start();
    const [jobId] = await commitJobs(seller.id, 1);
    const job = await waitFor('the job in BullMQ', () => queues().get('cia').getJob(jobId!), 3000);
    expect(job.name).to.equal('cia.adjust');
    expect(job.data).to.deep.equal({ accountId: seller.id, stockId: 1000, reason: 'test' });
    expect(job.opts.attempts).to.equal(config().jobAttempts);
    expect(job.opts.backoff).to.include({ type: 'exponential' });
    await waitFor('relayed_at set', async () => (await relayedAt([jobId!]))[0] ?? undefined, 3000);
  });

  it('when a worker schedules a job for later under a key twice (a retry), then one row is relayed, under the key, delayed by what is left of its time, its data naming its row', async () => {
    relay = new OutboxRelay({ pollMs: 3600000, repairEveryMs: 0 });
    const key = `later-${seller.id}-${Date.now()}`;
    const payload = { accountId: seller.id, stockId: 1, reason: 'test' };
    const first = await db().transaction((trx) => addKeyedToOutbox(trx, seller.id, 'cia.adjust', payload, key, 60000));
    const second = await db().transaction((trx) => addKeyedToOutbox(trx, seller.id, 'cia.adjust', payload, key, 60000));
    expect(first).to.be.a('string');
    expect(second).to.equal(undefined);
    expect(await db()('outbox').where({ account_id: seller.id, job_key: key })).to.have.length(1);
    try {
      await relay.start();
      const job = await waitFor('the job in BullMQ under its key', () => queues().get('cia').getJob(key), 3000);
      expect(job.data).to.deep.equal({ ...payload, outbox_job_id: first });
      expect(await job.getState()).to.equal('delayed');
      expect(job.delay).to.be.within(30000, 60000);
      expect(await db()('outbox').where({ job_id: first }).first('relayed_as')).to.deep.equal({ relayed_as: key });
      await job.remove();
    } finally {
      // Finished, so that no later repair adds it again.
      await db()('outbox').where({ job_id: first }).update({ state: 'completed', finished_at: db().fn.now() });
    }
  });

  it('when the transaction rolls back, then nothing is queued', async () => {
    relay = new OutboxRelay({ pollMs: 3600000, repairEveryMs: 0 });
    await relay.start();
    let jobId = '';
    await db()
      .transaction(async (trx) => {
        jobId = await addToOutbox(trx, seller.id, 'cia.adjust', { accountId: seller.id, stockId: 1, reason: 'test' });
        throw new Error('rollback');
      })
      .catch(() => undefined);
    relay.kick();
    await relay.idle();
    expect(await db()('outbox').where({ job_id: jobId }).first()).to.equal(undefined);
    expect(await queues().get('cia').getJob(jobId)).to.equal(undefined);
  });

  it('when two relays run, then one leads and the other stands by, and when the leader stops, the standby takes over', async () => {
    relay = new OutboxRelay({ pollMs: 3600000, repairEveryMs: 0, standbyRetryMs: 100 });
    const second = new OutboxRelay({ pollMs: 3600000, repairEveryMs: 0, standbyRetryMs: 100 });
    await relay.start();
    await second.start();
    try {
      expect([relay.leading, second.leading]).to.deep.equal([true, false]);
      const [first] = await commitJobs(seller.id, 1);
      await waitFor('relayed by the leader', async () => (await relayedAt([first!]))[0] ?? undefined, 3000);
      expect(second.relayed).to.equal(0);
      await relay.stop();
      await waitFor('the standby leading', () => second.leading, 3000);
      const [next] = await commitJobs(seller.id, 1);
      await waitFor('relayed by the new leader', async () => (await relayedAt([next!]))[0] ?? undefined, 3000);
      expect(await queues().get('cia').getJob(next!)).to.not.equal(undefined);
      expect(second.relayed).to.be.at.least(1);
    } finally {
      await second.stop();
    }
  });

  it("when the leader's session is cut off (a partition: no reset, no close), then it gives up leading and the standby takes over", async () => {
    const proxy = await startCuttableProxy(Number(new URL(config().databaseUrl).port || 5432), new URL(config().databaseUrl).hostname);
    const viaProxy = new URL(config().databaseUrl);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    relay = new OutboxRelay({ pollMs: 3600000, repairEveryMs: 0, standbyRetryMs: 100, heartbeatMs: 300, listenUrl: viaProxy.toString() });
    const second = new OutboxRelay({ pollMs: 3600000, repairEveryMs: 0, standbyRetryMs: 100, heartbeatMs: 300 });
    try {
      await relay.start();
      await second.start();
      expect([relay.leading, second.leading]).to.deep.equal([true, false]);
      proxy.cut();
      // Without the heartbeat the lock stays with the cut-off session until TCP keepalive (hours).
      await waitFor('the cut-off leader to give up', () => !relay.leading || undefined, 3000);
      await waitFor('the standby leading (Postgres ended the silent session)', () => second.leading || undefined, 5000);
      const [next] = await commitJobs(seller.id, 1);
      await waitFor('relayed by the new leader', async () => (await relayedAt([next!]))[0] ?? undefined, 3000);
      expect(relay.leading, 'the old leader, still cut off, does not lead again').to.equal(false);
    } finally {
      await second.stop();
      await relay.stop();
      await proxy.close();
    }
  });

  it('when the leader can no longer reach Redis (a partition: no reset, no close) while a standby can, then the leader gives up leading and the standby relays the rows committed meanwhile', async function () {
    this.timeout(90000);
    const redisUrl = new URL(config().redisUrl);
    const proxy = await startCuttableProxy(Number(redisUrl.port || 6379), redisUrl.hostname);
    // The leader's producer connection goes through the proxy: its host's path to Redis.
    const original = config();
    setConfig({ ...original, redisUrl: `redis://127.0.0.1:${proxy.port}` });
    const viaProxy = new QueueRegistry();
    viaProxy.client();
    setConfig(original);
    relay = new OutboxRelay({ queues: viaProxy, pollMs: 500, repairEveryMs: 0, standbyRetryMs: 100 });
    const second = new OutboxRelay({ queues: queues(), pollMs: 500, repairEveryMs: 0, standbyRetryMs: 100 });
    try {
      await relay.start();
      await second.start();
      expect([relay.leading, second.leading]).to.deep.equal([true, false]);
      const [first] = await commitJobs(seller.id, 1);
      await waitFor('relayed by the leader', async () => (await relayedAt([first!]))[0] ?? undefined, 5000);
      proxy.cut();
      const [next] = await commitJobs(seller.id, 1);
      // Without giving up, the leader kept the lock and retried its adds for as long as it ran.
      await waitFor('the row committed after the cut in Redis', () => queues().get('cia').getJob(next!), 45000, 200);
      await waitFor('its row marked relayed', async () => (await relayedAt([next!]))[0] ?? undefined, 5000);
      expect({ leader: relay.leading, standby: second.leading }).to.deep.equal({ leader: false, standby: true });
      expect(second.relayed).to.be.at.least(1);
    } finally {
      await second.stop();
      await relay.stop();
      await viaProxy.close();
      await proxy.close();
    }
  });

  it('when two relays take batches at the same time (a take-over), then each row becomes exactly one job', async () => {
    relay = new OutboxRelay({ pollMs: 3600000, repairEveryMs: 0, batch: 25 });
    const second = new OutboxRelay({ pollMs: 3600000, repairEveryMs: 0, batch: 25 });
    const ids = await commitJobs(seller.id, 300);
    // Driven directly, both at once, whichever leads: rows one holds are skipped by the other.
    const drain = async (r: OutboxRelay) => {
      while ((await r.relayBatch()) > 0) {
        /* more waiting */
      }
    };
    await Promise.all([drain(relay), drain(second)]);
    expect((await relayedAt(ids)).every((r) => r !== null)).to.equal(true);
    expect(relay.relayed + second.relayed).to.be.at.least(300);
    expect(relay.relayed, 'the first relay took part').to.be.above(0);
    expect(second.relayed, 'the second relay took part').to.be.above(0);
    const jobs = await Promise.all(ids.map((id) => queues().get('cia').getJob(id)));
    expect(jobs.every((j) => j !== undefined)).to.equal(true);
    const rows = await db()('outbox').whereIn('job_id', ids).count<{ count: string }[]>('* as count');
    expect(Number(rows[0]!.count)).to.equal(300);
  });

  it('when a job id is already in BullMQ (a crash between the add and the commit), then relaying again keeps the one job', async () => {
    const [jobId] = await db().transaction(async (trx) => [
      await addToOutbox(trx, seller.id, 'cia.adjust', { accountId: seller.id, stockId: 7, reason: 'test' }),
    ]);
    await queues().get('cia').add('cia.adjust', { accountId: seller.id, stockId: 7, reason: 'first add' }, { jobId });
    relay = new OutboxRelay({ pollMs: 3600000, repairEveryMs: 0 });
    await relay.start();
    await waitFor('relayed_at set', async () => (await relayedAt([jobId!]))[0] ?? undefined, 3000);
    const job = await queues().get('cia').getJob(jobId!);
    expect(job?.data.reason).to.equal('first add');
  });

  describe('with a Redis of its own that goes away', () => {
    let redisProcess: ChildProcess | undefined;
    let registry: QueueRegistry;
    const original = config().redisUrl;
    let port = 0;

    beforeEach(async () => {
      port = await freePort();
      redisProcess = await startRedis(port);
      setConfig({ ...config(), redisUrl: `redis://127.0.0.1:${port}` });
      registry = new QueueRegistry();
    });
    afterEach(async () => {
      await relay?.stop();
      await registry.close();
      if (redisProcess) await stopRedis(redisProcess);
      setConfig({ ...config(), redisUrl: original });
    });

    it('when Redis is down as requests commit, then they commit and their jobs are queued once Redis is back', async () => {
      relay = new OutboxRelay({ queues: registry, pollMs: 3600000, repairEveryMs: 0 });
      await relay.start();
      await stopRedis(redisProcess!);
      const ids = await commitJobs(seller.id, 5);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect((await relayedAt(ids)).every((r) => r === null)).to.equal(true);
      redisProcess = await startRedis(port);
      await waitFor('rows relayed after Redis returned', async () => (await relayedAt(ids)).every((r) => r !== null), 15000);
      const jobs = await Promise.all(ids.map((id) => registry.get('cia').getJob(id)));
      expect(jobs.map((j) => j?.data.stockId)).to.deep.equal([1000, 1001, 1002, 1003, 1004]);
    });

    it('when Redis restarts without persistence and loses relayed jobs, then the repair sweep queues them again', async () => {
      relay = new OutboxRelay({ queues: registry, pollMs: 3600000, repairEveryMs: 0, repairAfterSeconds: 0 });
      await relay.start();
      const ids = await commitJobs(seller.id, 3);
      await waitFor('rows relayed', async () => (await relayedAt(ids)).every((r) => r !== null), 5000);
      await stopRedis(redisProcess!);
      redisProcess = await startRedis(port);
      await waitFor('the producer connection back', async () => (await registry.get('cia').getJobCounts('wait')).wait === 0, 5000);
      expect(await registry.get('cia').getJob(ids[0]!)).to.equal(undefined);
      await waitFor(
        'the repair re-adding',
        async () => (await relay.repair()) === 0 && (await Promise.all(ids.map((id) => registry.get('cia').getJob(id)))).every(Boolean),
        10000,
        200,
      );
    });
  });
});
