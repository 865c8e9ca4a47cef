/**
 * A variation main offers nothing of its own (document 2, Stock_cia_portal_type: "On a variant
 * main item these fields are readable and writable but invalid; variant values count"): through
 * the API, the workers and the sandbox, its variants are offered under their own SKUs by their own
 * settings, and no quantity goes under the main's SKU, nor a cia.event of its own.
 */
import { expect } from 'chai';
import { ciaRepository, queueWaitingPushes } from '../../lib/cia';
import { db } from '../../lib/db/knex';
import { up } from '../../lib/db/migrations/20261127_0900_cia_variation_main_states';
import { queues } from '../../lib/queue/queue.registry';
import { createOrder } from '../order/helpers';
import { call, newSeller, Seller } from '../support/api';
import { createItem, readItem, stockCiaHandler } from '../stock/helpers';
import { listingsOf } from '../../sandbox/ebay-inventory.sandbox';
import { sellOnEbay } from '../../sandbox/ebay-orders.sandbox';
import { jobEnd, uploadToEnd, waitFor, withSandboxAndFleet } from './support';
import { answeredFields } from '../stock/stock-groups';

const active = { auction_a: { is_active: true }, shop_g: { is_active: true } };
const sizes = { name_value: [{ name: 'size', value: ['S', 'M'] }] };
const size = (value: string) => ({ name_value: [{ name: 'size', value: [value] }] });
/** A main's variation of S (size S) and M (size M). */
const sizesOf = (s: number, m: number) => ({
  type: 'main',
  specifics_set: sizes,
  sub: [
    { id: String(s), specifics: size('S') },
    { id: String(m), specifics: size('M') },
  ],
});

interface PortalResult {
  portal: string;
  quantity: number;
}
interface AdjustResult {
  stock_id: number;
  portals: PortalResult[];
  variants?: AdjustResult[];
}

describe('fleet: CIA of a variation main (variant values count)', function () {
  this.timeout(60000);
  let seller: Seller;
  /** SKUs of this test's items: the sandbox's record of applied quantities is by portal and SKU. */
  let sku: (suffix?: string) => string;
  const running = withSandboxAndFleet();
  beforeEach(async () => {
    seller = await newSeller();
    sku = (suffix = '') => `VM${seller.id}${suffix}`;
  });

  /** What the seller's channels show: portal → key → quantity (auction_a by SKU, shop_g by stock id). */
  const shown = () => running.sandbox.state.quantities(String(seller.portalAccountId));

  /**
   * A main (its own cia fields active at both portals) with variants S (4) and M (3), each active
   * at both (`variantCia`), the main's other fields `own` (its listing data).
   */
  async function shirt(
    extra: Record<string, unknown> = {},
    own: Record<string, unknown> = {},
    variantCia: Record<string, unknown> = active,
  ): Promise<{ main: number; s: number; m: number }> {
    const s = await createItem(seller, { name: 'Shirt S', sku: sku('-S'), quantity: 4, cia: variantCia });
    const m = await createItem(seller, { name: 'Shirt M', sku: sku('-M'), quantity: 3, cia: variantCia });
    const main = await createItem(seller, {
      ...own,
      name: 'Shirt',
      sku: sku(),
      quantity: 50,
      cia: { ...active, ...extra },
      variation: sizesOf(s, m),
    });
    return { main, s, m };
  }

  const variantsShown = (ids: { s: number; m: number }) =>
    waitFor('the variants at both channels', () => {
      const q = shown();
      return q.auction_a?.[sku('-S')] === 4 && q.auction_a?.[sku('-M')] === 3 && q.shop_g?.[String(ids.s)] === 4 && q.shop_g?.[String(ids.m)] === 3
        ? q
        : undefined;
    });

  /** The outbox relays quickly; a short pause lets any push the main would get arrive. */
  /**
   * The delete job of the main's auction_a listing as the worker runs it (no client call plans one
   * at auction_a today), to its end: its state, result and error, read once it finished (a job
   * object read before it finished holds no result).
   */
  async function endMainListing(mainId: number, jobId: string) {
    const { lister_id: listerId } = (await db()('portal_listing').where({ account_id: seller.id, stock_id: mainId }).first('lister_id')) as {
      lister_id: string;
    };
    const job = { accountId: seller.id, stockId: mainId, portal: 'auction_a', portalAccountId: seller.portalAccountId, action: 'delete' as const, listerId };
    await queues().add('portal.upload', job, jobId);
    const state = await waitFor('the delete job to end', async () => {
      const now = await (await queues().get('portal_upload').getJob(jobId))?.getState();
      return now === 'completed' || now === 'failed' ? now : undefined;
    });
    const ended = (await queues().get('portal_upload').getJob(jobId))!;
    return { state, result: ended.returnvalue as unknown, error: ended.failedReason };
  }

  const settle = async () => {
    await waitFor('the account’s outbox relayed', async () =>
      (await db()('outbox').where({ account_id: seller.id }).whereNull('relayed_at').first()) ? undefined : true,
    );
    await new Promise((resolve) => setTimeout(resolve, 1500));
  };

  /** CIA's push of an item to auction_a done at a quantity (eBay took it, or nothing was sent as it shows nowhere). */
  const ackedAtEbay = (stockId: number, quantity: number) =>
    waitFor(`item ${stockId}'s auction_a push of ${quantity} done`, async () =>
      (await db()('cia_portal_state').where({ account_id: seller.id, stock_id: stockId, portal: 'auction_a', acked_quantity: quantity }).first())
        ? true
        : undefined,
    );

  it('when a main with two variants is active at channels, then each variant shows its own quantity under its SKU and the main’s SKU shows nothing; its cia fields read as sent; POST stock/{id}/cia/ answers the variants', async () => {
    const ids = await shirt();
    await variantsShown(ids);
    await settle();
    expect(shown().auction_a).to.not.have.property(sku());
    expect(shown().shop_g).to.not.have.property(String(ids.main));
    // Readable and writable, stored as sent.
    expect((await readItem(seller, ids.main)).cia).to.deep.include(answeredFields('cia', active));

    const res = await call(`stock/${ids.main}/cia/`, { token: seller.token, method: 'POST' });
    expect(res.status, res.text).to.equal(202);
    expect(res.body).to.deep.include({ stock_id: ids.main });
    const job = await jobEnd(seller.token, res.body.job_id as string);
    expect(job.state, job.error).to.equal('completed');
    const result = job.result as AdjustResult;
    const portals = (r: AdjustResult) => r.portals.map((p) => [p.portal, p.quantity]).sort();
    expect(result.stock_id).to.equal(ids.main);
    expect(result.portals).to.deep.equal([]);
    expect((result.variants ?? []).map((v) => [v.stock_id, portals(v)])).to.deep.equal([
      [
        ids.s,
        [
          ['auction_a', 4],
          ['shop_g', 4],
        ],
      ],
      [
        ids.m,
        [
          ['auction_a', 3],
          ['shop_g', 3],
        ],
      ],
    ]);
    expect(await db()('cia_portal_state').where({ account_id: seller.id, stock_id: ids.main })).to.deep.equal([]);
  });

  it('when a variant is sold, then only that variant’s offers move, and the main gets no cia.event of its own while the variant does', async () => {
    const target = String(await stockCiaHandler(seller));
    const event = { event: { is_active: true, target: [target] } };
    const ids = await shirt(event);
    const variant = await call(`stock/${ids.s}/`, { token: seller.token, body: { stock: { cia: event } } });
    expect(variant.status, variant.text).to.equal(200);
    await variantsShown(ids);
    await settle();
    const events = async (stockId: number) =>
      (await queues().get('events').getJobs(['waiting', 'active', 'completed', 'failed', 'delayed'])).filter(
        (j) => j.name === 'event.emit' && j.data.section === 'stock' && j.data.recordId === String(stockId),
      ).length;
    const before = { main: await events(ids.main), s: await events(ids.s) };

    await createOrder(seller, { line: [{ id: 1, quantity: 1, price: '10', stock_align_id: sku('-S') }] });
    await waitFor('S at 3 at both channels', () => shown().auction_a?.[sku('-S')] === 3 && shown().shop_g?.[String(ids.s)] === 3);
    await waitFor('the variant’s event', async () => ((await events(ids.s)) > before.s ? true : undefined));
    await settle();
    expect(running.sandbox.state.quantitiesApplied('auction_a', sku('-M'))).to.deep.equal([3]);
    expect(running.sandbox.state.quantitiesApplied('shop_g', String(ids.m))).to.deep.equal([3]);
    expect(running.sandbox.state.quantitiesApplied('auction_a', sku())).to.deep.equal([]);
    expect(running.sandbox.state.quantitiesApplied('shop_g', String(ids.main))).to.deep.equal([]);
    expect(await events(ids.main)).to.equal(before.main);
  });

  it('when a plain item with a waiting state becomes a variation main, then that state goes and neither the sweep nor a reconcile pushes it again', async () => {
    const account = String(seller.portalAccountId);
    const s = await createItem(seller, { name: 'Shirt S', sku: sku('-S'), quantity: 4, cia: { shop_g: { is_active: true } } });
    await waitFor('the variant-to-be at shop_g', () => shown().shop_g?.[String(s)] === 4);
    // shop_g answers 503 for a while (retried), so the plain item's quantity stays waiting.
    running.sandbox.state.faults.push({ portal: 'shop_g', portalAccount: account, status: 503, remaining: 1000, message: 'busy' });
    const main = await createItem(seller, { name: 'Shirt', sku: sku(), quantity: 50, cia: { shop_g: { is_active: true } } });
    await waitFor(
      'the plain item’s state waiting',
      async () =>
        (await db()('cia_portal_state').where({ account_id: seller.id, stock_id: main, portal: 'shop_g' }).whereNull('acked_quantity').first()) ?? undefined,
    );
    const linked = await call(`stock/${main}/`, {
      token: seller.token,
      body: { stock: { variation: { type: 'main', specifics_set: sizes, sub: [{ id: String(s), specifics: size('S') }] } } },
    });
    expect(linked.status, linked.text).to.equal(200);
    await waitFor('the main’s state removed', async () =>
      (await db()('cia_portal_state').where({ account_id: seller.id, stock_id: main }).first()) ? undefined : true,
    );
    running.sandbox.state.faults = running.sandbox.state.faults.filter((f) => f.portalAccount !== account);

    // After a Redis loss and at the 60 s sweep: every waiting state is pushed again; a reconcile adjusts the main.
    await queueWaitingPushes(db(), queues());
    await queues().add('cia.adjust', { accountId: seller.id, stockId: main, reason: 'reconcile' }, `rec-test-${seller.id}-${main}`);
    await settle();
    expect(shown().shop_g?.[String(s)]).to.equal(4);
    expect(running.sandbox.state.quantitiesApplied('shop_g', String(main))).to.deep.equal([]);
    expect(shown().shop_g).to.not.have.property(String(main));
    expect(await db()('cia_portal_state').where({ account_id: seller.id, stock_id: main })).to.deep.equal([]);
    expect(await ciaRepository.waitingTargets(db())).to.not.deep.include({
      account_id: seller.id,
      portal: 'shop_g',
      portal_account_id: seller.portalAccountId,
    });
  });

  /** POST stock/{id}/portal_upload/ with one part, run by the fleet to its end. */
  const upload = (stockId: number, portalUpload: Record<string, unknown>) => uploadToEnd(seller.token, stockId, portalUpload);

  /** eBay lists through business policies and needs a category: the main's auction_a entry, the listing's data. */
  const ebayData = {
    auction_a: [
      {
        name: 'Shirt',
        description: 'A shirt in two sizes',
        picture: { url: ['https://pictures.example/shirt.jpg'] },
        price: '19.90',
        category_1_id: '112581',
        seller_profile: { payment: [{ id: 101 }], refund: [{ id: 102 }], shipping: [{ id: 103 }] },
        characteristics: { data: [{ type: 'Brand', value: 'Kontor' }] },
      },
    ],
  };

  it('when a variation main is listed at auction_a, then eBay gets one listing of an inventory item group of the variants’ SKUs without a quantity, each variant’s item and offer with its own quantity, and nothing under the main’s SKU', async () => {
    const ids = await shirt({}, ebayData);
    const account = String(seller.portalAccountId);
    const job = await upload(ids.main, { auction_a: [{ action: 'list' }] });
    expect(job.state, job.error).to.equal('completed');
    const result = job.result as { portal_item_id: string; variants: { stock_id: number; portal_item_id: string }[] };
    expect(result).to.deep.include({ action: 'list', portal: 'auction_a' });
    expect(result.portal_item_id).to.be.a('string');
    expect(result.variants).to.deep.equal([
      { stock_id: ids.s, portal_item_id: result.portal_item_id },
      { stock_id: ids.m, portal_item_id: result.portal_item_id },
    ]);

    const ebay = running.sandbox.state.ebay;
    const group = ebay.groups.get(`${account}|${sku()}`);
    expect(group).to.deep.include({
      title: 'Shirt',
      // The main's characteristics are the group's common aspects (required before it is published).
      aspects: { Brand: ['Kontor'] },
      variantSKUs: [sku('-S'), sku('-M')],
      variesBy: { specifications: [{ name: 'size', values: ['S', 'M'] }] },
    });
    expect(group).to.not.have.property('quantity');
    const item = (s: string) => ebay.inventory.get(`${account}|${s}`) as { product: { aspects?: unknown }; availability: unknown } | undefined;
    expect(item(sku('-S'))?.availability).to.deep.equal({ shipToLocationAvailability: { quantity: 4 } });
    expect(item(sku('-S'))?.product.aspects).to.deep.equal({ Brand: ['Kontor'], size: ['S'] });
    expect(item(sku('-M'))?.availability).to.deep.equal({ shipToLocationAvailability: { quantity: 3 } });
    expect(item(sku())).to.equal(undefined);
    const offers = [...ebay.offers.values()].filter((o) => o.account === account);
    expect(offers.map((o) => [o.sku, o.status, o.listingId, o.body.availableQuantity]).sort()).to.deep.equal([
      [sku('-M'), 'PUBLISHED', result.portal_item_id, 3],
      [sku('-S'), 'PUBLISHED', result.portal_item_id, 4],
    ]);
    await settle();
    expect(running.sandbox.state.quantitiesApplied('auction_a', sku())).to.deep.equal([]);
    expect(shown().auction_a).to.deep.include({ [sku('-S')]: 4, [sku('-M')]: 3 });
    expect(shown().auction_a).to.not.have.property(sku());
    // Recorded: the listing under the main, each variant's under the variant.
    const listings = await db()('portal_listing')
      .where({ account_id: seller.id, portal: 'auction_a' })
      .orderBy('stock_id')
      .select('stock_id', 'portal_item_id', 'status');
    expect(listings).to.deep.equal(
      [ids.main, ids.s, ids.m].sort((a, b) => a - b).map((stockId) => ({ stock_id: stockId, portal_item_id: result.portal_item_id, status: 'listed' })),
    );
  });

  it('when a variation main with an auction_a catalog code is listed at eBay, then no variant’s inventory item carries the main’s code (document 2’s catalog.value: an EAN, MPN, ePID, UPC of the main’s product)', async () => {
    const entry = ebayData.auction_a[0]!;
    for (const catalog of [
      { type_id: 1, value: '4006381333955' },
      { type_id: 3, value: 'MAIN-MPN-1' },
      { type_id: 4, value: '123456789' },
    ]) {
      const account = String(seller.portalAccountId);
      const ids = await shirt({}, { auction_a: [{ ...entry, catalog }] });
      const job = await upload(ids.main, { auction_a: [{ action: 'list' }] });
      expect(job.state, job.error).to.equal('completed');
      for (const variant of [sku('-S'), sku('-M')]) {
        const product = (running.sandbox.state.ebay.inventory.get(`${account}|${variant}`) as { product: Record<string, unknown> } | undefined)?.product;
        expect(product, variant).to.not.equal(undefined);
        expect(product, `${variant} of catalog type ${catalog.type_id}`).to.not.have.any.keys('ean', 'mpn', 'epid', 'upc', 'isbn');
      }
      seller = await newSeller();
    }
  });

  it('when a variation main without a description or a picture is listed at eBay, then the job fails naming what is missing and nothing is sent to eBay (the group needs both before it is published)', async () => {
    const entry = ebayData.auction_a[0]!;
    const { description: _description, ...undescribed } = entry;
    const { picture: _picture, ...unpictured } = entry;
    for (const [own, missing] of [
      [{ auction_a: [undescribed] }, 'description'],
      [{ auction_a: [unpictured] }, 'picture'],
    ] as const) {
      const ids = await shirt({}, own);
      const since = running.sandbox.state.requests.length;
      const job = await upload(ids.main, { auction_a: [{ action: 'list' }] });
      expect(job.state, missing).to.equal('failed');
      expect(job.error).to.contain(missing);
      // CIA's pushes of the variants (getOffers, bulkUpdatePriceQuantity) go on beside the job; the listing's calls write items, offers and groups.
      const sent = running.sandbox.state.requests
        .slice(since)
        .filter((r) => r.portal === 'auction_a' && r.portalAccount === String(seller.portalAccountId))
        .filter((r) => r.method !== 'GET' && !r.path.endsWith('/bulk_update_price_quantity'));
      expect(
        sent.map((r) => `${r.method} ${r.path}`),
        missing,
      ).to.deep.equal([]);
      expect(await db()('portal_listing').where({ account_id: seller.id, stock_id: ids.main })).to.deep.equal([]);
      seller = await newSeller();
    }
  });

  it('when a variation main listed at eBay is revised by its AUCTIONA_ live id, then the revise is taken for the main (its variants’ records carry the same listing id) and the group is sent again', async () => {
    const { ids, listingId } = await listedShirt();
    // The table keeps its rows in no order: the main's row after its variants' (as an index scan by
    // stock id reads them, variants being made before their main, or as rows land after a vacuum).
    const mainRow = await db()('portal_listing').where({ account_id: seller.id, stock_id: ids.main, portal: 'auction_a' }).first();
    const { id: rowId, updated_at: _at, ...row } = mainRow!;
    await db()('portal_listing').where({ id: rowId }).delete();
    await db()('portal_listing').insert(row);
    const since = running.sandbox.state.requests.length;
    const revised = await upload(ids.main, { auction_a: [{ action: 'revise', auction_a_live_id: `AUCTIONA_${listingId}` }] });
    expect(revised.state, revised.error).to.equal('completed');
    expect(revised.result).to.deep.include({ action: 'revise', portal: 'auction_a', portal_item_id: listingId });
    const paths = running.sandbox.state.requests
      .slice(since)
      .filter((r) => r.portal === 'auction_a' && r.method !== 'GET')
      .map((r) => r.path);
    expect(paths).to.include(`/sell/inventory/v1/inventory_item_group/${sku()}`);
  });

  it('when a variant leaves a main listed at eBay and the main is listed again, then the group’s variantSKUs are the remaining variants, the one that left is off the listing and its listing reads ended', async () => {
    const { ids, listingId } = await mLeftListedMain();
    const account = String(seller.portalAccountId);

    const again = await upload(ids.main, { auction_a: [{ action: 'list' }] });
    expect(again.state, again.error).to.equal('completed');
    expect(again.result).to.deep.include({
      portal_item_id: listingId,
      variants: [{ stock_id: ids.s, portal_item_id: listingId }],
      removed: [ids.m],
    });
    const ebay = running.sandbox.state.ebay;
    expect(ebay.groups.get(`${account}|${sku()}`)).to.deep.include({ variantSKUs: [sku('-S')] });
    const offers = [...ebay.offers.values()].filter((o) => o.account === account);
    expect(offers.map((o) => [o.sku, o.status]).sort()).to.deep.equal([
      [sku('-M'), 'UNPUBLISHED'],
      [sku('-S'), 'PUBLISHED'],
    ]);
    const listings = await db()('portal_listing').where({ account_id: seller.id, portal: 'auction_a' }).orderBy('stock_id').select('stock_id', 'status');
    expect(listings).to.deep.equal(
      [
        { stock_id: ids.main, status: 'listed' },
        { stock_id: ids.s, status: 'listed' },
        { stock_id: ids.m, status: 'ended' },
      ].sort((a, b) => a.stock_id - b.stock_id),
    );
  });

  it('when a variant that has sold on a main’s eBay listing leaves the main and the main is listed again, then its variation is at quantity 0 before the group drops it (eBay keeps a variation with sales on the listing), and the main’s end withdraws it with the rest', async () => {
    const { ids, listingId, account } = await listedShirt();
    // A buyer bought one M on the main's listing: the variation has a sale.
    sellOnEbay(running.sandbox.state, { portal: 'auction_a', portal_account: account, sku: sku('-M'), quantity: 1 });
    const left = await call(`stock/${ids.m}/`, { token: seller.token, body: { stock: { variation: { type: 'none' } } } });
    expect(left.status, left.text).to.equal(200);
    await settle();

    const since = running.sandbox.state.requests.length;
    const again = await upload(ids.main, { auction_a: [{ action: 'list' }] });
    expect(again.state, again.error).to.equal('completed');
    expect(again.result).to.deep.include({ portal_item_id: listingId, removed: [ids.m] });
    const ebay = running.sandbox.state.ebay;
    expect(ebay.groups.get(`${account}|${sku()}`)).to.deep.include({ variantSKUs: [sku('-S')] });
    // The quantity went to 0 before the group was replaced (the contract's order: quantity 0, then out of the group).
    const calls = running.sandbox.state.requests.slice(since).filter((r) => r.portal === 'auction_a' && r.method !== 'GET');
    const zeroed = calls.findIndex((r) => r.path === '/sell/inventory/v1/bulk_update_price_quantity');
    const grouped = calls.findIndex((r) => r.path === `/sell/inventory/v1/inventory_item_group/${sku()}`);
    expect(zeroed, JSON.stringify(calls.map((r) => r.path))).to.be.greaterThan(-1);
    expect(zeroed).to.be.lessThan(grouped);
    const m = () => [...ebay.offers.values()].find((o) => o.account === account && o.sku === sku('-M'))!;
    expect([m().status, m().listingId, m().body.availableQuantity]).to.deep.equal(['PUBLISHED', listingId, 0]);
    expect(listingsOf(running.sandbox.state, account).find((o) => o.sku === sku('-M'))?.quantity).to.equal(0);
    // M's next quantity (2 of its 3 sold elsewhere) does not go back onto the main's listing, nor to
    // its inventory item: its only offer is that listing's, at 0, and the item's quantity would revise it.
    const item = atEbay(sku('-M')).item;
    await createOrder(seller, { line: [{ id: 1, quantity: 2, price: '10', stock_align_id: sku('-M') }] });
    await ackedAtEbay(ids.m, 1);
    expect([m().status, m().body.availableQuantity, atEbay(sku('-M')).item]).to.deep.equal(['PUBLISHED', 0, item]);

    await endMainListing(ids.main, `end-sold-${seller.id}-${ids.main}`);
    expect(m().status).to.equal('UNPUBLISHED');
  });

  it('when a variation main’s eBay listing is ended, then one withdrawOfferByInventoryItemGroup under the group key ends it (every member offer unpublished) and no member offer is withdrawn on its own; portal_upload takes no delete at auction_a', async () => {
    const { ids, listingId, account } = await listedShirt();

    // What a client can send: document 2 gives auction_a's part "action (list or revise)".
    const refused = await call(`stock/${ids.main}/portal_upload/`, { token: seller.token, body: { portal_upload: { auction_a: [{ action: 'delete' }] } } });
    expect(refused.status, refused.text).to.equal(400);
    expect((refused.body.error as { field: string }[])[0]?.field).to.equal('portal_upload.auction_a[0].action');
    expect(running.sandbox.state.requests.some((r) => r.portal === 'auction_a' && r.portalAccount === account && /withdraw/.test(r.path))).to.equal(false);

    const ebay = running.sandbox.state.ebay;
    const since = running.sandbox.state.requests.length;
    const ended = await endMainListing(ids.main, `end-test-${seller.id}-${ids.main}`);
    expect(ended.state, ended.error).to.equal('completed');
    expect(ended.result).to.deep.equal({ action: 'delete', portal: 'auction_a', variants: [ids.s, ids.m] });

    const calls = running.sandbox.state.requests.slice(since).filter((r) => r.portal === 'auction_a' && r.method === 'POST');
    expect(calls.map((r) => [r.path, r.body, r.status])).to.deep.equal([
      ['/sell/inventory/v1/offer/withdraw_by_inventory_item_group', { inventoryItemGroupKey: sku(), marketplaceId: 'EBAY_DE' }, 204],
    ]);
    expect(ebay.memberWithdrawals).to.deep.equal([]);
    // Ended for every member; the group and the offers stay (unpublished) for a later publish.
    const offers = [...ebay.offers.values()].filter((o) => o.account === account);
    expect(offers.map((o) => [o.sku, o.status, o.listingId]).sort()).to.deep.equal([
      [sku('-M'), 'UNPUBLISHED', listingId],
      [sku('-S'), 'UNPUBLISHED', listingId],
    ]);
    expect(ebay.groups.get(`${account}|${sku()}`)).to.deep.include({ variantSKUs: [sku('-S'), sku('-M')] });
    expect(shown().auction_a).to.deep.include({ [sku('-S')]: 0, [sku('-M')]: 0 });
    const listings = await db()('portal_listing').where({ account_id: seller.id, portal: 'auction_a' }).orderBy('stock_id').select('stock_id', 'status');
    expect(listings).to.deep.equal([ids.main, ids.s, ids.m].sort((a, b) => a - b).map((stockId) => ({ stock_id: stockId, status: 'ended' })));
  });

  it('when a variant leaves a main listed at eBay and the main’s listing is ended, then the group’s withdrawal ends the variant that left too (eBay’s group still held it) and its listing reads ended', async () => {
    const ids = await shirt({}, ebayData);
    const account = String(seller.portalAccountId);
    const listed = await upload(ids.main, { auction_a: [{ action: 'list' }] });
    expect(listed.state, listed.error).to.equal('completed');
    await settle();
    const left = await call(`stock/${ids.m}/`, { token: seller.token, body: { stock: { variation: { type: 'none' } } } });
    expect(left.status, left.text).to.equal(200);

    const ended = await endMainListing(ids.main, `end-left-${seller.id}-${ids.main}`);
    expect(ended.state, ended.error).to.equal('completed');
    expect(ended.result).to.deep.equal({ action: 'delete', portal: 'auction_a', variants: [ids.s, ids.m] });
    const offers = [...running.sandbox.state.ebay.offers.values()].filter((o) => o.account === account);
    expect(offers.map((o) => [o.sku, o.status]).sort()).to.deep.equal([
      [sku('-M'), 'UNPUBLISHED'],
      [sku('-S'), 'UNPUBLISHED'],
    ]);
    const listings = await db()('portal_listing').where({ account_id: seller.id, portal: 'auction_a' }).orderBy('stock_id').select('stock_id', 'status');
    expect(listings).to.deep.equal([ids.main, ids.s, ids.m].sort((a, b) => a - b).map((stockId) => ({ stock_id: stockId, status: 'ended' })));
  });

  /** What eBay holds of a SKU of this seller: its inventory item's quantity, and its offer (status, listing id, availableQuantity, what a buyer sees). */
  const atEbay = (s: string) => {
    const account = String(seller.portalAccountId);
    const ebay = running.sandbox.state.ebay;
    const item = ebay.inventory.get(`${account}|${s}`) as { availability?: { shipToLocationAvailability?: { quantity?: number } } } | undefined;
    const offer = [...ebay.offers.values()].find((o) => o.account === account && o.sku === s);
    const shownQuantity = listingsOf(running.sandbox.state, account).find((o) => o.sku === s)?.quantity;
    return {
      item: item?.availability?.shipToLocationAvailability?.quantity,
      offer: offer ? [offer.status, offer.listingId, offer.body.availableQuantity, shownQuantity] : undefined,
    };
  };

  /** The shirt (main, S and M) with eBay data, its main listed at eBay and CIA settled. */
  async function listedShirt(): Promise<{ ids: { main: number; s: number; m: number }; listingId: string; account: string }> {
    const ids = await shirt({}, ebayData);
    const listed = await upload(ids.main, { auction_a: [{ action: 'list' }] });
    expect(listed.state, listed.error).to.equal('completed');
    const listingId = (listed.result as { portal_item_id: string }).portal_item_id;
    await settle();
    return { ids, listingId, account: String(seller.portalAccountId) };
  }

  /** The shirt listed at eBay (M `sold` once on its listing), then its variant M made plain while the main's listing is up: the ids and that listing's id. */
  async function mLeftListedMain(sold = false): Promise<{ ids: { main: number; s: number; m: number }; listingId: string }> {
    const { ids, listingId } = await listedShirt();
    expect(atEbay(sku('-M')).offer).to.deep.equal(['PUBLISHED', listingId, 3, 3]);
    if (sold) sellOnEbay(running.sandbox.state, { portal: 'auction_a', portal_account: String(seller.portalAccountId), sku: sku('-M'), quantity: 1 });
    const left = await call(`stock/${ids.m}/`, { token: seller.token, body: { stock: { variation: { type: 'none' } } } });
    expect(left.status, left.text).to.equal(200);
    return { ids, listingId };
  }

  it('when a variant leaves a main listed at eBay and then sells elsewhere, then CIA sets its variation on the main’s listing to 0 (and nothing else of it), while the variant still in the group keeps being pushed', async () => {
    const { ids, listingId } = await mLeftListedMain();
    await createOrder(seller, { line: [{ id: 1, quantity: 1, price: '10', stock_align_id: sku('-M') }] });
    await createOrder(seller, { line: [{ id: 1, quantity: 1, price: '10', stock_align_id: sku('-S') }] });

    await waitFor('M’s variation at 0 and S at 3', () => atEbay(sku('-M')).offer?.[2] === 0 && atEbay(sku('-S')).item === 3);
    await ackedAtEbay(ids.m, 2);
    await settle();
    // M is no variation of the main any more: nothing of its stock is offered on the main's listing.
    expect(atEbay(sku('-M'))).to.deep.equal({ item: 3, offer: ['PUBLISHED', listingId, 0, 0] });
    expect(atEbay(sku('-S'))).to.deep.equal({ item: 3, offer: ['PUBLISHED', listingId, 3, 3] });
  });

  it('when a variant left a main listed at eBay and its variation there is at 0, then its further sales elsewhere send eBay nothing: no revision of the main’s listing is spent on a quantity that listing does not show', async () => {
    const { ids, listingId } = await mLeftListedMain();
    await createOrder(seller, { line: [{ id: 1, quantity: 1, price: '10', stock_align_id: sku('-M') }] });
    await waitFor('M’s variation on the main’s listing at 0', () => atEbay(sku('-M')).offer?.[2] === 0);
    await settle();
    const revised = () => running.sandbox.state.ebay.revisions.get(listingId)?.count;
    const before = revised();

    await createOrder(seller, { line: [{ id: 1, quantity: 1, price: '10', stock_align_id: sku('-M') }] });
    await ackedAtEbay(ids.m, 1);
    expect(revised()).to.equal(before);
    expect(atEbay(sku('-M')).offer).to.deep.equal(['PUBLISHED', listingId, 0, 0]);
    expect(atEbay(sku('-S')).offer).to.deep.equal(['PUBLISHED', listingId, 4, 4]);
  });

  it('when a variant that left a main listed at eBay is off the main’s listing and is listed on its own, then it gets a listing of its own and CIA pushes its quantity there', async () => {
    const { ids, listingId: group } = await mLeftListedMain();
    const again = await upload(ids.main, { auction_a: [{ action: 'list' }] });
    expect(again.result).to.deep.include({ removed: [ids.m] });
    await settle();
    const own = await call(`stock/${ids.m}/`, { token: seller.token, body: { stock: { ...ebayData } } });
    expect(own.status, own.text).to.equal(200);

    const alone = await upload(ids.m, { auction_a: [{ action: 'list' }] });
    expect(alone.state, alone.error).to.equal('completed');
    const single = (alone.result as { portal_item_id: string }).portal_item_id;
    expect(single).to.not.equal(group);
    await createOrder(seller, { line: [{ id: 1, quantity: 1, price: '10', stock_align_id: sku('-M') }] });
    await waitFor('M’s own listing at 2', () => atEbay(sku('-M')).offer?.[3] === 2);
    expect(atEbay(sku('-M'))).to.deep.equal({ item: 2, offer: ['PUBLISHED', single, 2, 2] });
  });

  it('when every variant left a main listed at eBay and the main’s listing is ended, then the group is withdrawn (eBay’s group still held them) and their listings read ended', async () => {
    const ids = await shirt({}, ebayData);
    const account = String(seller.portalAccountId);
    const listed = await upload(ids.main, { auction_a: [{ action: 'list' }] });
    expect(listed.state, listed.error).to.equal('completed');
    await settle();
    for (const id of [ids.s, ids.m]) {
      const left = await call(`stock/${id}/`, { token: seller.token, body: { stock: { variation: { type: 'none' } } } });
      expect(left.status, left.text).to.equal(200);
    }
    await settle();

    const since = running.sandbox.state.requests.length;
    const ended = await endMainListing(ids.main, `end-all-left-${seller.id}-${ids.main}`);
    expect(ended.state, ended.error).to.equal('completed');
    expect(ended.result).to.deep.equal({ action: 'delete', portal: 'auction_a', variants: [ids.s, ids.m].sort((a, b) => a - b) });
    const calls = running.sandbox.state.requests.slice(since).filter((r) => r.portal === 'auction_a' && r.portalAccount === account && r.method === 'POST');
    expect(calls.map((r) => [r.path, r.body, r.status])).to.deep.equal([
      ['/sell/inventory/v1/offer/withdraw_by_inventory_item_group', { inventoryItemGroupKey: sku(), marketplaceId: 'EBAY_DE' }, 204],
    ]);
    expect([atEbay(sku('-S')).offer?.[0], atEbay(sku('-M')).offer?.[0]]).to.deep.equal(['UNPUBLISHED', 'UNPUBLISHED']);
    const listings = await db()('portal_listing').where({ account_id: seller.id, portal: 'auction_a' }).orderBy('stock_id').select('stock_id', 'status');
    expect(listings).to.deep.equal([ids.main, ids.s, ids.m].sort((a, b) => a - b).map((stockId) => ({ stock_id: stockId, status: 'ended' })));
  });

  it('when a variation main’s eBay listing was ended and the main is listed again, then eBay publishes a new listing (a listing id of its own) and the main and its variants are recorded under it', async () => {
    const ids = await shirt({}, ebayData);
    const first = await upload(ids.main, { auction_a: [{ action: 'list' }] });
    expect(first.state, first.error).to.equal('completed');
    const ended = (first.result as { portal_item_id: string }).portal_item_id;
    await settle();
    expect((await endMainListing(ids.main, `end-relist-${seller.id}-${ids.main}`)).state).to.equal('completed');

    const again = await upload(ids.main, { auction_a: [{ action: 'list' }] });
    expect(again.state, again.error).to.equal('completed');
    const relisted = (again.result as { portal_item_id: string }).portal_item_id;
    expect(relisted).to.be.a('string').and.not.equal(ended);
    expect(again.result).to.deep.include({ variants: [ids.s, ids.m].map((id) => ({ stock_id: id, portal_item_id: relisted })) });
    expect([atEbay(sku('-S')).offer?.slice(0, 2), atEbay(sku('-M')).offer?.slice(0, 2)]).to.deep.equal([
      ['PUBLISHED', relisted],
      ['PUBLISHED', relisted],
    ]);
    const listings = await db()('portal_listing').where({ account_id: seller.id, portal: 'auction_a' }).select('stock_id', 'status', 'portal_item_id');
    expect(listings.map((l) => [l.stock_id, l.status, l.portal_item_id]).sort()).to.deep.equal(
      [ids.main, ids.s, ids.m].map((id) => [id, 'listed', relisted]).sort(),
    );
  });

  /** The main of S and M (existing items), with the eBay listing data and an eBay SKU of its own. */
  const mainOf = (s: number, m: number, mainSku = sku()) =>
    createItem(seller, {
      ...ebayData,
      name: 'Shirt',
      sku: mainSku,
      quantity: 50,
      cia: active,
      variation: sizesOf(s, m),
    });
  /** The seller's eBay calls since a point, as method and path. */
  const ebayCalls = (since: number) =>
    running.sandbox.state.requests
      .slice(since)
      .filter((r) => r.portal === 'auction_a' && r.portalAccount === String(seller.portalAccountId))
      .map((r) => `${r.method} ${r.path}`);

  /** An item listed at eBay on its own: its listing id. */
  async function listedAlone(stockId: number): Promise<string> {
    const alone = await upload(stockId, { auction_a: [{ action: 'list' }] });
    expect(alone.state, alone.error).to.equal('completed');
    await settle();
    return (alone.result as { portal_item_id: string }).portal_item_id;
  }
  /** A main listed at eBay whose listing withdraws an offer (a listing of its own, `own`) before the call `before`: the group's listing id. */
  async function listedWithdrawing(main: number, own: string, before: string): Promise<string> {
    const since = running.sandbox.state.requests.length;
    const listed = await upload(main, { auction_a: [{ action: 'list' }] });
    expect(listed.state, listed.error).to.equal('completed');
    const group = (listed.result as { portal_item_id: string }).portal_item_id;
    expect(group).to.not.equal(own);
    const calls = ebayCalls(since);
    const withdrawn = calls.findIndex((c) => /^POST \/sell\/inventory\/v1\/offer\/\d+\/withdraw$/.test(c));
    expect(withdrawn, JSON.stringify(calls)).to.be.greaterThan(-1);
    expect(withdrawn).to.be.lessThan(calls.indexOf(before));
    return group;
  }

  it('when an item listed on its own at eBay becomes a variant and its main is listed, then its own listing is withdrawn before the group takes it (eBay refuses a SKU "already listed as a single SKU listing", 25704) and it sells on the main’s listing', async () => {
    const s = await createItem(seller, { ...ebayData, name: 'Shirt S', sku: sku('-S'), quantity: 4, cia: active });
    const own = await listedAlone(s);
    const m = await createItem(seller, { name: 'Shirt M', sku: sku('-M'), quantity: 3, cia: active });
    const main = await mainOf(s, m);

    const group = await listedWithdrawing(main, own, `PUT /sell/inventory/v1/inventory_item_group/${sku()}`);
    expect(atEbay(sku('-S')).offer?.slice(0, 2)).to.deep.equal(['PUBLISHED', group]);
    expect(running.sandbox.state.ebay.memberWithdrawals).to.deep.equal([]);
  });

  it('when an item listed on its own at eBay becomes a variation main and is listed, then its own listing under the main’s SKU is withdrawn before the group is published (CIA pushes nothing under a main’s SKU: it stayed buyable at its last quantity)', async () => {
    const main = await createItem(seller, { ...ebayData, name: 'Shirt', sku: sku(), quantity: 50, cia: active });
    const own = await listedAlone(main);
    expect(atEbay(sku()).offer).to.deep.equal(['PUBLISHED', own, 50, 50]);
    const s = await createItem(seller, { name: 'Shirt S', sku: sku('-S'), quantity: 4, cia: active });
    const m = await createItem(seller, { name: 'Shirt M', sku: sku('-M'), quantity: 3, cia: active });
    const linked = await call(`stock/${main}/`, {
      token: seller.token,
      body: {
        stock: {
          variation: sizesOf(s, m),
        },
      },
    });
    expect(linked.status, linked.text).to.equal(200);

    const group = await listedWithdrawing(main, own, 'POST /sell/inventory/v1/offer/publish_by_inventory_item_group');
    expect(atEbay(sku()).offer?.[0]).to.equal('UNPUBLISHED');
    expect([atEbay(sku('-S')).offer?.slice(0, 2), atEbay(sku('-M')).offer?.slice(0, 2)]).to.deep.equal([
      ['PUBLISHED', group],
      ['PUBLISHED', group],
    ]);
  });

  it('when a variant moved from a main listed at eBay to another main, then listing the other main fails naming the first main’s group before any call writes (eBay refuses a SKU of two groups, 25703), and the first main’s listing keeps it', async () => {
    const ids = await shirt({}, ebayData);
    const first = await upload(ids.main, { auction_a: [{ action: 'list' }] });
    expect(first.state, first.error).to.equal('completed');
    await settle();
    const left = await call(`stock/${ids.m}/`, { token: seller.token, body: { stock: { variation: { type: 'none' } } } });
    expect(left.status, left.text).to.equal(200);
    const l = await createItem(seller, { name: 'Shirt L', sku: sku('-L'), quantity: 2, cia: active });
    const other = await mainOf(l, ids.m, sku('-B'));

    const since = running.sandbox.state.requests.length;
    const moved = await upload(other, { auction_a: [{ action: 'list' }] });
    expect(moved.state).to.equal('failed');
    expect(moved.error).to.contain(`SKU ${sku('-M')} is a variation of eBay's inventory item group ${sku()}`);
    // CIA's pushes of the new item L run beside the job (bulk_update_price_quantity): not the job's writes.
    expect(ebayCalls(since).filter((c) => !c.startsWith('GET ') && !c.endsWith('/bulk_update_price_quantity'))).to.deep.equal([]);
    expect(atEbay(sku('-M')).offer?.[0]).to.equal('PUBLISHED');
  });

  /**
   * The shirt listed at eBay, M sold once on its listing, M made plain and the main listed again:
   * eBay keeps M's variation on the main's listing (it has sold there), at 0 and out of the group.
   */
  async function mSoldAndDropped(): Promise<{ ids: { main: number; s: number; m: number }; listingId: string }> {
    const { ids, listingId } = await mLeftListedMain(true);
    await settle();
    const again = await upload(ids.main, { auction_a: [{ action: 'list' }] });
    expect(again.result).to.deep.include({ portal_item_id: listingId, removed: [ids.m] });
    await settle();
    expect(atEbay(sku('-M')).offer).to.deep.equal(['PUBLISHED', listingId, 0, 0]);
    return { ids, listingId };
  }
  /** The seller's calls since a point that write at eBay, but CIA's pushes, which run beside a job. */
  const ebayWrites = (since: number) => ebayCalls(since).filter((c) => !c.startsWith('GET ') && !c.endsWith('/bulk_update_price_quantity'));

  /**
   * M, made plain while a main's eBay listing still holds its offer, given eBay data of its own; then
   * its auction_a job: it fails before any call writes, naming that listing. Answers the error and M
   * at eBay just before the job.
   */
  const refusedForLeftListing = async (stockId: number, listingId: string, entry: Record<string, unknown>) => {
    const own = await call(`stock/${stockId}/`, { token: seller.token, body: { stock: { ...ebayData } } });
    expect(own.status, own.text).to.equal(200);
    await settle();
    const before = atEbay(sku('-M'));
    const since = running.sandbox.state.requests.length;
    const job = await upload(stockId, { auction_a: [entry] });
    expect(job.state).to.equal('failed');
    expect(job.error).to.contain(`SKU ${sku('-M')} is still a variation of eBay listing ${listingId}`);
    expect(ebayWrites(since)).to.deep.equal([]);
    return { error: job.error as string, before };
  };

  it('when a variant eBay kept on a main’s listing because it sold there moves to another main, then listing the other main fails naming that listing before any call writes (withdrawOffer ends single-variation listings only), and the variation stays on it at 0', async () => {
    const { ids, listingId } = await mSoldAndDropped();
    const l = await createItem(seller, { name: 'Shirt L', sku: sku('-L'), quantity: 2, cia: active });
    const other = await mainOf(l, ids.m, sku('-B'));

    const since = running.sandbox.state.requests.length;
    const moved = await upload(other, { auction_a: [{ action: 'list' }] });
    expect(moved.state).to.equal('failed');
    expect(moved.error).to.contain(`SKU ${sku('-M')} is still a variation of eBay listing ${listingId}`);
    expect(moved.error).to.contain(`end listing ${listingId}`);
    expect(ebayWrites(since)).to.deep.equal([]);
    expect(running.sandbox.state.ebay.memberWithdrawals).to.deep.equal([]);
    expect(atEbay(sku('-M')).offer).to.deep.equal(['PUBLISHED', listingId, 0, 0]);
    expect(running.sandbox.state.ebay.groups.get(`${seller.portalAccountId}|${sku('-B')}`)).to.equal(undefined);
    expect(await db()('portal_listing').where({ account_id: seller.id, stock_id: other })).to.deep.equal([]);
  });

  it('when a variant eBay kept on a main’s listing because it sold there is made plain and listed on its own, then the listing fails naming that listing before any call writes (its one offer is that listing’s variation), and its record does not take that listing', async () => {
    const { ids, listingId } = await mSoldAndDropped();
    const { error } = await refusedForLeftListing(ids.m, listingId, { action: 'list' });
    // Nothing a client sends ends a variation main's eBay listing (portal_upload takes no delete at auction_a).
    expect(error).to.contain(`end listing ${listingId} at eBay (Seller Hub`);
    expect(atEbay(sku('-M')).offer).to.deep.equal(['PUBLISHED', listingId, 0, 0]);
    expect(await db()('portal_listing').where({ account_id: seller.id, stock_id: ids.m }).select('status', 'portal_item_id')).to.deep.equal([
      { status: 'ended', portal_item_id: listingId },
    ]);
  });

  it('when a variant that left a main listed at eBay (still in its group there) is listed on its own, then the listing fails naming the main’s listing and group before any call writes, and its offer and record stay the main’s listing’s', async () => {
    const { ids, listingId } = await mLeftListedMain();
    const { error } = await refusedForLeftListing(ids.m, listingId, { action: 'list' });
    expect(error).to.contain(`inventory item group ${sku()}`);
    expect(atEbay(sku('-M')).offer?.slice(0, 2)).to.deep.equal(['PUBLISHED', listingId]);
    expect(await db()('portal_listing').where({ account_id: seller.id, stock_id: ids.m }).select('status', 'portal_item_id')).to.deep.equal([
      { status: 'listed', portal_item_id: listingId },
    ]);
  });

  it('when a variant that left a main listed at eBay (still in its group there) is made plain and revised, then the revise fails naming the main’s listing before any call writes (updateOffer would revise that listing with its quantity), and its variation there is left as it was', async () => {
    const { ids, listingId } = await mLeftListedMain();
    // Its record still reads listed under the main's listing id, so a revise may address that listing.
    const { before } = await refusedForLeftListing(ids.m, listingId, { action: 'revise', auction_a_live_id: `AUCTIONA_${listingId}` });
    expect(before.offer?.slice(0, 2)).to.deep.equal(['PUBLISHED', listingId]);
    expect(atEbay(sku('-M'))).to.deep.equal(before);
  });

  it('when a variant of a main whose eBay listing was ended moves to another main, then the other main is listed with it: the ended main’s group, which eBay keeps with its members (25703 for a SKU of two groups), lets it go first', async () => {
    const ids = await shirt({}, ebayData);
    const account = String(seller.portalAccountId);
    const first = await upload(ids.main, { auction_a: [{ action: 'list' }] });
    expect(first.state, first.error).to.equal('completed');
    await settle();
    expect((await endMainListing(ids.main, `end-moved-${seller.id}-${ids.main}`)).state).to.equal('completed');
    const left = await call(`stock/${ids.m}/`, { token: seller.token, body: { stock: { variation: { type: 'none' } } } });
    expect(left.status, left.text).to.equal(200);
    const l = await createItem(seller, { name: 'Shirt L', sku: sku('-L'), quantity: 2, cia: active });
    const other = await mainOf(l, ids.m, sku('-B'));

    const moved = await upload(other, { auction_a: [{ action: 'list' }] });
    expect(moved.state, moved.error).to.equal('completed');
    const listingId = (moved.result as { portal_item_id: string }).portal_item_id;
    const ebay = running.sandbox.state.ebay;
    expect((ebay.groups.get(`${account}|${sku('-B')}`)?.variantSKUs as string[]).slice().sort()).to.deep.equal([sku('-L'), sku('-M')]);
    expect(ebay.groups.get(`${account}|${sku()}`)).to.deep.include({ variantSKUs: [sku('-S')] });
    expect(atEbay(sku('-M')).offer?.slice(0, 2)).to.deep.equal(['PUBLISHED', listingId]);
    expect(atEbay(sku('-S')).offer?.[0]).to.equal('UNPUBLISHED');
  });

  it('when a variation main’s eBay SKU is longer than 50 characters, then its listing fails naming it before any call (an inventory item group key has at most 50)', async () => {
    const s = await createItem(seller, { name: 'Shirt S', sku: sku('-S'), quantity: 4, cia: active });
    const m = await createItem(seller, { name: 'Shirt M', sku: sku('-M'), quantity: 3, cia: active });
    const long = sku('-').padEnd(51, 'X');
    const main = await mainOf(s, m, long);
    // CIA's first pushes of S and M (GET offer, bulk_update_price_quantity) are not the job's calls: let them land first.
    await settle();
    const since = running.sandbox.state.requests.length;
    const listed = await upload(main, { auction_a: [{ action: 'list' }] });
    expect(listed.state).to.equal('failed');
    expect(listed.error).to.contain(`the main's SKU ${long} is longer than eBay's 50 characters`);
    expect(ebayCalls(since)).to.deep.equal([]);
  });

  it('when a variation main is listed at a portal without listings of variants, then each variant is an offer of its own (its EAN, not the main’s portal EAN, and its quantity) and the main none; its delete ends them', async () => {
    // market_e (Kaufland's unit is one EAN) through the neutral JSON dialect of the default account.
    const s = await createItem(seller, { name: 'Shirt S', sku: sku('-S'), barcode: '4006381333931', quantity: 4 });
    const m = await createItem(seller, { name: 'Shirt M', sku: sku('-M'), barcode: '4006381333948', quantity: 3 });
    const main = await createItem(seller, {
      name: 'Shirt',
      sku: sku(),
      barcode: '4006381333955',
      quantity: 50,
      // The main's own portal EAN is the main's product, never a variant's.
      market_e: { delivery_time: 'a', ean: '4006381333955' },
      variation: sizesOf(s, m),
    });
    const account = String(seller.portalAccountId);
    const job = await upload(main, { market_e: [{ action: 'list' }] });
    expect(job.state, job.error).to.equal('completed');
    const result = job.result as { portal_item_id: string | null; variants: { stock_id: number; portal_item_id: string }[] };
    expect(result.portal_item_id).to.equal(null);
    expect(result.variants.map((v) => v.stock_id)).to.deep.equal([s, m]);
    const offer = (id: number) => running.sandbox.state.offers.get(`market_e|${account}|${id}`);
    expect(offer(s)?.listing).to.deep.include({ ean: '4006381333931', quantity: 4, delivery_time: 'a' });
    expect(offer(m)?.listing).to.deep.include({ ean: '4006381333948', quantity: 3, delivery_time: 'a' });
    expect(offer(main)).to.equal(undefined);
    expect(running.sandbox.state.quantitiesApplied('market_e', String(main))).to.deep.equal([]);

    const ended = await upload(main, { market_e: [{ action: 'delete' }] });
    expect(ended.state, ended.error).to.equal('completed');
    expect(ended.result).to.deep.include({ action: 'delete', portal: 'market_e', variants: [s, m] });
    expect([offer(s)?.active, offer(m)?.active]).to.deep.equal([false, false]);
  });

  it('when a variant’s quantity changes, then only the variant’s adjustment is queued, not its main’s', async () => {
    const ids = await shirt();
    await variantsShown(ids);
    await settle();
    const queued = async (after: string) =>
      (await db()('outbox').where({ account_id: seller.id, job_name: 'cia.adjust' }).where('id', '>', after).select('payload')).map(
        (r) => (r.payload as { stockId: number }).stockId,
      );
    const mark = async () => String(((await db()('outbox').max('id as id').first()) as { id: string | null } | undefined)?.id ?? '0');

    let from = await mark();
    const changed = await call(`stock/${ids.s}/`, { token: seller.token, body: { stock: { quantity: 6 } } });
    expect(changed.status, changed.text).to.equal(200);
    expect(await queued(from)).to.deep.equal([ids.s]);

    from = await mark();
    await createOrder(seller, { line: [{ id: 1, quantity: 1, price: '10', stock_align_id: sku('-M') }] });
    expect(await queued(from)).to.deep.equal([ids.m]);
    await waitFor('S at 6 and M at 2', () => shown().auction_a?.[sku('-S')] === 6 && shown().auction_a?.[sku('-M')] === 2);
  });

  it('when the only variant is deleted, then its main is adjusted and offers its own quantity again', async () => {
    const s = await createItem(seller, { name: 'Shirt S', sku: sku('-S'), quantity: 4, cia: active });
    const main = await createItem(seller, {
      name: 'Shirt',
      sku: sku(),
      quantity: 50,
      cia: active,
      variation: { type: 'main', specifics_set: sizes, sub: [{ id: String(s), specifics: size('S') }] },
    });
    await waitFor('S shown', () => shown().shop_g?.[String(s)] === 4);
    const gone = await call(`stock/${s}/`, { token: seller.token, method: 'DELETE' });
    expect(gone.status, gone.text).to.be.oneOf([200, 204]);
    await waitFor('the main at 50 under its own SKU', () => shown().auction_a?.[sku()] === 50 && shown().shop_g?.[String(main)] === 50);
  });

  it('when the only variant leaves its main from its own side, then the main offers its own quantity again', async () => {
    const ids = await shirt();
    await variantsShown(ids);
    const m = await call(`stock/${ids.m}/`, { token: seller.token, body: { stock: { variation: { type: 'none' } } } });
    expect(m.status, m.text).to.equal(200);
    const s = await call(`stock/${ids.s}/`, { token: seller.token, body: { stock: { variation: { type: 'none' } } } });
    expect(s.status, s.text).to.equal(200);
    await waitFor('the main at 50 under its own SKU', () => shown().auction_a?.[sku()] === 50 && shown().shop_g?.[String(ids.main)] === 50);
  });
});

describe('migration 20261127_0900: the states variation mains held go', () => {
  it('when a variation main holds states from before, then the migration removes them and leaves every other item’s', async () => {
    const seller = await newSeller();
    const plain = await createItem(seller, { name: 'Mug', quantity: 2 });
    const variant = await createItem(seller, { name: 'Shirt S', quantity: 4 });
    const main = await createItem(seller, {
      name: 'Shirt',
      variation: { type: 'main', specifics_set: sizes, sub: [{ id: String(variant), specifics: size('S') }] },
    });
    const state = (stockId: number, quantity: number) => ({
      account_id: seller.id,
      stock_id: stockId,
      portal: 'shop_g',
      portal_account_id: seller.portalAccountId,
      desired_quantity: quantity,
      desired_seq: '2',
      acked_seq: '1',
    });
    await db()('cia_portal_state')
      .insert([state(main, 4), state(plain, 2), state(variant, 4)])
      .onConflict(['account_id', 'stock_id', 'portal', 'portal_account_id'])
      .merge();
    await up(db());
    const left = await db()('cia_portal_state').where({ account_id: seller.id }).orderBy('stock_id').pluck('stock_id');
    expect(left).to.deep.equal([plain, variant].sort((a, b) => a - b));
  });
});
