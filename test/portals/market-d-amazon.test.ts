import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { config, setConfig } from '../../config';
import { isPermanent } from '../../lib/errors';
import { amazonListing, listingPatches } from '../../lib/portals/amazon/listing-attributes';
import { orderStatus } from '../../lib/portals/amazon/order-mapping';
import { amazonShipDate } from '../../lib/portals/amazon/shipment';
import { learnRate, reserveSpApiTokens, usagePlan } from '../../lib/portals/amazon/sp-api-limits';
import { MarketDAdapter } from '../../lib/portals/market-d.adapter';
import type { ListingItem, PortalTarget, QuantityUpdate } from '../../lib/portals/portal.type';
import { amazonOf } from '../../sandbox/amazon.sandbox';
import type { SandboxRequest } from '../../sandbox/sandbox.app';
import { Sandbox, sandboxKeepingContract } from '../fleet/support';
import { failure } from '../support/failure';

const DE = 'A1PA6795UKMFR9';
const adapter = new MarketDAdapter();

function item(group: Record<string, unknown>, more: Partial<ListingItem> = {}): ListingItem {
  return { stockId: 7, name: 'Teapot', sku: 'TEA-1', ean: '4006381333931', price: '19.90', quantityAvailable: 5, group, ...more };
}

describe('market_d: Stock_market_d_type as a Listings Items submission, field group by field group', () => {
  it('sku: market_d.sku, else the master SKU, else the stock id', () => {
    expect(amazonListing(item({ sku: 'AZ-1' }), DE).sku).to.equal('AZ-1');
    expect(amazonListing(item({}), DE).sku).to.equal('TEA-1');
    expect(amazonListing(item({}, { sku: null }), DE).sku).to.equal('7');
  });

  it('identifiers: an ASIN is merchant_suggested_asin; EAN, UPC, ISBN (or the barcode) are externally_assigned_product_identifier', () => {
    const asin = amazonListing(item({ id_type: 'ASIN', id: 'B00TEST123' }), DE).attributes;
    expect(asin.merchant_suggested_asin).to.deep.equal([{ value: 'B00TEST123', marketplace_id: DE }]);
    expect(asin.externally_assigned_product_identifier).to.equal(undefined);
    expect(amazonListing(item({}), DE).attributes.externally_assigned_product_identifier).to.deep.equal([
      { type: 'ean', value: '4006381333931', marketplace_id: DE },
    ]);
    expect(amazonListing(item({ id_type: 'UPC', id: '012345678905' }), DE).attributes.externally_assigned_product_identifier).to.deep.equal([
      { type: 'upc', value: '012345678905', marketplace_id: DE },
    ]);
    expect(() => amazonListing(item({ id_type: 'GTIN' }), DE)).to.throw(/id_type must be one of ASIN, ISBN, UPC, EAN/);
    expect(() => amazonListing(item({ id_type: 'ASIN' }), DE)).to.throw(/a product id/);
  });

  it('price: purchasable_offer with the gross price in the marketplace currency; market_d.price before the master price', () => {
    expect(amazonListing(item({ price: '24.50' }), DE).attributes.purchasable_offer).to.deep.equal([
      { currency: 'EUR', our_price: [{ schedule: [{ value_with_tax: 24.5 }] }], marketplace_id: DE },
    ]);
    expect(amazonListing(item({}), 'A1F83G8C2ARO7P').attributes.purchasable_offer![0]!.currency).to.equal('GBP');
    expect(() => amazonListing(item({}, { price: null }), DE)).to.throw(/a price is required/);
  });

  it('condition: new, with the comment as its condition_note', () => {
    const a = amazonListing(item({ comment: 'Still boxed' }), DE).attributes;
    expect(a.condition_type).to.deep.equal([{ value: 'new_new', marketplace_id: DE }]);
    expect(a.condition_note).to.deep.equal([{ value: 'Still boxed', marketplace_id: DE }]);
    expect(amazonListing(item({}), DE).attributes.condition_note).to.equal(undefined);
  });

  it('fulfilment and handling time: DEFAULT with quantity and lead_time_to_ship_max_days; FBA names the region and no quantity', () => {
    expect(amazonListing(item({ delivery_time: 3 }), DE).attributes.fulfillment_availability).to.deep.equal([
      { fulfillment_channel_code: 'DEFAULT', quantity: 5, lead_time_to_ship_max_days: 3 },
    ]);
    expect(amazonListing(item({ is_fba: true }), DE).attributes.fulfillment_availability).to.deep.equal([{ fulfillment_channel_code: 'AMAZON_EU' }]);
    expect(amazonListing(item({ is_fba: true }), 'ATVPDKIKX0DER').attributes.fulfillment_availability).to.deep.equal([
      { fulfillment_channel_code: 'AMAZON_NA' },
    ]);
  });

  it('prime template: merchant_shipping_group; product type: category_id, else PRODUCT, always an offer-only submission', () => {
    const l = amazonListing(item({ prime_template: 'Prime DE', category_id: 'KITCHEN' }), DE);
    expect(l.attributes.merchant_shipping_group).to.deep.equal([{ value: 'Prime DE', marketplace_id: DE }]);
    expect(l.productType).to.equal('KITCHEN');
    expect(l.requirements).to.equal('LISTING_OFFER_ONLY');
    expect(amazonListing(item({}), DE).productType).to.equal('PRODUCT');
  });

  it('revise: JSON Patch replace operations of the named values only', () => {
    const patches = listingPatches(amazonListing(item({ price: '30.00' }), DE), ['price']);
    expect(patches).to.deep.equal([
      {
        op: 'replace',
        path: '/attributes/purchasable_offer',
        value: [{ currency: 'EUR', our_price: [{ schedule: [{ value_with_tax: 30 }] }], marketplace_id: DE }],
      },
    ]);
  });

  it('order status (FulfillmentStatus of v2026-01-01): PENDING and PENDING_AVAILABILITY unpaid, UNSHIPPED and PARTIALLY_SHIPPED paid, SHIPPED shipped, CANCELLED cancelled', () => {
    expect(orderStatus('PENDING')).to.deep.equal({ is_paid: false, is_shipped: false, is_cancelled: false });
    expect(orderStatus('PENDING_AVAILABILITY')).to.deep.equal({ is_paid: false, is_shipped: false, is_cancelled: false });
    expect(orderStatus('UNSHIPPED')).to.deep.equal({ is_paid: true, is_shipped: false, is_cancelled: false });
    expect(orderStatus('PARTIALLY_SHIPPED')).to.deep.equal({ is_paid: true, is_shipped: false, is_cancelled: false });
    expect(orderStatus('SHIPPED')).to.deep.equal({ is_paid: true, is_shipped: true, is_cancelled: false });
    expect(orderStatus('CANCELLED')).to.deep.equal({ is_paid: false, is_shipped: false, is_cancelled: true });
  });
});

describe('market_d: the SP-API calls against the sandbox', () => {
  let sandbox: Sandbox;
  let account: number;
  let target: PortalTarget;
  const wait = config().marketDFeedWaitMs;
  // Every request the adapters sent keeps to Amazon's published contracts.
  sandboxKeepingContract('amazon', (started) => (sandbox = started));
  after(() => setConfig({ ...config(), marketDFeedWaitMs: wait }));
  beforeEach(() => {
    // A fresh portal account per test: token buckets and pending feeds live in Redis per account.
    account = 800000 + Math.floor(Math.random() * 100000);
    target = { portalAccountId: account, baseUrl: sandbox.url, credentials: {} };
  });

  const calls = (path?: string | RegExp): SandboxRequest[] =>
    sandbox.state.requests.filter(
      (r) =>
        r.portal === 'market_d' &&
        r.portalAccount === String(account) &&
        (path === undefined || (typeof path === 'string' ? r.path === path : path.test(r.path))),
    );
  const seller = () => `SANDBOX${account}`;
  const shown = () => sandbox.state.quantities(String(account)).market_d ?? {};
  const update = (stockId: number, sku: string, quantity: number, group: Record<string, unknown> = {}): QuantityUpdate => ({
    stockId,
    quantity,
    key: `k-${stockId}-${quantity}`,
    sku,
    group,
  });
  /** A lead time, a plain item, an FBA offer (left to Amazon) and an item whose SKU comes from its group. */
  const mixedBatch = () => [
    update(1, 'Q-1', 4, { delivery_time: 1 }),
    update(2, 'Q-2', 0),
    update(3, 'Q-FBA', 9, { is_fba: true }),
    update(4, 'IGNORED', 6, { sku: 'Q-4' }),
  ];

  it('list: putListingsItem by seller id and SKU with marketplaceIds, the mapped product type and attributes, and an LWA access token', async () => {
    const answer = await adapter.list(target, item({ sku: 'AZ-PUT', delivery_time: 2, prime_template: 'Prime' }), 'job-1');
    expect(answer).to.deep.equal({ portalItemId: 'AZ-PUT', markets: ['A1PA6795UKMFR9'] });
    const [put] = calls(`/listings/2021-08-01/items/${seller()}/AZ-PUT`);
    expect(put!.method).to.equal('PUT');
    expect(put!.status).to.equal(200);
    expect(put!.bearer).to.equal(true);
    expect(put!.query).to.deep.equal({ marketplaceIds: DE });
    expect(put!.body).to.deep.equal({
      productType: 'PRODUCT',
      requirements: 'LISTING_OFFER_ONLY',
      attributes: {
        externally_assigned_product_identifier: [{ type: 'ean', value: '4006381333931', marketplace_id: DE }],
        purchasable_offer: [{ currency: 'EUR', our_price: [{ schedule: [{ value_with_tax: 19.9 }] }], marketplace_id: DE }],
        condition_type: [{ value: 'new_new', marketplace_id: DE }],
        merchant_shipping_group: [{ value: 'Prime', marketplace_id: DE }],
        fulfillment_availability: [{ fulfillment_channel_code: 'DEFAULT', quantity: 5, lead_time_to_ship_max_days: 2 }],
      },
    });
    expect(shown()['AZ-PUT']).to.equal(5);
  });

  it('revise and end: patchListingsItem with the patches, deleteListingsItem by SKU; an INVALID submission fails with its issues', async () => {
    await adapter.list(target, item({ sku: 'AZ-REV' }), 'job-2');
    await adapter.revise(target, item({ sku: 'AZ-REV', price: '21.00' }), 'AZ-REV', ['price'], 'job-3');
    const [patch] = calls(`/listings/2021-08-01/items/${seller()}/AZ-REV`).filter((r) => r.method === 'PATCH');
    expect(patch!.query).to.deep.equal({ marketplaceIds: DE });
    expect(patch!.body).to.deep.equal({
      productType: 'PRODUCT',
      patches: [
        {
          op: 'replace',
          path: '/attributes/purchasable_offer',
          value: [{ currency: 'EUR', our_price: [{ schedule: [{ value_with_tax: 21 }] }], marketplace_id: DE }],
        },
      ],
    });
    await adapter.end(target, 7, 'AZ-REV', 'job-4');
    const [del] = calls(`/listings/2021-08-01/items/${seller()}/AZ-REV`).filter((r) => r.method === 'DELETE');
    expect(del!.query).to.deep.equal({ marketplaceIds: DE });
    expect(shown()['AZ-REV']).to.equal(0);

    sandbox.state.faults.push({
      portal: 'market_d',
      portalAccount: String(account),
      reference: 'AZ-BAD',
      status: 422,
      remaining: 1,
      message: "'[item_name]' is required",
    });
    const err = await failure(adapter.list(target, item({ sku: 'AZ-BAD' }), 'job-5'));
    expect(err.id).to.equal('portal_refused');
    expect(err.message).to.contain('AZ-BAD').and.contain("'[item_name]' is required");
  });

  /**
   * patchListingsItem's plan (5/s, burst 5) spent, as after a run of sales: a batch would wait
   * more than 2 s for its tokens, so it goes as a feed.
   */
  const spendPatchPlan = () => reserveSpApiTokens(account, 'patch', `/listings/2021-08-01/items/${seller()}/any`, 16, 60000);
  /**
   * Runs a test whose feed is still in progress when the adapter's wait is over (feeds of 600 ms
   * polled for 100 ms), with the patch plan spent so that the quantities go by feed.
   */
  const withSlowFeed = async (run: () => Promise<void>) => {
    setConfig({ ...config(), marketDFeedWaitMs: 100 });
    amazonOf(sandbox.state).feedMs = 600;
    try {
      await spendPatchPlan();
      await run();
    } finally {
      setConfig({ ...config(), marketDFeedWaitMs: wait });
      amazonOf(sandbox.state).feedMs = 300;
    }
  };
  const listed = async (...skus: string[]) => {
    for (const sku of skus) await adapter.list(target, item({ sku }), `job-${sku}`);
  };
  const patchesOf = () => calls(/^\/listings\//).filter((r) => r.method === 'PATCH');

  it('CIA quantities of a few SKUs: one patchListingsItem each, the fulfillment_availability replaced, no feed; FBA offers are left to Amazon', async () => {
    await listed('Q-1', 'Q-2', 'Q-4');
    const outcomes = await adapter.setQuantities(target, mixedBatch(), 'batch-p1');
    expect(outcomes).to.deep.equal([1, 2, 3, 4].map((stockId) => ({ stockId, outcome: 'accepted' })));
    const patches = patchesOf();
    expect(patches.map((r) => r.path).sort()).to.deep.equal(['Q-1', 'Q-2', 'Q-4'].map((sku) => `/listings/2021-08-01/items/${seller()}/${sku}`));
    expect(patches.every((r) => r.status === 200 && r.bearer && r.query?.marketplaceIds === DE)).to.equal(true);
    expect(patches.find((r) => r.path.endsWith('/Q-1'))!.body).to.deep.equal({
      productType: 'PRODUCT',
      patches: [
        {
          op: 'replace',
          path: '/attributes/fulfillment_availability',
          value: [{ fulfillment_channel_code: 'DEFAULT', quantity: 4, lead_time_to_ship_max_days: 1 }],
        },
      ],
    });
    expect(calls(/^\/feeds\//)).to.deep.equal([]);
    expect(shown()).to.deep.equal({ 'Q-1': 4, 'Q-2': 0, 'Q-4': 6 });
  });

  it('two stock items with one SKU: the lower quantity is patched once, the other item refused naming the clash', async () => {
    await listed('S-1');
    const outcomes = await adapter.setQuantities(target, [update(1, 'S-1', 7), update(2, 'S-1', 3)], 'batch-s1');
    expect(outcomes).to.deep.equal([
      {
        stockId: 1,
        outcome: 'refused',
        message: 'market_d (Amazon): stock items 2 and 1 share one listing (SKU S-1); the lower quantity, 3 of item 2, was sent: give each item its own SKU',
      },
      { stockId: 2, outcome: 'accepted' },
    ]);
    expect(patchesOf().filter((r) => r.path.endsWith('/S-1'))).to.have.length(1);
    expect(shown()).to.deep.include({ 'S-1': 3 });
  });

  it("patches keep to the plan: beyond its burst, each waits for its token; a refused patch refuses its item with Amazon's issue, a 5xx retries it", async () => {
    const skus = ['R-1', 'R-2', 'R-3', 'R-4', 'R-5', 'R-6', 'R-7'];
    await listed(...skus);
    sandbox.state.faults.push({
      portal: 'market_d',
      portalAccount: String(account),
      reference: 'R-2',
      status: 400,
      remaining: 1,
      message: 'SKU R-2 is blocked',
    });
    const outcomes = await adapter.setQuantities(
      target,
      skus.map((sku, i) => update(i + 1, sku, 3)),
      'batch-p2',
    );
    expect(outcomes.map((o) => o.outcome)).to.deep.equal(['accepted', 'refused', 'accepted', 'accepted', 'accepted', 'accepted', 'accepted']);
    expect((outcomes[1] as { message: string }).message)
      .to.contain('SKU R-2 is blocked')
      .and.contain('item 2');
    // 5 per second after a burst of 5: the 7th call is sent no sooner than 2 tokens (400 ms) after
    // the first. The sandbox sees arrival times, and on a loaded machine the first call can arrive
    // late while the 7th, sent after its wait, arrives at once: a margin of 100 ms for that jitter.
    // Without the plan the 7 calls go out together, a few milliseconds apart.
    const times = patchesOf().map((r) => Date.parse(r.at));
    expect(Math.max(...times) - Math.min(...times)).to.be.at.least(300);
    // R-2 keeps the quantity it was listed with.
    expect(shown()).to.deep.equal({ 'R-1': 3, 'R-2': 5, 'R-3': 3, 'R-4': 3, 'R-5': 3, 'R-6': 3, 'R-7': 3 });

    // Amazon's 404 for a SKU it does not know refuses that item, not the batch.
    sandbox.state.faults.push({ portal: 'market_d', portalAccount: String(account), status: 404, remaining: 1, message: 'SKU R-1 not found' });
    const gone = await adapter.setQuantities(target, [update(1, 'R-1', 2)], 'batch-p3');
    expect(gone[0]).to.include({ stockId: 1, outcome: 'refused' });
    expect((gone[0] as { message: string }).message).to.contain('NotFound: SKU R-1 not found');

    sandbox.state.faults.push({ portal: 'market_d', portalAccount: String(account), status: 503, remaining: 1, message: 'Service Unavailable' });
    const again = await adapter.setQuantities(target, [update(1, 'R-1', 2)], 'batch-p4');
    expect(again[0]).to.include({ stockId: 1, outcome: 'retry' });
    expect((again[0] as { message: string }).message).to.contain('503');
    expect(shown()['R-1']).to.equal(3);
  });

  it('more SKUs than the patch plan carries within 2 s: as many as it carries go as patches, the rest as one feed', async () => {
    const skus = Array.from({ length: 20 }, (_, i) => `B-${i}`);
    const outcomes = await adapter.setQuantities(
      target,
      skus.map((sku, i) => update(i + 1, sku, 5)),
      'batch-p5',
    );
    expect(outcomes.every((o) => o.outcome === 'accepted')).to.equal(true);
    // A burst of 5 less the 3 tokens Kontor keeps in reserve (600 ms of jitter at 5/s), and 5 a second for 2 s; none throttled.
    expect(patchesOf().map((r) => r.path.split('/').pop())).to.have.members(skus.slice(0, 12));
    expect(patchesOf().every((r) => r.status === 200)).to.equal(true);
    const amazon = amazonOf(sandbox.state);
    const feeds = [...amazon.feeds.values()].filter((f) => f.account === String(account));
    expect(feeds).to.have.length(1);
    const input = JSON.parse(amazon.documents.get(feeds[0]!.inputFeedDocumentId)!.content!) as { messages: { sku: string }[] };
    expect(input.messages.map((m) => m.sku)).to.deep.equal(skus.slice(12));
    expect(Object.keys(shown())).to.have.members(skus);
  });

  it('CIA quantities: createFeedDocument, the upload, createFeed, getFeed until DONE, getFeedDocument and its report; FBA offers are left to Amazon', async () => {
    await spendPatchPlan();
    const outcomes = await adapter.setQuantities(target, mixedBatch(), 'batch-1');
    expect(outcomes).to.deep.equal([1, 2, 3, 4].map((stockId) => ({ stockId, outcome: 'accepted' })));
    const seq = calls().filter((r) => r.path !== '/auth/o2/token');
    const [doc, feed] = seq;
    expect(doc!.method + ' ' + doc!.path).to.equal('POST /feeds/2021-06-30/documents');
    expect(doc!.body).to.deep.equal({ contentType: 'application/json; charset=UTF-8' });
    expect(doc!.status).to.equal(201);
    const amazon = amazonOf(sandbox.state);
    const inputId = [...amazon.documents.entries()].find(([, d]) => d.account === String(account) && d.content?.includes('"messages"'))![0];
    expect(feed!.method + ' ' + feed!.path).to.equal('POST /feeds/2021-06-30/feeds');
    expect(feed!.body).to.deep.equal({ feedType: 'JSON_LISTINGS_FEED', marketplaceIds: [DE], inputFeedDocumentId: inputId });
    expect(feed!.status).to.equal(202);
    const feedId = [...amazon.feeds.values()].find((f) => f.account === String(account))!.feedId;
    const polls = seq.filter((r) => r.path === `/feeds/2021-06-30/feeds/${feedId}`);
    expect(polls.length).to.be.at.least(1);
    expect(seq.at(-1)!.path).to.equal(`/feeds/2021-06-30/documents/${amazon.feeds.get(feedId)!.resultFeedDocumentId}`);
    expect(JSON.parse(amazon.documents.get(inputId)!.content!)).to.deep.equal({
      header: { sellerId: seller(), version: '2.0', issueLocale: 'en_US' },
      messages: [
        {
          messageId: 1,
          sku: 'Q-1',
          operationType: 'PATCH',
          productType: 'PRODUCT',
          patches: [
            {
              op: 'replace',
              path: '/attributes/fulfillment_availability',
              value: [{ fulfillment_channel_code: 'DEFAULT', quantity: 4, lead_time_to_ship_max_days: 1 }],
            },
          ],
        },
        {
          messageId: 2,
          sku: 'Q-2',
          operationType: 'PATCH',
          productType: 'PRODUCT',
          patches: [{ op: 'replace', path: '/attributes/fulfillment_availability', value: [{ fulfillment_channel_code: 'DEFAULT', quantity: 0 }] }],
        },
        {
          messageId: 3,
          sku: 'Q-4',
          operationType: 'PATCH',
          productType: 'PRODUCT',
          patches: [{ op: 'replace', path: '/attributes/fulfillment_availability', value: [{ fulfillment_channel_code: 'DEFAULT', quantity: 6 }] }],
        },
      ],
    });
    expect(shown()).to.deep.equal({ 'Q-1': 4, 'Q-2': 0, 'Q-4': 6 });
  });

  it("a report's ERROR issues refuse those items with Amazon's message; the others are acknowledged", async () => {
    await spendPatchPlan();
    sandbox.state.faults.push({
      portal: 'market_d',
      portalAccount: String(account),
      reference: 'E-2',
      status: 400,
      remaining: 1,
      message: 'SKU E-2 is blocked',
    });
    const outcomes = await adapter.setQuantities(target, [update(1, 'E-1', 3), update(2, 'E-2', 3), update(3, 'E-3', 3)], 'batch-2');
    expect(outcomes[0]).to.deep.equal({ stockId: 1, outcome: 'accepted' });
    expect(outcomes[1]).to.include({ stockId: 2, outcome: 'refused' });
    expect((outcomes[1] as { message: string }).message)
      .to.contain('SKU E-2 is blocked')
      .and.contain('item 2');
    expect(outcomes[2]).to.deep.equal({ stockId: 3, outcome: 'accepted' });
    expect(shown()).to.deep.equal({ 'E-1': 3, 'E-3': 3 });
  });

  it('a feed that ends FATAL (or CANCELLED) sends every item again; the next try submits a new feed', async () => {
    await spendPatchPlan();
    await fetch(`${sandbox.url}/_sandbox/amazon/feed_outcome`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ portal_account: account, status: 'FATAL' }),
    });
    const first = await adapter.setQuantities(target, [update(1, 'F-1', 2), update(2, 'F-2', 2)], 'batch-3');
    expect(first.map((o) => o.outcome)).to.deep.equal(['retry', 'retry']);
    expect((first[0] as { message: string }).message).to.match(/ended FATAL/);
    expect(shown()).to.deep.equal({});
    const second = await adapter.setQuantities(target, [update(1, 'F-1', 2), update(2, 'F-2', 2)], 'batch-3');
    expect(second.map((o) => o.outcome)).to.deep.equal(['accepted', 'accepted']);
    expect(calls('/feeds/2021-06-30/feeds')).to.have.length(2);
    expect(shown()).to.deep.equal({ 'F-1': 2, 'F-2': 2 });
  });

  it('a report that accepts fewer messages than it names no error for: those items are sent again, as the report does not say which were left unapplied', async () => {
    await spendPatchPlan();
    const scripted = await fetch(`${sandbox.url}/_sandbox/amazon/feed_outcome`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ portal_account: account, status: 'DONE', unprocessed: 1 }),
    });
    expect(scripted.status).to.equal(201);
    const batch = () => [update(1, 'U-1', 4), update(2, 'U-2', 4), update(3, 'U-3', 4)];
    const first = await adapter.setQuantities(target, batch(), 'batch-u');
    expect(first.map((o) => o.outcome)).to.deep.equal(['retry', 'retry', 'retry']);
    expect((first[2] as { message: string }).message).to.match(/accepted 2 of the 3 messages it names no error for/);
    // Amazon applied two and left one: without the summary read, all three counted done.
    expect(shown()).to.deep.equal({ 'U-1': 4, 'U-2': 4 });
    const second = await adapter.setQuantities(target, batch(), 'batch-u');
    expect(second.map((o) => o.outcome)).to.deep.equal(['accepted', 'accepted', 'accepted']);
    expect(shown()).to.deep.equal({ 'U-1': 4, 'U-2': 4, 'U-3': 4 });
  });

  it('an account selling in several marketplaces (marketplace_id comma-separated, as consent stores it): patches and the feed name each marketplace on its own', async () => {
    const FR = 'A13V1IB3VIYZZH';
    const several: PortalTarget = {
      ...target,
      credentials: {
        client_id: 'kontor-sandbox',
        client_secret: 'sandbox',
        refresh_token: `Atzr|sandbox-${account}`,
        seller_id: seller(),
        marketplace_id: `${DE},${FR}`,
      },
    };
    const patched = await adapter.setQuantities(several, [update(1, 'M-1', 2)], 'batch-m1');
    expect(patched).to.deep.equal([{ stockId: 1, outcome: 'accepted' }]);
    expect(calls(`/listings/2021-08-01/items/${seller()}/M-1`).map((r) => r.query!.marketplaceIds)).to.deep.equal([`${DE},${FR}`]);
    await spendPatchPlan();
    const fed = await adapter.setQuantities(several, [update(2, 'M-2', 5), update(3, 'M-3', 0)], 'batch-m2');
    expect(fed).to.deep.equal([
      { stockId: 2, outcome: 'accepted' },
      { stockId: 3, outcome: 'accepted' },
    ]);
    expect(calls('/feeds/2021-06-30/feeds').map((r) => [r.status, (r.body as { marketplaceIds: string[] }).marketplaceIds])).to.deep.equal([[202, [DE, FR]]]);
    expect(shown()).to.deep.equal({ 'M-1': 2, 'M-2': 5, 'M-3': 0 });
  });

  it('a feed still in progress when the wait is over: the items are retried, and the next try reads the same feed instead of sending it again', async () => {
    await withSlowFeed(async () => {
      const first = await adapter.setQuantities(target, [update(1, 'P-1', 8)], 'batch-4');
      expect(first[0]).to.include({ outcome: 'retry' });
      expect((first[0] as { message: string }).message).to.match(/still IN_(QUEUE|PROGRESS)/);
      await new Promise((resolve) => setTimeout(resolve, 700));
      const second = await adapter.setQuantities(target, [update(1, 'P-1', 8)], 'batch-4');
      expect(second).to.deep.equal([{ stockId: 1, outcome: 'accepted' }]);
      expect(calls('/feeds/2021-06-30/feeds')).to.have.length(1);
      expect(shown()).to.deep.equal({ 'P-1': 8 });
    });
  });

  it('a feed still in progress holds back the patches of a later batch, so that an older quantity never lands after a newer one', async () => {
    await withSlowFeed(async () => {
      const first = await adapter.setQuantities(target, [update(1, 'H-0', 9)], 'batch-h1');
      expect(first[0]).to.include({ outcome: 'retry' });
      // Amazon tells of a plan of 1000 patches a second: the plan no longer stands in the way.
      learnRate(account, usagePlan('patch', `/listings/2021-08-01/items/${seller()}/any`).operation, '1000');
      const held = await adapter.setQuantities(target, [update(1, 'H-0', 8)], 'batch-h2');
      expect(held[0]).to.include({ outcome: 'retry' });
      expect((held[0] as { message: string }).message).to.match(/still IN_(QUEUE|PROGRESS)/);
      expect(patchesOf()).to.deep.equal([]);
      await new Promise((resolve) => setTimeout(resolve, 700));
      const after = await adapter.setQuantities(target, [update(1, 'H-0', 8)], 'batch-h2');
      expect(after).to.deep.equal([{ stockId: 1, outcome: 'accepted' }]);
      expect(patchesOf()).to.have.length(1);
      expect(calls('/feeds/2021-06-30/feeds')).to.have.length(1);
      expect(shown()['H-0']).to.equal(8);
    });
  });

  /** A sale of S-1 at the sandbox's Amazon (POST /_sandbox/sell): the Amazon order's id. */
  const sellS1 = async (quantity: number) =>
    (await (
      await fetch(`${sandbox.url}/_sandbox/sell`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ portal: 'market_d', portal_account: account, sku: 'S-1', quantity, price: '5.00' }),
      })
    ).json()) as { order_id: string };

  it('send_mit: confirmShipment of the Amazon order with packageDetail and the order items', async () => {
    const sold = await sellS1(2);
    const order = amazonOf(sandbox.state).orders.get(sold.order_id)!;
    const itemId = order.lines[0]!.orderItemId;
    await adapter.markShipped(
      target,
      {
        orderId: '12_2026_11',
        externalOrderId: sold.order_id,
        lines: [{ transactionId: itemId, quantity: 2 }],
        carrier: 'DHL',
        trackingCode: '00340434161094042557',
        shipDate: '2026-11-23',
      },
      'ship-1',
    );
    const [confirm] = calls(`/orders/v0/orders/${sold.order_id}/shipmentConfirmation`);
    expect(confirm!.method).to.equal('POST');
    expect(confirm!.status).to.equal(204);
    expect(confirm!.body).to.deep.equal({
      packageDetail: {
        packageReferenceId: '1',
        carrierCode: 'DHL',
        trackingNumber: '00340434161094042557',
        shipDate: '2026-11-23T12:00:00Z',
        orderItems: [{ orderItemId: itemId, quantity: 2 }],
      },
      marketplaceId: DE,
    });
    expect(order.status).to.equal('SHIPPED');
    const noId = await failure(adapter.markShipped(target, { orderId: '13_2026_11', trackingCode: 'X' }, 'ship-2'));
    expect(noId.id).to.equal('portal_refused');
  });

  it('send_mit dated today: the shipDate sent is not later than the confirmation (noon UTC of today can be hours ahead)', async () => {
    const sold = await sellS1(1);
    const itemId = amazonOf(sandbox.state).orders.get(sold.order_id)!.lines[0]!.orderItemId;
    const today = new Date().toISOString().slice(0, 10);
    const shipment = { orderId: '14_2026_11', externalOrderId: sold.order_id, lines: [{ transactionId: itemId, quantity: 1 }], carrier: 'DHL' };
    await adapter.markShipped(target, { ...shipment, trackingCode: '00340434161094042558', shipDate: today }, 'ship-today');
    const sentAt = Date.now();
    const [confirm] = calls(`/orders/v0/orders/${sold.order_id}/shipmentConfirmation`);
    const shipDate = (confirm!.body as { packageDetail: { shipDate: string } }).packageDetail.shipDate;
    expect(Date.parse(shipDate)).to.be.at.most(sentAt);
    expect(shipDate.slice(0, 10)).to.equal(today);
    // The rule alone: noon UTC of the day, unless that is still ahead.
    expect(amazonShipDate('2026-11-29', new Date('2026-11-29T08:15:00.250Z'))).to.equal('2026-11-29T08:15:00Z');
    expect(amazonShipDate('2026-11-28', new Date('2026-11-29T08:15:00Z'))).to.equal('2026-11-28T12:00:00Z');
    expect(amazonShipDate('2026-11-30T01:00:00+09:00', new Date('2026-11-29T20:00:00Z'))).to.equal('2026-11-29T16:00:00Z');
  });

  it('LWA: the refresh token is exchanged once and the access token is reused for the following calls', async () => {
    target = {
      portalAccountId: account,
      baseUrl: sandbox.url,
      credentials: {
        client_id: 'amzn1.application-oa2-client.t',
        client_secret: 's',
        refresh_token: `Atzr|sandbox-${account}`,
        seller_id: 'A2SELLER',
        marketplace_id: DE,
      },
    };
    await adapter.list(target, item({ sku: 'L-1' }), 'job-6');
    await adapter.list(target, item({ sku: 'L-2' }), 'job-7');
    const grants = calls('/auth/o2/token');
    expect(grants).to.have.length(1);
    expect(grants[0]!.body).to.deep.equal({ grant_type: 'refresh_token', client_id: 'amzn1.application-oa2-client.t' });
    expect(calls(/^\/listings\/2021-08-01\/items\/A2SELLER\//).map((r) => r.bearer)).to.deep.equal([true, true]);
  });

  it('a revoked refresh token (invalid_grant) fails for good with a message naming the portal account', async () => {
    await adapter.list(target, item({ sku: 'R-1' }), 'job-8');
    await fetch(`${sandbox.url}/_sandbox/amazon/revoke`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ portal_account: account }),
    });
    const err = await failure(adapter.setQuantities(target, [update(1, 'R-1', 1)], 'batch-5'));
    expect(err.id).to.equal('portal_refused');
    expect(isPermanent(err)).to.equal(true);
    expect(err.message).to.contain(`portal account ${account}`).and.contain('invalid_grant');
  });

  it("429: retried after Amazon's Retry-After, with its error body in the message; other SP-API errors fail for good with theirs", async () => {
    sandbox.state.faults.push({
      portal: 'market_d',
      portalAccount: String(account),
      status: 429,
      remaining: 1,
      retryAfter: '7',
      message: 'You exceeded your quota for the requested resource.',
    });
    const throttled = await failure(adapter.list(target, item({ sku: 'T-1' }), 'job-9'));
    expect(throttled.id).to.equal('portal_unavailable');
    expect(throttled.retryAfterSeconds).to.equal(7);
    expect(throttled.message).to.contain('QuotaExceeded: You exceeded your quota');
    sandbox.state.faults.push({ portal: 'market_d', portalAccount: String(account), status: 400, remaining: 1, message: 'Invalid marketplace' });
    const refused = await failure(adapter.list(target, item({ sku: 'T-1' }), 'job-10'));
    expect(refused.id).to.equal('portal_refused');
    expect(refused.message).to.contain('InvalidInput: Invalid marketplace').and.contain(`portal account ${account}`);
  });

  it('credentials: an account with some but not all of them is refused, naming what is missing', async () => {
    const err = await failure(adapter.list({ ...target, credentials: { client_id: 'x', refresh_token: 'y' } }, item({}), 'job-11'));
    expect(err.id).to.equal('portal_refused');
    expect(err.message).to.contain('client_secret, seller_id, marketplace_id');
  });
});

describe('market_d: an SP-API call without an answer in time', () => {
  const timeout = config().portalTimeoutMs;
  let server: http.Server;
  let base: string;
  const seen: string[] = [];
  before(async () => {
    // LWA answers; the Listings Items API takes the request and never answers it.
    server = http.createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      if (req.url === '/auth/o2/token') res.setHeader('Content-Type', 'application/json').end(JSON.stringify({ access_token: 'Atza|t', expires_in: 3600 }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    setConfig({ ...config(), portalTimeoutMs: 300 });
  });
  after(async () => {
    setConfig({ ...config(), portalTimeoutMs: timeout });
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it("when patchListingsItem gets no answer within PORTAL_TIMEOUT_MS, then the item's quantity is to be sent again, saying so", async () => {
    const target: PortalTarget = { portalAccountId: 900000 + Math.floor(Math.random() * 90000), baseUrl: base, credentials: {} };
    const [outcome] = await adapter.setQuantities(target, [{ stockId: 1, quantity: 3, key: 'k', sku: 'SLOW-1', group: {} }], 'batch-slow');
    expect(outcome).to.deep.include({ stockId: 1, outcome: 'retry' });
    expect((outcome as { message: string }).message).to.equal(
      `market_d: no answer in time (PATCH /listings/2021-08-01/items/SANDBOX${target.portalAccountId}/SLOW-1)`,
    );
    expect(seen.at(-1)).to.equal(`PATCH /listings/2021-08-01/items/SANDBOX${target.portalAccountId}/SLOW-1?marketplaceIds=${DE}`);
  });
});
