/**
 * One seller's backlog at one portal account no longer holds the portal_upload workers: a job
 * whose call slot is further off than portalSlotSleep.maxMs gives its worker back (moved to
 * delayed until its slot, the slot kept for it) instead of sleeping in it. Before, 300 uploads of
 * seller A at 2 calls a second slept in all 8 workers in turn, and seller B's one upload and
 * CIA push, whose own slots were free, waited behind them about 150 s (lib/portal-offer README).
 */
import { expect } from 'chai';
import { config, setConfig } from '../../config';
import { queues } from '../../lib/queue/queue.registry';
import { call, newSeller, Seller } from '../support/api';
import { waitFor, withSandboxAndFleet } from './support';

describe("fleet: a seller's backlog at one portal account and another seller's jobs", () => {
  const running = withSandboxAndFleet();
  let saved: ReturnType<typeof config>;
  let a: Seller | undefined;
  before(() => {
    saved = config();
    // 2 calls a second: A's 300 uploads take 150 s of its portal account's slots.
    setConfig({ ...saved, portalCallsPerSecond: 2 });
  });
  after(async () => {
    setConfig(saved);
    // A's backlog is not for the suites after this one, which share the queues' prefix.
    const left = await queues().get('portal_upload').getJobs(['delayed', 'waiting']);
    await Promise.all(left.filter((job) => (job.data as { accountId?: number }).accountId === a?.id).map((job) => job.remove().catch(() => undefined)));
  });

  async function createItem(seller: Seller, stock: Record<string, unknown>): Promise<number> {
    const res = await call('stock/', { token: seller.token, body: { stock } });
    expect(res.status, res.text).to.equal(201);
    return Number(res.body.stock_id);
  }
  async function uploadJob(seller: Seller, stockId: number): Promise<string> {
    const res = await call(`stock/${stockId}/portal_upload/`, { token: seller.token, body: { portal_upload: { shop_g: [{ action: 'list' }] } } });
    expect(res.status, res.text).to.equal(207);
    const part = (res.body.response as { code: number; job_id: string }[])[0]!;
    expect(part.code, res.text).to.equal(202);
    return part.job_id;
  }
  /** The listing calls a seller's portal account got at shop_g. */
  const listed = (seller: Seller) =>
    running.sandbox.state.requests.filter((r) => r.portal === 'shop_g' && r.portalAccount === String(seller.portalAccountId) && r.method === 'POST').length;

  it("when seller A has 300 uploads queued for one portal account, then seller B's upload and CIA push go out within seconds, long before A's backlog is through", async function () {
    this.timeout(90000);
    const seller = await newSeller();
    a = seller;
    const b = await newSeller();
    const aItem = await createItem(seller, { name: 'Backlog', quantity: 3 });
    // 300 requests of one part each: a request's identical parts are one job, a later request's its own.
    const aJobs: string[] = [];
    for (let i = 0; i < 300; i++) aJobs.push(await uploadJob(seller, aItem));
    await waitFor("A's backlog begun", () => listed(seller) > 0);

    const started = Date.now();
    const bItem = await createItem(b, { name: 'Elsewhere', quantity: 7, cia: { shop_g: { is_active: true } } });
    const bJob = await uploadJob(b, bItem);
    // What B sees: the portal offering its quantity (CIA's push), and its upload completed (GET job/{id}/).
    await waitFor("B's quantity at the portal", () => running.sandbox.state.quantities(String(b.portalAccountId))['shop_g']?.[String(bItem)] === 7, 8000);
    const state = await waitFor(
      "B's upload completed",
      async () => {
        const job = (await call(`job/${bJob}/`, { token: b.token })).body.job as { state: string } | undefined;
        return job?.state === 'completed' || job?.state === 'failed' ? job.state : undefined;
      },
      8000,
    );
    expect(state).to.equal('completed');
    const took = Date.now() - started;
    // A's backlog is still there: B did not wait for its end (150 s at A's 2 calls a second).
    expect(listed(seller), `B took ${took} ms`).to.be.below(60);
    expect(took).to.be.below(8000);

    // A's jobs that gave their worker back use the slot they reserved, at the rate: 2 calls a second, not fewer, none closer than the spacing allows.
    const from = listed(seller);
    await waitFor("A's next 8 calls", () => listed(seller) >= from + 8, 8000);
    const times = running.sandbox.state.requests
      .filter((r) => r.portal === 'shop_g' && r.portalAccount === String(seller.portalAccountId) && r.method === 'POST')
      .slice(from, from + 8)
      .map((r) => Date.parse(r.at));
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    expect(Math.min(...gaps), gaps.join(',')).to.be.at.least(300);
    expect(times.at(-1)! - times[0]!, gaps.join(',')).to.be.below(7 * 500 + 1500);
    // Moved to delayed without spending a try: the tenth upload, done after waiting its turn, took one.
    const tenth = await waitFor('the tenth upload done', async () => {
      const job = (await call(`job/${aJobs[9]!}/`, { token: seller.token })).body.job as { state: string; attempts: number } | undefined;
      return job?.state === 'completed' ? job : undefined;
    });
    expect(tenth.attempts).to.equal(1);
  });

  it("when a push's second batch finds its slot far off, then the job gives its worker back and comes back to send it, and the first batch's refusal still fails the job after it", async () => {
    const seller = await newSeller();
    const account = String(seller.portalAccountId);
    // A window long enough for all 150 items' adjustments: one push job reads them all, in batches of 100.
    setConfig({ ...config(), ciaPushWindowMs: 2000 });
    const res = await call('stock/list/', {
      token: seller.token,
      body: { stock: Array.from({ length: 150 }, (_, i) => ({ name: `Batch ${i}`, quantity: 10 + i, cia: { shop_g: { is_active: true } } })) },
    });
    expect(res.status, res.text).to.equal(207);
    const ids = (res.body.response as { stock_id: number }[]).map((r) => Number(r.stock_id));
    running.sandbox.state.faults.push({
      portal: 'shop_g',
      portalAccount: account,
      reference: String(ids[0]),
      status: 422,
      remaining: 1,
      message: 'offer is blocked',
    });
    const shown = () => running.sandbox.state.quantities(account)['shop_g'] ?? {};
    await waitFor('the other 149 quantities', () => ids.slice(1).every((id, i) => shown()[String(id)] === 11 + i), 10000);
    const failed = await waitFor('the failed push job', async () =>
      (await queues().get('portal_upload').getFailed()).find(
        (j) => j.name === 'portal.set_quantity' && (j.data as { accountId: number }).accountId === seller.id,
      ),
    );
    // Both batches in one job, which waited for the second batch's slot out of its worker (its progress holds the slot).
    expect(failed.failedReason).to.contain('1 quantity refused (149 taken)').and.to.contain('offer is blocked');
    expect(failed.attemptsMade).to.equal(1);
    expect(failed.progress).to.have.property('slot');
    expect(shown()[String(ids[0])]).to.equal(undefined);
  });
});
