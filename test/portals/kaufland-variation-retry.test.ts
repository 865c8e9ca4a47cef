/**
 * A variation main listed at Kaufland (market_e) is listed as its variants, each a unit of its own
 * (lib/portal-offer README, "A variation main is listed as its variants"). Kaufland's createUnit
 * is "Add a new unit for an existing product" and takes no idempotency key
 * (seller-api-v2.openapi.json, POST /units): a unit posted again is a second unit, an offer twice.
 * A list job that fails part-way is retried, maybe by another portal_upload process, which does
 * not know the units the first attempt made, and GET /units shows a new unit only minutes later
 * (its description; the sandbox plays 2 minutes): only Kontor's record of each variant's listing
 * can tell it what is already listed.
 */
import { expect } from 'chai';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { db } from '../../lib/db/knex';
import { forgetKauflandUnits } from '../../lib/portals/market-e.adapter';
import { kauflandOf } from '../../sandbox/kaufland.sandbox';
import { channelLoopForSuite, jobEnd, Sandbox, waitFor } from '../fleet/support';
import { createItem } from '../stock/helpers';
import { call, newSeller } from '../support/api';

const size = (value: string) => ({ name_value: [{ name: 'size', value: [value] }] });

describe('market_e at Kaufland: a variation main’s list job retried after failing part-way', function () {
  this.timeout(60000);
  let sandbox: Sandbox;
  channelLoopForSuite((loop) => ({ sandbox } = loop));

  it('when the third variant’s unit fails with a 503 and the job is retried by a process that did not list the first two, then each variant is one unit at Kaufland, listed once, and all three are recorded', async () => {
    const seller = await newSeller();
    const { id: portalAccountId } = await createPortalAccount(seller.id, { name: 'Kaufland.de', platform: 'market_e' });
    const sku = (suffix: string) => `KVR${seller.id}-${suffix}`;
    const variant = (suffix: string, ean: string, quantity: number) =>
      createItem(seller, { name: `Shirt ${suffix}`, sku: sku(suffix), quantity, market_e: { ean } });
    const s = await variant('S', '4006381333931', 4);
    const m = await variant('M', '4006381333948', 3);
    const l = await variant('L', '4006381333955', 2);
    const main = await createItem(seller, {
      name: 'Shirt',
      sku: sku('MAIN'),
      quantity: 50,
      market_e: { price: '19.90', delivery_time: '1-2' },
      variation: {
        type: 'main',
        specifics_set: { name_value: [{ name: 'size', value: ['S', 'M', 'L'] }] },
        sub: [
          { id: String(s), specifics: size('S') },
          { id: String(m), specifics: size('M') },
          { id: String(l), specifics: size('L') },
        ],
      },
    });
    // Kaufland answers the third variant's POST /units once with a 503 (retry in 2 s).
    const fault = await fetch(`${sandbox.url}/_sandbox/faults`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ portal: 'market_e', portal_account: portalAccountId, reference: sku('L'), status: 503, retry_after: 2, count: 1 }),
    });
    expect(fault.status).to.equal(201);

    const upload = await call(`stock/${main}/portal_upload/`, {
      token: seller.token,
      body: { portal_upload: { market_e: [{ action: 'list', portal_account_id: portalAccountId }] } },
    });
    expect(upload.status, upload.text).to.equal(207);
    const jobId = (upload.body.response as { job_id: string }[])[0]!.job_id;

    const account = String(portalAccountId);
    const posts = () =>
      sandbox.state.requests.filter((r) => r.portal === 'market_e' && r.portalAccount === account && r.method === 'POST' && r.path === '/v2/units');
    await waitFor('the third variant’s POST /units answered 503', () => posts().some((r) => r.status === 503));
    // The retry runs in a process that did not make the first two units (another worker, or this one restarted).
    forgetKauflandUnits();
    const listings = () =>
      db()('portal_listing')
        .where({ account_id: seller.id, portal: 'market_e', portal_account_id: portalAccountId })
        .orderBy('stock_id')
        .select('stock_id', 'portal_item_id', 'status');
    // What the first attempt recorded (asserted last, after what the seller meets at Kaufland).
    const afterFirst = (await listings()).map((r) => [r.stock_id, r.status]);

    const job = (await jobEnd(seller.token, jobId)) as { state: string; error?: string; result?: unknown; attempts?: number };
    expect(job.state, job.error).to.equal('completed');
    expect(job.attempts).to.equal(2);

    const units = [...kauflandOf(sandbox.state).units.values()].filter((u) => u.account === account);
    const unitOf = (suffix: string) => units.filter((u) => u.id_offer === sku(suffix));
    expect(units.map((u) => u.id_offer).sort()).to.deep.equal([sku('L'), sku('M'), sku('S')]);
    expect([unitOf('S')[0]!.amount, unitOf('M')[0]!.amount, unitOf('L')[0]!.amount]).to.deep.equal([4, 3, 2]);
    expect(
      posts()
        .filter((r) => r.status === 200)
        .map((r) => (r.body as { id_offer: string }).id_offer),
    ).to.deep.equal([sku('S'), sku('M'), sku('L')]);

    const result = job.result as { portal_item_id: string | null; variants: { stock_id: number; portal_item_id: string }[] };
    const unitIds = [unitOf('S')[0]!.id_unit, unitOf('M')[0]!.id_unit, unitOf('L')[0]!.id_unit].map(String);
    expect(result.portal_item_id).to.equal(null);
    expect(result.variants).to.deep.equal([
      { stock_id: s, portal_item_id: unitIds[0] },
      { stock_id: m, portal_item_id: unitIds[1] },
      { stock_id: l, portal_item_id: unitIds[2] },
    ]);
    expect(await listings()).to.deep.equal([
      { stock_id: s, portal_item_id: unitIds[0], status: 'listed' },
      { stock_id: m, portal_item_id: unitIds[1], status: 'listed' },
      { stock_id: l, portal_item_id: unitIds[2], status: 'listed' },
    ]);
    // Each variant's listing was recorded as soon as Kaufland had it, before the third's call.
    expect(afterFirst).to.deep.equal([
      [s, 'listed'],
      [m, 'listed'],
    ]);
  });
});
