/**
 * market_d at Amazon: a listing and CIA's quantity sent right after it. putListingsItem and
 * patchListingsItem each answer ACCEPTED, "The listings submission was accepted for processing"
 * (ListingsItemSubmissionResponse, listingsItems_2021-08-01.json), and the contract names no
 * order in which Amazon processes them. The put carries the item's own quantity, CIA's patch the
 * quantity CIA offers (here max_quantity 2 of 5): when Amazon applies the put last, its 5 stood
 * over CIA's 2, and Amazon sold what other channels held. The sandbox plays that order when told
 * (late_listings: a put's data applied when processed, after the patch).
 */
import { expect } from 'chai';
import { config, setConfig } from '../../config';
import { db } from '../../lib/db';
import { queues } from '../../lib/queue';
import { channelLoopForSuite, jobEnd, Sandbox, waitFor } from '../fleet/support';
import { call } from '../support/api';
import { amazonItem } from './market-d-support';

let sandbox: Sandbox;

const control = async (path: string, body: unknown) => {
  const res = await fetch(`${sandbox.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status, await res.clone().text()).to.equal(200);
};

describe('market_d at Amazon: a listing processed after the quantity CIA sent behind it', function () {
  this.timeout(60000);
  channelLoopForSuite((loop) => ({ sandbox } = loop));
  const before = config();
  beforeEach(() => setConfig({ ...config(), marketDListingCheckMs: 300, marketDListingChecks: 20 }));
  afterEach(() => setConfig({ ...config(), marketDListingCheckMs: before.marketDListingCheckMs, marketDListingChecks: before.marketDListingChecks }));

  it('when Amazon applies the listing after CIA’s patch, then CIA’s quantity is sent again once the check finds the listing processed, and Amazon offers CIA’s 2, not the listing’s 5', async () => {
    const sku = 'AZ-ORDER-1';
    const { seller, portalAccountId, stockId } = await amazonItem(sku, { cia: { max_quantity: 2 } });
    // Amazon takes 3 s to process the put and applies its data then, after CIA's patch.
    await control('/_sandbox/amazon/config', { listing_ms: 3000, late_listings: true });
    const upload = await call(`stock/${stockId}/portal_upload/`, {
      token: seller.token,
      body: { portal_upload: { market_d: [{ action: 'list', portal_account_id: portalAccountId }] } },
    });
    expect(upload.status, upload.text).to.equal(207);
    const jobId = (upload.body.response as { job_id: string }[])[0]!.job_id;
    expect((await jobEnd(seller.token, jobId)).state).to.equal('completed');
    const shown = () => sandbox.state.quantities(String(portalAccountId)).market_d?.[sku];
    // CIA's patch went behind the put and was applied first (the put is still being processed).
    await waitFor('CIA’s patch applied', async () => sandbox.state.quantitiesApplied('market_d', sku).includes(2) || undefined);
    expect(sandbox.state.acks.some((a) => a.sku === sku && a.via === 'listing')).to.equal(false);
    const patches = () =>
      sandbox.state.requests.filter((r) => r.portalAccount === String(portalAccountId) && r.method === 'PATCH' && r.path.endsWith(`/${sku}`)).length;
    const first = patches();
    // Amazon then applies the listing: its 5 stands over the 2, until CIA speaks again.
    await waitFor('the listing processed', async () => sandbox.state.acks.some((a) => a.sku === sku && a.via === 'listing') || undefined);
    await waitFor('CIA’s 2 at Amazon after the listing', async () => (shown() === 2 && patches() > first) || undefined, 15000);
    const state = () => db()('cia_portal_state').where({ account_id: seller.id, stock_id: stockId, portal: 'market_d' }).first();
    // Acknowledged once the push's transaction commits, after Amazon's answer.
    await waitFor('CIA’s 2 acknowledged', async () => ((await state())?.acked_quantity === 2 ? true : undefined));
    expect(await state()).to.deep.include({ desired_quantity: 2, acked_quantity: 2 });
    // The check that found it processed is the one that had CIA send again (once per submission).
    const checks = await queues().get('portal_upload').getJobs(['completed']);
    const own = checks.filter((j) => j.name === 'portal.listing_check' && j.data.uploadJobId === jobId);
    expect(own.some((j) => (j.returnvalue as { state?: string } | null)?.state === 'live')).to.equal(true);
  });
});
