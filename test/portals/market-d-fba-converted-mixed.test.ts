/**
 * market_d at Amazon for a seller in DE and FR whose SKU Amazon fulfils (FBA) in one marketplace
 * and the seller in the other. Each marketplace holds its own fulfillment_availability
 * (putListingsItem and deleteListingsItem take one marketplace a call, listingsItems_2021-08-01.json
 * marketplaceIds "maxItems": 1), while Item.fulfillmentAvailability names no marketplace
 * (FulfillmentAvailability: fulfillmentChannelCode and quantity only): a read of both marketplaces
 * answers DE's AMAZON_EU and FR's DEFAULT together. Kontor's quantity must reach FR (the seller's
 * offer, which sells on at its old quantity otherwise) and not DE (a DEFAULT quantity there makes
 * the FBA offer one the seller ships).
 */
import { expect } from 'chai';
import type { Worker } from 'bullmq';
import { config, setConfig } from '../../config';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { connectPortalAccount } from '../../lib/admin/portal-account-connect.service';
import { db } from '../../lib/db';
import { markWholeMarksUnread } from '../../lib/db/migrations/20261130_0170_portal_listing_marked_whole_read_again';
import { orderImportProcessors } from '../../lib/order-import/order-import.processor';
import { queues } from '../../lib/queue';
import { startWorker } from '../../lib/queue/worker';
import { amazonOf, sellerCentralListing } from '../../sandbox/amazon.sandbox';
import { channelLoopForSuite, jobEnd, Sandbox, uploadToEnd, waitFor } from '../fleet/support';
import { call, newSeller, Seller } from '../support/api';

const DE = 'A1PA6795UKMFR9';
const FR = 'A13V1IB3VIYZZH';

let sandbox: Sandbox;

interface CiaState {
  desired_seq: string;
  acked_seq: string | null;
  refused_seq: string | null;
  desired_quantity: number;
  acked_quantity: number | null;
  last_error: string | null;
}

describe('market_d at Amazon: a SKU Amazon fulfils in DE and the seller in FR', function () {
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
  /** The offer's fulfillment_availability in each marketplace, as Amazon (the sandbox) holds it. */
  const fulfilmentIn = async (portalAccountId: number, sku: string) =>
    (
      (await (await fetch(`${sandbox.url}/_sandbox/amazon/listings/${sku}/fulfillment?portal_account=${portalAccountId}`)).json()) as {
        marketplaces: Record<string, unknown>;
      }
    ).marketplaces;
  /** Amazon converts the offer in one marketplace (Seller Central), Amazon's warehouse holding `quantity`. */
  const convert = (portalAccountId: number, sku: string, marketplaceId: string, quantity?: number) =>
    control(`/_sandbox/amazon/listings/${sku}/fulfillment`, {
      portal_account: portalAccountId,
      channel: 'AMAZON_EU',
      marketplace_id: marketplaceId,
      ...(quantity === undefined ? {} : { quantity }),
    });
  const requestsOf = (portalAccountId: number, sku: string, method: 'PATCH' | 'GET') =>
    sandbox.state.requests.filter((r) => r.portalAccount === String(portalAccountId) && r.method === method && r.path.endsWith(`/${sku}`));
  /** Each patch's marketplaces and the quantity it sent (the DEFAULT entry of its fulfillment_availability). */
  const patchesOf = (portalAccountId: number, sku: string) =>
    requestsOf(portalAccountId, sku, 'PATCH').map((r) => {
      const value = (r.body as { patches: { path: string; value: { fulfillment_channel_code: string; quantity?: number }[] }[] }).patches.find(
        (p) => p.path === '/attributes/fulfillment_availability',
      )?.value;
      return [r.query!.marketplaceIds, value?.find((v) => v.fulfillment_channel_code === 'DEFAULT')?.quantity];
    });
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
  const record = (seller: Seller, stockId: number) => db()('portal_listing').where({ account_id: seller.id, stock_id: stockId, portal: 'market_d' }).first();

  /** A seller connected to the sandbox's Amazon in DE and FR. */
  async function sellerInDeAndFr() {
    const seller = await newSeller();
    const portalAccountId = Number((await createPortalAccount(seller.id, { name: 'Amazon EU', platform: 'market_d' })).id);
    await connectPortalAccount(seller.id, {
      portalAccountId,
      connector: 'amazon_sp',
      baseUrl: sandbox.url,
      credentials: {
        client_id: 'c',
        client_secret: 's',
        refresh_token: `Atzr|sandbox-${portalAccountId}`,
        seller_id: `S${portalAccountId}`,
        marketplace_id: `${DE},${FR}`,
      },
    });
    return { seller, portalAccountId };
  }
  /** An item of 5 with CIA on at the account (its first push goes at once). */
  async function itemOf(seller: Seller, portalAccountId: number, sku: string) {
    const created = await call('stock/', {
      token: seller.token,
      body: {
        stock: {
          name: 'Lampe',
          sku,
          quantity: 5,
          market_d: { id_type: 'EAN', id: '4006381333931', price: '19.90' },
          cia: { market_d: { is_active: true, portal_account_id: [portalAccountId] } },
        },
      },
    });
    expect(created.status, created.text).to.equal(201);
    return Number(created.body.stock_id);
  }
  /** An item Kontor listed in DE and FR (recorded in all), CIA's 5 taken, the listing processed at Amazon. */
  async function listedByKontor(sku: string) {
    const { seller, portalAccountId } = await sellerInDeAndFr();
    const stockId = await itemOf(seller, portalAccountId, sku);
    expect((await uploadToEnd(seller.token, stockId, { market_d: [{ action: 'list', portal_account_id: portalAccountId }] })).state).to.equal('completed');
    expect(await record(seller, stockId)).to.deep.include({ status: 'listed', portal_item_id: sku, markets: null, fulfilled_by_channel: false });
    expect((await settled(seller, stockId, 5)).acked_quantity).to.equal(5);
    await waitFor(`Amazon processed the listing of ${sku}`, async () =>
      (amazonOf(sandbox.state).listingRecords.get(`${portalAccountId}|${sku}`)?.processedAt ?? Infinity) <= Date.now() ? true : undefined,
    );
    return { seller, portalAccountId, stockId };
  }
  /** An order Amazon fulfilled (AFN) of the SKU in one marketplace, imported through order_import. */
  async function afnOrderImported(seller: Seller, portalAccountId: number, sku: string, marketplaceId: string) {
    await control('/_sandbox/amazon/orders', {
      portal_account: portalAccountId,
      fulfilled_by: 'AMAZON',
      status: 'SHIPPED',
      marketplace_id: marketplaceId,
      lines: [{ sku, quantity: 1, price: '19.90' }],
    });
    const imported = await call(`admin/portal_account/${portalAccountId}/order_import/`, { token: seller.token, body: {} });
    expect(imported.status, imported.text).to.equal(202);
    expect((await jobEnd(seller.token, imported.body.job_id as string)).state).to.equal('completed');
  }
  /** The account's order import, as its schedule runs it: here with no new order at all. */
  async function orderImport(seller: Seller, portalAccountId: number) {
    const imported = await call(`admin/portal_account/${portalAccountId}/order_import/`, { token: seller.token, body: {} });
    expect(imported.status, imported.text).to.equal(202);
    expect((await jobEnd(seller.token, imported.body.job_id as string)).state).to.equal('completed');
  }
  /**
   * What Kontor recorded before fulfilled_markets (1432c29) from an AFN order in DE: the whole
   * listing marked, after an earlier AFN order's read had shown the seller's own offer
   * (fulfilment_read_at); then the upgrade (migration 20261130_0170).
   */
  async function markedWholeBeforeTheUpgrade(seller: Seller, stockId: number) {
    await db()('portal_listing')
      .where({ account_id: seller.id, stock_id: stockId, portal: 'market_d' })
      .update({
        fulfilled_by_channel: true,
        fulfilled_markets: null,
        fulfilment_read_at: db().raw("now() - interval '2 hours'"),
        updated_at: db().raw("now() - interval '1 hour'"),
      });
    await markWholeMarksUnread(db());
  }
  const fbaTasks = async (seller: Seller, sku: string) => {
    const tasks = await call('task/', { token: seller.token });
    expect(tasks.status, tasks.text).to.equal(200);
    return (tasks.body.task as { title: string; text: string }[]).filter((t) => t.title.includes(`Amazon fulfils SKU ${sku}`));
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

  it('when a Seller Central listing is FBA in DE (Amazon holds 3) and the seller’s in FR, then CIA’s quantity is patched in FR alone and taken, DE keeps AMAZON_EU; a sale elsewhere patches FR with 3', async () => {
    const sku = 'LAMP-MIXED-SC';
    const { seller, portalAccountId } = await sellerInDeAndFr();
    sellerCentralListing(sandbox.state, String(portalAccountId), sku, [DE, FR]);
    await convert(portalAccountId, sku, DE, 3);
    // Amazon's read of both marketplaces answers both entries, none naming its marketplace.
    expect(await fulfilmentIn(portalAccountId, sku)).to.deep.equal({
      [DE]: [{ fulfillment_channel_code: 'AMAZON_EU', quantity: 3 }],
      [FR]: [{ fulfillment_channel_code: 'DEFAULT', quantity: 0 }],
    });

    const stockId = await itemOf(seller, portalAccountId, sku);
    const first = await settled(seller, stockId, 5);
    expect(first.acked_seq, `taken, not refused: ${first.last_error}`).to.equal(first.desired_seq);
    expect(patchesOf(portalAccountId, sku)).to.deep.equal([[FR, 5]]);
    // The lookup of both marketplaces answered both codes: each was read alone to learn whose is whose.
    const reads = requestsOf(portalAccountId, sku, 'GET').map((r) => r.query!.marketplaceIds as string);
    expect(reads[0]).to.equal(`${DE},${FR}`);
    expect(reads.slice(1).sort()).to.deep.equal([DE, FR].sort());
    expect(await fulfilmentIn(portalAccountId, sku)).to.deep.equal({
      [DE]: [{ fulfillment_channel_code: 'AMAZON_EU', quantity: 3 }],
      [FR]: [{ fulfillment_channel_code: 'DEFAULT', quantity: 5 }],
    });

    const later = await saleElsewhere(seller, stockId);
    expect(later.acked_seq, `taken, not refused: ${later.last_error}`).to.equal(later.desired_seq);
    expect(patchesOf(portalAccountId, sku)).to.deep.equal([
      [FR, 5],
      [FR, 3],
    ]);
    expect((await fulfilmentIn(portalAccountId, sku))[DE]).to.deep.equal([{ fulfillment_channel_code: 'AMAZON_EU', quantity: 3 }]);
  });

  it('when a Seller Central listing is FBA in both DE and FR, then the quantity is refused naming FBA and market_d.is_fba, nothing patched, after one read; one that is the seller’s in both is patched in both after one read, as before', async () => {
    const { seller, portalAccountId } = await sellerInDeAndFr();
    sellerCentralListing(sandbox.state, String(portalAccountId), 'LAMP-ALL-FBA', [DE, FR], 'EUR', 'AMAZON_EU');
    sellerCentralListing(sandbox.state, String(portalAccountId), 'LAMP-ALL-OWN', [DE, FR]);
    const fba = await itemOf(seller, portalAccountId, 'LAMP-ALL-FBA');
    const own = await itemOf(seller, portalAccountId, 'LAMP-ALL-OWN');

    const refused = await settled(seller, fba, 5);
    expect(refused.refused_seq).to.equal(refused.desired_seq);
    expect(refused.last_error).to.contain('Amazon fulfils SKU LAMP-ALL-FBA itself (AMAZON_EU)').and.contain('market_d.is_fba');
    expect(patchesOf(portalAccountId, 'LAMP-ALL-FBA')).to.deep.equal([]);
    expect(requestsOf(portalAccountId, 'LAMP-ALL-FBA', 'GET').map((r) => r.query!.marketplaceIds)).to.deep.equal([`${DE},${FR}`]);

    const taken = await settled(seller, own, 5);
    expect(taken.acked_seq).to.equal(taken.desired_seq);
    expect(patchesOf(portalAccountId, 'LAMP-ALL-OWN')).to.deep.equal([[`${DE},${FR}`, 5]]);
    expect(requestsOf(portalAccountId, 'LAMP-ALL-OWN', 'GET').map((r) => r.query!.marketplaceIds)).to.deep.equal([`${DE},${FR}`]);
  });

  it('when Kontor listed it in DE and FR and the seller converts DE to FBA, then an AFN order in DE marks the listing in DE alone: one task naming DE, a sale elsewhere patches FR alone; FR converted too, an AFN order there marks it whole and the push refuses it', async () => {
    const sku = 'LAMP-MIXED-AFN';
    const { seller, portalAccountId, stockId } = await listedByKontor(sku);
    await convert(portalAccountId, sku, DE);
    await afnOrderImported(seller, portalAccountId, sku, DE);
    const patchesBefore = patchesOf(portalAccountId, sku).length;
    const state = await saleElsewhere(seller, stockId);
    expect(state.acked_seq, `taken, not refused: ${state.last_error}`).to.equal(state.desired_seq);
    expect(patchesOf(portalAccountId, sku).slice(patchesBefore)).to.deep.equal([[FR, 3]]);
    expect(await fulfilmentIn(portalAccountId, sku)).to.deep.equal({
      [DE]: [{ fulfillment_channel_code: 'AMAZON_EU' }],
      [FR]: [{ fulfillment_channel_code: 'DEFAULT', quantity: 3 }],
    });
    expect(await record(seller, stockId)).to.deep.include({ fulfilled_by_channel: true, fulfilled_markets: [DE] });
    const told = await fbaTasks(seller, sku);
    expect(told).to.have.length(1);
    expect(told[0]!.text).to.contain(`in ${DE}`).and.contain(FR).and.not.contain('set market_d.is_fba');

    // Another AFN order in DE says nothing new: no read.
    const readsBefore = requestsOf(portalAccountId, sku, 'GET').length;
    await afnOrderImported(seller, portalAccountId, sku, DE);
    expect(requestsOf(portalAccountId, sku, 'GET')).to.have.length(readsBefore);

    // FR converted too: its AFN order reads the listing again, which is Amazon's everywhere now.
    await convert(portalAccountId, sku, FR);
    await afnOrderImported(seller, portalAccountId, sku, FR);
    expect(await record(seller, stockId)).to.deep.include({ fulfilled_by_channel: true, fulfilled_markets: null });
    const patchesThen = patchesOf(portalAccountId, sku).length;
    const changed = await call(`stock/${stockId}/`, { token: seller.token, body: { stock: { quantity: 2 } } });
    expect(changed.status, changed.text).to.equal(200);
    const refused = await waitFor('the push of 2 refused', async () => {
      const s = await ciaState(seller, stockId);
      return s && s.desired_quantity === 2 && s.refused_seq === s.desired_seq ? s : undefined;
    });
    expect(refused.last_error).to.contain(`Amazon fulfils SKU ${sku} itself`);
    expect(patchesOf(portalAccountId, sku)).to.have.length(patchesThen);
    // Marked whole by a read of each marketplace: the next import reads nothing.
    const readsThen = requestsOf(portalAccountId, sku, 'GET').length;
    await orderImport(seller, portalAccountId);
    expect(requestsOf(portalAccountId, sku, 'GET')).to.have.length(readsThen);
  });

  it('when Kontor’s listing in DE and FR was marked whole before marketplaces were told apart (DE FBA, FR the seller’s), then the next order import reads it once, no AFN order needed: marked in DE alone, FR patched at once with the quantity the push refused, one task naming FR; the next import reads nothing', async () => {
    const sku = 'LAMP-MIXED-OLD';
    const { seller, portalAccountId, stockId } = await listedByKontor(sku);
    await convert(portalAccountId, sku, DE);
    await markedWholeBeforeTheUpgrade(seller, stockId);
    // As before the import: the whole SKU refused.
    const refused = await saleElsewhere(seller, stockId);
    expect(refused.refused_seq).to.equal(refused.desired_seq);
    expect(refused.last_error).to.contain(`Amazon fulfils SKU ${sku} itself`);
    const patchesBefore = patchesOf(portalAccountId, sku).length;
    const readsBefore = requestsOf(portalAccountId, sku, 'GET').length;

    await orderImport(seller, portalAccountId);
    const taken = await waitFor('the quantity of 3 taken', async () => {
      const s = await ciaState(seller, stockId);
      return s && s.desired_quantity === 3 && s.acked_seq === s.desired_seq ? s : undefined;
    });
    expect({
      record: await record(seller, stockId).then((r) => r && { fulfilled_by_channel: r.fulfilled_by_channel, fulfilled_markets: r.fulfilled_markets }),
      patches: patchesOf(portalAccountId, sku).slice(patchesBefore),
      error: taken.last_error,
    }).to.deep.equal({ record: { fulfilled_by_channel: true, fulfilled_markets: [DE] }, patches: [[FR, 3]], error: null });
    expect(await fulfilmentIn(portalAccountId, sku)).to.deep.equal({
      [DE]: [{ fulfillment_channel_code: 'AMAZON_EU' }],
      [FR]: [{ fulfillment_channel_code: 'DEFAULT', quantity: 3 }],
    });
    // One read of both marketplaces, then each alone.
    expect(requestsOf(portalAccountId, sku, 'GET').slice(readsBefore)).to.have.length(3);
    const told = await fbaTasks(seller, sku);
    expect(told).to.have.length(1);
    expect(told[0]!.text).to.contain(`in ${DE}`).and.contain(FR).and.not.contain('set market_d.is_fba');

    const readsThen = requestsOf(portalAccountId, sku, 'GET').length;
    await orderImport(seller, portalAccountId);
    expect(requestsOf(portalAccountId, sku, 'GET')).to.have.length(readsThen);
    const later = await call(`stock/${stockId}/`, { token: seller.token, body: { stock: { quantity: 1 } } });
    expect(later.status, later.text).to.equal(200);
    await waitFor('the quantity of 1 taken', async () => {
      const s = await ciaState(seller, stockId);
      return s && s.desired_quantity === 1 && s.acked_seq === s.desired_seq ? s : undefined;
    });
    expect(patchesOf(portalAccountId, sku).slice(patchesBefore)).to.deep.equal([
      [FR, 3],
      [FR, 1],
    ]);
  });

  it('when a listing marked whole before marketplaces were told apart is Amazon’s in DE and FR, then the next order import reads it once and it stays marked whole, nobody told; the next import reads nothing and the push refuses it as before', async () => {
    const sku = 'LAMP-ALL-OLD';
    const { seller, portalAccountId, stockId } = await listedByKontor(sku);
    await convert(portalAccountId, sku, DE);
    await convert(portalAccountId, sku, FR);
    await markedWholeBeforeTheUpgrade(seller, stockId);
    const readsBefore = requestsOf(portalAccountId, sku, 'GET').length;
    await orderImport(seller, portalAccountId);
    expect(
      requestsOf(portalAccountId, sku, 'GET')
        .slice(readsBefore)
        .map((r) => r.query!.marketplaceIds),
    ).to.deep.equal([`${DE},${FR}`]);
    expect(await record(seller, stockId)).to.deep.include({ fulfilled_by_channel: true, fulfilled_markets: null });
    await orderImport(seller, portalAccountId);
    expect(requestsOf(portalAccountId, sku, 'GET')).to.have.length(readsBefore + 1);
    expect(await fbaTasks(seller, sku)).to.deep.equal([]);
    const patchesBefore = patchesOf(portalAccountId, sku).length;
    const refused = await saleElsewhere(seller, stockId);
    expect(refused.refused_seq).to.equal(refused.desired_seq);
    expect(refused.last_error).to.contain(`Amazon fulfils SKU ${sku} itself`);
    expect(patchesOf(portalAccountId, sku)).to.have.length(patchesBefore);
  });

  it('when the listing check reads DE fulfilled by Amazon and FR the seller’s, then the listing is marked in DE alone and CIA’s quantities after the check go to FR alone', async () => {
    setConfig({ ...config(), marketDListingCheckMs: 2500, marketDListingChecks: 1 });
    const sku = 'LAMP-MIXED-CHECK';
    const { seller, portalAccountId, stockId } = await listedByKontor(sku);
    await convert(portalAccountId, sku, DE);
    const patchesBefore = patchesOf(portalAccountId, sku).length;
    await waitFor(
      'the listing check done',
      async () =>
        (await queues().get('portal_upload').getJobs(['completed'])).some((j) => j.name === 'portal.listing_check' && j.data.stockId === stockId) || undefined,
      15000,
    );
    const state = await saleElsewhere(seller, stockId);
    expect(state.acked_seq, `taken, not refused: ${state.last_error}`).to.equal(state.desired_seq);
    const since = patchesOf(portalAccountId, sku).slice(patchesBefore);
    expect(since.length).to.be.greaterThan(0);
    expect(since.every(([markets]) => markets === FR)).to.equal(true);
    expect(since.at(-1)).to.deep.equal([FR, 3]);
    expect((await fulfilmentIn(portalAccountId, sku))[DE]).to.deep.equal([{ fulfillment_channel_code: 'AMAZON_EU' }]);
    expect(await record(seller, stockId)).to.deep.include({ fulfilled_by_channel: true, fulfilled_markets: [DE] });
  });
});
