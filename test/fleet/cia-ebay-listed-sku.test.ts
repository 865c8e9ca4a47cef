/**
 * An item whose SKU the seller changed after it was listed at eBay: eBay holds the listing's
 * inventory item and offer under the SKU it was listed by (the inventory item's key,
 * createOrReplaceInventoryItem's path; updateOffer takes no sku), and holds nothing of the new
 * one (bulkUpdatePriceQuantity refuses it in its own entry, 25002). Through the API, the workers
 * and the sandbox: CIA's quantities, a revise, a list again and the end reach the listing under
 * the SKU Kontor recorded at listing (portal_listing.listed_sku); the new SKU gets nothing.
 */
import { expect } from 'chai';
import { db } from '../../lib/db/knex';
import { queues } from '../../lib/queue/queue.registry';
import { refreshListing } from '../../sandbox/ebay-state.sandbox';
import { call, newSeller, Seller } from '../support/api';
import { createItem } from '../stock/helpers';
import { ebayListable } from '../portals/channel-support';
import { uploadToEnd, waitFor, withSandboxAndFleet } from './support';

describe('fleet: an item whose SKU changed after it was listed at auction_a (eBay)', function () {
  this.timeout(60000);
  let seller: Seller;
  let sku: (suffix: string) => string;
  const running = withSandboxAndFleet();
  beforeEach(async () => {
    seller = await newSeller();
    sku = (suffix) => `LS${seller.id}${suffix}`;
    // The contract's eBay: a quantity of a SKU it holds no inventory item of is refused (25002).
    running.sandbox.state.ebay.itemsMadeElsewhere = false;
  });
  afterEach(() => {
    running.sandbox.state.ebay.itemsMadeElsewhere = true;
  });

  const account = () => String(seller.portalAccountId);
  const shown = () => running.sandbox.state.quantities(account()).auction_a ?? {};
  const offersOf = (s: string) => [...running.sandbox.state.ebay.offers.values()].filter((o) => o.account === account() && o.sku === s);
  const heldItem = (s: string) => running.sandbox.state.ebay.inventory.has(`${account()}|${s}`);
  const ebayCalls = (since: number) => running.sandbox.state.requests.slice(since).filter((r) => r.portal === 'auction_a' && r.portalAccount === account());

  const upload = (stockId: number, part: Record<string, unknown>) => uploadToEnd(seller.token, stockId, { auction_a: [part] });

  /** The delete job of an item's auction_a listing as the worker runs it (portal_upload takes no delete at auction_a from a client). */
  async function endListing(stockId: number) {
    const jobId = `end-listed-sku-${seller.id}-${stockId}`;
    const { lister_id: listerId } = (await db()('portal_listing').where({ account_id: seller.id, stock_id: stockId }).first('lister_id')) as {
      lister_id: string;
    };
    const job = { accountId: seller.id, stockId, portal: 'auction_a', portalAccountId: seller.portalAccountId, action: 'delete' as const, listerId };
    await queues().add('portal.upload', job, jobId);
    const state = await waitFor('the delete job to end', async () => {
      const now = await (await queues().get('portal_upload').getJob(jobId))?.getState();
      return now === 'completed' || now === 'failed' ? now : undefined;
    });
    return { state, error: (await queues().get('portal_upload').getJob(jobId))?.failedReason };
  }

  const acked = (stockId: number, quantity: number) =>
    waitFor(`item ${stockId}'s auction_a push of ${quantity} acknowledged`, async () => {
      const row = (await db()('cia_portal_state').where({ account_id: seller.id, stock_id: stockId, portal: 'auction_a' }).first()) as
        { acked_quantity: number | null; last_error: string | null; refused_seq: string | null; desired_seq: string } | undefined;
      return row?.acked_quantity === quantity ? row : undefined;
    });

  const change = async (stockId: number, stock: Record<string, unknown>) => {
    const res = await call(`stock/${stockId}/`, { token: seller.token, body: { stock } });
    expect(res.status, res.text).to.equal(200);
  };

  /** A lamp listed at eBay under its SKU -OLD (5 shown), then given the SKU -NEW by the seller: its id and listing id. */
  async function relabelledLamp(): Promise<{ id: number; listingId: string }> {
    const id = await createItem(seller, {
      name: 'Lamp',
      sku: sku('-OLD'),
      price: '19.90',
      quantity: 5,
      cia: { auction_a: { is_active: true } },
      auction_a: [ebayListable],
    });
    const listed = await upload(id, { action: 'list' });
    expect(listed.state, listed.error).to.equal('completed');
    await waitFor('5 at eBay under -OLD', () => shown()[sku('-OLD')] === 5);
    await acked(id, 5);
    await change(id, { sku: sku('-NEW') });
    return { id, listingId: (listed.result as { portal_item_id: string }).portal_item_id };
  }

  it('when a listed item’s SKU changed and its quantity changes, then CIA sets it on the listing’s inventory item and offer under the SKU it was listed by, acknowledged, and the new SKU gets nothing at eBay', async () => {
    const { id, listingId } = await relabelledLamp();
    const since = running.sandbox.state.requests.length;
    await change(id, { quantity: 3 });
    const row = await acked(id, 3);
    expect(row.last_error).to.equal(null);
    expect(row.refused_seq === row.desired_seq).to.equal(false);
    expect(shown()[sku('-OLD')]).to.equal(3);
    const [offer] = offersOf(sku('-OLD'));
    expect([offer?.status, offer?.listingId, offer?.body.availableQuantity]).to.deep.equal(['PUBLISHED', listingId, 3]);
    expect(shown()).to.not.have.property(sku('-NEW'));
    expect(heldItem(sku('-NEW'))).to.equal(false);
    const bulk = ebayCalls(since).filter((r) => r.path === '/sell/inventory/v1/bulk_update_price_quantity');
    expect(bulk.length).to.be.greaterThan(0);
    expect(bulk.map((r) => [r.status, (r.body as { requests: { sku: string }[] }).requests.map((q) => q.sku)])).to.deep.equal(
      bulk.map(() => [200, [sku('-OLD')]]),
    );
  });

  it('when a listed item’s SKU changed, then a revise revises its listing under the SKU it was listed by; one naming sku is refused before anything is written, saying how to sell under the new SKU; a list again updates that listing instead of making a second, until that listing is ended at eBay', async () => {
    const { id, listingId } = await relabelledLamp();
    await change(id, { price: '24.90' });
    const revised = await upload(id, { action: 'revise', revise_values: ['price', 'title'] });
    expect(revised.state, revised.error).to.equal('completed');
    const [offer] = offersOf(sku('-OLD'));
    expect(offer?.body.pricingSummary).to.deep.include({ price: { value: '24.90', currency: 'EUR' } });
    expect(offer?.listingId).to.equal(listingId);
    expect(heldItem(sku('-NEW'))).to.equal(false);
    expect(offersOf(sku('-NEW'))).to.deep.equal([]);

    const since = running.sandbox.state.requests.length;
    const refused = await upload(id, { action: 'revise', revise_values: ['sku'] });
    expect(refused.state).to.equal('failed');
    expect(refused.error)
      .to.contain(`eBay listing ${listingId} was made under SKU ${sku('-OLD')}`)
      .and.contain(`end it at eBay (Seller Hub: Kontor plans no end of a listing at auction_a) and list item ${id} again to sell under ${sku('-NEW')}`);
    expect(ebayCalls(since).filter((r) => r.method !== 'GET')).to.deep.equal([]);

    const again = await upload(id, { action: 'list' });
    expect(again.state, again.error).to.equal('completed');
    expect((again.result as { portal_item_id: string }).portal_item_id).to.equal(listingId);
    expect(offersOf(sku('-OLD')).map((o) => [o.status, o.listingId])).to.deep.equal([['PUBLISHED', listingId]]);
    expect(offersOf(sku('-NEW'))).to.deep.equal([]);
    expect(heldItem(sku('-NEW'))).to.equal(false);

    // The seller ends that listing at eBay (Seller Hub, as eBay's withdrawOffer would): a list now
    // is made under the item's SKU, and its quantities follow it there.
    const [live] = offersOf(sku('-OLD'));
    live!.status = 'UNPUBLISHED';
    refreshListing(running.sandbox.state, account(), sku('-OLD'), 'end');
    const moved = await upload(id, { action: 'list' });
    expect(moved.state, moved.error).to.equal('completed');
    const newListing = (moved.result as { portal_item_id: string }).portal_item_id;
    expect(newListing).to.not.equal(listingId);
    expect(offersOf(sku('-NEW')).map((o) => [o.status, o.listingId])).to.deep.equal([['PUBLISHED', newListing]]);
    await change(id, { quantity: 2 });
    await acked(id, 2);
    expect(shown()[sku('-NEW')]).to.equal(2);
    expect(offersOf(sku('-OLD')).map((o) => o.status)).to.deep.equal(['UNPUBLISHED']);
  });

  it('when a listed item’s SKU changed and its listing is ended, then eBay withdraws the offer under the SKU it was listed by, and the listing reads ended', async () => {
    const { id, listingId } = await relabelledLamp();
    const ended = await endListing(id);
    expect(ended.state, ended.error).to.equal('completed');
    expect(offersOf(sku('-OLD')).map((o) => [o.status, o.listingId])).to.deep.equal([['UNPUBLISHED', listingId]]);
    expect(shown()[sku('-OLD')]).to.equal(0);
    const record = await db()('portal_listing').where({ account_id: seller.id, stock_id: id, portal: 'auction_a' }).first('status');
    expect(record).to.deep.equal({ status: 'ended' });
  });

  it('when a listing recorded before Kontor kept its SKU is live and the item’s SKU changed, then its quantity is refused naming that listing and saying to give the SKU back or end the listing, not to list the item again', async () => {
    const { id, listingId } = await relabelledLamp();
    // A record made before portal_listing.listed_sku (migration 20261128_1000): no SKU kept.
    await db()('portal_listing').where({ account_id: seller.id, stock_id: id }).update({ listed_sku: null });
    await change(id, { quantity: 3 });
    const refused = await waitFor('the refusal recorded', async () => {
      const row = (await db()('cia_portal_state').where({ account_id: seller.id, stock_id: id, portal: 'auction_a' }).first()) as
        { last_error: string | null; refused_seq: string | null; desired_seq: string } | undefined;
      return row && row.refused_seq === row.desired_seq ? row : undefined;
    });
    expect(refused.last_error)
      .to.contain(`auction_a answered 400 for SKU ${sku('-NEW')} (item ${id})`)
      .and.contain(`item ${id}'s eBay listing ${listingId} was made under the SKU the item had then`)
      .and.contain(`or end listing ${listingId} at eBay before listing the item again`)
      .and.not.contain('at auction_a (portal_upload) so that it takes quantities');
    expect(shown()[sku('-OLD')]).to.equal(5);
  });

  it('when the SKUs of a variation main and a variant listed at eBay changed, then the variant’s quantity goes to its variation under the SKU it was listed by, and the main’s end withdraws the group under its key at listing', async () => {
    const s = await createItem(seller, { name: 'Shirt S', sku: sku('-S'), quantity: 4, cia: { auction_a: { is_active: true } } });
    const m = await createItem(seller, { name: 'Shirt M', sku: sku('-M'), quantity: 3, cia: { auction_a: { is_active: true } } });
    const size = (value: string) => ({ name_value: [{ name: 'size', value: [value] }] });
    const main = await createItem(seller, {
      name: 'Shirt',
      sku: sku('-SHIRT'),
      price: '19.90',
      quantity: 50,
      cia: { auction_a: { is_active: true } },
      auction_a: [{ ...ebayListable, name: 'Shirt', price: '19.90' }],
      variation: {
        type: 'main',
        specifics_set: { name_value: [{ name: 'size', value: ['S', 'M'] }] },
        sub: [
          { id: String(s), specifics: size('S') },
          { id: String(m), specifics: size('M') },
        ],
      },
    });
    const listed = await upload(main, { action: 'list' });
    expect(listed.state, listed.error).to.equal('completed');
    const listingId = (listed.result as { portal_item_id: string }).portal_item_id;
    await waitFor('the variants at eBay', () => shown()[sku('-S')] === 4 && shown()[sku('-M')] === 3);
    await acked(s, 4);

    await change(s, { sku: sku('-S2') });
    await change(main, { sku: sku('-SHIRT2') });
    await change(s, { quantity: 2 });
    await acked(s, 2);
    expect(shown()[sku('-S')]).to.equal(2);
    expect(offersOf(sku('-S')).map((o) => [o.status, o.listingId, o.body.availableQuantity])).to.deep.equal([['PUBLISHED', listingId, 2]]);
    expect(heldItem(sku('-S2'))).to.equal(false);

    const since = running.sandbox.state.requests.length;
    const ended = await endListing(main);
    expect(ended.state, ended.error).to.equal('completed');
    const posts = ebayCalls(since).filter((r) => r.method === 'POST');
    expect(posts.map((r) => [r.path, r.body, r.status])).to.deep.equal([
      ['/sell/inventory/v1/offer/withdraw_by_inventory_item_group', { inventoryItemGroupKey: sku('-SHIRT'), marketplaceId: 'EBAY_DE' }, 204],
    ]);
    expect([...offersOf(sku('-S')), ...offersOf(sku('-M'))].map((o) => o.status)).to.deep.equal(['UNPUBLISHED', 'UNPUBLISHED']);
  });
});
