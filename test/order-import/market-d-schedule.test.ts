/**
 * The scheduled order fetch of market_d against searchOrders' usage plan (0.0056 requests a
 * second, burst 20): a market_d account is fetched every MARKET_D_ORDER_FETCH_INTERVAL_SECONDS
 * (180), the others every ORDER_FETCH_INTERVAL_SECONDS.
 */
import crypto from 'node:crypto';
import { expect } from 'chai';
import { config, setConfig } from '../../config';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { db } from '../../lib/db/knex';
import { fetchDue, fetchIntervalSeconds, queueOrderImports } from '../../lib/order-import/order-import.request';
import { orderImportProcessors } from '../../lib/order-import/order-import.processor';
import { closeQueues, queues } from '../../lib/queue/queue.registry';
import { Sandbox, startSandbox } from '../fleet/support';
import { newSeller } from '../support/api';
import { startQueueWorker } from '../support/queue-worker';
import { importNow } from './support';

describe('order import on schedule: market_d within searchOrders’ usage plan', () => {
  const original = config();
  afterEach(async () => {
    await closeQueues();
    setConfig(original);
  });

  it('when the fetch interval is 60 s and market_d’s 180 s, then a market_d account is due on every third tick and the others on every tick', () => {
    setConfig({ ...original, orderFetchIntervalSeconds: 60, marketDOrderFetchIntervalSeconds: 180 });
    expect(fetchIntervalSeconds('market_d')).to.equal(180);
    expect(fetchIntervalSeconds('auction_a')).to.equal(60);
    // Slot n of 60 s starts at n * 60 s since the epoch; 180 s slots start at multiples of 3.
    const ticks = [300, 301, 302, 303, 304, 305, 306].map(String);
    expect(ticks.map((t) => fetchDue('market_d', t))).to.deep.equal([true, false, false, true, false, false, true]);
    expect(ticks.every((t) => fetchDue('auction_a', t))).to.equal(true);
    // An operator's tick (no slot number) fetches every account.
    expect(fetchDue('market_d', 'manual')).to.equal(true);
    // The plan's interval (1 / 0.0056 = 179 s) carries one searchOrders page per fetch.
    expect(fetchIntervalSeconds('market_d') * 0.0056).to.be.at.least(1);
  });

  it('when market_d’s interval is below the general one, then market_d is fetched at the general one', () => {
    setConfig({ ...original, orderFetchIntervalSeconds: 300, marketDOrderFetchIntervalSeconds: 180 });
    expect(fetchIntervalSeconds('market_d')).to.equal(300);
    expect(['10', '11', '12'].every((t) => fetchDue('market_d', t))).to.equal(true);
  });

  it('when order.import_all runs for three ticks in a row, then the seller’s market_d account is queued once and its eBay account three times', async () => {
    await closeQueues();
    setConfig({
      ...original,
      queuePrefix: `test-schedule-${crypto.randomBytes(4).toString('hex')}`,
      orderFetchIntervalSeconds: 60,
      marketDOrderFetchIntervalSeconds: 180,
    });
    const seller = await newSeller();
    const amazon = (await createPortalAccount(seller.id, { name: 'Amazon.de', platform: 'market_d' })).id as number;
    const ebay = (await createPortalAccount(seller.id, { name: 'eBay', platform: 'auction_a' })).id as number;
    // Connected: the scheduler fetches accounts with credentials or a base URL of their own.
    await db()('portal_account').whereIn('id', [amazon, ebay]).update({ base_url: 'http://127.0.0.1:9' });
    for (const tick of ['601', '602', '603']) await queueOrderImports(tick);
    const jobs = (await queues().get('order_import').getJobs(['waiting', 'delayed', 'active', 'completed', 'failed'])).filter(
      (j) => j.name === 'order.import' && (j.data as { accountId: number }).accountId === seller.id,
    );
    expect(jobs.map((j) => j.id).sort()).to.deep.equal(
      [`order-import-${amazon}-603`, `order-import-${ebay}-601`, `order-import-${ebay}-602`, `order-import-${ebay}-603`].sort(),
    );
    await queues().get('order_import').obliterate({ force: true });
  });
});

describe('order import of market_d: the overlap of each fetch', () => {
  let sandbox: Sandbox;
  let worker: { stop(): Promise<void> } | undefined;
  before(async () => {
    sandbox = await startSandbox();
    worker = await startQueueWorker('order_import', orderImportProcessors, 'overlap');
  });
  after(async () => {
    await worker?.stop();
    await sandbox.close();
  });

  it('when a market_d account is fetched again, then searchOrders asks from 3 minutes before the last fetch (Amazon shows a change within 2), not 10', async () => {
    const seller = await newSeller();
    const shop = (await createPortalAccount(seller.id, { name: 'Amazon.de', platform: 'market_d' })).id as number;
    const first = await importNow(seller, shop);
    expect(first.state, first.error).to.equal('completed');
    const { orders_fetched_until: until } = (await db()('portal_account').where({ id: shop }).first('orders_fetched_until')) as { orders_fetched_until: Date };
    const second = await importNow(seller, shop);
    expect(second.state, second.error).to.equal('completed');
    const searches = sandbox.state.requests.filter((r) => r.portalAccount === String(shop) && r.path === '/orders/2026-01-01/orders');
    expect(searches).to.have.length(2);
    expect(Date.parse(String(searches[1]!.query!.lastUpdatedAfter))).to.equal(until.getTime() - 3 * 60_000);
    expect(second.result).to.deep.include({ since: new Date(until.getTime() - 3 * 60_000).toISOString() });
  });
});
