import { expect } from 'chai';
import { config, setConfig } from '../../config';
import { ciaProcessors } from '../../lib/cia/cia.processor';
import { db } from '../../lib/db/knex';
import { mergedJobId } from '../../lib/queue/merged-jobs';
import { addToOutbox } from '../../lib/queue/outbox';
import { QueueRegistry, queues } from '../../lib/queue/queue.registry';
import { OutboxRelay } from '../../lib/queue/relay';
import { startWorker } from '../../lib/queue/worker';
import { call, newSeller, Seller } from '../support/api';
import { forgetOtherSellersBacklog, startSandbox, Sandbox, waitFor } from './support';

/** Commits cia.adjust rows (and one event.emit) of the seller in one transaction; their job ids. */
async function commitAdjusts(accountId: number, stockIds: number[]): Promise<string[]> {
  return db().transaction(async (trx) => {
    const ids: string[] = [];
    for (const stockId of stockIds) ids.push(await addToOutbox(trx, accountId, 'cia.adjust', { accountId, stockId, reason: 'test' }));
    await addToOutbox(trx, accountId, 'event.emit', { accountId, section: 'order', type: 'created', recordId: '1_2026_11' });
    return ids;
  });
}

const rowsOf = async (jobIds: string[]) =>
  (await db()('outbox').whereIn('job_id', jobIds).orderBy('id').select('job_id', 'relayed_at', 'relayed_as', 'state', 'result')) as {
    job_id: string;
    relayed_at: Date | null;
    relayed_as: string | null;
    state: string | null;
    result: { stock_id: number; portals: { portal: string; quantity: number }[] } | null;
  }[];

describe('fleet: outbox relay carrying several cia.adjust rows as one job', () => {
  let seller: Seller;
  let relay: OutboxRelay | undefined;
  before(async () => {
    seller = await newSeller();
    await forgetOtherSellersBacklog(seller.id);
  });
  afterEach(async () => {
    await relay?.stop();
  });

  it('when a pass takes several cia.adjust rows of one account, then one cia.adjust_many carries them, each row naming it; other jobs stay their own', async () => {
    const ids = await commitAdjusts(seller.id, [11, 12, 11]);
    relay = new OutboxRelay({ pollMs: 3600000, repairEveryMs: 0, merge: true });
    await relay.start();
    await relay.idle();
    const rows = await rowsOf(ids);
    const carrier = mergedJobId(ids);
    expect(rows.map((r) => r.relayed_as)).to.deep.equal([carrier, carrier, carrier]);
    const job = await queues().get('cia').getJob(carrier);
    expect(job?.name).to.equal('cia.adjust_many');
    expect(job?.data.accountId).to.equal(seller.id);
    expect(job?.data.parts.map((p: { jobId: string; data: { stockId: number } }) => [p.jobId, p.data.stockId])).to.deep.equal([
      [ids[0], 11],
      [ids[1], 12],
      [ids[2], 11],
    ]);
    expect(await queues().get('cia').getJob(ids[0]!)).to.equal(undefined);
    // The event in the same transaction is a job of its own.
    const [event] = (await db()('outbox').where({ account_id: seller.id, job_name: 'event.emit' }).select('job_id', 'relayed_as')) as {
      job_id: string;
      relayed_as: string | null;
    }[];
    expect(event!.relayed_as).to.equal(null);
    expect((await queues().get('events').getJob(event!.job_id))?.name).to.equal('event.emit');
  });

  it('when a merged job is lost from Redis, then the repair sweep adds its rows again, merged', async () => {
    // Queues of their own: the sweep re-adds every row without a job (other files' too), which
    // must not land in the queues the other tests' workers serve.
    const prefix = config().queuePrefix;
    setConfig({ ...config(), queuePrefix: `${prefix}-repair` });
    const registry = new QueueRegistry();
    try {
      const ids = await commitAdjusts(seller.id, [21, 22]);
      relay = new OutboxRelay({ queues: registry, pollMs: 3600000, repairEveryMs: 0, repairAfterSeconds: 0, merge: true });
      await relay.start();
      await relay.idle();
      const carrier = mergedJobId(ids);
      await registry.get('cia').remove(carrier);
      expect(await registry.get('cia').getJob(carrier)).to.equal(undefined);
      await relay.repair();
      // Each row is carried again by a merged job holding it (with the other rows found lost in
      // the same page, other tests' of this seller included, so the id may differ).
      for (const row of await rowsOf(ids)) {
        const job = await registry.get('cia').getJob(row.relayed_as ?? '');
        expect(job?.name).to.equal('cia.adjust_many');
        expect(job?.data.parts.map((p: { jobId: string }) => p.jobId)).to.include(row.job_id);
      }
      await relay.stop();
      for (const queue of ['cia', 'events', 'mail', 'bank', 'portal_upload', 'order_import'] as const) await registry.get(queue).obliterate({ force: true });
    } finally {
      await registry.close();
      setConfig({ ...config(), queuePrefix: prefix });
    }
  });

  describe('with the cia worker and the sandbox', () => {
    let sandbox: Sandbox;
    let stop: (() => Promise<void>) | undefined;
    before(async () => {
      sandbox = await startSandbox();
      const worker = await startWorker('cia', ciaProcessors, { skipEvictionCheck: true, registerShutdown: false, concurrency: 2 });
      stop = () => worker.close(true);
    });
    after(async () => {
      await stop?.();
      await sandbox.close();
    });

    it("when a merged job completes, then each row gets its own item's result, and GET job/{job_id}/ answers it", async () => {
      const items: number[] = [];
      for (const quantity of [3, 5]) {
        const res = await call('stock/', {
          token: seller.token,
          body: { stock: { name: `Merged ${quantity}`, quantity, cia: { shop_g: { is_active: true } } } },
        });
        expect(res.status, res.text).to.equal(201);
        items.push(Number(res.body.stock_id));
      }
      const [a, b] = items;
      // The items' own cia.adjust rows are relayed too; these are the ones looked at.
      const ids = await commitAdjusts(seller.id, [a!, b!]);
      relay = new OutboxRelay({ pollMs: 3600000, repairEveryMs: 0, merge: true });
      await relay.start();
      const rows = await waitFor('every part finished', async () => {
        const current = await rowsOf(ids);
        return current.every((r) => r.state !== null) ? current : undefined;
      });
      expect(rows.map((r) => r.state)).to.deep.equal(['completed', 'completed']);
      expect(rows.map((r) => [r.result!.stock_id, r.result!.portals.map((p) => [p.portal, p.quantity])])).to.deep.equal([
        [a, [['shop_g', 3]]],
        [b, [['shop_g', 5]]],
      ]);
      const status = (await call(`job/${ids[1]}/`, { token: seller.token })).body as { job: { state: string; result: { stock_id: number } } };
      expect(status.job.state).to.equal('completed');
      expect(status.job.result.stock_id).to.equal(b);
    });
  });
});
