/**
 * market_d at Amazon for a seller in several marketplaces: consent stores them comma-separated in
 * marketplace_id ("A1PA6795UKMFR9,A13V1IB3VIYZZH"). putListingsItem and deleteListingsItem take
 * exactly one marketplace (marketplaceIds "maxItems": 1, listingsItems_2021-08-01.json), and
 * each attribute value names its marketplace (marketplace_id); getListingsItem answers a summary
 * per marketplace (ItemSummaryByMarketplace) and issues naming theirs (Issue.marketplaceIds).
 */
import { expect } from 'chai';
import { amazonListing } from '../../lib/portals/amazon/listing-attributes';
import { reserveSpApiTokens } from '../../lib/portals/amazon/sp-api-limits';
import { MarketDAdapter } from '../../lib/portals/market-d.adapter';
import type { ListingItem, PortalTarget, PushAids } from '../../lib/portals/portal.type';
import { variantGroup } from '../../lib/portal-offer/portal-variation.service';
import { amazonOf, sellerCentralListing } from '../../sandbox/amazon.sandbox';
import { placeOrder } from '../../sandbox/amazon-orders.sandbox';
import type { SandboxRequest } from '../../sandbox/sandbox.app';
import { Sandbox, sandboxKeepingContract } from '../fleet/support';
import { failure } from '../support/failure';

const DE = 'A1PA6795UKMFR9';
const FR = 'A13V1IB3VIYZZH';
const UK = 'A1F83G8C2ARO7P';
const US = 'ATVPDKIKX0DER';
const CA = 'A2EUQ1WTGCTBG2';
const adapter = new MarketDAdapter();

function item(group: Record<string, unknown>, more: Partial<ListingItem> = {}): ListingItem {
  return { stockId: 7, name: 'Teapot', sku: 'TEA-1', ean: '4006381333931', price: '19.90', quantityAvailable: 5, group, ...more };
}

/** One Listings Items call of the sandbox seller of the account, as Amazon answers it. */
async function listingsCall(url: string, account: number, method: string, sku: string, query: string, body?: unknown) {
  const token = await fetch(`${url}/auth/o2/token`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: `Atzr|sandbox-${account}`, client_id: 'kontor-sandbox', client_secret: 'sandbox' }),
  });
  const res = await fetch(`${url}/listings/2021-08-01/items/SANDBOX${account}/${sku}?${query}`, {
    method,
    headers: { 'x-amz-access-token': ((await token.json()) as { access_token: string }).access_token, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return {
    status: res.status,
    body: (await res.json()) as { status?: string; issues?: { message: string }[]; summaries?: { marketplaceId: string }[] },
  };
}

describe('market_d: a seller in several Amazon marketplaces', () => {
  let sandbox: Sandbox;
  let account: number;
  let target: PortalTarget;
  // Every request the adapter sent keeps to Amazon's published contracts (put and delete: one marketplace).
  sandboxKeepingContract('amazon', (started) => (sandbox = started));
  const targetIn = (marketplaceId: string): PortalTarget => ({
    portalAccountId: account,
    baseUrl: sandbox.url,
    credentials: {
      client_id: 'kontor-sandbox',
      client_secret: 'sandbox',
      refresh_token: `Atzr|sandbox-${account}`,
      seller_id: seller(),
      marketplace_id: marketplaceId,
    },
  });
  beforeEach(() => {
    account = 700000 + Math.floor(Math.random() * 100000);
    target = targetIn(`${DE},${FR}`);
    amazonOf(sandbox.state).listingMs = 0;
  });
  after(() => (amazonOf(sandbox.state).listingMs = 300));

  const seller = () => `SANDBOX${account}`;
  const calls = (sku: string, method: string): SandboxRequest[] =>
    sandbox.state.requests.filter(
      (r) =>
        r.portal === 'market_d' && r.portalAccount === String(account) && r.path === `/listings/2021-08-01/items/${seller()}/${sku}` && r.method === method,
    );
  /** What Amazon's getListingsItem shows of the SKU in the marketplaces (status and summaries). */
  const shownAt = async (sku: string, marketplaceIds: string) => {
    const { status, body } = await listingsCall(sandbox.url, account, 'GET', sku, `marketplaceIds=${marketplaceIds}&includedData=summaries`);
    return { status, marketplaces: (body.summaries ?? []).map((s) => s.marketplaceId) };
  };

  it('list: one putListingsItem per marketplace, each naming only its own in the query and in every attribute; the listing shows in both', async () => {
    const answer = await adapter.list(target, item({ sku: 'MM-PUT', prime_template: 'Prime' }), 'job-1');
    expect(answer).to.deep.equal({ portalItemId: 'MM-PUT', markets: [DE, FR] });
    const puts = calls('MM-PUT', 'PUT');
    expect(puts.map((p) => [p.status, p.query!.marketplaceIds])).to.deep.equal([
      [200, DE],
      [200, FR],
    ]);
    for (const [i, m] of [DE, FR].entries()) {
      const attributes = (puts[i]!.body as { attributes: Record<string, { marketplace_id?: string }[]> }).attributes;
      const named = Object.values(attributes).flatMap((values) => values.flatMap((v) => (v.marketplace_id === undefined ? [] : [v.marketplace_id])));
      expect(named, m).to.have.length(4);
      expect(new Set(named), m).to.deep.equal(new Set([m]));
    }
    expect(await shownAt('MM-PUT', `${DE},${FR}`)).to.deep.equal({ status: 200, marketplaces: [DE, FR] });
  });

  it('checkListing asks both marketplaces at once and is live only when the listing is buyable in each; a problem in one names that marketplace', async () => {
    await adapter.list(target, item({ sku: 'MM-CHK' }), 'job-2');
    expect((await adapter.checkListing(target, 'MM-CHK')).state).to.equal('live');
    expect(sandbox.state.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/MM-CHK')).map((r) => r.query!.marketplaceIds)).to.deep.equal([
      `${DE},${FR}`,
    ]);
    const issued = await fetch(`${sandbox.url}/_sandbox/amazon/listings/MM-CHK/issue`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        portal_account: account,
        code: '18155',
        message: 'Minimum price above the price.',
        enforcement: 'LISTING_SUPPRESSED',
        marketplace_id: FR,
      }),
    });
    expect(issued.status).to.equal(201);
    const found = await adapter.checkListing(target, 'MM-CHK');
    expect(found.state).to.equal('problem');
    expect(found.summary).to.equal(`Amazon enforces LISTING_SUPPRESSED on SKU MM-CHK in ${FR}`);
    expect(found.details.join('\n')).to.contain(`${FR}: 18155 ERROR`);
  });

  it('checkListing: a listing Amazon shows in one of the two marketplaces only is still pending, naming the one missing', async () => {
    await adapter.list(targetIn(DE), item({ sku: 'MM-ONE' }), 'job-3');
    const found = await adapter.checkListing(target, 'MM-ONE');
    expect(found).to.deep.include({ state: 'pending', summary: `Amazon shows no listing of SKU MM-ONE in ${FR}` });
  });

  it('revise of a listing recorded live in FR only (liveIn): one patch, naming FR alone; DE gets no offer of it', async () => {
    // The put FR alone took (DE refused it: partial-listing.ts records markets [FR]).
    await adapter.list(targetIn(FR), item({ sku: 'MM-REV-FR' }), 'job-fr-1');
    await adapter.revise(target, item({ sku: 'MM-REV-FR', price: '21.00' }, { liveIn: [FR] }), 'MM-REV-FR', ['price'], 'job-fr-2');
    const patches = calls('MM-REV-FR', 'PATCH');
    expect(patches.map((p) => [p.status, p.query!.marketplaceIds])).to.deep.equal([[200, FR]]);
    expect((patches[0]!.body as { patches: { value: unknown }[] }).patches[0]!.value).to.deep.equal([
      { currency: 'EUR', our_price: [{ schedule: [{ value_with_tax: 21 }] }], marketplace_id: FR },
    ]);
    expect(await shownAt('MM-REV-FR', `${DE},${FR}`)).to.deep.equal({ status: 200, marketplaces: [FR] });
  });

  it('a price revise of a listing live in FR only, for a seller also in the UK with no GBP price: FR is patched in EUR, the UK (not revised) needs no GBP price', async () => {
    const frUk = targetIn(`${FR},${UK}`);
    await adapter.list(targetIn(FR), item({ sku: 'MM-REV-FRUK' }), 'job-fu-1');
    await adapter.revise(frUk, item({ sku: 'MM-REV-FRUK', price: '22.00' }, { liveIn: [FR] }), 'MM-REV-FRUK', ['price'], 'job-fu-2');
    expect(
      calls('MM-REV-FRUK', 'PATCH').map((p) => [p.status, p.query!.marketplaceIds, (p.body as { patches: { value: unknown }[] }).patches[0]!.value]),
    ).to.deep.equal([[200, FR, [{ currency: 'EUR', our_price: [{ schedule: [{ value_with_tax: 22 }] }], marketplace_id: FR }]]]);
    expect(await shownAt('MM-REV-FRUK', `${FR},${UK}`)).to.deep.equal({ status: 200, marketplaces: [FR] });
    // Live in both, the UK is revised too: refused before any call for want of its GBP price, as before.
    const both = await failure(adapter.revise(frUk, item({ sku: 'MM-REV-FRUK', price: '23.00' }), 'MM-REV-FRUK', ['price'], 'job-fu-3'));
    expect(both.id).to.equal('portal_refused');
    expect(both.message).to.contain(`marketplace ${UK}`).and.contain('market_d.currency_prices');
    expect(calls('MM-REV-FRUK', 'PATCH')).to.have.length(1);
  });

  it('revise and end: one patch and one delete per marketplace; the listing is gone from both', async () => {
    await adapter.list(target, item({ sku: 'MM-REV' }), 'job-4');
    await adapter.revise(target, item({ sku: 'MM-REV', price: '21.00' }), 'MM-REV', ['price'], 'job-5');
    const patches = calls('MM-REV', 'PATCH');
    expect(patches.map((p) => [p.status, p.query!.marketplaceIds])).to.deep.equal([
      [200, DE],
      [200, FR],
    ]);
    expect((patches[1]!.body as { patches: { value: unknown }[] }).patches[0]!.value).to.deep.equal([
      { currency: 'EUR', our_price: [{ schedule: [{ value_with_tax: 21 }] }], marketplace_id: FR },
    ]);
    await adapter.end(target, 7, 'MM-REV', 'job-6');
    expect(calls('MM-REV', 'DELETE').map((d) => [d.status, d.query!.marketplaceIds])).to.deep.equal([
      [200, DE],
      [200, FR],
    ]);
    expect(await shownAt('MM-REV', `${DE},${FR}`)).to.deep.include({ status: 404 });
  });

  it('a marketplace refusing the listing fails the job naming it, and says where Amazon accepted it', async () => {
    sandbox.state.faults.push({ portal: 'market_d', portalAccount: String(account), reference: 'MM-BAD', status: 422, remaining: 1, message: 'not in FR' });
    // The fault refuses the first submission: DE's. FR's is accepted.
    const err = await failure(adapter.list(target, item({ sku: 'MM-BAD' }), 'job-7'));
    expect(err.id).to.equal('portal_refused');
    expect(err.message).to.contain(`in ${DE}`).and.contain('not in FR').and.contain(`accepted in ${FR}`);
    // The failed job recorded no listing: the seller's delete ends the one FR holds by the SKU the list put it under, not by the stock id.
    expect(await shownAt('MM-BAD', FR)).to.deep.equal({ status: 200, marketplaces: [FR] });
    await adapter.end(target, 7, null, 'job-8', { sku: 'TEA-1', group: { sku: 'MM-BAD' } });
    expect(calls('MM-BAD', 'DELETE').map((d) => [d.status, d.query!.marketplaceIds])).to.deep.equal([
      [200, DE],
      [200, FR],
    ]);
    expect(await shownAt('MM-BAD', FR)).to.deep.include({ status: 404 });
  });

  it('a marketplace Kontor knows no currency of is refused before any call, naming it (no EUR guessed)', async () => {
    const AU = 'A39IBJ37TRP1C6';
    expect(() => amazonListing(item({}), AU)).to.throw(new RegExp(`marketplace ${AU}`));
    const err = await failure(adapter.list(targetIn(`${DE},${AU}`), item({ sku: 'MM-AU' }), 'job-8'));
    expect(err.id).to.equal('portal_refused');
    expect(err.message).to.contain(AU);
    expect(calls('MM-AU', 'PUT')).to.deep.equal([]);
    // A US seller's FBA offer names Amazon's North American channel, a Japanese one's its own.
    expect(amazonListing(item({ is_fba: true }), 'ATVPDKIKX0DER').attributes.fulfillment_availability).to.deep.equal([
      { fulfillment_channel_code: 'AMAZON_NA' },
    ]);
    expect(amazonListing(item({ is_fba: true }, { price: '1980' }), 'A1VC38T7YXB528').attributes.purchasable_offer![0]!.currency).to.equal('JPY');
  });

  it("a seller in DE and Ireland: one put each, both in EUR through Europe's FBA channel (a marketplace missing from the table refused every listing)", async () => {
    const IE = 'A28R8C7NBKEWEA';
    const answer = await adapter.list(targetIn(`${DE},${IE}`), item({ sku: 'MM-IE', is_fba: true }), 'job-ie');
    expect(answer).to.deep.equal({ portalItemId: 'MM-IE', markets: [DE, IE] });
    expect(calls('MM-IE', 'PUT').map((p) => [p.status, p.query!.marketplaceIds])).to.deep.equal([
      [200, DE],
      [200, IE],
    ]);
    expect(amazonListing(item({ is_fba: true }), IE).attributes).to.deep.include({
      fulfillment_availability: [{ fulfillment_channel_code: 'AMAZON_EU' }],
    });
    expect(amazonListing(item({}), IE).attributes.purchasable_offer![0]!.currency).to.equal('EUR');
  });

  /** The purchasable_offer each submission of the SKU sent, by marketplace (put: the attribute; patch: its replace). */
  const offersSent = (sku: string, method: 'PUT' | 'PATCH') =>
    calls(sku, method).map((r) => {
      const body = r.body as { attributes?: { purchasable_offer?: unknown[] }; patches?: { path: string; value: unknown[] }[] };
      const offer = method === 'PUT' ? body.attributes?.purchasable_offer : body.patches?.find((p) => p.path === '/attributes/purchasable_offer')?.value;
      return [r.query!.marketplaceIds, r.status, offer?.[0]];
    });
  const offerIn = (marketplaceId: string, currency: string, value: number) => ({
    currency,
    our_price: [{ schedule: [{ value_with_tax: value }] }],
    marketplace_id: marketplaceId,
  });

  it('a seller in DE and UK with no GBP price: the listing is refused before any call, naming UK, GBP and market_d.currency_prices (19.90 EUR is not offered as 19.90 GBP)', async () => {
    const err = await failure(adapter.list(targetIn(`${DE},${UK}`), item({ sku: 'MM-NOGBP' }), 'job-9'));
    expect(err.id).to.equal('portal_refused');
    expect(err.message).to.contain(`marketplace ${UK}`).and.contain('GBP').and.contain('market_d.currency_prices').and.contain('EUR');
    expect(calls('MM-NOGBP', 'PUT')).to.deep.equal([]);
    const revised = await failure(adapter.revise(targetIn(`${DE},${UK}`), item({ sku: 'MM-NOGBP' }), 'MM-NOGBP', ['price'], 'job-10'));
    expect(revised.id).to.equal('portal_refused');
    expect(revised.message).to.contain(`marketplace ${UK}`).and.contain('market_d.currency_prices');
    expect(calls('MM-NOGBP', 'PATCH')).to.deep.equal([]);
    // A seller in the UK alone has one currency: its price is in GBP, as before.
    await adapter.list(targetIn(UK), item({ sku: 'MM-UKONLY' }), 'job-11');
    expect(offersSent('MM-UKONLY', 'PUT')).to.deep.equal([[UK, 200, offerIn(UK, 'GBP', 19.9)]]);
  });

  it("a seller in DE and UK with a GBP price in market_d.currency_prices: DE is offered the item's price in EUR, UK the GBP price, in the list and in a price revise", async () => {
    const uk = targetIn(`${DE},${UK}`);
    await adapter.list(uk, item({ sku: 'MM-GBP', currency_prices: [{ currency_id: 'GBP', price: '17.50' }] }), 'job-12');
    expect(offersSent('MM-GBP', 'PUT')).to.deep.equal([
      [DE, 200, offerIn(DE, 'EUR', 19.9)],
      [UK, 200, offerIn(UK, 'GBP', 17.5)],
    ]);
    expect(await shownAt('MM-GBP', `${DE},${UK}`)).to.deep.equal({ status: 200, marketplaces: [DE, UK] });
    // A EUR entry is the price in every euro marketplace, before market_d.price.
    const group = {
      sku: 'MM-GBP',
      price: '21.00',
      currency_prices: [
        { currency_id: 'GBP', price: '18.00' },
        { currency_id: 'EUR', price: '20.50' },
      ],
    };
    await adapter.revise(uk, item(group), 'MM-GBP', ['price'], 'job-13');
    expect(offersSent('MM-GBP', 'PATCH')).to.deep.equal([
      [DE, 200, offerIn(DE, 'EUR', 20.5)],
      [UK, 200, offerIn(UK, 'GBP', 18)],
    ]);
  });

  it('a quantity revise of a seller in DE and UK goes without a GBP price: a quantity is no money', async () => {
    const uk = targetIn(`${DE},${UK}`);
    await adapter.list(uk, item({ sku: 'MM-QTY', currency_prices: [{ currency_id: 'GBP', price: '17.50' }] }), 'job-14');
    await adapter.revise(uk, item({ sku: 'MM-QTY' }, { quantityAvailable: 2 }), 'MM-QTY', ['quantity'], 'job-15');
    const patches = calls('MM-QTY', 'PATCH');
    expect(patches.map((p) => [p.query!.marketplaceIds, p.status, (p.body as { patches: { path: string }[] }).patches.map((x) => x.path)])).to.deep.equal([
      [DE, 200, ['/attributes/fulfillment_availability']],
      [UK, 200, ['/attributes/fulfillment_availability']],
    ]);
  });

  it('a seller in US and CA: market_d.price is in neither (EUR, the default currency, where the marketplaces have several), so each needs its own; with USD and CAD prices each is offered its own', async () => {
    const na = targetIn(`${US},${CA}`);
    const err = await failure(adapter.list(na, item({ sku: 'MM-NA' }), 'job-16'));
    expect(err.id).to.equal('portal_refused');
    expect(err.message).to.contain(`marketplace ${US}`).and.contain('USD').and.contain(`marketplace ${CA}`).and.contain('CAD');
    expect(calls('MM-NA', 'PUT')).to.deep.equal([]);
    const prices = [
      { currency_id: 'USD', price: '21.99' },
      { currency_id: 'CAD', price: '29.99' },
    ];
    await adapter.list(na, item({ sku: 'MM-NA', currency_prices: prices }), 'job-17');
    expect(offersSent('MM-NA', 'PUT')).to.deep.equal([
      [US, 200, offerIn(US, 'USD', 21.99)],
      [CA, 200, offerIn(CA, 'CAD', 29.99)],
    ]);
  });

  it("a variant of a main with a GBP price: it is offered the main's GBP price only with the main's price; with a price of its own it is refused before any call, naming its SKU (not 29.90 EUR and the main's 17.50 GBP)", async () => {
    const uk = targetIn(`${DE},${UK}`);
    const gbp = [{ currency_id: 'GBP', price: '17.50' }];
    const main = { group: { sku: 'MM-MAIN', price: '19.90', currency_prices: gbp }, price: '24.90' };
    /** The variant's listing as portal_upload builds it: its group in the main's listing, its own item price. */
    const variant = (mainOf: Pick<ListingItem, 'group' | 'price'>, own: Record<string, unknown>, price: string, stockId: number) =>
      item(variantGroup(mainOf, { group: own, price }), { stockId, price });
    // Without a price of its own it is offered the main's, in EUR and in GBP; so is one whose item price is the
    // main's where the main's group names no price (found by a reviewer of 2ebcb79: it was refused).
    await adapter.list(uk, variant(main, { sku: 'MM-VAR-S' }, '29.90', 8), 'job-18');
    await adapter.list(uk, variant({ group: { currency_prices: gbp }, price: '19.90' }, { sku: 'MM-VAR-M' }, '19.90', 10), 'job-18m');
    for (const sku of ['MM-VAR-S', 'MM-VAR-M'])
      expect(offersSent(sku, 'PUT')).to.deep.equal([
        [DE, 200, offerIn(DE, 'EUR', 19.9)],
        [UK, 200, offerIn(UK, 'GBP', 17.5)],
      ]);
    // Its own market_d.price, or its own item price where the main's group has none, has no GBP price of its own.
    for (const [sku, mainOf, own] of [
      ['MM-VAR-L', main, { sku: 'MM-VAR-L', price: '29.90' }],
      ['MM-VAR-XL', { group: { currency_prices: gbp }, price: '19.90' }, { sku: 'MM-VAR-XL' }],
    ] as [string, Pick<ListingItem, 'group' | 'price'>, Record<string, unknown>][]) {
      const err = await failure(adapter.list(uk, variant(mainOf, own, '29.90', 9), 'job-19'));
      expect(err.id).to.equal('portal_refused');
      expect(err.message).to.contain(`SKU ${sku}`).and.contain(`marketplace ${UK}`).and.contain('GBP').and.contain('market_d.currency_prices');
      expect(calls(sku, 'PUT')).to.deep.equal([]);
    }
  });

  /** PushAids as lib/portal-offer hands them to a CIA push: the items Kontor recorded a live listing of (by stock id). */
  const recordedListings = (listed: Record<number, string>): PushAids => ({
    ledger: { reserve: async () => new Map(), spend: async () => undefined },
    listedItems: async (stockIds) => new Map(stockIds.flatMap((id) => (listed[id] === undefined ? [] : [[id, listed[id]!] as [number, string]]))),
  });
  const quantity = (stockId: number, sku: string, q: number) => ({ stockId, quantity: q, key: `k-${stockId}`, sku, group: {} });

  it('CIA at a SKU Kontor recorded no listing of: none at Amazon is refused with no patch (Amazon would take it and sell nothing); one held in DE alone is patched in DE only; a recorded one is patched in both, unasked', async () => {
    sellerCentralListing(sandbox.state, String(account), 'MM-SC-DE', [DE]);
    await adapter.list(target, item({ sku: 'MM-KONTOR' }, { stockId: 33 }), 'job-q1');
    const outcomes = await adapter.setQuantities(
      target,
      [quantity(31, 'MM-NONE', 4), quantity(32, 'MM-SC-DE', 5), quantity(33, 'MM-KONTOR', 6)],
      'batch-q1',
      recordedListings({ 33: 'MM-KONTOR' }),
    );
    expect(outcomes.map((o) => o.outcome)).to.deep.equal(['refused', 'accepted', 'accepted']);
    expect((outcomes[0] as { message: string }).message)
      .to.contain(`Amazon holds no listing of SKU MM-NONE in ${DE}, ${FR}`)
      .and.contain('was not sent');
    expect(calls('MM-NONE', 'PATCH')).to.deep.equal([]);
    expect(await shownAt('MM-NONE', `${DE},${FR}`)).to.deep.include({ status: 404 });
    expect(calls('MM-SC-DE', 'PATCH').map((p) => [p.status, p.query!.marketplaceIds])).to.deep.equal([[200, DE]]);
    expect(await shownAt('MM-SC-DE', `${DE},${FR}`)).to.deep.equal({ status: 200, marketplaces: [DE] });
    expect(calls('MM-KONTOR', 'PATCH').map((p) => [p.status, p.query!.marketplaceIds])).to.deep.equal([[200, `${DE},${FR}`]]);
    expect(calls('MM-KONTOR', 'GET')).to.deep.equal([]);
  });

  it("CIA at a SKU Kontor recorded no listing of that Amazon fulfils (FBA in Seller Central, the item not market_d.is_fba): refused naming FBA and is_fba, no patch (it would make the offer the seller's to ship)", async () => {
    sellerCentralListing(sandbox.state, String(account), 'MM-SC-FBA', [DE], 'EUR', 'AMAZON_EU');
    const [outcome] = await adapter.setQuantities(target, [quantity(51, 'MM-SC-FBA', 7)], 'batch-fba', recordedListings({}));
    expect(outcome!.outcome).to.equal('refused');
    expect((outcome as { message: string }).message)
      .to.contain('Amazon fulfils SKU MM-SC-FBA itself (AMAZON_EU)')
      .and.contain('market_d.is_fba');
    expect(calls('MM-SC-FBA', 'PATCH')).to.deep.equal([]);
    // The lookup asked for the offer's fulfilment (getListingsItem includedData fulfillmentAvailability).
    expect(calls('MM-SC-FBA', 'GET').map((g) => g.query!.includedData)).to.deep.equal(['summaries,issues,fulfillmentAvailability']);
  });

  it("CIA at a SKU whose listing Amazon holds without an offer (an earlier quantity alone made it): refused with Amazon's MISSING_PRICE issue, nothing sent", async () => {
    const made = await listingsCall(sandbox.url, account, 'PATCH', 'MM-STUB', `marketplaceIds=${DE},${FR}`, {
      productType: 'PRODUCT',
      patches: [{ op: 'replace', path: '/attributes/fulfillment_availability', value: [{ fulfillment_channel_code: 'DEFAULT', quantity: 3 }] }],
    });
    expect(made.body.status).to.equal('ACCEPTED');
    const [outcome] = await adapter.setQuantities(target, [quantity(41, 'MM-STUB', 4)], 'batch-q2', recordedListings({}));
    expect(outcome!.outcome).to.equal('refused');
    expect((outcome as { message: string }).message)
      .to.contain("Amazon's listing of SKU MM-STUB cannot be bought")
      .and.contain('MISSING_PRICE');
    expect(calls('MM-STUB', 'PATCH')).to.have.length(1);
  });

  it("CIA at a Seller Central listing in DE that an earlier quantity stubbed in FR: DE's quantity goes, naming DE only; FR's stub is left as it is", async () => {
    sellerCentralListing(sandbox.state, String(account), 'MM-SC-STUB', [DE]);
    // What CIA sent before 3c34cbc: a quantity naming both marketplaces, which made an offer of nothing in FR.
    const earlier = await listingsCall(sandbox.url, account, 'PATCH', 'MM-SC-STUB', `marketplaceIds=${DE},${FR}`, {
      productType: 'PRODUCT',
      patches: [{ op: 'replace', path: '/attributes/fulfillment_availability', value: [{ fulfillment_channel_code: 'DEFAULT', quantity: 3 }] }],
    });
    expect(earlier.body.status).to.equal('ACCEPTED');
    const [outcome] = await adapter.setQuantities(target, [quantity(42, 'MM-SC-STUB', 7)], 'batch-q3', recordedListings({}));
    expect(outcome).to.deep.equal({ stockId: 42, outcome: 'accepted' });
    expect(calls('MM-SC-STUB', 'PATCH').map((p) => [p.status, p.query!.marketplaceIds])).to.deep.equal([
      [200, `${DE},${FR}`],
      [200, DE],
    ]);
    expect(sandbox.state.quantities(String(account)).market_d?.['MM-SC-STUB']).to.equal(7);
    const shown = await listingsCall(sandbox.url, account, 'GET', 'MM-SC-STUB', `marketplaceIds=${DE},${FR}&includedData=summaries`);
    expect(
      (shown.body as unknown as { summaries: { marketplaceId: string; status: string[] }[] }).summaries.map((x) => [x.marketplaceId, x.status]),
    ).to.deep.equal([
      [DE, ['BUYABLE', 'DISCOVERABLE']],
      [FR, []],
    ]);
  });

  it('CIA beyond the patch plan: listings recorded in FR only take the patches first and the rest answer retry, never the feed (applied in DE and FR, it would land them in DE without a price); a listing recorded in both goes by the feed', async () => {
    const skus = Array.from({ length: 14 }, (_, i) => `MM-FR-${i}`);
    for (const sku of skus) sellerCentralListing(sandbox.state, String(account), sku, [FR]);
    sellerCentralListing(sandbox.state, String(account), 'MM-BOTH', [DE, FR]);
    const updates = [...skus.map((sku, i) => quantity(100 + i, sku, 6)), quantity(200, 'MM-BOTH', 6)];
    const aids: PushAids = {
      ...recordedListings({ 200: 'MM-BOTH' }),
      listedMarkets: async (stockIds) => new Map(stockIds.filter((id) => id < 200).map((id) => [id, { markets: [FR], portalItemId: skus[id - 100]! }])),
    };
    const outcomes = await adapter.setQuantities(target, updates, 'batch-q4', aids);
    const patched = skus.filter((sku) => calls(sku, 'PATCH').length > 0);
    // 12 within the token wait (a burst of 5 less 3 kept, 5/s for 2 s): the rest wait for the push's retry.
    expect(patched.length).to.be.within(10, 13);
    expect(outcomes.slice(0, 14).map((o) => o.outcome)).to.deep.equal(skus.map((sku) => (patched.includes(sku) ? 'accepted' : 'retry')));
    for (const sku of patched) expect(calls(sku, 'PATCH').map((p) => p.query!.marketplaceIds)).to.deep.equal([FR]);
    // The ones left for the retry are still in FR alone (the sandbox's getListingsItem plan: these few only).
    for (const sku of skus.filter((x) => !patched.includes(x)))
      expect(await shownAt(sku, `${DE},${FR}`), sku).to.deep.equal({ status: 200, marketplaces: [FR] });
    expect(outcomes[14]).to.deep.equal({ stockId: 200, outcome: 'accepted' });
    expect(calls('MM-BOTH', 'PATCH')).to.deep.equal([]);
    expect(sandbox.state.quantities(String(account)).market_d?.['MM-BOTH']).to.equal(6);
  });

  it('CIA beyond the patch plan at SKUs Kontor recorded no listing of: the feed carries only those Amazon holds in every marketplace; one it holds nowhere is refused as a patch would be, one held in DE alone answers retry (the feed, applied in DE and FR, would stub it in FR)', async () => {
    const skus = Array.from({ length: 14 }, (_, i) => `MM-ALL-${i}`);
    for (const sku of skus) sellerCentralListing(sandbox.state, String(account), sku, [DE, FR]);
    sellerCentralListing(sandbox.state, String(account), 'MM-F-DE', [DE]);
    sellerCentralListing(sandbox.state, String(account), 'MM-F-BOTH', [DE, FR]);
    // Last in the batch: the patches take the first SKUs, so these fall to the feed.
    const updates = [
      ...skus.map((sku, i) => quantity(300 + i, sku, 6)),
      quantity(401, 'MM-F-NONE', 4),
      quantity(402, 'MM-F-DE', 5),
      quantity(403, 'MM-F-BOTH', 7),
    ];
    const outcomes = await adapter.setQuantities(target, updates, 'batch-q5', recordedListings({}));
    const feeds = [...amazonOf(sandbox.state).feeds.values()].filter((f) => f.account === String(account));
    expect(feeds).to.have.length(1);
    const fed = (JSON.parse(amazonOf(sandbox.state).documents.get(feeds[0]!.inputFeedDocumentId)!.content!) as { messages: { sku: string }[] }).messages.map(
      (m) => m.sku,
    );
    expect(fed).to.include('MM-F-BOTH').and.not.include('MM-F-NONE').and.not.include('MM-F-DE');
    expect(outcomes.slice(14)).to.deep.equal([
      {
        stockId: 401,
        outcome: 'refused',
        message: `market_d: Amazon holds no listing of SKU MM-F-NONE in ${DE}, ${FR}, and a quantity alone makes no offer (no product, no price); the quantity of item 401 was not sent (list it with portal_upload market_d, or in Seller Central)`,
      },
      {
        stockId: 402,
        outcome: 'retry',
        message: `market_d: SKU MM-F-DE is listed in ${DE} only, which a feed cannot name alone; its patch waits for Amazon's rate limit`,
      },
      { stockId: 403, outcome: 'accepted' },
    ]);
    expect(await shownAt('MM-F-NONE', `${DE},${FR}`)).to.deep.include({ status: 404 });
    expect(await shownAt('MM-F-DE', `${DE},${FR}`)).to.deep.equal({ status: 200, marketplaces: [DE] });
    expect(sandbox.state.quantities(String(account)).market_d?.['MM-F-BOTH']).to.equal(7);
    // The push's retry of MM-F-DE alone is within the patch plan: patched in DE only.
    const [again] = await adapter.setQuantities(target, [quantity(402, 'MM-F-DE', 5)], 'batch-q6', recordedListings({}));
    expect(again).to.deep.equal({ stockId: 402, outcome: 'accepted' });
    expect(calls('MM-F-DE', 'PATCH').map((p) => p.query!.marketplaceIds)).to.deep.equal([DE]);
    expect(sandbox.state.quantities(String(account)).market_d?.['MM-F-DE']).to.equal(5);
  });

  it("CIA beyond the patch plan at SKUs Kontor recorded no listing of: the patches' lookups take getListingsItem's tokens before the feed's, so no SKU given a patch is starved into a retry", async () => {
    const unrecorded = Array.from({ length: 40 }, (_, i) => `MM-UNREC-${i}`);
    for (const sku of unrecorded) sellerCentralListing(sandbox.state, String(account), sku, [DE, FR]);
    const outcomes = await adapter.setQuantities(
      target,
      unrecorded.map((sku, i) => quantity(510 + i, sku, 8)),
      'batch-q7',
      recordedListings({}),
    );
    // 12 take the patches (a burst of 5 less 3 kept, 5/s for 2 s): each looked up, then patched in both.
    const patched = unrecorded.filter((sku) => calls(sku, 'PATCH').length > 0);
    expect(patched.length).to.be.within(10, 13);
    expect(unrecorded.slice(0, patched.length)).to.deep.equal(patched);
    expect(outcomes.slice(0, patched.length).map((o) => o.outcome)).to.deep.equal(patched.map(() => 'accepted'));
    for (const sku of patched) {
      expect(
        calls(sku, 'GET').map((g) => g.status),
        sku,
      ).to.deep.equal([200]);
      expect(
        calls(sku, 'PATCH').map((p) => [p.status, p.query!.marketplaceIds]),
        sku,
      ).to.deep.equal([[200, `${DE},${FR}`]]);
      expect(sandbox.state.quantities(String(account)).market_d?.[sku], sku).to.equal(8);
    }
    // The rest: fed after a lookup (held in both) with the lookup tokens left, else waiting for one, not looked up.
    // A patch's lookup starved by the feed's (taken in its own turn behind them) answered `GET ... waits N s`.
    for (const [i, o] of outcomes.entries()) {
      if (i < patched.length) continue;
      const sku = unrecorded[i]!;
      if (o.outcome === 'accepted')
        expect(
          calls(sku, 'GET').map((g) => g.status),
          sku,
        ).to.deep.equal([200]);
      else {
        expect(o, sku).to.deep.include({
          outcome: 'retry',
          message: `market_d: SKU ${sku} has no listing record; its lookup at Amazon waits for the rate limit`,
        });
        expect(calls(sku, 'GET'), sku).to.deep.equal([]);
      }
    }
  });

  it("CIA beyond the patch plan: the feed's lookup of an unrecorded SKU with characters a URL path escapes (/, space, #, ä) asks for that SKU, and the feed carries it", async () => {
    const skus = Array.from({ length: 14 }, (_, i) => `MM-ESC-FR-${i}`);
    for (const sku of skus) sellerCentralListing(sandbox.state, String(account), sku, [FR]);
    const odd = 'MM/ESC #ä 1';
    sellerCentralListing(sandbox.state, String(account), odd, [DE, FR]);
    const aids: PushAids = {
      ...recordedListings({}),
      listedMarkets: async (stockIds) => new Map(stockIds.filter((id) => id < 800).map((id) => [id, { markets: [FR], portalItemId: skus[id - 700]! }])),
    };
    // The FR-only ones take the patches (and no lookup); the odd SKU falls to the feed's part.
    const outcomes = await adapter.setQuantities(target, [...skus.map((sku, i) => quantity(700 + i, sku, 1)), quantity(800, odd, 7)], 'batch-q9', aids);
    expect(outcomes[14]).to.deep.equal({ stockId: 800, outcome: 'accepted' });
    const looked = sandbox.state.requests.filter((r) => r.portalAccount === String(account) && r.method === 'GET' && r.path.startsWith('/listings/'));
    expect(looked.map((r) => [r.status, r.path])).to.deep.equal([[200, `/listings/2021-08-01/items/${seller()}/${encodeURIComponent(odd)}`]]);
    expect(sandbox.state.quantities(String(account)).market_d?.[odd]).to.equal(7);
    const feeds = [...amazonOf(sandbox.state).feeds.values()].filter((f) => f.account === String(account));
    expect(feeds).to.have.length(1);
  });

  it('CIA beyond the patch plan at a SKU Kontor recorded no listing of that Amazon holds in DE only: it takes a patch before the SKUs recorded in both (which the feed carries), so it is patched in DE in the first try, not sent back to the feed and to a retry at every push', async () => {
    const recordedSkus = Array.from({ length: 14 }, (_, i) => `MM-RB-${i}`);
    for (const sku of recordedSkus) sellerCentralListing(sandbox.state, String(account), sku, [DE, FR]);
    sellerCentralListing(sandbox.state, String(account), 'MM-LATE-DE', [DE]);
    // Highest stock id, last in the batch (cia_portal_state is read by stock id).
    const updates = [...recordedSkus.map((sku, i) => quantity(600 + i, sku, 2)), quantity(699, 'MM-LATE-DE', 9)];
    const listed = Object.fromEntries(recordedSkus.map((sku, i) => [600 + i, sku]));
    const outcomes = await adapter.setQuantities(target, updates, 'batch-q8', recordedListings(listed));
    expect(outcomes[14]).to.deep.equal({ stockId: 699, outcome: 'accepted' });
    expect(calls('MM-LATE-DE', 'PATCH').map((p) => [p.status, p.query!.marketplaceIds])).to.deep.equal([[200, DE]]);
    expect(await shownAt('MM-LATE-DE', `${DE},${FR}`)).to.deep.equal({ status: 200, marketplaces: [DE] });
    expect(sandbox.state.quantities(String(account)).market_d?.['MM-LATE-DE']).to.equal(9);
    // The SKUs recorded in both: patched with the tokens left, the rest carried by the feed.
    expect(outcomes.slice(0, 14).every((o) => o.outcome === 'accepted')).to.equal(true);
    expect(recordedSkus.filter((sku) => calls(sku, 'PATCH').length === 0)).to.not.deep.equal([]);
    for (const sku of recordedSkus) expect(sandbox.state.quantities(String(account)).market_d?.[sku], sku).to.equal(2);
  });

  /** getListingsItem of the SKU answers `status` the next `count` times (the sandbox's lookup_fault control). */
  const lookupFault = async (sku: string, status: number, count: number, message?: string) => {
    const res = await fetch(`${sandbox.url}/_sandbox/amazon/listings/${encodeURIComponent(sku)}/lookup_fault`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ portal_account: account, status, count, ...(message ? { message } : {}) }),
    });
    expect(res.status, await res.text()).to.equal(201);
  };
  /** The account's access at Amazon taken (every SP-API call answers 403) or given back (the sandbox's access control). */
  const access = async (denied: boolean) => {
    const res = await fetch(`${sandbox.url}/_sandbox/amazon/access`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ portal_account: account, denied }),
    });
    expect(res.status, await res.text()).to.equal(200);
  };

  it("CIA at SKUs Kontor recorded no listing of, one lookup answered 400 and one 413: those two are refused with Amazon's answer and not patched; a 403 a new access token lifts (an expired token), and the others, are patched", async () => {
    for (const sku of ['MM-LK-BAD', 'MM-LK-BIG', 'MM-LK-OK']) sellerCentralListing(sandbox.state, String(account), sku, [DE, FR]);
    await adapter.list(target, item({ sku: 'MM-LK-REC' }, { stockId: 905 }), 'job-lk');
    await lookupFault('MM-LK-BAD', 400, 1);
    await lookupFault('MM-LK-BIG', 413, 1);
    // The account's next call answers 403 once (the contract's "Expired Token"): a new access token lifts it.
    sandbox.state.faults.push({ portal: 'market_d', portalAccount: String(account), status: 403, remaining: 1, message: 'The access token has expired.' });
    const outcomes = await adapter.setQuantities(
      target,
      [quantity(901, 'MM-LK-BAD', 4), quantity(902, 'MM-LK-BIG', 4), quantity(904, 'MM-LK-OK', 4), quantity(905, 'MM-LK-REC', 4)],
      'batch-lk1',
      recordedListings({ 905: 'MM-LK-REC' }),
    );
    expect(outcomes.map((o) => o.outcome)).to.deep.equal(['refused', 'refused', 'accepted', 'accepted']);
    expect((outcomes[0] as { message: string }).message)
      .to.contain('Amazon refused the lookup of SKU MM-LK-BAD, so the quantity of item 901 was not sent')
      .and.contain('market_d answered 400 to GET')
      .and.contain('InvalidInput: Invalid input');
    expect((outcomes[1] as { message: string }).message)
      .to.contain('Amazon refused the lookup of SKU MM-LK-BIG, so the quantity of item 902 was not sent')
      .and.contain('market_d answered 413 to GET')
      .and.contain('The request size exceeded the maximum accepted size.');
    // The 403 met one call (whichever went first), which went again with a new access token and was answered.
    const answered = (sku: string) =>
      calls(sku, 'GET')
        .map((g) => g.status)
        .filter((status) => status !== 403);
    expect(answered('MM-LK-BAD')).to.deep.equal([400]);
    expect(answered('MM-LK-BIG')).to.deep.equal([413]);
    const mine = sandbox.state.requests.filter((r) => r.portalAccount === String(account) && r.path.startsWith('/listings/'));
    expect(mine.filter((r) => r.status === 403)).to.have.length(1);
    for (const sku of ['MM-LK-BAD', 'MM-LK-BIG']) {
      expect(calls(sku, 'PATCH'), sku).to.deep.equal([]);
      expect(sandbox.state.quantities(String(account)).market_d?.[sku], sku).to.equal(0);
    }
    for (const sku of ['MM-LK-OK', 'MM-LK-REC']) {
      expect(
        calls(sku, 'PATCH')
          .filter((p) => p.status === 200)
          .map((p) => p.query!.marketplaceIds),
        sku,
      ).to.deep.equal([`${DE},${FR}`]);
      expect(sandbox.state.quantities(String(account)).market_d?.[sku], sku).to.equal(4);
    }
  });

  it("CIA at SKUs Kontor recorded no listing of, of an account whose access Amazon refuses (403 after a new token too): the first lookup's 403 stops the batch, named the account's, and nothing else is asked or sent", async () => {
    const skus = ['MM-LKD-1', 'MM-LKD-2', 'MM-LKD-3', 'MM-LKD-4', 'MM-LKD-5', 'MM-LKD-6'];
    for (const sku of skus) sellerCentralListing(sandbox.state, String(account), sku, [DE, FR]);
    await access(true);
    const err = await failure(
      adapter.setQuantities(
        target,
        skus.map((sku, i) => quantity(920 + i, sku, 4)),
        'batch-lk3',
        recordedListings({}),
      ),
    );
    expect(err.id).to.equal('portal_refused');
    expect(err.message)
      .to.contain(`market_d: portal account ${account}: Amazon refused the portal account's access`)
      .and.contain('The quantity batch stopped')
      .and.contain('Unauthorized: Access to requested resource is denied.');
    const mine = sandbox.state.requests.filter((r) => r.portalAccount === String(account) && r.path.startsWith('/listings/'));
    // Those sent at once (the burst Kontor takes) each go twice (a new token); none after.
    expect(mine.every((r) => r.method === 'GET' && r.status === 403)).to.equal(true);
    expect(new Set(mine.map((r) => r.path)).size).to.be.below(skus.length);
    for (const sku of skus) expect(sandbox.state.quantities(String(account)).market_d?.[sku], sku).to.equal(0);
  });

  it("CIA by the feed (the patch plan spent) at SKUs Kontor recorded no listing of, one lookup answered 400: that one is refused with Amazon's answer and left out of the feed, the feed carries the others", async () => {
    for (const sku of ['MM-LKF-1', 'MM-LKF-BAD', 'MM-LKF-2']) sellerCentralListing(sandbox.state, String(account), sku, [DE, FR]);
    await lookupFault('MM-LKF-BAD', 400, 1, "The SKU 'MM-LKF-BAD' is not valid.");
    // patchListingsItem's plan spent (a run of sales): the whole batch falls to the feed's part.
    await reserveSpApiTokens(account, 'patch', `/listings/2021-08-01/items/${seller()}/any`, 16, 60000);
    const outcomes = await adapter.setQuantities(
      target,
      [quantity(911, 'MM-LKF-1', 3), quantity(912, 'MM-LKF-BAD', 3), quantity(913, 'MM-LKF-2', 3)],
      'batch-lk2',
      recordedListings({}),
    );
    expect(outcomes.map((o) => o.outcome)).to.deep.equal(['accepted', 'refused', 'accepted']);
    expect((outcomes[1] as { message: string }).message)
      .to.contain('Amazon refused the lookup of SKU MM-LKF-BAD, so the quantity of item 912 was not sent')
      .and.contain("InvalidInput: The SKU 'MM-LKF-BAD' is not valid.");
    const feeds = [...amazonOf(sandbox.state).feeds.values()].filter((f) => f.account === String(account));
    expect(feeds).to.have.length(1);
    const fed = (JSON.parse(amazonOf(sandbox.state).documents.get(feeds[0]!.inputFeedDocumentId)!.content!) as { messages: { sku: string }[] }).messages.map(
      (m) => m.sku,
    );
    expect(fed).to.deep.equal(['MM-LKF-1', 'MM-LKF-2']);
    expect(sandbox.state.quantities(String(account)).market_d).to.deep.include({ 'MM-LKF-1': 3, 'MM-LKF-BAD': 0, 'MM-LKF-2': 3 });
    expect(sandbox.state.requests.filter((r) => r.portalAccount === String(account) && r.method === 'PATCH')).to.deep.equal([]);
  });

  it('CIA at items whose SKU the seller changed after Kontor listed them: the quantity goes to the listing Kontor recorded (its SKU at Amazon, as revise and end address it), by patch and by feed, never under the new SKU', async () => {
    await adapter.list(target, item({ sku: 'MM-OLD' }, { stockId: 960 }), 'job-old');
    await adapter.list(target, item({ sku: 'MM-OLD-F' }, { stockId: 961 }), 'job-old-f');
    const [patched] = await adapter.setQuantities(target, [quantity(960, 'MM-NEW', 3)], 'batch-sku1', recordedListings({ 960: 'MM-OLD' }));
    expect(patched).to.deep.equal({ stockId: 960, outcome: 'accepted' });
    expect(calls('MM-OLD', 'PATCH').map((p) => [p.status, p.query!.marketplaceIds])).to.deep.equal([[200, `${DE},${FR}`]]);
    // patchListingsItem's plan spent: the next goes by the feed.
    await reserveSpApiTokens(account, 'patch', `/listings/2021-08-01/items/${seller()}/any`, 16, 60000);
    const [fed] = await adapter.setQuantities(target, [quantity(961, 'MM-NEW-F', 2)], 'batch-sku2', recordedListings({ 961: 'MM-OLD-F' }));
    expect(fed).to.deep.equal({ stockId: 961, outcome: 'accepted' });
    const feeds = [...amazonOf(sandbox.state).feeds.values()].filter((f) => f.account === String(account));
    expect(feeds).to.have.length(1);
    expect(
      (JSON.parse(amazonOf(sandbox.state).documents.get(feeds[0]!.inputFeedDocumentId)!.content!) as { messages: { sku: string }[] }).messages.map(
        (m) => m.sku,
      ),
    ).to.deep.equal(['MM-OLD-F']);
    expect(sandbox.state.quantities(String(account)).market_d).to.deep.include({ 'MM-OLD': 3, 'MM-OLD-F': 2 });
    for (const sku of ['MM-NEW', 'MM-NEW-F']) {
      expect(calls(sku, 'PATCH'), sku).to.deep.equal([]);
      expect(await shownAt(sku, `${DE},${FR}`), sku).to.deep.include({ status: 404 });
    }
  });

  it('CIA at an item Kontor listed in FR only (of DE and FR) whose SKU the seller changed since: its quantity goes under the SKU it was listed by, in FR alone, unasked; the new SKU gets nothing', async () => {
    await adapter.list(targetIn(FR), item({ sku: 'MM-OLD-FR' }, { stockId: 970 }), 'job-old-fr');
    const aids: PushAids = {
      ...recordedListings({}),
      listedMarkets: async (stockIds) => new Map(stockIds.filter((id) => id === 970).map((id) => [id, { markets: [FR], portalItemId: 'MM-OLD-FR' }])),
    };
    const [outcome] = await adapter.setQuantities(target, [quantity(970, 'MM-NEW-FR', 3)], 'batch-sku3', aids);
    expect(outcome).to.deep.equal({ stockId: 970, outcome: 'accepted' });
    expect(calls('MM-OLD-FR', 'PATCH').map((p) => [p.status, p.query!.marketplaceIds])).to.deep.equal([[200, FR]]);
    expect(calls('MM-OLD-FR', 'GET')).to.deep.equal([]);
    expect(sandbox.state.quantities(String(account)).market_d?.['MM-OLD-FR']).to.equal(3);
    expect(await shownAt('MM-OLD-FR', `${DE},${FR}`)).to.deep.equal({ status: 200, marketplaces: [FR] });
    expect(calls('MM-NEW-FR', 'PATCH')).to.deep.equal([]);
    expect(await shownAt('MM-NEW-FR', `${DE},${FR}`)).to.deep.include({ status: 404 });
  });

  it('a JPY price with decimals is refused before any call, naming the SKU and the marketplace (the yen has no minor unit); a whole yen price is offered as it is', async () => {
    const JP = 'A1VC38T7YXB528';
    const err = await failure(adapter.list(targetIn(JP), item({ sku: 'MM-JPY', price: '1980.50' }), 'job-j1'));
    expect(err.id).to.equal('portal_refused');
    expect(err.message).to.contain('SKU MM-JPY').and.contain('1980.50 JPY').and.contain(JP);
    expect(calls('MM-JPY', 'PUT')).to.deep.equal([]);
    const revised = await failure(adapter.revise(targetIn(JP), item({ sku: 'MM-JPY', price: '1980.5' }), 'MM-JPY', ['price'], 'job-j2'));
    expect(revised.id).to.equal('portal_refused');
    expect(calls('MM-JPY', 'PATCH')).to.deep.equal([]);
    await adapter.list(targetIn(JP), item({ sku: 'MM-JPY', price: '1980.00' }), 'job-j3');
    expect(offersSent('MM-JPY', 'PUT')).to.deep.equal([[JP, 200, offerIn(JP, 'JPY', 1980)]]);
  });

  it("send_mit confirms an order of the second marketplace in the order's marketplace, not the account's first", async () => {
    const order = placeOrder(amazonOf(sandbox.state), { portal_account: account, marketplace_id: FR, lines: [{ sku: 'MM-SHIP', quantity: 1, price: '9.00' }] });
    await adapter.markShipped(
      target,
      {
        orderId: '21_2026_11',
        externalOrderId: order.orderId,
        lines: [{ transactionId: order.lines[0]!.orderItemId, quantity: 1 }],
        carrier: 'DHL',
        trackingCode: '00340434161094042558',
      },
      'ship-fr',
    );
    const confirms = sandbox.state.requests.filter((r) => r.path === `/orders/v0/orders/${order.orderId}/shipmentConfirmation`);
    expect(confirms.map((c) => [c.status, (c.body as { marketplaceId: string }).marketplaceId])).to.deep.equal([[204, FR]]);
    expect(order.status).to.equal('SHIPPED');
  });
});

describe("market_d: the sandbox's Listings Items keep Amazon's marketplace rules", () => {
  let sandbox: Sandbox;
  const account = 690000 + Math.floor(Math.random() * 10000);
  sandboxKeepingContract('amazon', (started) => (sandbox = started));

  const request = (method: string, sku: string, marketplaceIds: string, body?: unknown) =>
    listingsCall(sandbox.url, account, method, sku, `marketplaceIds=${marketplaceIds}`, body);
  const offer = (marketplaceId: string) => ({
    productType: 'PRODUCT',
    requirements: 'LISTING_OFFER_ONLY',
    attributes: {
      condition_type: [{ value: 'new_new', marketplace_id: marketplaceId }],
      fulfillment_availability: [{ fulfillment_channel_code: 'DEFAULT', quantity: 1 }],
    },
  });

  it("an offer priced in another currency than its marketplace's makes the submission INVALID, naming both currencies", async () => {
    const priced = (marketplaceId: string, currency: string) => {
      const o = offer(marketplaceId);
      return {
        ...o,
        attributes: {
          ...o.attributes,
          purchasable_offer: [{ currency, our_price: [{ schedule: [{ value_with_tax: 19.9 }] }], marketplace_id: marketplaceId }],
        },
      };
    };
    const put = await request('PUT', 'SB-2', UK, priced(UK, 'EUR'));
    expect(put.status).to.equal(200);
    expect(put.body.status).to.equal('INVALID');
    expect(put.body.issues![0]!.message).to.contain('EUR').and.contain('GBP').and.contain(UK).and.contain('purchasable_offer');
    expect((await request('PUT', 'SB-2', UK, priced(UK, 'GBP'))).body.status).to.equal('ACCEPTED');
    // A patch is held to the same: the listing's US price in Canadian dollars.
    const patch = await request('PATCH', 'SB-2', US, {
      productType: 'PRODUCT',
      patches: [{ op: 'replace', path: '/attributes/purchasable_offer', value: priced(US, 'CAD').attributes.purchasable_offer }],
    });
    expect(patch.status).to.equal(200);
    expect(patch.body.status).to.equal('INVALID');
    expect((await request('PUT', 'SB-2', CA, priced(CA, 'CAD'))).body.status).to.equal('ACCEPTED');
  });

  it('an offer in JPY with decimals makes the submission INVALID (the yen has no minor unit); a whole yen price is ACCEPTED', async () => {
    const JP = 'A1VC38T7YXB528';
    const priced = (value: number) => ({
      ...offer(JP),
      attributes: {
        ...offer(JP).attributes,
        purchasable_offer: [{ currency: 'JPY', our_price: [{ schedule: [{ value_with_tax: value }] }], marketplace_id: JP }],
      },
    });
    const put = await request('PUT', 'SB-JPY', JP, priced(1980.5));
    expect(put.body.status).to.equal('INVALID');
    expect(put.body.issues![0]!.message).to.contain('1980.5 JPY').and.contain('purchasable_offer');
    expect((await request('PUT', 'SB-JPY', JP, priced(1980))).body.status).to.equal('ACCEPTED');
  });

  it('a quantity patch of a SKU no put made is ACCEPTED, but the listing it makes is neither BUYABLE nor DISCOVERABLE and shows what it lacks (MISSING_ATTRIBUTE, MISSING_PRICE)', async () => {
    const patched = await request('PATCH', 'SB-QTY', DE, {
      productType: 'PRODUCT',
      patches: [{ op: 'replace', path: '/attributes/fulfillment_availability', value: [{ fulfillment_channel_code: 'DEFAULT', quantity: 5 }] }],
    });
    expect(patched.body.status).to.equal('ACCEPTED');
    const shown = await listingsCall(sandbox.url, account, 'GET', 'SB-QTY', `marketplaceIds=${DE}&includedData=summaries,issues`);
    const body = shown.body as unknown as { summaries: { status: string[] }[]; issues: { severity: string; categories: string[] }[] };
    expect(body.summaries[0]!.status).to.deep.equal([]);
    expect(body.issues.filter((i) => i.severity === 'ERROR').flatMap((i) => i.categories)).to.have.members([
      'MISSING_ATTRIBUTE',
      'MISSING_ATTRIBUTE',
      'MISSING_PRICE',
    ]);
  });

  it('a quantity patch naming a marketplace the SKU was not put in lands it there without a price: BUYABLE in DE, where it was put, not in FR (MISSING_PRICE naming FR)', async () => {
    // Processed at once: the GET below reads the listing as Amazon made it.
    amazonOf(sandbox.state).listingMs = 0;
    const put = await request('PUT', 'SB-DEONLY', DE, {
      ...offer(DE),
      attributes: {
        ...offer(DE).attributes,
        merchant_suggested_asin: [{ value: 'B000SANDBOX', marketplace_id: DE }],
        purchasable_offer: [{ currency: 'EUR', our_price: [{ schedule: [{ value_with_tax: 19.9 }] }], marketplace_id: DE }],
      },
    });
    expect(put.body.status).to.equal('ACCEPTED');
    const patched = await request('PATCH', 'SB-DEONLY', `${DE},${FR}`, {
      productType: 'PRODUCT',
      patches: [{ op: 'replace', path: '/attributes/fulfillment_availability', value: [{ fulfillment_channel_code: 'DEFAULT', quantity: 4 }] }],
    });
    expect(patched.body.status).to.equal('ACCEPTED');
    const shown = await listingsCall(sandbox.url, account, 'GET', 'SB-DEONLY', `marketplaceIds=${DE},${FR}&includedData=summaries,issues`);
    const body = shown.body as unknown as {
      summaries: { marketplaceId: string; status: string[] }[];
      issues: { categories: string[]; marketplaceIds?: string[] }[];
    };
    expect(body.summaries.map((x) => [x.marketplaceId, x.status])).to.deep.equal([
      [DE, ['BUYABLE', 'DISCOVERABLE']],
      [FR, []],
    ]);
    expect(body.issues.filter((i) => i.categories.includes('MISSING_PRICE')).map((i) => i.marketplaceIds)).to.deep.equal([[FR]]);
    amazonOf(sandbox.state).listingMs = 300;
  });

  it('an attribute value naming a marketplace the request does not name makes the submission INVALID, naming both', async () => {
    const put = await request('PUT', 'SB-1', DE, offer(`${DE},${FR}`));
    expect(put.status).to.equal(200);
    expect(put.body.status).to.equal('INVALID');
    expect(put.body.issues![0]!.message).to.contain(`${DE},${FR}`).and.contain('condition_type');
    const other = await request('PUT', 'SB-1', DE, offer(FR));
    expect(other.body.status).to.equal('INVALID');
    expect((await request('PUT', 'SB-1', DE, offer(DE))).body.status).to.equal('ACCEPTED');
  });
});
