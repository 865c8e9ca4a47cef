import type { ChildProcess } from 'node:child_process';
import { expect } from 'chai';
import { config, setConfig } from '../../config';
import { db } from '../../lib/db/knex';
import { startQueueRecovery } from '../../lib/queue-recovery/queue-recovery';
import { closeQueues, queues } from '../../lib/queue/queue.registry';
import { freePort, killChild, spawnWorker, startRedisServer } from '../support/process';
import { call, newSeller, Seller } from '../support/api';
import { Fleet, forgetOtherSellersBacklog, Sandbox, startFleet, startSandbox, waitFor } from './support';

async function createItem(seller: Seller, sku: string, quantity: number, cia: Record<string, unknown>): Promise<number> {
  const res = await call('stock/', { token: seller.token, body: { stock: { name: sku, sku, quantity, cia } } });
  expect(res.status, res.text).to.equal(201);
  return Number(res.body.stock_id);
}

async function allAcked(seller: Seller, stockIds: number[], portals: number): Promise<boolean> {
  const rows = (await db()('cia_portal_state').where({ account_id: seller.id }).whereIn('stock_id', stockIds)) as { acked_seq: string; desired_seq: string }[];
  return rows.length === stockIds.length * portals && rows.every((r) => r.acked_seq === r.desired_seq);
}

describe('fleet: faults', function () {
  this.timeout(60000);
  let sandbox: Sandbox;
  let fleet: Fleet | undefined;
  let seller: Seller;
  before(async () => {
    sandbox = await startSandbox();
  });
  after(async () => {
    await sandbox.close();
  });
  beforeEach(async () => {
    seller = await newSeller();
    await forgetOtherSellersBacklog(seller.id);
  });
  afterEach(async () => {
    await fleet?.stop();
    fleet = undefined;
  });

  it("when a portal_upload worker is killed in the middle of pushes, then after a restart every push completes and the sandbox applied each item's quantity once", async () => {
    // Queues of its own: a worker of an earlier test, with the default lock, holds BullMQ's
    // stalled-check key of the shared queues for that long, which would delay the take-over.
    const shared = config().queuePrefix;
    await closeQueues();
    setConfig({ ...config(), queuePrefix: `${shared}-kill` });
    sandbox.state.delays.set('shop_g', 2000);
    fleet = await startFleet({ only: ['cia'] });
    // the worker as its own process, so that SIGKILL hits it.
    const child = spawnWorker('workers/portal_upload.ts', { SANDBOX_PORTAL_URL: sandbox.url, WORKER_LOCK_MS: '1500', PORTAL_CALLS_PER_SECOND: '1000' });
    let restarted: Fleet | undefined;
    try {
      const items = [
        await createItem(seller, 'K1', 5, { shop_g: { is_active: true } }),
        await createItem(seller, 'K2', 6, { shop_g: { is_active: true } }),
        await createItem(seller, 'K3', 7, { shop_g: { is_active: true } }),
      ];
      await waitFor('a push in flight at the sandbox', () => sandbox.state.inFlight > 0, 30000);
      await killChild(child);
      sandbox.state.delays.delete('shop_g');
      restarted = await startFleet({ only: ['portal_upload'], lockDuration: 1500 });
      await waitFor('every push acknowledged', () => allAcked(seller, items, 1), 30000, 100);
      const shown = sandbox.state.quantities(String(seller.portalAccountId)).shop_g ?? {};
      expect(items.map((id) => shown[String(id)])).to.deep.equal([5, 6, 7]);
      for (const id of items) expect(sandbox.state.quantitiesApplied('shop_g', String(id)), `item ${id}`).to.have.length(1);
    } finally {
      sandbox.state.delays.delete('shop_g');
      await killChild(child);
      await restarted?.stop();
      await fleet?.stop();
      fleet = undefined;
      await closeQueues();
      setConfig({ ...config(), queuePrefix: shared });
    }
  });

  describe('with a Redis of its own', () => {
    let redisProcess: ChildProcess | undefined;
    const original = config().redisUrl;
    let port = 0;
    beforeEach(async () => {
      port = await freePort();
      redisProcess = await startRedisServer(port);
      await closeQueues();
      setConfig({ ...config(), redisUrl: `redis://127.0.0.1:${port}` });
    });
    afterEach(async () => {
      await fleet?.stop();
      fleet = undefined;
      await closeQueues();
      if (redisProcess) await killChild(redisProcess);
      setConfig({ ...config(), redisUrl: original });
    });

    it('when Redis is stopped while orders are posted, then every order succeeds and every quantity reaches the sandbox after Redis returns', async () => {
      fleet = await startFleet();
      const cia = { shop_g: { is_active: true }, market_e: { is_active: true } };
      const items = [await createItem(seller, 'R1', 10, cia), await createItem(seller, 'R2', 10, cia)];
      await waitFor('first quantities', () => allAcked(seller, items, 2), 15000, 50);
      await killChild(redisProcess!);
      for (let i = 0; i < 4; i++) {
        const res = await call('order/', {
          token: seller.token,
          body: {
            order: {
              customer: { email: 'b@example.com' },
              line: [
                { id: 1, quantity: 1, price: '1', stock_align_id: 'R1' },
                { id: 2, quantity: 2, price: '1', stock_align_id: 'R2' },
              ],
            },
          },
        });
        expect(res.status, res.text).to.equal(201);
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
      redisProcess = await startRedisServer(port);
      await waitFor(
        'the final quantities at the sandbox',
        () => {
          const shown = sandbox.state.quantities(String(seller.portalAccountId));
          return ['shop_g', 'market_e'].every((p) => shown[p]?.[String(items[0])] === 6 && shown[p]?.[String(items[1])] === 2);
        },
        30000,
        100,
      );
    });

    it('when queued quantity pushes vanish from Redis without a restart, then the periodic sweep pushes them again from Postgres', async () => {
      fleet = await startFleet({ only: ['cia'] });
      const watch = startQueueRecovery(fleet.relay, queues(), { everyMs: 200, periodicMs: 300, settledSeconds: 0 });
      let pushers: Fleet | undefined;
      try {
        const items = [await createItem(seller, 'V1', 8, { shop_g: { is_active: true } })];
        await waitFor(
          'wanted quantity set',
          async () => {
            const open = await db()('outbox').where({ account_id: seller.id }).whereNull('state').first();
            return (await db()('cia_portal_state').where({ account_id: seller.id })).length === 1 && !open;
          },
          15000,
          50,
        );
        // Every push job and its deduplication key gone, the marker kept: no restart to notice.
        await queues().get('portal_upload').obliterate({ force: true });
        pushers = await startFleet({ only: ['portal_upload'] });
        await waitFor(
          'the quantity at the sandbox',
          () => sandbox.state.quantities(String(seller.portalAccountId)).shop_g?.[String(items[0])] === 8,
          15000,
          100,
        );
        await waitFor('the push acknowledged', () => allAcked(seller, items, 1), 5000, 50);
      } finally {
        await watch.stop();
        await pushers?.stop();
      }
    });

    it('when Redis restarts empty and the first re-add from Postgres fails, then the next check adds the lost jobs again', async () => {
      fleet = await startFleet({ only: ['portal_upload'] });
      const relay = fleet.relay;
      const sweep = relay.repairSweep.bind(relay);
      let failNext = false;
      let sweeps = 0;
      relay.repairSweep = async (...args: Parameters<typeof sweep>) => {
        sweeps++;
        if (failNext) {
          failNext = false;
          throw new Error('the database went away in the middle of the sweep');
        }
        return sweep(...args);
      };
      const watch = startQueueRecovery(relay, queues(), { everyMs: 200 });
      let adjusters: Fleet | undefined;
      try {
        // The adjustment is relayed to Redis and waits there: no cia worker runs yet.
        const item = await createItem(seller, 'L1', 5, { shop_g: { is_active: true } });
        await waitFor(
          'the adjustment relayed',
          async () => !(await db()('outbox').where({ account_id: seller.id, job_name: 'cia.adjust' }).whereNull('relayed_at').first()),
          15000,
          50,
        );
        await killChild(redisProcess!);
        failNext = true;
        const before = sweeps;
        redisProcess = await startRedisServer(port);
        adjusters = await startFleet({ only: ['cia'] });
        await waitFor('the quantity at the sandbox', () => sandbox.state.quantities(String(seller.portalAccountId)).shop_g?.[String(item)] === 5, 15000, 100);
        expect(sweeps - before, 'a failed sweep and the one after it').to.be.at.least(2);
      } finally {
        await watch.stop();
        await adjusters?.stop();
      }
    });

    it('when Redis restarts empty while quantity pushes are queued, then every channel shows the right quantity within seconds, without a reconcile', async () => {
      fleet = await startFleet({ only: ['cia'] });
      const watch = startQueueRecovery(fleet.relay, queues(), { everyMs: 200 });
      let pushers: Fleet | undefined;
      try {
        const cia = { shop_g: { is_active: true }, market_e: { is_active: true, max_quantity: 4 } };
        const items = [await createItem(seller, 'Q1', 9, cia), await createItem(seller, 'Q2', 3, cia)];
        // The adjustments are done and their pushes wait in Redis: no portal_upload worker runs yet.
        await waitFor(
          'wanted quantities set',
          async () => {
            const states = await db()('cia_portal_state').where({ account_id: seller.id }).whereIn('stock_id', items);
            const open = await db()('outbox').where({ account_id: seller.id }).whereNull('state').first();
            return states.length === 4 && !open;
          },
          15000,
          50,
        );
        expect(await queues().get('portal_upload').getJobCountByTypes('delayed', 'waiting')).to.be.greaterThan(0);
        await killChild(redisProcess!);
        redisProcess = await startRedisServer(port);
        pushers = await startFleet({ only: ['portal_upload'] });
        await waitFor(
          'the quantities at the sandbox',
          () => {
            const shown = sandbox.state.quantities(String(seller.portalAccountId));
            return (
              shown.shop_g?.[String(items[0])] === 9 &&
              shown.shop_g?.[String(items[1])] === 3 &&
              shown.market_e?.[String(items[0])] === 4 &&
              shown.market_e?.[String(items[1])] === 3
            );
          },
          15000,
          100,
        );
        await waitFor('every push acknowledged', () => allAcked(seller, items, 2), 5000, 50);
      } finally {
        await watch.stop();
        await pushers?.stop();
      }
    });
  });
});
