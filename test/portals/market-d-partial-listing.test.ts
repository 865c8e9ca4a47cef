/**
 * market_d at Amazon for a seller in DE and FR whose list one marketplace refused: one
 * putListingsItem per marketplace ("maxItems": 1, listingsItems_2021-08-01.json), so the listing
 * is live in the one that accepted it. Kontor records it there (portal_listing.markets), and what
 * follows names only that marketplace: CIA's quantity, and the job's retry, which puts only the
 * marketplace still missing.
 */
import { expect } from 'chai';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { connectPortalAccount } from '../../lib/admin/portal-account-connect.service';
import { db } from '../../lib/db/knex';
import { runPortalUpload } from '../../lib/portal-offer/portal-upload-run.service';
import type { PortalUploadJob } from '../../lib/queue';
import { amazonOf } from '../../sandbox/amazon.sandbox';
import { jobEnd, waitFor, withSandboxAndFleet } from '../fleet/support';
import { call, newSeller, Seller } from '../support/api';

const DE = 'A1PA6795UKMFR9';
const FR = 'A13V1IB3VIYZZH';

describe('market_d: a listing one of the seller’s Amazon marketplaces refused', function () {
  this.timeout(60000);
  const running = withSandboxAndFleet();
  let seller: Seller;
  let amazonId: number;
  let stockId: number;
  before(() => (amazonOf(running.sandbox.state).listingMs = 0));
  after(() => (amazonOf(running.sandbox.state).listingMs = 300));

  /** A seller connected to the sandbox's Amazon in DE and FR, an item with a market_d group, and DE's next submission of the SKU refused. */
  beforeEach(async () => {
    seller = await newSeller();
    amazonId = Number((await createPortalAccount(seller.id, { name: 'Amazon EU', platform: 'market_d' })).id);
    await connectPortalAccount(seller.id, {
      portalAccountId: amazonId,
      connector: 'amazon_sp',
      baseUrl: running.sandbox.url,
      credentials: { client_id: 'c', client_secret: 's', refresh_token: `Atzr|sandbox-${amazonId}`, seller_id: `S${amazonId}`, marketplace_id: `${DE},${FR}` },
    });
    const created = await call('stock/', {
      token: seller.token,
      body: {
        stock: {
          name: 'Teekanne',
          sku: 'PART-1',
          quantity: 5,
          market_d: { id_type: 'EAN', id: '4006381333931', price: '19.90' },
          cia: { market_d: { is_active: true, portal_account_id: [amazonId] } },
        },
      },
    });
    expect(created.status, created.text).to.equal(201);
    stockId = Number(created.body.stock_id);
    // The first submission of the SKU (DE's) is refused with an ERROR issue; FR's is accepted.
    running.sandbox.state.faults.push({
      portal: 'market_d',
      portalAccount: String(amazonId),
      reference: 'PART-1',
      status: 422,
      remaining: 1,
      message: 'not in DE',
    });
  });

  const calls = (method: string) =>
    running.sandbox.state.requests.filter((r) => r.portalAccount === String(amazonId) && r.method === method && r.path.endsWith('/PART-1'));
  const record = () => db()('portal_listing').where({ account_id: seller.id, stock_id: stockId, portal: 'market_d' }).first();
  const upload = async (entry: Record<string, unknown>) => {
    const res = await call(`stock/${stockId}/portal_upload/`, {
      token: seller.token,
      body: { portal_upload: { market_d: [{ portal_account_id: amazonId, ...entry }] } },
    });
    expect(res.status, res.text).to.equal(207);
    const jobId = (res.body.response as { job_id: string }[])[0]!.job_id;
    return { jobId, end: await jobEnd(seller.token, jobId) };
  };

  it('the job fails naming DE’s refusal and FR’s acceptance; Kontor records the listing live in FR; listing again (a new job) puts both and records it live in all', async () => {
    const { end } = await upload({ action: 'list' });
    expect(end.state).to.equal('failed');
    expect(end.error).to.contain(`in ${DE}`).and.contain('not in DE').and.contain(`accepted in ${FR}`);
    expect(await record()).to.deep.include({ status: 'listed', portal_item_id: 'PART-1', markets: [FR] });

    const revised = await upload({ action: 'list' });
    // A second list is a new job: it puts both (an update of the price reaches FR too), and DE now takes it.
    expect(revised.end.state, revised.end.error).to.equal('completed');
    expect(revised.end.result).to.deep.include({ portal_item_id: 'PART-1', markets: [DE, FR] });
    expect(await record()).to.deep.include({ status: 'listed', markets: null, markets_job: null });
  });

  it('while live in FR only, CIA’s quantity is patched in FR alone (a patch naming DE would make an offer of nothing there)', async () => {
    expect((await upload({ action: 'list' })).end.state).to.equal('failed');
    const patchesBefore = calls('PATCH').length;
    const changed = await call(`stock/${stockId}/`, { token: seller.token, body: { stock: { quantity: 3 } } });
    expect(changed.status, changed.text).to.equal(200);
    await waitFor('CIA’s quantity at Amazon', () => calls('PATCH').length > patchesBefore, 15000);
    expect(
      calls('PATCH')
        .slice(patchesBefore)
        .map((p) => [p.status, p.query!.marketplaceIds]),
    ).to.deep.equal([[200, FR]]);
  });

  it('when the list fails in DE, then FR, which took the put with the item’s own 5, gets CIA’s quantity (max_quantity 2) without waiting for a change', async () => {
    const capped = await call(`stock/${stockId}/`, {
      token: seller.token,
      body: { stock: { cia: { market_d: { is_active: true, max_quantity: 2, portal_account_id: [amazonId] } } } },
    });
    expect(capped.status, capped.text).to.equal(200);
    // CIA's push before any listing: refused (Amazon holds no listing of the SKU), nothing sent.
    await settled(2);
    const patchesBefore = calls('PATCH').length;
    expect((await upload({ action: 'list' })).end.state).to.equal('failed');
    await waitFor('CIA’s 2 patched in FR', () => calls('PATCH').length > patchesBefore, 15000);
    expect(
      calls('PATCH')
        .slice(patchesBefore)
        .map((p) => [p.status, p.query!.marketplaceIds]),
    ).to.deep.equal([[200, FR]]);
    await waitFor('2 at Amazon', () => running.sandbox.state.quantities(String(amazonId)).market_d?.['PART-1'] === 2, 15000);
    const row = await settled(2);
    expect(row.acked_seq).to.equal(row.desired_seq);
  });

  it('while live in FR only, an item whose SKU the seller changed has its quantity patched under the SKU it was listed by, in FR alone; the new SKU gets nothing', async () => {
    expect((await upload({ action: 'list' })).end.state).to.equal('failed');
    const patchesBefore = calls('PATCH').length;
    const changed = await call(`stock/${stockId}/`, { token: seller.token, body: { stock: { sku: 'PART-NEW', quantity: 2 } } });
    expect(changed.status, changed.text).to.equal(200);
    await waitFor('CIA’s quantity at Amazon', () => calls('PATCH').length > patchesBefore, 15000);
    expect(
      calls('PATCH')
        .slice(patchesBefore)
        .map((p) => [p.status, p.query!.marketplaceIds]),
    ).to.deep.equal([[200, FR]]);
    expect(running.sandbox.state.quantities(String(amazonId)).market_d?.['PART-1']).to.equal(2);
    const underNew = running.sandbox.state.requests.filter((r) => r.portalAccount === String(amazonId) && r.path.endsWith('/PART-NEW'));
    expect(underNew).to.deep.equal([]);
  });

  /** The item's CIA state at Amazon once its push settled the quantity (acknowledged or refused). */
  const settled = (quantity: number) =>
    waitFor(
      `CIA’s quantity ${quantity} acknowledged or refused`,
      async () => {
        const row = (await db()('cia_portal_state')
          .where({ account_id: seller.id, stock_id: stockId, portal: 'market_d', portal_account_id: amazonId })
          .first()) as { desired_quantity: number; desired_seq: string; acked_seq: string; refused_seq: string | null; last_error: string | null } | undefined;
        return row && row.desired_quantity === quantity && (row.acked_seq === row.desired_seq || row.refused_seq === row.desired_seq) ? row : undefined;
      },
      15000,
    );

  it('while Amazon still processes FR’s put (getListingsItem 404), CIA’s quantity goes to FR as recorded, asked of nobody, and is acknowledged', async () => {
    amazonOf(running.sandbox.state).listingMs = 600000;
    try {
      // The item's first quantity (before any listing: Amazon holds none) is out of the way.
      await settled(5);
      expect((await upload({ action: 'list' })).end.state).to.equal('failed');
      const before = { patches: calls('PATCH').length, gets: calls('GET').length };
      const changed = await call(`stock/${stockId}/`, { token: seller.token, body: { stock: { quantity: 3 } } });
      expect(changed.status, changed.text).to.equal(200);
      const state = await settled(3);
      expect(state).to.deep.include({ acked_seq: state.desired_seq, last_error: null });
      expect(calls('GET').slice(before.gets)).to.deep.equal([]);
      expect(
        calls('PATCH')
          .slice(before.patches)
          .map((p) => [p.status, p.query!.marketplaceIds]),
      ).to.deep.equal([[200, FR]]);
    } finally {
      amazonOf(running.sandbox.state).listingMs = 0;
    }
  });

  it('the same job’s retry puts only DE, which its first try did not list, and then records the listing live in both', async () => {
    const job: PortalUploadJob = { accountId: seller.id, stockId, portal: 'market_d', portalAccountId: amazonId, action: 'list' };
    const first = await runPortalUpload(job, 'retry-job-1').catch((err: Error) => err);
    expect((first as Error).message).to.contain(`accepted in ${FR}`);
    expect(calls('PUT').map((p) => p.query!.marketplaceIds)).to.deep.equal([DE, FR]);
    expect(await record()).to.deep.include({ markets: [FR], markets_job: 'retry-job-1' });
    const retried = await runPortalUpload(job, 'retry-job-1');
    expect(retried).to.deep.include({ portal_item_id: 'PART-1', markets: [DE, FR] });
    expect(calls('PUT').map((p) => p.query!.marketplaceIds)).to.deep.equal([DE, FR, DE]);
    expect(await record()).to.deep.include({ status: 'listed', markets: null });
  });
});
