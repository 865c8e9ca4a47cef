/**
 * Document 1, Authentication 5, for what a job answers: a client bound to one portal account reads
 * at GET job/{job_id}/ the jobs it started, and their result names nothing of another portal
 * account. POST stock/{stock_id}/cia/ adjusts the item at every portal account (the item is
 * shared), but the job's result is each portal account's listing state (quantity, what the portal
 * acknowledged, its last refusal): a client bound to portal account 1 read there portal account
 * 2's offers and their refusals.
 */
import { expect } from 'chai';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { ciaProcessors } from '../../lib/cia/cia.processor';
import { call, newSeller, Seller, tokenFor } from '../support/api';
import { clientToken } from '../support/bound-client';
import { startQueueWorker } from '../support/queue-worker';
import { jobEnd } from '../fleet/support';

interface PortalState {
  portal: string;
  portal_account_id: number;
  quantity: number;
}

describe('job results under a portal-account grant', function () {
  this.timeout(30000);
  let seller: Seller;
  let account2: number;
  let bound1: string;
  let stockId: number;
  let worker: { stop(): Promise<void> } | undefined;

  before(async () => {
    worker = await startQueueWorker('cia', ciaProcessors, 'sec-job-grant');
    seller = await newSeller();
    account2 = (await createPortalAccount(seller.id, { name: 'Market 2', platform: 'market_d' })).id;
    // Offered at both portal accounts: market_d's list names them.
    const cia = { market_d: { is_active: true, portal_account_id: [seller.portalAccountId, account2] } };
    const item = await call('stock/', { token: seller.token, body: { stock: { name: 'Kettle', sku: 'KETTLE', quantity: 6, cia } } });
    expect(item.status, item.text).to.equal(201);
    stockId = Number(item.body.stock_id);
    bound1 = await clientToken(seller, 'job-grant-one', seller.portalAccountId, 'stock_r stock_w');
  });
  after(async () => worker?.stop());

  const adjusted = async (token: string) => {
    const res = await call(`stock/${stockId}/cia/`, { token, body: {} });
    expect(res.status, res.text).to.equal(202);
    const job = await jobEnd(token, res.body.job_id as string);
    expect(job.state, JSON.stringify(job)).to.equal('completed');
    return ((job.result as { portals: PortalState[] }).portals ?? []).map((p) => [p.portal_account_id, p.quantity]).sort();
  };

  it("when a client bound to portal account 1 triggers the item's CIA, then its job's result shows portal account 1's offer alone", async () => {
    expect(await adjusted(bound1)).to.deep.equal([[seller.portalAccountId, 6]]);
  });

  it("when the seller triggers it, then the result shows every portal account's offer", async () => {
    expect(await adjusted(seller.token)).to.deep.equal(
      [
        [seller.portalAccountId, 6],
        [account2, 6],
      ].sort(),
    );
  });
});

/**
 * Document 1, Authentication 5: "A token lacking the scope for the command gets 403". A job's
 * result is the data of its domain (a CIA job's: the item's offers at every portal; a send_mit
 * job's: the buyer's mail address): reading it needs that domain's read scope, as the GET of the
 * data itself does (lib/queue/README.md).
 */
describe("job results need the read scope of the job's domain", function () {
  this.timeout(30000);
  let seller: Seller;
  let jobId: string;
  let worker: { stop(): Promise<void> } | undefined;

  before(async () => {
    worker = await startQueueWorker('cia', ciaProcessors, 'sec-job-scope');
    seller = await newSeller();
    const item = await call('stock/', { token: seller.token, body: { stock: { name: 'Teapot', sku: 'POT-S', quantity: 2 } } });
    expect(item.status, item.text).to.equal(201);
    const res = await call(`stock/${Number(item.body.stock_id)}/cia/`, { token: seller.token, body: {} });
    expect(res.status, res.text).to.equal(202);
    jobId = res.body.job_id as string;
    expect((await jobEnd(seller.token, jobId)).state).to.equal('completed');
  });
  after(async () => worker?.stop());

  it('when a token of the seller holds task_r alone, then GET job/{job_id}/ of a CIA job answers 403 naming stock_r, and no result', async () => {
    const res = await call(`job/${jobId}/`, { token: await tokenFor(seller.login, seller.password, 'task_r') });
    expect(res.status, res.text).to.equal(403);
    expect(res.body.error).to.deep.equal([
      { error: 'insufficient_scope', description: 'the access token lacks the scope stock_r needed for this command', code: 403 },
    ]);
    expect(res.body).not.to.have.property('job');
  });

  it('when the token holds stock_r alone, then the same job answers 200 with its result', async () => {
    const res = await call(`job/${jobId}/`, { token: await tokenFor(seller.login, seller.password, 'stock_r') });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.job).to.include({ id: jobId, state: 'completed' });
  });
});
