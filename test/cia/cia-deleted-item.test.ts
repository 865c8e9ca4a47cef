/**
 * A deleted item's offers go to 0 (lib/cia README "A deleted item's offers go to 0"), also where
 * the channel knows the item only by its SKU: a Shopify variant, an eBay listing made outside
 * Kontor. The 0 goes under the SKU the item was offered under, and one the channel refused is
 * sent again by the reconcile. Through the API, the workers and the sandbox channels.
 */
import { expect } from 'chai';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { reconcileAll } from '../../lib/cia/cia-reconcile.service';
import { ciaRepository } from '../../lib/cia/cia.repository';
import { db } from '../../lib/db/knex';
import { pushQuantities } from '../../lib/portal-offer/portal-push.service';
import { AuctionAAdapter } from '../../lib/portals/auction-a.adapter';
import { WebshopAdapter } from '../../lib/portals/webshop.adapter';
import { shopifyOf } from '../../sandbox/shopify.sandbox';
import { channelLoopForSuite, jobEnd, Sandbox, waitFor } from '../fleet/support';
import { ebayListable, sandboxPost } from '../portals/channel-support';
import { createItem } from '../stock/helpers';
import { call, newSeller, Seller } from '../support/api';

interface PortalState {
  portal: string;
  portal_account_id: number;
  quantity: number;
  acknowledged: number | null;
  push: boolean;
  message: string | null;
}

describe('cia: a deleted item offered by its SKU', function () {
  this.timeout(60000);
  let sandbox: Sandbox;
  channelLoopForSuite((loop) => ({ sandbox } = loop));
  let seller: Seller;
  beforeEach(async () => {
    seller = await newSeller();
    // Real eBay holds no inventory item of a SKU nobody made: a quantity under an unknown SKU is refused.
    sandbox.state.ebay.itemsMadeElsewhere = false;
  });
  afterEach(() => {
    sandbox.state.ebay.itemsMadeElsewhere = true;
  });

  /** The item's CIA state at one portal, as stored (a deleted item has no POST stock/{id}/cia/ to show it). */
  const ciaState = async (stockId: number, portal: string) =>
    (await db()('cia_portal_state').where({ account_id: seller.id, stock_id: stockId, portal }).orderBy('id')) as {
      desired_quantity: number;
      acked_quantity: number | null;
      acked_seq: string;
      desired_seq: string;
      refused_seq: string;
      last_error: string | null;
    }[];
  /** What eBay offers of a SKU at a portal account (its listings' quantity). */
  const ebayShows = async (portalAccountId: number, sku: string) =>
    ((await (await fetch(`${sandbox.url}/_sandbox/ebay/listings?portal_account=${portalAccountId}`)).json()) as { sku: string; quantity: number }[]).find(
      (l) => l.sku === sku,
    )?.quantity;
  /** The SKUs of the last bulkUpdatePriceQuantity of a portal account. */
  const lastEbaySkus = (portalAccountId: number) =>
    (
      sandbox.state.requests.filter((r) => r.portalAccount === String(portalAccountId) && String(r.path).includes('bulk_update_price_quantity')).at(-1)
        ?.body as { requests: { sku: string }[] } | undefined
    )?.requests.map((r) => r.sku);
  /** POST stock/{id}/cia/ and its job's result: the portals as the client sees them. */
  async function triggered(stockId: number): Promise<PortalState[]> {
    const res = await call(`stock/${stockId}/cia/`, { token: seller.token, method: 'POST' });
    expect(res.status, res.text).to.equal(202);
    const job = await jobEnd(seller.token, String(res.body.job_id));
    expect(job.state, job.error).to.equal('completed');
    return (job.result as { portals: PortalState[] }).portals;
  }
  async function remove(stockId: number): Promise<void> {
    const res = await call(`stock/${stockId}/`, { token: seller.token, method: 'DELETE' });
    expect(res.status, res.text).to.equal(200);
    expect((await call(`stock/${stockId}/cia/`, { token: seller.token, method: 'POST' })).status).to.equal(404);
  }
  /**
   * An item eBay offers 4 of under its own SKU, from a listing made outside Kontor (no listing
   * recorded); `entrySku`: its auction_a entry's own SKU, which eBay knows it by instead.
   */
  async function offeredAtEbayOutsideKontor(sku: string, entrySku?: string): Promise<{ ebayId: number; id: number }> {
    const ebayId = Number((await createPortalAccount(seller.id, { name: 'eBay', platform: 'auction_a' })).id);
    const entry = entrySku ? { auction_a: [{ ...ebayListable, sku: entrySku }] } : {};
    const id = await createItem(seller, { name: 'Lamp', sku, price: '19.90', quantity: 4, ...entry, cia: { auction_a: { is_active: true } } });
    const target = { portalAccountId: ebayId, baseUrl: sandbox.url, credentials: {} };
    const group = { ...ebayListable, price: '19.90', ...(entrySku ? { sku: entrySku } : {}) };
    await new AuctionAAdapter().list(target, { stockId: id, name: 'Lamp', sku, ean: null, price: '19.90', quantityAvailable: 4, group }, 'list');
    expect(await db()('portal_listing').where({ account_id: seller.id, stock_id: id })).to.deep.equal([]);
    await triggered(id);
    const listed = entrySku ?? sku;
    await waitFor('eBay offering 4', async () => (await ebayShows(ebayId, listed)) === 4 && (await ciaState(id, 'auction_a'))[0]?.acked_quantity === 4, 15000);
    return { ebayId, id };
  }

  it('when an item a Shopify store offers 4 of under its SKU is deleted, then the store offers 0 of that SKU and the state took it', async () => {
    const shopId = Number((await createPortalAccount(seller.id, { name: 'Shopify store', platform: 'webshop' })).id);
    const sku = `KETTLE-${seller.id}`;
    const id = await createItem(seller, { name: 'Kettle', sku, price: '24.90', quantity: 4, cia: { webshop: { is_active: true } } });
    const target = { portalAccountId: shopId, connector: 'shopify' as const, baseUrl: sandbox.url, credentials: {} };
    await new WebshopAdapter().list(target, { stockId: id, name: 'Kettle', sku, ean: null, price: '24.90', quantityAvailable: 4, group: {} }, 'list');
    const store = shopifyOf(sandbox.state);
    const available = () => store.available.get(store.variantBySku(String(shopId), sku)!.inventoryItemId);
    const seen = (await triggered(id)).find((p) => p.portal === 'webshop')!;
    expect(seen).to.deep.include({ portal_account_id: shopId, quantity: 4 });
    await waitFor('the store offering 4', async () => available() === 4 && (await ciaState(id, 'webshop'))[0]?.acked_quantity === 4, 15000);

    await remove(id);
    const state = await waitFor(
      'the 0 answered',
      async () => {
        const [s] = await ciaState(id, 'webshop');
        return s && s.desired_quantity === 0 && (s.acked_quantity === 0 || s.last_error) ? s : undefined;
      },
      15000,
    );
    expect({ store: available(), acknowledged: state.acked_quantity, message: state.last_error }).to.deep.equal({ store: 0, acknowledged: 0, message: null });
  });

  it('when an item eBay offers 4 of under its SKU from a listing made outside Kontor is deleted, then eBay offers 0 under that SKU', async () => {
    const sku = `LAMPX-${seller.id}`;
    const { ebayId, id } = await offeredAtEbayOutsideKontor(sku);

    await remove(id);
    const state = await waitFor(
      'the 0 answered',
      async () => {
        const [s] = await ciaState(id, 'auction_a');
        return s && s.desired_quantity === 0 && (s.acked_quantity === 0 || s.last_error) ? s : undefined;
      },
      15000,
    );
    expect({ ebay: await ebayShows(ebayId, sku), sent: lastEbaySkus(ebayId), acknowledged: state.acked_quantity, message: state.last_error }).to.deep.equal({
      ebay: 0,
      sent: [sku],
      acknowledged: 0,
      message: null,
    });
  });

  it('when an item eBay offers under its auction_a entry’s own SKU from a listing made outside Kontor is deleted, then eBay offers 0 under the entry’s SKU', async () => {
    const sku = `LAMPE-${seller.id}`;
    const entrySku = `LAMPE-EBAY-${seller.id}`;
    const { ebayId, id } = await offeredAtEbayOutsideKontor(sku, entrySku);

    await remove(id);
    const state = await waitFor(
      'the 0 answered',
      async () => {
        const [s] = await ciaState(id, 'auction_a');
        return s && s.desired_quantity === 0 && (s.acked_quantity === 0 || s.last_error) ? s : undefined;
      },
      15000,
    );
    expect({
      ebay: await ebayShows(ebayId, entrySku),
      sent: lastEbaySkus(ebayId),
      acknowledged: state.acked_quantity,
      message: state.last_error,
    }).to.deep.equal({
      ebay: 0,
      sent: [entrySku],
      acknowledged: 0,
      message: null,
    });
  });

  it('when the store took a quantity under the SKU the item was given after its state was set up, then the deleted item’s 0 goes under that SKU', async () => {
    const shopId = Number((await createPortalAccount(seller.id, { name: 'Shopify store', platform: 'webshop' })).id);
    const first = `JUG-${seller.id}`;
    const id = await createItem(seller, { name: 'Jug', sku: first, price: '24.90', quantity: 4, cia: { webshop: { is_active: true } } });
    const store = shopifyOf(sandbox.state);
    // Not at the store yet: the first push is refused ("list the item first").
    await waitFor('the first push refused', async () => (await ciaState(id, 'webshop'))[0]?.last_error?.includes(first));
    // The seller renames the item and lists it under the new SKU; a delivery makes CIA push 5 there.
    const renamed = `JUG-NEW-${seller.id}`;
    expect((await call(`stock/${id}/`, { token: seller.token, body: { stock: { sku: renamed } } })).status).to.equal(200);
    const target = { portalAccountId: shopId, connector: 'shopify' as const, baseUrl: sandbox.url, credentials: {} };
    await new WebshopAdapter().list(target, { stockId: id, name: 'Jug', sku: renamed, ean: null, price: '24.90', quantityAvailable: 4, group: {} }, 'list');
    expect((await call(`stock/${id}/`, { token: seller.token, body: { stock: { quantity: 5 } } })).status).to.equal(200);
    const available = () => store.available.get(store.variantBySku(String(shopId), renamed)!.inventoryItemId);
    await waitFor('the store offering 5', async () => available() === 5 && (await ciaState(id, 'webshop'))[0]?.acked_quantity === 5, 15000);

    await remove(id);
    const state = await waitFor(
      'the 0 answered',
      async () => {
        const [s] = await ciaState(id, 'webshop');
        return s && s.desired_quantity === 0 && (s.acked_quantity === 0 || s.last_error) ? s : undefined;
      },
      15000,
    );
    expect({ store: available(), acknowledged: state.acked_quantity, message: state.last_error }).to.deep.equal({ store: 0, acknowledged: 0, message: null });
  });

  it('when eBay refuses a deleted item’s 0, then the next reconcile sends it again under the item’s SKU and eBay offers 0', async () => {
    const sku = `LAMPR-${seller.id}`;
    const { ebayId, id } = await offeredAtEbayOutsideKontor(sku);
    // eBay refuses the next quantity of that SKU once.
    await sandboxPost(sandbox, '/_sandbox/faults', { portal: 'auction_a', portal_account: ebayId, reference: sku, status: 400, message: 'refused once' });

    await remove(id);
    await waitFor(
      'the 0 refused',
      async () => {
        const [s] = await ciaState(id, 'auction_a');
        return s && s.desired_quantity === 0 && s.refused_seq === s.desired_seq && s.last_error?.includes('refused once');
      },
      15000,
    );
    expect(await ebayShows(ebayId, sku)).to.equal(4);

    await reconcileAll(`deleted-${seller.id}`);
    const state = await waitFor(
      'the 0 taken',
      async () => {
        const [s] = await ciaState(id, 'auction_a');
        return s?.acked_quantity === 0 && s.acked_seq === s.desired_seq ? s : undefined;
      },
      15000,
    );
    expect({ ebay: await ebayShows(ebayId, sku), sent: lastEbaySkus(ebayId), message: state.last_error }).to.deep.equal({
      ebay: 0,
      sent: [sku],
      message: null,
    });
  });

  /** The deleted item's reconcile is done: its state at eBay is gone, or its wanted quantity was answered. */
  const settled = async (stockId: number) => {
    const states = await ciaState(stockId, 'auction_a');
    return states.every((s) => s.acked_seq === s.desired_seq) ? states : undefined;
  };

  it('when eBay refused a deleted item’s 0 and a new item took its SKU and eBay offers 7 of it, then the reconcile leaves eBay at 7 and the deleted item’s state goes', async () => {
    const sku = `LAMPS-${seller.id}`;
    const { ebayId, id: a } = await offeredAtEbayOutsideKontor(sku);
    await sandboxPost(sandbox, '/_sandbox/faults', { portal: 'auction_a', portal_account: ebayId, reference: sku, status: 400, message: 'refused once' });
    await remove(a);
    await waitFor('the 0 refused', async () => ((await ciaState(a, 'auction_a'))[0]?.last_error?.includes('refused once') ? true : undefined), 15000);
    sandbox.state.faults = [];
    // The seller makes the item again under the same SKU: eBay's offer of that SKU is the new item's.
    const b = await createItem(seller, { name: 'Lamp', sku, price: '19.90', quantity: 7, cia: { auction_a: { is_active: true } } });
    await triggered(b);
    await waitFor('eBay offering 7', async () => (await ebayShows(ebayId, sku)) === 7 && (await ciaState(b, 'auction_a'))[0]?.acked_quantity === 7, 15000);

    await reconcileAll(`taken-${seller.id}`);
    const left = await waitFor('the deleted item’s reconcile', () => settled(a), 15000);
    expect({
      ebay: await ebayShows(ebayId, sku),
      acknowledged: (await ciaState(b, 'auction_a'))[0]?.acked_quantity,
      deletedItemStates: left.length,
    }).to.deep.equal({
      ebay: 7,
      acknowledged: 7,
      deletedItemStates: 0,
    });
  });

  it('when a deleted item’s 0 is due again after another item took its SKU through its auction_a entry (a push again, a cancellation at eBay), then its push sends nothing and eBay keeps the 7', async () => {
    const sku = `LAMPT-${seller.id}`;
    const { ebayId, id: a } = await offeredAtEbayOutsideKontor(sku);
    await remove(a);
    await waitFor('the 0 taken', async () => (await ebayShows(ebayId, sku)) === 0 && (await settled(a))?.[0]?.acked_quantity === 0, 15000);
    // Another item, of its own SKU, offered at eBay under the deleted item's SKU by its entry.
    const b = await createItem(seller, {
      name: 'Lamp',
      sku: `LAMPT-B-${seller.id}`,
      price: '19.90',
      quantity: 7,
      auction_a: [{ ...ebayListable, sku }],
      cia: { auction_a: { is_active: true } },
    });
    await triggered(b);
    await waitFor('eBay offering 7', async () => (await ebayShows(ebayId, sku)) === 7 && (await ciaState(b, 'auction_a'))[0]?.acked_quantity === 7, 15000);

    // What a push again of the deleted item's 0 (its call's outcome unknown) or eBay's cancellation of its order does: due again.
    const target = { portal: 'auction_a', portalAccountId: ebayId };
    await db().transaction((trx) => ciaRepository.unknownAtChannel(trx, seller.id, target, [a]));
    const pushed = await pushQuantities(seller.id, target);
    expect({ ebay: await ebayShows(ebayId, sku), pushed: pushed.pushed, calls: pushed.calls }).to.deep.equal({ ebay: 7, pushed: [], calls: 0 });

    // The reconcile walks the deleted item (its state waits) and its adjustment removes the state.
    await reconcileAll(`taken-late-${seller.id}`);
    const left = await waitFor('the deleted item’s state gone', async () => ((await ciaState(a, 'auction_a')).length === 0 ? [] : undefined), 15000);
    expect({ ebay: await ebayShows(ebayId, sku), deletedItemStates: left.length }).to.deep.equal({ ebay: 7, deletedItemStates: 0 });
  });
});
