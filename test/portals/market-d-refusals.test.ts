/**
 * market_d at Amazon: whose a patchListingsItem refusal is (listingsItems_2021-08-01.json lists
 * 200, 400, 403, 413, 415, 429, 500, 503 for it). One SKU's (400 "missing or invalid
 * parameters", 413 "The request size exceeded the maximum accepted size") refuses that item and
 * the others' quantities go on; the account's (403: "Access Denied, Unauthorized, Expired Token, or
 * Invalid Signature", none a SKU's) stops the batch, and every item of it shows the account's
 * refusal. A patch of a SKU Amazon holds no listing of is answered as the contract documents a
 * patch (200, INVALID), not 404.
 */
import { expect } from 'chai';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { connectPortalAccount } from '../../lib/admin/portal-account-connect.service';
import { adjustItem } from '../../lib/cia/cia.service';
import { pushQuantities } from '../../lib/portal-offer/portal-push.service';
import { MarketDAdapter } from '../../lib/portals/market-d.adapter';
import type { ListingItem, PortalTarget, PushAids } from '../../lib/portals/portal.type';
import { sellerCentralListing } from '../../sandbox/amazon.sandbox';
import { Sandbox, sandboxKeepingContract } from '../fleet/support';
import { call, newSeller, Seller } from '../support/api';
import { failure } from '../support/failure';

const DE = 'A1PA6795UKMFR9';
const adapter = new MarketDAdapter();

describe('market_d: one SKU refused, or the account', function () {
  this.timeout(30000);
  let sandbox: Sandbox;
  let seller: Seller;
  let amazonId: number;
  let target: PortalTarget;
  sandboxKeepingContract('amazon', (started) => (sandbox = started));

  beforeEach(async () => {
    seller = await newSeller();
    amazonId = Number((await createPortalAccount(seller.id, { name: 'Amazon DE', platform: 'market_d' })).id);
    const credentials = { client_id: 'c', client_secret: 's', refresh_token: `Atzr|sandbox-${amazonId}`, seller_id: `S${amazonId}`, marketplace_id: DE };
    await connectPortalAccount(seller.id, { portalAccountId: amazonId, connector: 'amazon_sp', baseUrl: sandbox.url, credentials });
    target = { portalAccountId: amazonId, baseUrl: sandbox.url, credentials };
  });

  const post = async (path: string, body: Record<string, unknown>, status: number) => {
    const res = await fetch(`${sandbox.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(res.status, await res.text()).to.equal(status);
  };
  /** patchListingsItem of the SKU answers `status` once (the sandbox's patch_fault control). */
  const patchFault = (sku: string, status: number, message?: string) =>
    post(`/_sandbox/amazon/listings/${encodeURIComponent(sku)}/patch_fault`, { portal_account: amazonId, status, ...(message ? { message } : {}) }, 201);
  /** The account's access at Amazon taken (every SP-API call answers 403 Unauthorized) or given back. */
  const access = (denied: boolean) => post('/_sandbox/amazon/access', { portal_account: amazonId, denied }, 200);
  const requests = (method: string) =>
    sandbox.state.requests.filter((r) => r.portalAccount === String(amazonId) && r.method === method && r.path.startsWith('/listings/'));
  const skuOf = (path: string) => decodeURIComponent(path.split('/').pop()!);
  const atAmazon = () => sandbox.state.quantities(String(amazonId)).market_d ?? {};
  /** Kontor's records of listings live in all the account's marketplaces, by stock id. */
  const recorded = (listed: Record<number, string>): PushAids => ({
    ledger: { reserve: async () => new Map(), spend: async () => undefined },
    listedItems: async (stockIds) => new Map(stockIds.flatMap((id) => (listed[id] === undefined ? [] : [[id, listed[id]!] as [number, string]]))),
  });
  const quantity = (stockId: number, sku: string, q: number) => ({ stockId, quantity: q, key: `k-${stockId}`, sku, group: {} });

  /** An item with CIA at the Amazon account whose SKU the seller listed in Seller Central (Kontor recorded no listing of it). */
  const item = async (sku: string, q: number): Promise<number> => {
    sellerCentralListing(sandbox.state, String(amazonId), sku, [DE]);
    const created = await call('stock/', {
      token: seller.token,
      body: { stock: { name: sku, sku, quantity: q, cia: { market_d: { is_active: true, portal_account_id: [amazonId] } } } },
    });
    expect(created.status, created.text).to.equal(201);
    return Number(created.body.stock_id);
  };
  /** The item's entry at the Amazon account as an adjustment's result shows it. */
  const shown = async (stockId: number) => (await adjustItem(seller.id, stockId, {})).portals.find((p) => p.portal_account_id === amazonId)!;

  it("a patch answered 400 for one SKU and 413 for another: those two items are refused with Amazon's words, the other SKUs' quantities reach Amazon's listings", async () => {
    const skus = ['RF-1', 'RF-BAD', 'RF-2', 'RF-BIG', 'RF-3'];
    for (const sku of skus) sellerCentralListing(sandbox.state, String(amazonId), sku, [DE]);
    await patchFault('RF-BAD', 400);
    await patchFault('RF-BIG', 413);
    const outcomes = await adapter.setQuantities(
      target,
      skus.map((sku, i) => quantity(i + 1, sku, 7)),
      'batch-rf1',
      recorded(Object.fromEntries(skus.map((sku, i) => [i + 1, sku]))),
    );
    expect(outcomes.map((o) => o.outcome)).to.deep.equal(['accepted', 'refused', 'accepted', 'refused', 'accepted']);
    expect((outcomes[1] as { message: string }).message)
      .to.contain('market_d refused the quantity of item 2 (SKU RF-BAD)')
      .and.contain('400: InvalidInput: Invalid input');
    expect((outcomes[3] as { message: string }).message)
      .to.contain('market_d refused the quantity of item 4 (SKU RF-BIG)')
      .and.contain('413: InvalidInput: The request size exceeded the maximum accepted size.');
    expect(atAmazon()).to.deep.include({ 'RF-1': 7, 'RF-BAD': 0, 'RF-2': 7, 'RF-BIG': 0, 'RF-3': 7 });
    // Each SKU's patch went once: a refused one is not sent again, and none stopped the others.
    expect(requests('PATCH').map((r) => [skuOf(r.path), r.status])).to.have.deep.members([
      ['RF-1', 200],
      ['RF-BAD', 400],
      ['RF-2', 200],
      ['RF-BIG', 413],
      ['RF-3', 200],
    ]);
  });

  it("a push whose one SKU's patch Amazon answers 400: that item's state shows Amazon's answer of its SKU, the others are acknowledged at their quantities; the job fails naming the one", async () => {
    const one = await item('RP-1', 4);
    const bad = await item('RP-BAD', 5);
    const two = await item('RP-2', 6);
    for (const id of [one, bad, two]) await adjustItem(seller.id, id, {});
    await patchFault('RP-BAD', 400, "The SKU 'RP-BAD' is not valid.");
    const err = await failure(pushQuantities(seller.id, { portal: 'market_d', portalAccountId: amazonId }));
    expect(err.id).to.equal('portal_refused');
    expect(err.message).to.contain('1 quantity refused (2 taken)').and.contain('SKU RP-BAD');
    const refused = await shown(bad);
    expect(refused).to.deep.include({ quantity: 5 });
    expect(refused.message).to.contain(`market_d refused the quantity of item ${bad} (SKU RP-BAD): 400: InvalidInput: The SKU 'RP-BAD' is not valid.`);
    expect(await shown(one)).to.deep.include({ quantity: 4, acknowledged: 4, push: false, message: null });
    expect(await shown(two)).to.deep.include({ quantity: 6, acknowledged: 6, push: false, message: null });
    expect(atAmazon()).to.deep.include({ 'RP-1': 4, 'RP-BAD': 0, 'RP-2': 6 });
  });

  it("the account's access refused at a patch (403, a new access token refused too): the batch stops there, the patches not sent by then are not sent, and the failure names the account, not a SKU", async () => {
    const skus = Array.from({ length: 8 }, (_, i) => `RA-${i}`);
    for (const sku of skus) sellerCentralListing(sandbox.state, String(amazonId), sku, [DE]);
    await access(true);
    const err = await failure(
      adapter.setQuantities(
        target,
        skus.map((sku, i) => quantity(i + 1, sku, 3)),
        'batch-ra1',
        recorded(Object.fromEntries(skus.map((sku, i) => [i + 1, sku]))),
      ),
    );
    expect(err.id).to.equal('portal_refused');
    expect(err.message)
      .to.contain(`market_d: portal account ${amazonId}: Amazon refused the portal account's access`)
      .and.contain('The quantity batch stopped')
      .and.contain('Unauthorized: Access to requested resource is denied.');
    const patched = new Set(requests('PATCH').map((r) => skuOf(r.path)));
    // Those sent at once (the burst Kontor takes: 2) each went twice (a new token); the next, 200 ms on, not at all.
    expect(patched.size).to.be.within(1, 3);
    expect(requests('PATCH').every((r) => r.status === 403)).to.equal(true);
    expect(requests('PATCH').length).to.equal(patched.size * 2);
    for (const sku of skus) expect(atAmazon()[sku], sku).to.equal(0);
  });

  it("a patch answered 415 (the request's format, which every patch of the batch is sent in) stops the batch as the account's refusal does, naming the format, not the SKU", async () => {
    const skus = Array.from({ length: 8 }, (_, i) => `RM-${i}`);
    for (const sku of skus) sellerCentralListing(sandbox.state, String(amazonId), sku, [DE]);
    await patchFault('RM-0', 415);
    const err = await failure(
      adapter.setQuantities(
        target,
        skus.map((sku, i) => quantity(i + 1, sku, 3)),
        'batch-rm1',
        recorded(Object.fromEntries(skus.map((sku, i) => [i + 1, sku]))),
      ),
    );
    expect(err.id).to.equal('portal_refused');
    expect(err.message)
      .to.contain(`market_d: portal account ${amazonId}: Amazon refused the format of Kontor's request`)
      .and.contain('The quantity batch stopped')
      .and.contain('The request payload is in an unsupported format.');
    // RM-0 and the one sent with it (the burst Kontor takes: 2); none after.
    expect(requests('PATCH').length).to.be.within(1, 3);
    expect(requests('PATCH')[0]).to.deep.include({ status: 415 });
  });

  it("the sandbox answers a patch whose body is not JSON 415 with SP-API's error body, and takes the same patch sent as JSON", async () => {
    sellerCentralListing(sandbox.state, String(amazonId), 'RJ-1', [DE]);
    const token = await fetch(`${sandbox.url}/auth/o2/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: `Atzr|sandbox-${amazonId}`, client_id: 'c', client_secret: 's' }),
    });
    const accessToken = ((await token.json()) as { access_token: string }).access_token;
    const body = JSON.stringify({
      productType: 'PRODUCT',
      patches: [{ op: 'replace', path: '/attributes/fulfillment_availability', value: [{ fulfillment_channel_code: 'DEFAULT', quantity: 4 }] }],
    });
    const patch = (contentType: string) =>
      fetch(`${sandbox.url}/listings/2021-08-01/items/S${amazonId}/RJ-1?marketplaceIds=${DE}`, {
        method: 'PATCH',
        headers: { 'x-amz-access-token': accessToken, 'content-type': contentType },
        body,
      });
    const refused = await patch('text/plain');
    expect(refused.status).to.equal(415);
    expect(await refused.json()).to.deep.equal({
      errors: [{ code: 'InvalidInput', message: 'The request payload is in an unsupported format.', details: 'Content-Type text/plain' }],
    });
    expect(atAmazon()['RJ-1']).to.equal(0);
    const taken = await patch('application/json');
    expect(taken.status).to.equal(200);
    expect(((await taken.json()) as { status: string }).status).to.equal('ACCEPTED');
    expect(atAmazon()['RJ-1']).to.equal(4);
  });

  it("a push of an account whose access Amazon refuses: it stops at the first lookup, every item's state shows the account's refusal (not a SKU's); access given back, the next push sends each", async () => {
    const ids = [await item('RX-1', 2), await item('RX-2', 3), await item('RX-3', 4), await item('RX-4', 5)];
    for (const id of ids) await adjustItem(seller.id, id, {});
    await access(true);
    const err = await failure(pushQuantities(seller.id, { portal: 'market_d', portalAccountId: amazonId }));
    expect(err.id).to.equal('portal_refused');
    expect(err.message).to.contain("Amazon refused the portal account's access").and.contain('The quantity batch stopped');
    expect(requests('PATCH')).to.deep.equal([]);
    expect(new Set(requests('GET').map((r) => r.path)).size).to.be.below(ids.length);
    for (const id of ids) {
      const state = await shown(id);
      expect(state.push, String(id)).to.equal(true);
      expect(state.message, String(id))
        .to.contain(`market_d: portal account ${amazonId}: Amazon refused the portal account's access`)
        .and.contain('the seller must authorise Kontor again');
    }
    await access(false);
    const result = await pushQuantities(seller.id, { portal: 'market_d', portalAccountId: amazonId });
    expect(result.pushed.map((p) => p.quantity).sort()).to.deep.equal([2, 3, 4, 5]);
    expect(atAmazon()).to.deep.include({ 'RX-1': 2, 'RX-2': 3, 'RX-3': 4, 'RX-4': 5 });
    for (const id of ids) expect(await shown(id), String(id)).to.deep.include({ push: false, message: null });
  });

  it('a price patch of a SKU Amazon holds no listing of is answered 200 INVALID with an ERROR issue (patchListingsItem lists no 404), and a revise of it fails naming the SKU and the issue', async () => {
    const listing: ListingItem = { stockId: 9, name: 'Teapot', sku: 'RU-NONE', ean: '4006381333931', price: '19.90', quantityAvailable: 5, group: {} };
    const err = await failure(adapter.revise(target, listing, 'RU-NONE', ['price'], 'job-ru1'));
    expect(err.id).to.equal('portal_refused');
    expect(err.message)
      .to.contain(`market_d refused the listing of SKU RU-NONE for portal account ${amazonId} in ${DE}`)
      .and.contain('4000010: The SKU RU-NONE has no listing to patch');
    expect(requests('PATCH').map((r) => r.status)).to.deep.equal([200]);
    expect(atAmazon()['RU-NONE']).to.equal(undefined);
  });
});
