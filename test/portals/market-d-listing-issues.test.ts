/**
 * market_d at Amazon: putListingsItem's ACCEPTED means only "The listings submission was
 * accepted for processing" (ListingsItemSubmissionResponse, listingsItems_2021-08-01.json).
 * Amazon processes the listing afterwards, and a problem it finds then shows only on the listing
 * item (getListingsItem: issues with severity and IssueEnforcements, summaries[].status without
 * BUYABLE). The portal_upload job completed and the seller believed the offer live; now a check
 * some time later gives the seller a task, once per submission.
 */
import type { ChildProcess } from 'node:child_process';
import { expect } from 'chai';
import { config, setConfig } from '../../config';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { db } from '../../lib/db';
import { queues } from '../../lib/queue';
import { startQueueRecovery } from '../../lib/queue-recovery';
import { amazonOf } from '../../sandbox/amazon.sandbox';
import { channelLoopForSuite, closeQueues, Fleet, jobEnd, Sandbox, waitFor } from '../fleet/support';
import { call, newSeller, Seller } from '../support/api';
import { freePort, killChild, startRedisServer } from '../support/process';

/** The sandbox of the describe block running (each starts its own). */
let sandbox: Sandbox;

const control = async (path: string, body: unknown) => {
  const res = await fetch(`${sandbox.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status, await res.clone().text()).to.be.oneOf([200, 201]);
  return res.json() as Promise<Record<string, unknown>>;
};
const tasksOf = async (seller: Seller, stockId: number) => {
  const res = await call('task/', { token: seller.token });
  expect(res.status, res.text).to.equal(200);
  return (res.body.task as { reference: { stock_id?: string } }[]).filter((t) => t.reference.stock_id === String(stockId)) as Record<string, unknown>[];
};
/** A check job's end (the sandbox's getListingsItem answered and the outcome recorded). */
const checkEnd = (uploadJobId: string, n: number) =>
  waitFor(`listing check ${n}`, async () => {
    const id = `listing-check-${uploadJobId}-${n}`;
    if (!(await (await queues().get('portal_upload').getJob(id))?.isCompleted())) return undefined;
    // Read again: a job read just before it completed has no return value (a null seen on a loaded machine).
    return ((await queues().get('portal_upload').getJob(id))?.returnvalue ?? undefined) as Record<string, unknown> | undefined;
  });

/** Amazon will report the listing suppressed for a minimum price above the selling price (code 18155). */
const suppressListing = (sku: string, portalAccountId: number) =>
  control(`/_sandbox/amazon/listings/${sku}/issue`, {
    portal_account: portalAccountId,
    code: '18155',
    message: "The 'minimum price' is greater than the selling price (excluding shipping) for the listing.",
    severity: 'ERROR',
    categories: ['INVALID_PRICE'],
    enforcement: 'LISTING_SUPPRESSED',
  });

/** A seller with an Amazon account and an item with a market_d group, listed by portal_upload; the job's end and ids. */
async function listed(sku: string, quantity = 5) {
  const seller = await newSeller();
  const { id: portalAccountId } = await createPortalAccount(seller.id, { name: 'Amazon.de', platform: 'market_d' });
  const created = await call('stock/', {
    token: seller.token,
    body: { stock: { name: 'Teekanne', sku, quantity, market_d: { id_type: 'EAN', id: '4006381333931', price: '19.90' } } },
  });
  expect(created.status, created.text).to.equal(201);
  const stockId = Number(created.body.stock_id);
  const list = async () => {
    const upload = await call(`stock/${stockId}/portal_upload/`, {
      token: seller.token,
      body: { portal_upload: { market_d: [{ action: 'list', portal_account_id: portalAccountId }] } },
    });
    expect(upload.status, upload.text).to.equal(207);
    const jobId = (upload.body.response as { job_id: string }[])[0]!.job_id;
    return { jobId, end: await jobEnd(seller.token, jobId) };
  };
  return { seller, portalAccountId, stockId, list };
}

describe('market_d at Amazon: a listing accepted for processing and refused later gives the seller a task', function () {
  this.timeout(60000);
  channelLoopForSuite((loop) => ({ sandbox } = loop));
  const before = config();
  beforeEach(() => setConfig({ ...config(), marketDListingCheckMs: 150, marketDListingChecks: 3 }));
  after(() => setConfig({ ...config(), marketDListingCheckMs: before.marketDListingCheckMs, marketDListingChecks: before.marketDListingChecks }));

  it('when Amazon suppresses the listing after accepting it, then the job completed and the check gives the seller one high-priority stock_lister task with Amazon’s code and message', async () => {
    const sku = 'AZ-SUP-1';
    const { seller, portalAccountId, stockId, list } = await listed(sku);
    await control('/_sandbox/amazon/config', { listing_ms: 0 });
    await suppressListing(sku, portalAccountId);
    const { jobId, end } = await list();
    expect(end.state, end.error).to.equal('completed');
    expect(end.result).to.deep.include({ action: 'list', portal: 'market_d', portal_item_id: sku });

    const task = await waitFor('the task', async () => (await tasksOf(seller, stockId))[0]);
    expect(task).to.deep.include({
      reference: { section: 'stock_lister', id: sku, platform: 'market_d', stock_id: String(stockId) },
      priority: 'high',
      is_completed: false,
    });
    expect(task.title).to.equal(`market_d: Amazon enforces LISTING_SUPPRESSED on SKU ${sku}`);
    expect(task.text).to.contain("18155 ERROR: The 'minimum price' is greater than the selling price (excluding shipping) for the listing.");
    expect(task.text).to.contain('[enforcement: LISTING_SUPPRESSED, NOT_EXEMPT]');
    expect(task.text).to.contain(`status DISCOVERABLE in A1PA6795UKMFR9`);
    expect(task.text).to.contain(jobId);
    // What the check asked Amazon: getListingsItem with summaries and issues.
    const gets = sandbox.state.requests.filter((r) => r.portalAccount === String(portalAccountId) && r.method === 'GET' && r.path.endsWith(`/${sku}`));
    expect(gets[0]!.query).to.deep.include({ includedData: 'summaries,issues,fulfillmentAvailability', marketplaceIds: 'A1PA6795UKMFR9' });

    // A second run of the check (a retry, a re-added job) makes no second task.
    const first = await checkEnd(jobId, 1);
    expect(first).to.deep.include({ state: 'problem' });
    await queues().add(
      'portal.listing_check',
      { accountId: seller.id, stockId, portal: 'market_d', portalAccountId, uploadJobId: jobId, check: 1 },
      `again-${jobId}`,
    );
    await waitFor('the second run', async () => {
      const job = await queues().get('portal_upload').getJob(`again-${jobId}`);
      return job && (await job.isCompleted());
    });
    expect(await tasksOf(seller, stockId)).to.have.length(1);
  });

  it('when the listing is fine, then the check makes no task and checks no more', async () => {
    const sku = 'AZ-OK-1';
    const { seller, stockId, list } = await listed(sku);
    await control('/_sandbox/amazon/config', { listing_ms: 0 });
    const { jobId, end } = await list();
    expect(end.state, end.error).to.equal('completed');
    expect(await checkEnd(jobId, 1)).to.deep.include({ state: 'live' });
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await queues().get('portal_upload').getJob(`listing-check-${jobId}-2`)).to.equal(undefined);
    expect(await tasksOf(seller, stockId)).to.deep.equal([]);
  });

  it('when Amazon is still processing at the first check, then it checks again and tells the problem found later; a listing never processed is told after the last check', async () => {
    const { seller, portalAccountId, stockId, list } = await listed('AZ-LATE-1');
    // Amazon finishes processing only when the test says (below), and the checks are a second
    // apart: on a loaded machine a check may come late, never before the test has spoken.
    await control('/_sandbox/amazon/config', { listing_ms: 60000 });
    setConfig({ ...config(), marketDListingCheckMs: 1000 });
    await control('/_sandbox/amazon/listings/AZ-LATE-1/issue', {
      portal_account: portalAccountId,
      code: '90220',
      message: "'size' is required but not supplied.",
      categories: ['MISSING_ATTRIBUTE'],
      attribute_names: ['size'],
    });
    const { jobId } = await list();
    expect(await checkEnd(jobId, 1)).to.deep.include({ state: 'pending', summary: 'Amazon shows no listing of SKU AZ-LATE-1' });
    amazonOf(sandbox.state).listingRecords.get(`${portalAccountId}|AZ-LATE-1`)!.processedAt = Date.now();
    const task = await waitFor('the task', async () => (await tasksOf(seller, stockId))[0]);
    expect(task.title).to.equal('market_d: Amazon reports 1 error(s) on SKU AZ-LATE-1');
    expect(task.text).to.contain("90220 ERROR: 'size' is required but not supplied. (attributes: size)");

    setConfig({ ...config(), marketDListingCheckMs: 150 });
    const never = await listed('AZ-NEVER-1');
    await control('/_sandbox/amazon/config', { listing_ms: 60000 });
    try {
      const { jobId: neverJob } = await never.list();
      expect(await checkEnd(neverJob, 3)).to.deep.include({ state: 'pending' });
      const [late] = await tasksOf(never.seller, never.stockId);
      expect(late).to.deep.include({ title: 'market_d: Amazon shows no listing of SKU AZ-NEVER-1 450 ms after listing', priority: 'high' });
      expect(await queues().get('portal_upload').getJob(`listing-check-${neverJob}-4`)).to.equal(undefined);
    } finally {
      await control('/_sandbox/amazon/config', { listing_ms: 300 });
    }
  });
});

describe('market_d at Amazon: the listing check outlives a Redis that lost its data', function () {
  this.timeout(60000);
  // A Redis of its own: the test flushes it.
  let redisProcess: ChildProcess | undefined;
  const original = config();
  before(async () => {
    const port = await freePort();
    redisProcess = await startRedisServer(port);
    await closeQueues();
    setConfig({ ...config(), redisUrl: `redis://127.0.0.1:${port}` });
  });
  let fleet: Fleet;
  channelLoopForSuite((loop) => ({ sandbox, fleet } = loop));
  after(async () => {
    await closeQueues();
    await killChild(redisProcess);
    setConfig({ ...config(), redisUrl: original.redisUrl });
  });
  // Due in a minute: the flush and the recovery come long before it, however loaded the machine.
  beforeEach(() => setConfig({ ...config(), marketDListingCheckMs: 60000, marketDListingChecks: 3 }));
  after(() => setConfig({ ...config(), marketDListingCheckMs: original.marketDListingCheckMs, marketDListingChecks: original.marketDListingChecks }));

  it('when Redis is flushed while the check waits and the recovery runs, then the check is added again for the time it was due, and it gives the seller the task', async () => {
    const watch = startQueueRecovery(fleet.relay, queues(), { everyMs: 100 });
    try {
      const sku = 'AZ-FLUSH-1';
      const { seller, portalAccountId, stockId, list } = await listed(sku);
      await control('/_sandbox/amazon/config', { listing_ms: 0 });
      await suppressListing(sku, portalAccountId);
      const { jobId, end } = await list();
      expect(end.state, end.error).to.equal('completed');
      const checkJob = async () => (await queues().get('portal_upload').getJob(`listing-check-${jobId}-1`)) ?? undefined;
      const waiting = await waitFor('the check waiting in Redis', async () => {
        const job = await checkJob();
        return job && (await job.isDelayed()) ? job : undefined;
      });
      const due = waiting.timestamp + waiting.delay;

      await queues().client().flushall();
      expect(await checkJob()).to.equal(undefined);

      const again = await waitFor('the check added again by the recovery', checkJob);
      expect(await again.getState()).to.equal('delayed');
      // The same time as before the flush (the two adds' own moments apart): neither at once nor lost.
      expect(again.timestamp + again.delay).to.be.closeTo(due, 1000);
      expect(await tasksOf(seller, stockId)).to.deep.equal([]);

      // Run it now rather than in a minute.
      await again.promote();
      const task = await waitFor('the task', async () => (await tasksOf(seller, stockId))[0]);
      expect(task).to.deep.include({ title: `market_d: Amazon enforces LISTING_SUPPRESSED on SKU ${sku}`, priority: 'high' });
      expect(task.text).to.contain(jobId);
      // Its outcome is kept in Postgres: a later loss of Redis adds it no more.
      const row = await waitFor('the check finished in the outbox', () =>
        db()('outbox').where({ account_id: seller.id, job_name: 'portal.listing_check' }).whereNotNull('state').first(),
      );
      expect(row).to.deep.include({ state: 'completed' });
    } finally {
      await watch.stop();
    }
  });
});
