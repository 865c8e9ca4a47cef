/**
 * market_d at Amazon: a listing Kontor made as the seller's own offer (DEFAULT) that the seller
 * converted to FBA in Seller Central since. Kontor's quantity patch replaces fulfillment_availability
 * with DEFAULT and the quantity (listingsItems_2021-08-01.json PatchOperation `replace`: "adds or
 * replaces the target property"), so sent there it makes the FBA offer one the seller ships while
 * the units sit in Amazon's warehouse; the sandbox plays that replace as Amazon does. Kontor's
 * record of the listing is not looked up at Amazon before a push, so what tells Kontor is what it
 * reads anyway: an imported order of the SKU fulfilled by Amazon (orders_2026-01-01.json
 * OrderFulfillment.fulfilledBy AMAZON, ordersV0.json Order.FulfillmentChannel AFN), or the listing
 * check's getListingsItem (FulfillmentAvailability.fulfillmentChannelCode AMAZON_EU).
 */
import { expect } from 'chai';
import type { Worker } from 'bullmq';
import { config, setConfig } from '../../config';
import { db } from '../../lib/db';
import { orderImportProcessors } from '../../lib/order-import/order-import.processor';
import { queues } from '../../lib/queue';
import { startWorker } from '../../lib/queue/worker';
import { amazonOf } from '../../sandbox/amazon.sandbox';
import { channelLoopForSuite, jobEnd, Sandbox, uploadToEnd, waitFor } from '../fleet/support';
import { call, Seller } from '../support/api';
import { amazonItem } from './market-d-support';

let sandbox: Sandbox;

interface CiaState {
  desired_seq: string;
  acked_seq: string | null;
  refused_seq: string | null;
  desired_quantity: number;
  acked_quantity: number | null;
  last_error: string | null;
}

describe('market_d at Amazon: a listing Kontor made that the seller converted to FBA since', function () {
  this.timeout(60000);
  channelLoopForSuite((loop) => ({ sandbox } = loop));
  let importer: Worker | undefined;
  before(async () => {
    importer = await startWorker('order_import', orderImportProcessors, { skipEvictionCheck: true, registerShutdown: false });
  });
  after(async () => {
    await importer?.close(true);
  });
  const original = config();
  afterEach(() => setConfig({ ...config(), marketDListingCheckMs: original.marketDListingCheckMs, marketDListingChecks: original.marketDListingChecks }));

  const control = async (path: string, body: unknown) => {
    const res = await fetch(`${sandbox.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(res.status, await res.clone().text()).to.be.oneOf([200, 201]);
    return (await res.json()) as Record<string, unknown>;
  };
  /** The offer's fulfillment_availability as Amazon (the sandbox) holds it. */
  const fulfilmentAt = async (portalAccountId: number, sku: string) =>
    (
      (await (await fetch(`${sandbox.url}/_sandbox/amazon/listings/${sku}/fulfillment?portal_account=${portalAccountId}`)).json()) as {
        fulfillment_availability: unknown;
      }
    ).fulfillment_availability;
  const patchesOf = (portalAccountId: number, sku: string) =>
    sandbox.state.requests.filter((r) => r.portalAccount === String(portalAccountId) && r.method === 'PATCH' && r.path.endsWith(`/${sku}`));
  /** getListingsItem calls of the SKU (Amazon's reads of the listing). */
  const readsOf = (portalAccountId: number, sku: string) =>
    sandbox.state.requests.filter((r) => r.portalAccount === String(portalAccountId) && r.method === 'GET' && r.path.endsWith(`/${sku}`));
  const ciaState = async (seller: Seller, stockId: number) =>
    (await db()('cia_portal_state').where({ account_id: seller.id, stock_id: stockId, portal: 'market_d' }).first()) as CiaState | undefined;
  /** The push of the latest wanted quantity settled: taken by Amazon or refused. */
  const settled = (seller: Seller, stockId: number, quantity: number) =>
    waitFor(
      `the push of ${quantity} settled`,
      async () => {
        const s = await ciaState(seller, stockId);
        return s && s.desired_quantity === quantity && (s.acked_seq === s.desired_seq || s.refused_seq === s.desired_seq) ? s : undefined;
      },
      20000,
    );

  /** An item listed at market_d by Kontor (recorded), CIA's quantity 5 taken by Amazon. */
  async function listedByKontor(sku: string, fba = false) {
    const { seller, portalAccountId, stockId } = await amazonItem(sku, fba ? { market_d: { is_fba: true } } : {});
    expect((await uploadToEnd(seller.token, stockId, { market_d: [{ action: 'list', portal_account_id: portalAccountId }] })).state).to.equal('completed');
    const listing = await db()('portal_listing').where({ account_id: seller.id, stock_id: stockId, portal: 'market_d' }).first();
    expect(listing).to.deep.include({ status: 'listed', portal_item_id: sku, fulfilled_by_channel: false });
    expect((await settled(seller, stockId, 5)).acked_quantity).to.equal(5);
    expect(await fulfilmentAt(portalAccountId, sku)).to.deep.equal(
      fba ? [{ fulfillment_channel_code: 'AMAZON_EU' }] : [{ fulfillment_channel_code: 'DEFAULT', quantity: 5 }],
    );
    // Amazon answers getListingsItem 404 until it has processed the put (the sandbox's listing_ms):
    // an order of the SKU, which the tests place next, needs a listing Amazon made.
    await waitFor(`Amazon processed the listing of ${sku}`, async () =>
      (amazonOf(sandbox.state).listingRecords.get(`${portalAccountId}|${sku}`)?.processedAt ?? Infinity) <= Date.now() ? true : undefined,
    );
    return { seller, portalAccountId, stockId };
  }

  /** An order Amazon fulfilled (AFN) of the SKU, imported through order_import. */
  async function afnOrderImported(seller: Seller, portalAccountId: number, sku: string) {
    await control('/_sandbox/amazon/orders', {
      portal_account: portalAccountId,
      fulfilled_by: 'AMAZON',
      status: 'SHIPPED',
      lines: [{ sku, quantity: 1, price: '19.90' }],
    });
    const imported = await call(`admin/portal_account/${portalAccountId}/order_import/`, { token: seller.token, body: {} });
    expect(imported.status, imported.text).to.equal(202);
    expect((await jobEnd(seller.token, imported.body.job_id as string)).state).to.equal('completed');
  }
  const fbaTasks = async (seller: Seller, sku: string) => {
    const tasks = await call('task/', { token: seller.token });
    expect(tasks.status, tasks.text).to.equal(200);
    return (tasks.body.task as { title: string; text: string; reference: Record<string, string> }[]).filter((t) =>
      t.title.includes(`Amazon fulfils SKU ${sku}`),
    );
  };

  /** A sale of another channel (POST order/): the wanted quantity at Amazon moves from 5 to 3. */
  async function saleElsewhere(seller: Seller, stockId: number) {
    const order = await call('order/', {
      token: seller.token,
      body: { order: { customer: { email: 'buyer@example.com' }, line: [{ id: 1, quantity: 2, price: '19.90', stock_align_id: String(stockId) }] } },
    });
    expect(order.status, order.text).to.equal(201);
    return settled(seller, stockId, 3);
  }

  it('when an imported Amazon order of the SKU is fulfilled by Amazon (AFN), then a sale elsewhere sends no DEFAULT quantity to it, the push refuses the item naming FBA and market_d.is_fba, the seller gets one task, and Amazon keeps the offer FBA', async () => {
    const sku = 'AZ-FBA-AFN';
    const { seller, portalAccountId, stockId } = await listedByKontor(sku);
    // The seller converts the offer to FBA in Seller Central; Amazon ships its next order.
    await control(`/_sandbox/amazon/listings/${sku}/fulfillment`, { portal_account: portalAccountId, channel: 'AMAZON_EU' });
    await afnOrderImported(seller, portalAccountId, sku);
    const patchesBefore = patchesOf(portalAccountId, sku).length;

    const state = await saleElsewhere(seller, stockId);
    expect(state.refused_seq, 'the quantity refused, not taken').to.equal(state.desired_seq);
    expect(state.last_error).to.contain(`Amazon fulfils SKU ${sku} itself`).and.contain('market_d.is_fba');
    expect(patchesOf(portalAccountId, sku), 'no patch after the conversion').to.have.length(patchesBefore);
    expect(await fulfilmentAt(portalAccountId, sku)).to.deep.equal([{ fulfillment_channel_code: 'AMAZON_EU' }]);

    const told = await fbaTasks(seller, sku);
    expect(told).to.have.length(1);
    expect(told[0]!.reference).to.deep.include({ section: 'stock_lister', platform: 'market_d', stock_id: String(stockId), id: sku });
    expect(told[0]!.text).to.contain('market_d.is_fba').and.contain('AFN');

    // The same order read again (the next fetch's overlap) tells the seller nothing more.
    const again = await call(`admin/portal_account/${portalAccountId}/order_import/`, { token: seller.token, body: {} });
    expect((await jobEnd(seller.token, again.body.job_id as string)).state).to.equal('completed');
    expect(await fbaTasks(seller, sku)).to.have.length(1);
  });

  it('when Kontor listed the item FBA itself (market_d.is_fba) and its AFN order is imported, then the seller gets no task and a sale elsewhere is answered without a patch, as ever', async () => {
    const sku = 'AZ-FBA-OWN';
    const { seller, portalAccountId, stockId } = await listedByKontor(sku, true);
    await afnOrderImported(seller, portalAccountId, sku);
    const patchesBefore = patchesOf(portalAccountId, sku).length;
    const state = await saleElsewhere(seller, stockId);
    expect(state.acked_seq, 'answered accepted (Amazon counts its own stock)').to.equal(state.desired_seq);
    expect(patchesOf(portalAccountId, sku)).to.have.length(patchesBefore);
    expect(await fulfilmentAt(portalAccountId, sku)).to.deep.equal([{ fulfillment_channel_code: 'AMAZON_EU' }]);
    expect(await fbaTasks(seller, sku)).to.deep.equal([]);
  });

  it('when an AFN order of the SKU is imported but Amazon reads the listing as the seller’s own (DEFAULT), then nothing is marked: one getListingsItem, no task, a sale elsewhere is patched and taken, the same order read again reads nothing; a later AFN order after the conversion reads again and marks', async () => {
    const sku = 'AZ-FBA-DEFAULT';
    const { seller, portalAccountId, stockId } = await listedByKontor(sku);
    const readsBefore = readsOf(portalAccountId, sku).length;
    await afnOrderImported(seller, portalAccountId, sku);
    expect(readsOf(portalAccountId, sku), 'the listing read once, for the AFN order').to.have.length(readsBefore + 1);
    const listing = await db()('portal_listing').where({ account_id: seller.id, stock_id: stockId, portal: 'market_d' }).first();
    expect(listing?.fulfilled_by_channel).to.equal(false);
    expect(await fbaTasks(seller, sku)).to.deep.equal([]);

    const state = await saleElsewhere(seller, stockId);
    expect(state.acked_seq, 'the quantity taken').to.equal(state.desired_seq);
    expect(await fulfilmentAt(portalAccountId, sku)).to.deep.equal([{ fulfillment_channel_code: 'DEFAULT', quantity: 3 }]);

    // The same order read again (the next fetch's overlap): Amazon said DEFAULT after it was placed, so no second read.
    const again = await call(`admin/portal_account/${portalAccountId}/order_import/`, { token: seller.token, body: {} });
    expect((await jobEnd(seller.token, again.body.job_id as string)).state).to.equal('completed');
    expect(readsOf(portalAccountId, sku)).to.have.length(readsBefore + 1);

    // Converted since: the next AFN order is read again, and Amazon's answer marks it.
    await control(`/_sandbox/amazon/listings/${sku}/fulfillment`, { portal_account: portalAccountId, channel: 'AMAZON_EU' });
    await afnOrderImported(seller, portalAccountId, sku);
    expect(readsOf(portalAccountId, sku)).to.have.length(readsBefore + 2);
    expect(await fbaTasks(seller, sku)).to.have.length(1);
    const later = await db()('portal_listing').where({ account_id: seller.id, stock_id: stockId, portal: 'market_d' }).first();
    expect(later?.fulfilled_by_channel).to.equal(true);
  });

  it('when the listing check reads the listing fulfilled by Amazon (AMAZON_EU), then CIA’s quantity sent after the check, and a later sale’s, go nowhere and Amazon keeps the offer FBA', async () => {
    setConfig({ ...config(), marketDListingCheckMs: 2500, marketDListingChecks: 1 });
    const sku = 'AZ-FBA-CHECK';
    const { seller, portalAccountId, stockId } = await listedByKontor(sku);
    // Converted before the check reads it (2.5 s after the listing).
    await control(`/_sandbox/amazon/listings/${sku}/fulfillment`, { portal_account: portalAccountId, channel: 'AMAZON_EU' });
    const patchesBefore = patchesOf(portalAccountId, sku).length;
    await waitFor(
      'the listing check done',
      async () =>
        (await queues().get('portal_upload').getJobs(['completed'])).some((j) => j.name === 'portal.listing_check' && j.data.stockId === stockId) || undefined,
      15000,
    );
    const state = await saleElsewhere(seller, stockId);
    expect(state.refused_seq, 'the quantity refused, not taken').to.equal(state.desired_seq);
    expect(state.last_error).to.contain(`Amazon fulfils SKU ${sku} itself`).and.contain('market_d.is_fba');
    expect(patchesOf(portalAccountId, sku), 'no patch after the conversion').to.have.length(patchesBefore);
    expect(await fulfilmentAt(portalAccountId, sku)).to.deep.equal([{ fulfillment_channel_code: 'AMAZON_EU' }]);
  });
});
