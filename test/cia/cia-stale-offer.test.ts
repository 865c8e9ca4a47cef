/**
 * CIA never leaves a channel offering a quantity the item no longer has (lib/cia README "Held
 * states", "What a channel sells itself", "A target CIA no longer routes to"): a held increase
 * does not swallow a newer decrease, a sale the channel took off its own offer is put back to
 * CIA's quantity, and a portal account that stops being the target gets 0 before its state goes.
 * Through the API, the workers and the sandbox channels.
 */
import { expect } from 'chai';
import { config, setConfig } from '../../config';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { db } from '../../lib/db/knex';
import { importOrders } from '../../lib/order-import/order-import.service';
import { AuctionAAdapter } from '../../lib/portals/auction-a.adapter';
import { ebayDay } from '../../lib/portals/ebay/ebay-day';
import { WebshopAdapter } from '../../lib/portals/webshop.adapter';
import { shopifyOf } from '../../sandbox/shopify.sandbox';
import { channelLoopForSuite, jobEnd, Sandbox, waitFor } from '../fleet/support';
import { createOrder, stockQuantity } from '../order/helpers';
import { ebayListable, sandboxPost } from '../portals/channel-support';
import { createItem } from '../stock/helpers';
import { call, newSeller, Seller } from '../support/api';

interface PortalState {
  portal: string;
  portal_account_id: number;
  quantity: number;
  acknowledged: number | null;
  push: boolean;
  held_until: string | null;
  message: string | null;
}

describe('cia: no channel is left offering a stale quantity', function () {
  this.timeout(60000);
  let sandbox: Sandbox;
  channelLoopForSuite((loop) => ({ sandbox } = loop));
  let seller: Seller;
  beforeEach(async () => {
    seller = await newSeller();
  });
  afterEach(async () => {
    await sandboxPost(sandbox, '/_sandbox/delay', { portal: 'auction_a', ms: 0 });
  });

  /** What eBay offers of a SKU at a portal account (its listings' quantity). */
  const ebayShows = async (portalAccountId: number, sku: string) =>
    (
      (await (await fetch(`${sandbox.url}/_sandbox/ebay/listings?portal_account=${portalAccountId}`)).json()) as {
        sku: string;
        quantity: number;
      }[]
    ).find((l) => l.sku === sku)?.quantity;
  const shown = (portalAccountId: number, portal: string, sku: string) => sandbox.state.quantities(String(portalAccountId))[portal]?.[sku];
  const ciaState = (stockId: number, portal: string) =>
    db()('cia_portal_state').where({ account_id: seller.id, stock_id: stockId, portal }).orderBy('id') as Promise<
      { portal_account_id: number; desired_quantity: number; acked_quantity: number | null; held_until: Date | null }[]
    >;
  async function update(stockId: number, stock: Record<string, unknown>): Promise<void> {
    const res = await call(`stock/${stockId}/`, { token: seller.token, body: { stock } });
    expect(res.status, res.text).to.equal(200);
  }
  /** POST stock/{id}/cia/ and its job's result: the portals as the client sees them. */
  async function triggered(stockId: number): Promise<PortalState[]> {
    const res = await call(`stock/${stockId}/cia/`, { token: seller.token, method: 'POST' });
    expect(res.status, res.text).to.equal(202);
    const job = await jobEnd(seller.token, String(res.body.job_id));
    expect(job.state, job.error).to.equal('completed');
    return (job.result as { portals: PortalState[] }).portals;
  }
  async function listAtEbay(stockId: number, portalAccountId: number): Promise<string> {
    const res = await call(`stock/${stockId}/portal_upload/`, {
      token: seller.token,
      body: { portal_upload: { auction_a: [{ action: 'list', portal_account_id: portalAccountId }] } },
    });
    expect(res.status, res.text).to.equal(207);
    const job = await jobEnd(seller.token, (res.body.response as { job_id: string }[])[0]!.job_id);
    expect(job.state, job.error).to.equal('completed');
    const row = (await db()('portal_listing').where({ account_id: seller.id, stock_id: stockId, portal: 'auction_a' }).first('portal_item_id')) as {
      portal_item_id: string;
    };
    return row.portal_item_id;
  }

  it('when an increase eBay holds is still being sent and the item sells down meanwhile, then the decrease goes out and nothing stays held', async () => {
    const id = await createItem(seller, { name: 'Hot lamp', quantity: 6, cia: { auction_a: { is_active: true } } });
    const sku = String(id);
    await waitFor('the first push', async () => (await ciaState(id, 'auction_a'))[0]?.acked_quantity === 6);
    const target = { portalAccountId: seller.portalAccountId, baseUrl: sandbox.url, credentials: {} };
    const { portalItemId: listingId } = await new AuctionAAdapter().list(
      target,
      { stockId: id, name: 'Hot lamp', sku: null, ean: null, price: '19.90', quantityAvailable: 6, group: { ...ebayListable, price: '19.90' } },
      'list',
    );
    // The listing is near eBay's 250 revisions a day: an increase is held, a decrease still goes.
    await sandboxPost(sandbox, '/_sandbox/ebay/revisions', { listing_id: listingId, count: 230 });
    await db()('portal_listing_revision').insert({
      account_id: seller.id,
      portal: 'auction_a',
      portal_account_id: seller.portalAccountId,
      listing_id: listingId,
      day: ebayDay(Date.now()),
      revisions: 230,
    });
    await sandboxPost(sandbox, '/_sandbox/delay', { portal: 'auction_a', ms: 3000 });
    const calls = sandbox.state.requests.length;
    await update(id, { quantity: 9 });
    // The push of 9 is talking to eBay: the item sells down to 3 meanwhile.
    await waitFor('the push of 9 at eBay', () => sandbox.state.inFlight > 0 || sandbox.state.requests.length > calls, 10000, 5);
    await update(id, { quantity: 3 });
    await sandboxPost(sandbox, '/_sandbox/delay', { portal: 'auction_a', ms: 0 });

    await waitFor('eBay offering 3', async () => (await ebayShows(seller.portalAccountId, sku)) === 3, 20000);
    const row = await waitFor('acknowledged', async () => {
      const [state] = await ciaState(id, 'auction_a');
      return state?.acked_quantity === 3 ? state : undefined;
    });
    expect(row).to.deep.include({ desired_quantity: 3, acked_quantity: 3, held_until: null });
    const seen = (await triggered(id)).find((p) => p.portal === 'auction_a')!;
    expect(seen).to.deep.include({ quantity: 3, acknowledged: 3, push: false, held_until: null, message: null });
  });

  it('when eBay sells one unit of an item CIA caps at 3 and the sale is imported, then eBay offers 3 again', async () => {
    const ebayId = Number((await createPortalAccount(seller.id, { name: 'eBay shop', platform: 'auction_a' })).id);
    const id = await createItem(seller, {
      name: 'Pot',
      sku: `POT-${seller.id}`,
      price: '19.90',
      quantity: 10,
      auction_a: [ebayListable],
      cia: { auction_a: { is_active: true, max_quantity: 3 } },
    });
    const sku = `POT-${seller.id}`;
    await listAtEbay(id, ebayId);
    await waitFor('eBay offering 3', async () => (await ebayShows(ebayId, sku)) === 3 && (await ciaState(id, 'auction_a'))[0]?.acked_quantity === 3);

    await sandboxPost(sandbox, '/_sandbox/ebay/orders', { portal_account: ebayId, lines: [{ sku, quantity: 1, price: '19.90' }] });
    // eBay took the sold unit off its own offer.
    expect(await ebayShows(ebayId, sku)).to.equal(2);
    expect((await importOrders({ accountId: seller.id, portalAccountId: ebayId }, `cia-sold-${seller.id}`)).orders).to.deep.include({ created: 1 });
    expect(await stockQuantity(seller, id)).to.equal(9);

    await waitFor('eBay offering 3 again', async () => (await ebayShows(ebayId, sku)) === 3, 15000);
    await waitFor('acknowledged', async () => (await ciaState(id, 'auction_a'))[0]?.acked_quantity === 3);
    const seen = (await triggered(id)).find((p) => p.portal === 'auction_a')!;
    expect(seen).to.deep.include({ portal_account_id: ebayId, quantity: 3, acknowledged: 3, push: false });
  });

  /**
   * A Shopify store offering an item CIA caps at 3 (10 in stock), `units` sold in the store and
   * imported: CIA set the store's 3 again. The store's inventorySetQuantities calls are counted from here.
   * `cia`: the item's other portals.
   */
  async function soldInTheStore(sku: string, units: number, cia: Record<string, unknown> = {}) {
    const shopId = Number((await createPortalAccount(seller.id, { name: 'Shopify store', platform: 'webshop' })).id);
    const id = await createItem(seller, { name: 'Kettle', sku, price: '24.90', quantity: 10, cia: { ...cia, webshop: { is_active: true, max_quantity: 3 } } });
    const target = { portalAccountId: shopId, connector: 'shopify' as const, baseUrl: sandbox.url, credentials: {} };
    await new WebshopAdapter().list(target, { stockId: id, name: 'Kettle', sku, ean: null, price: '24.90', quantityAvailable: 3, group: {} }, 'list');
    const store = shopifyOf(sandbox.state);
    const available = () => store.available.get(store.variantBySku(String(shopId), sku)!.inventoryItemId);
    await triggered(id);
    await waitFor('the store offering 3', async () => available() === 3 && (await ciaState(id, 'webshop'))[0]?.acked_quantity === 3);
    const sale = await sandboxPost(sandbox, '/_sandbox/sell', { portal: 'webshop', portal_account: shopId, sku, quantity: units });
    const gid = String((sale as { order_id: string }).order_id);
    const orderId = gid.split('/').pop()!;
    // The store took the sold units off its own available quantity.
    expect(available()).to.equal(3 - units);
    expect((await importOrders({ accountId: seller.id, portalAccountId: shopId }, `cia-store-sold-${seller.id}`)).orders).to.deep.include({ created: 1 });
    expect(await stockQuantity(seller, id)).to.equal(10 - units);
    await waitFor('the store offering 3 again', async () => available() === 3 && (await ciaState(id, 'webshop'))[0]?.acked_quantity === 3, 15000);
    const sets = () =>
      sandbox.state.requests.filter(
        (r) => r.portalAccount === String(shopId) && String((r.body as { query?: string }).query).includes('inventorySetQuantities'),
      ).length;
    return { shopId, id, orderId, line: store.orders.get(gid)!.lines[0]!.id.split('/').pop()!, available, sets, setsBefore: sets() };
  }

  it('when the store cancels an imported order of an item CIA caps at 3 and restocks its unit, then CIA sets the store back to 3', async () => {
    const sku = `KETTLE-${seller.id}`;
    const { shopId, id, orderId, available, sets, setsBefore } = await soldInTheStore(sku, 1);

    await sandboxPost(sandbox, `/_sandbox/shopify/orders/${orderId}/cancel`, { reason: 'CUSTOMER', restock: true });
    // The store put the unit back on its own offer: it now offers 4 of an item CIA caps at 3.
    expect(available()).to.equal(4);
    expect((await importOrders({ accountId: seller.id, portalAccountId: shopId }, `cia-store-cancel-${seller.id}`)).orders).to.deep.include({ updated: 1 });
    expect(await stockQuantity(seller, id)).to.equal(10);

    await waitFor('the store offering 3 again', () => available() === 3, 15000);
    expect(sets()).to.be.above(setsBefore);
    await waitFor('acknowledged', async () => (await ciaState(id, 'webshop'))[0]?.acked_quantity === 3);
    const seen = (await triggered(id)).find((p) => p.portal === 'webshop')!;
    expect(seen).to.deep.include({ portal_account_id: shopId, quantity: 3, acknowledged: 3, push: false, held_until: null });
  });

  it('when the seller cancelled an imported order in Kontor and the store then cancels it and restocks its unit, then CIA sets the store back to 3 at once, and no other channel', async () => {
    // No push sweep runs in this suite (startFleet starts the relay and the cia and portal_upload
    // workers only); its interval is set to an hour as well: only an adjustment can push here.
    const original = config();
    setConfig({ ...original, ciaPushSweepMs: 3_600_000 });
    try {
      const sku = `KETTLE-KONTOR-${seller.id}`;
      const { shopId, id, orderId, available, sets, setsBefore } = await soldInTheStore(sku, 1, { shop_g: { is_active: true } });
      // shop_g (the JSON dialect) keeps the item under its stock id.
      const shopG = () => shown(seller.portalAccountId, 'shop_g', String(id));
      const row = (await db()('sales_order').first('id').where({ account_id: seller.id, external_order_id: orderId })) as { id: string };

      // The seller cancels in Kontor: the unit comes back (10), the store keeps CIA's 3, shop_g gets 10.
      const res = await call(`order/${row.id}/`, { token: seller.token, body: { order: { status: { is_cancelled: true } } } });
      expect(res.status, res.text).to.equal(200);
      expect(await stockQuantity(seller, id)).to.equal(10);
      await waitFor('shop_g offering 10', async () => shopG() === 10 && (await ciaState(id, 'shop_g'))[0]?.acked_quantity === 10, 15000);
      // What shop_g takes from here on (a call re-sent after an unknown outcome, when a loaded machine
      // times the first one out, takes the same 10 again: lib/portal-offer README, push again).
      const shopGTaken = () =>
        sandbox.state.acks.filter((a) => a.portal === 'shop_g' && a.portalAccount === String(seller.portalAccountId) && a.sku === String(id));
      const shopGBefore = shopGTaken().length;

      // The store's admin cancels it too, restocking (Kontor's own cancellation job has no worker
      // in this suite): the store offers 4 of an item CIA caps at 3.
      await sandboxPost(sandbox, `/_sandbox/shopify/orders/${orderId}/cancel`, { reason: 'CUSTOMER', restock: true });
      expect(available()).to.equal(4);
      await importOrders({ accountId: seller.id, portalAccountId: shopId }, `cia-store-cancel-kontor-${seller.id}`);
      // Cancelled in Kontor already: no stock moves.
      expect(await stockQuantity(seller, id)).to.equal(10);

      await waitFor('the store offering 3 again', () => available() === 3, 5000);
      expect(sets()).to.be.above(setsBefore);
      await waitFor('acknowledged', async () => (await ciaState(id, 'webshop'))[0]?.acked_quantity === 3, 5000);
      // Only the cancelling channel's quantity was unknown: shop_g, which still offers 10, was given no other quantity.
      expect(shopG()).to.equal(10);
      expect(
        shopGTaken()
          .slice(shopGBefore)
          .filter((a) => a.quantity !== 10),
      ).to.deep.equal([]);
      expect((await ciaState(id, 'shop_g'))[0]).to.include({ desired_quantity: 10, acked_quantity: 10 });
    } finally {
      setConfig(original);
    }
  });

  it('when the store takes a unit out of an imported order of an item CIA caps at 3 and restocks it, then CIA sets the store back to 3', async () => {
    const sku = `JUG-${seller.id}`;
    const { shopId, id, orderId, line, available, sets, setsBefore } = await soldInTheStore(sku, 2);

    await sandboxPost(sandbox, `/_sandbox/shopify/orders/${orderId}/edit`, { line, remove: 1, restock: true });
    expect(available()).to.equal(4);
    expect((await importOrders({ accountId: seller.id, portalAccountId: shopId }, `cia-store-edit-${seller.id}`)).orders).to.deep.include({ updated: 1 });
    expect(await stockQuantity(seller, id)).to.equal(9);

    await waitFor('the store offering 3 again', () => available() === 3, 15000);
    expect(sets()).to.be.above(setsBefore);
    await waitFor('acknowledged', async () => (await ciaState(id, 'webshop'))[0]?.acked_quantity === 3);
    const seen = (await triggered(id)).find((p) => p.portal === 'webshop')!;
    expect(seen).to.deep.include({ portal_account_id: shopId, quantity: 3, acknowledged: 3, push: false, held_until: null });
  });

  it('when a portal account is made for a platform the default account offered, and the item then sells out, then the default account is set to 0 too and its state goes once it took that', async () => {
    const id = await createItem(seller, { name: 'Cup', quantity: 6, cia: { shop_g: { is_active: true } } });
    const sku = String(id);
    await waitFor('the default account offering 6', () => shown(seller.portalAccountId, 'shop_g', sku) === 6);

    const platformId = Number((await createPortalAccount(seller.id, { name: 'Shop G', platform: 'shop_g' })).id);
    await createOrder(seller, { line: [{ id: 1, name: 'Cup', quantity: 6, price: '5.00', stock_align_id: `ID_${id}` }] });
    expect(await stockQuantity(seller, id)).to.equal(0);

    await waitFor('the platform account offering 0', () => shown(platformId, 'shop_g', sku) === 0);
    await waitFor('the default account offering 0', () => shown(seller.portalAccountId, 'shop_g', sku) === 0, 15000);
    await waitFor('the default account took 0', async () =>
      (await ciaState(id, 'shop_g')).some((s) => s.portal_account_id === seller.portalAccountId && s.acked_quantity === 0),
    );
    // Once the old account took 0, the next adjustment lets it go: only the platform's account is kept.
    const seen = await triggered(id);
    expect(seen.map((p) => [p.portal, p.portal_account_id, p.quantity, p.acknowledged, p.push])).to.deep.equal([['shop_g', platformId, 0, 0, false]]);
    expect((await ciaState(id, 'shop_g')).map((s) => s.portal_account_id)).to.deep.equal([platformId]);
    expect(shown(seller.portalAccountId, 'shop_g', sku)).to.equal(0);
  });
});
