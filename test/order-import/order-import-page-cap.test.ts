/**
 * A channel order fetch cut short at its page cap (ORDER_FETCH_MAX_PAGES) goes on where it
 * stopped: every order of the sandbox's channel reaches Kontor over the next fetches, once, however
 * the channel pages (Kaufland's GET /order-units `sort=ts_updated:desc` and Shopify's orders
 * `sortKey: UPDATED_AT, reverse: true`: newest change first; eBay's getOrders by creation date).
 * The page cap and page size are lowered to 2 (setConfig), and the sandbox's orders spread over
 * hours of changes, more than a fetch's 10-minute overlap.
 */
import { expect } from 'chai';
import { config, setConfig } from '../../config';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { db } from '../../lib/db/knex';
import { importOrders } from '../../lib/order-import/order-import.service';
import { kauflandOf } from '../../sandbox/kaufland.sandbox';
import { shopifyOf } from '../../sandbox/shopify.sandbox';
import type { EbayOrder } from '../../sandbox/ebay-state.sandbox';
import { channelLoopForSuite, Sandbox } from '../fleet/support';
import { createStock } from '../order/helpers';
import type { Seller } from '../support/api';
import { newSeller } from '../support/api';
import { kontorOrder, sandboxPost } from '../portals/channel-support';
import { kauflandItem } from '../portals/kaufland-support';

const hour = 3_600_000;
/** A time `hoursAgo` before now in the format of the value it replaces (Kaufland's whole seconds). */
const ago = (hoursAgo: number, like: string) => {
  const iso = new Date(Date.now() - hoursAgo * hour).toISOString();
  return like.includes('.') ? iso : iso.replace(/\.\d{3}Z$/, 'Z');
};

describe('order import: a fetch cut at its page cap goes on where it stopped', function () {
  this.timeout(120000);
  let sandbox: Sandbox;
  channelLoopForSuite((loop) => ({ sandbox } = loop));
  let saved: ReturnType<typeof config>;
  before(() => {
    saved = config();
    setConfig({ ...saved, orderFetchMaxPages: 2, orderFetchPageSize: 2 });
  });
  after(() => setConfig(saved));

  const post = (path: string, body: unknown) => sandboxPost(sandbox, path, body);

  /**
   * Fetches as the scheduler would, one after the other, a sale placed after the first; then every
   * order placed is in Kontor once (read through the API), none twice.
   */
  async function fetchAll(seller: Seller, portalAccountId: number, placed: string[], sellAfterFirst: () => Promise<string>) {
    const runs = [await importOrders({ accountId: seller.id, portalAccountId }, `cap-${portalAccountId}-1`)];
    // The first fetch was cut: 2 pages of 2.
    expect(runs[0]).to.deep.include({ pages: 2 });
    placed.push(await sellAfterFirst());
    for (let i = 2; i <= 4; i++) runs.push(await importOrders({ accountId: seller.id, portalAccountId }, `cap-${portalAccountId}-${i}`));
    for (const id of placed) expect(await kontorOrder(seller, id), `order ${id} in Kontor`).to.not.equal(undefined);
    const rows = (await db()('sales_order')
      .select('external_order_id')
      .count('* as n')
      .where({ account_id: seller.id })
      .whereIn('external_order_id', placed)
      .groupBy('external_order_id')) as { external_order_id: string; n: string }[];
    expect(rows.map((r) => [r.external_order_id, Number(r.n)]).sort()).to.deep.equal(placed.map((id) => [id, 1]).sort());
    const created = runs.reduce((n, r) => n + r.orders.created, 0);
    expect(created).to.equal(placed.length);
    // The chain is done: nothing is kept to go on with.
    const row = (await db()('portal_account').first('orders_fetch_cursor').where({ account_id: seller.id, id: portalAccountId }))!;
    expect(row.orders_fetch_cursor).to.equal(null);
  }

  it('Kaufland (newest change first, by offset): 7 orders changed over 7 hours and a sale during the chain all reach Kontor, once', async () => {
    const { seller, portalAccountId, list } = await kauflandItem('CAP-KL');
    expect((await list()).state).to.equal('completed');
    const k = kauflandOf(sandbox.state);
    const sell = async (hoursAgo: number) => {
      const { id_order } = (await post('/_sandbox/kaufland/orders', {
        portal_account: portalAccountId,
        lines: [{ id_offer: 'CAP-KL', quantity: 1, price: '24.90' }],
      })) as { id_order: string };
      const order = k.orders.get(id_order)!;
      if (hoursAgo > 0) {
        order.ts_created_iso = ago(hoursAgo, order.ts_created_iso);
        for (const id of order.units) k.orderUnits.get(id)!.ts_updated_iso = ago(hoursAgo, k.orderUnits.get(id)!.ts_updated_iso);
      }
      return id_order;
    };
    const placed: string[] = [];
    for (let h = 7; h >= 1; h--) placed.push(await sell(h));
    await fetchAll(seller, Number(portalAccountId), placed, () => sell(0));
  });

  it('Shopify (newest change first, by cursor): 7 orders changed over 7 hours and a sale during the chain all reach Kontor, once', async () => {
    const seller = await newSeller();
    await createStock(seller, 'CAP-SHOP', 20);
    const { id } = await createPortalAccount(seller.id, { name: 'Shopify store', platform: 'webshop' });
    const store = shopifyOf(sandbox.state);
    const sell = async (hoursAgo: number) => {
      const placed = await post('/_sandbox/shopify/orders', { portal_account: id, lines: [{ sku: 'CAP-SHOP', quantity: 1, price: '19.90' }] });
      const order = store.orders.get(String(placed.id))!;
      if (hoursAgo > 0) {
        order.createdAt = ago(hoursAgo, order.createdAt);
        order.updatedAt = ago(hoursAgo, order.updatedAt);
      }
      return String(placed.id).split('/').pop()!;
    };
    const placed: string[] = [];
    for (let h = 7; h >= 1; h--) placed.push(await sell(h));
    await fetchAll(seller, Number(id), placed, () => sell(0));
  });

  it('eBay (by creation date): 7 orders, the first created changed last, and a sale during the chain all reach Kontor, once', async () => {
    const seller = await newSeller();
    await createStock(seller, 'CAP-EBAY', 20);
    const { id } = await createPortalAccount(seller.id, { name: 'eBay shop', platform: 'auction_a' });
    const sell = async (createdHoursAgo: number, modifiedHoursAgo: number) => {
      const { order_id } = (await post('/_sandbox/ebay/orders', { portal_account: id, lines: [{ sku: 'CAP-EBAY', quantity: 1, price: '12.50' }] })) as {
        order_id: string;
      };
      const order = sandbox.state.ebay.orders.get(order_id)!.order as EbayOrder;
      if (createdHoursAgo > 0) {
        order.creationDate = ago(createdHoursAgo, order.creationDate ?? '.');
        order.lastModifiedDate = ago(modifiedHoursAgo, order.lastModifiedDate ?? '.');
      }
      return order_id;
    };
    const placed: string[] = [];
    // Created 20 hours ago first, changed 1 hour ago: the first page's newest change is later than the unread pages' changes.
    for (let i = 0; i < 7; i++) placed.push(await sell(20 - i, 1 + i));
    await fetchAll(seller, Number(id), placed, () => sell(0, 0));
  });
});
