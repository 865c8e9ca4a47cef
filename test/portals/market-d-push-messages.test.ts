/**
 * A CIA push at market_d (Amazon) whose batch sends some items again, each for a reason of its
 * own: each item's CIA state shows its own reason (the message of its portal entry in an
 * adjustment's result, GET job/{job_id}/), not another SKU's.
 */
import { expect } from 'chai';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { connectPortalAccount } from '../../lib/admin/portal-account-connect.service';
import { adjustItem } from '../../lib/cia/cia.service';
import { pushQuantities } from '../../lib/portal-offer/portal-push.service';
import { sellerCentralListing } from '../../sandbox/amazon.sandbox';
import { Sandbox, sandboxKeepingContract } from '../fleet/support';
import { call, newSeller, Seller } from '../support/api';
import { failure } from '../support/failure';

const DE = 'A1PA6795UKMFR9';

describe('market_d: a CIA push that sends items again records each its own reason', function () {
  this.timeout(30000);
  let sandbox: Sandbox;
  let seller: Seller;
  let amazonId: number;
  sandboxKeepingContract('amazon', (started) => (sandbox = started));

  beforeEach(async () => {
    seller = await newSeller();
    amazonId = Number((await createPortalAccount(seller.id, { name: 'Amazon DE', platform: 'market_d' })).id);
    await connectPortalAccount(seller.id, {
      portalAccountId: amazonId,
      connector: 'amazon_sp',
      baseUrl: sandbox.url,
      credentials: { client_id: 'c', client_secret: 's', refresh_token: `Atzr|sandbox-${amazonId}`, seller_id: `S${amazonId}`, marketplace_id: DE },
    });
  });

  /** An item with CIA at the Amazon account whose SKU the seller listed in Seller Central (Kontor recorded no listing of it). */
  const item = async (sku: string, quantity: number): Promise<number> => {
    sellerCentralListing(sandbox.state, String(amazonId), sku, [DE]);
    const created = await call('stock/', {
      token: seller.token,
      body: { stock: { name: sku, sku, quantity, cia: { market_d: { is_active: true, portal_account_id: [amazonId] } } } },
    });
    expect(created.status, created.text).to.equal(201);
    return Number(created.body.stock_id);
  };
  /** getListingsItem of the SKU answers `status` once (the sandbox's lookup_fault control). */
  const lookupFault = async (sku: string, status: number, message: string) => {
    const res = await fetch(`${sandbox.url}/_sandbox/amazon/listings/${encodeURIComponent(sku)}/lookup_fault`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ portal_account: amazonId, status, message }),
    });
    expect(res.status, await res.text()).to.equal(201);
  };
  /** The item's entry at the Amazon account as an adjustment's result shows it. */
  const shown = async (stockId: number) => (await adjustItem(seller.id, stockId, {})).portals.find((p) => p.portal_account_id === amazonId)!;

  it("two SKUs answered 503 and 500 by Amazon: each item's state names its own SKU and answer; the third is acknowledged", async () => {
    const busy = await item('PM-BUSY', 4);
    const broken = await item('PM-BROKEN', 5);
    const fine = await item('PM-FINE', 6);
    for (const id of [busy, broken, fine]) await adjustItem(seller.id, id, {});
    await lookupFault('PM-BUSY', 503, 'Amazon is under maintenance.');
    await lookupFault('PM-BROKEN', 500, 'Something broke for PM-BROKEN.');

    const err = await failure(pushQuantities(seller.id, { portal: 'market_d', portalAccountId: amazonId }));
    expect(err.id).to.equal('portal_unavailable');
    expect(err.message).to.contain('2 of 3 quantities to be sent again');

    const busyState = await shown(busy);
    expect(busyState).to.deep.include({ quantity: 4, push: true });
    expect(busyState.message)
      .to.contain(`market_d answered 503 to GET /listings/2021-08-01/items/S${amazonId}/PM-BUSY`)
      .and.contain('Amazon is under maintenance.')
      .and.not.contain('PM-BROKEN');
    const brokenState = await shown(broken);
    expect(brokenState).to.deep.include({ quantity: 5, push: true });
    expect(brokenState.message)
      .to.contain(`market_d answered 500 to GET /listings/2021-08-01/items/S${amazonId}/PM-BROKEN`)
      .and.contain('Something broke for PM-BROKEN.')
      .and.not.contain('PM-BUSY');
    expect(await shown(fine)).to.deep.include({ quantity: 6, acknowledged: 6, push: false, message: null });
    expect(sandbox.state.quantities(String(amazonId)).market_d).to.deep.include({ 'PM-BUSY': 0, 'PM-BROKEN': 0, 'PM-FINE': 6 });
  });
});
