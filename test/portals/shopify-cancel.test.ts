/**
 * Shopify cancellations both ways (issue 33), through Kontor's API and workers against the
 * sandbox's store built from the Admin GraphQL schema: an order the store cancels comes in
 * cancelled through the order import (stock back, the quantity at eBay and the store); an order
 * the seller cancels in Kontor is cancelled at the store with orderCancel (refund, no restock:
 * Kontor's CIA sets the store's quantity), once, and the store's cancellation is not echoed back.
 */
import crypto from 'node:crypto';
import { expect } from 'chai';
import type { Worker } from 'bullmq';
import { config, setConfig } from '../../config';
import { shopifyScopes } from '../../config/channel-apps';
import { withDevelopmentShopifyApp } from './shopify-support';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { db } from '../../lib/db/knex';
import { portalTargetRepository } from '../../lib/portal-account/portal-target.repository';
import { isPermanent } from '../../lib/errors';
import { orderImportProcessors } from '../../lib/order-import/order-import.processor';
import { importOrders } from '../../lib/order-import/order-import.service';
import { runChannelCancel } from '../../lib/order/order-channel-cancel.run';
import { startWorker } from '../../lib/queue/worker';
import { WebshopAdapter } from '../../lib/portals/webshop.adapter';
import { shopifyOf } from '../../sandbox/shopify.sandbox';
import { channelLoopForSuite, Sandbox, waitFor } from '../fleet/support';
import { apiBase, call, newSeller, Seller } from '../support/api';
import { failure } from '../support/failure';
import { readOrder, stockQuantity } from '../order/helpers';

/** The seller cancels the order in Kontor; the channel cancel job's end. */
async function cancelledInKontor(seller: Seller, orderId: string) {
  const res = await call(`order/${orderId}/`, { token: seller.token, body: { order: { status: { is_cancelled: true } } } });
  expect(res.status, res.text).to.equal(200);
  return waitFor(
    'the channel cancel job to end',
    async () =>
      (await db()('outbox')
        .first('finished_at', 'result', 'error')
        .where({ account_id: seller.id, job_name: 'order.channel_cancel' })
        .whereNotNull('finished_at')) as { result: unknown; error: string | null } | undefined,
    20000,
  );
}

describe('webshop at Shopify: cancellations both ways (the store cancels, the seller cancels in Kontor)', function () {
  this.timeout(60000);
  let sandbox: Sandbox;
  let orderImport: Worker | undefined;
  channelLoopForSuite((loop) => ({ sandbox } = loop));
  before(async () => {
    orderImport = await startWorker('order_import', orderImportProcessors, { skipEvictionCheck: true, registerShutdown: false });
  });
  after(async () => {
    await orderImport?.close(true);
  });

  /** A seller with a Shopify store and an eBay account, one item in both, 2 of its 10 sold in the store and imported. */
  async function soldInTheStore(sku: string) {
    const seller = await newSeller();
    const { id: shopId } = await createPortalAccount(seller.id, { name: 'Shopify store', platform: 'webshop' });
    const { id: ebayId } = await createPortalAccount(seller.id, { name: 'eBay shop', platform: 'auction_a' });
    const created = await call('stock/', {
      token: seller.token,
      body: { stock: { name: 'Teekanne Kobalt', sku, quantity: 10, price: '24.90', cia: { webshop: { is_active: true }, auction_a: { is_active: true } } } },
    });
    expect(created.status, created.text).to.equal(201);
    const stockId = Number(created.body.stock_id);
    const target = { portalAccountId: shopId, connector: 'shopify' as const, baseUrl: sandbox.url, credentials: {} };
    await new WebshopAdapter().list(target, { stockId, name: 'Teekanne Kobalt', sku, ean: null, price: '24.90', quantityAvailable: 10, group: {} }, 'list');
    const sale = await fetch(`${sandbox.url}/_sandbox/sell`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ portal: 'webshop', portal_account: shopId, sku, quantity: 2 }),
    });
    expect(sale.status).to.equal(201);
    const gid = ((await sale.json()) as { order_id: string }).order_id;
    const imported = await importOrders({ accountId: seller.id, portalAccountId: shopId }, `${sku}-1`);
    expect(imported.orders).to.deep.include({ created: 1 });
    const row = (await db()('sales_order')
      .first('id')
      .where({ account_id: seller.id, external_order_id: gid.split('/').pop() })) as { id: string };
    expect(await stockQuantity(seller, stockId)).to.equal(8);
    const s = shopifyOf(sandbox.state);
    const available = () => s.available.get(s.variantBySku(String(shopId), sku)!.inventoryItemId);
    const atEbay = () => sandbox.state.quantities(String(ebayId)).auction_a?.[sku];
    await waitFor('8 at eBay and in the store', () => atEbay() === 8 && available() === 8, 20000);
    return { seller, shopId, stockId, gid, orderId: row.id, s, available, atEbay };
  }

  const cancelCalls = (shopId: number | string) =>
    sandbox.state.requests.filter(
      (r) =>
        r.portal === 'webshop' && r.portalAccount === String(shopId) && String((r.body as { query?: string }).query).includes('mutation KontorOrderCancel('),
    ).length;

  it('when the store cancels an order, then the next fetch cancels the Kontor order, its stock comes back and reaches eBay and the store, and nothing is sent back', async () => {
    const { seller, shopId, stockId, gid, orderId, s, available, atEbay } = await soldInTheStore('SC-STORE-1');
    const cancelled = await fetch(`${sandbox.url}/_sandbox/shopify/orders/${gid.split('/').pop()}/cancel`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ reason: 'CUSTOMER', restock: false }),
    });
    expect(cancelled.status).to.equal(200);

    const again = await importOrders({ accountId: seller.id, portalAccountId: shopId }, 'sc-store-2');
    expect(again.orders).to.deep.include({ updated: 1 });
    const order = await readOrder(seller, orderId);
    expect(order.status.is_cancelled).to.equal(true);
    expect(order.history.some((h) => /cancelled/.test(h))).to.equal(true);
    expect(await stockQuantity(seller, stockId)).to.equal(10);
    await waitFor('10 at eBay and in the store', () => atEbay() === 10 && available() === 10, 20000);
    // The store's own cancellation is not sent back to it.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await db()('outbox').where({ account_id: seller.id, job_name: 'order.channel_cancel' }).count('* as n').first()).to.deep.equal({ n: '0' });
    expect(cancelCalls(shopId)).to.equal(0);
    expect(s.orders.get(gid)!.cancellation).to.deep.include({ reason: 'CUSTOMER' });
  });

  it('when the seller cancels a Shopify order in Kontor, then the store cancels it once with orderCancel (refunded, not restocked), Kontor pushes the quantity, and the next fetch brings only the store’s refund', async () => {
    const { seller, shopId, stockId, gid, orderId, s, available, atEbay } = await soldInTheStore('SC-KONTOR-1');
    const job = await cancelledInKontor(seller, orderId);
    expect(job.error).to.equal(null);
    expect(job.result).to.deep.include({ sent: true, channel: 'webshop' });
    const atStore = s.orders.get(gid)!;
    expect(atStore.cancelledAt).to.be.a('string');
    expect(atStore.financial).to.equal('REFUNDED');
    expect(atStore.cancellation).to.deep.equal({
      reason: 'OTHER',
      refund: true,
      restock: false,
      notifyCustomer: true,
      staffNote: `Cancelled in Kontor (order ${orderId})`,
    });
    expect(cancelCalls(shopId)).to.equal(1);
    // Not restocked by Shopify: Kontor's stock came back, and its CIA push sets the store's quantity.
    expect(await stockQuantity(seller, stockId)).to.equal(10);
    await waitFor('10 at eBay and in the store', () => atEbay() === 10 && available() === 10, 20000);

    // The store now shows the order cancelled and refunded: the next fetch finds Kontor's order
    // cancelled already, and takes only the refund (netPaymentSet 0.00) into its paid amount.
    const before = (await readOrder(seller, orderId)).history;
    const again = await importOrders({ accountId: seller.id, portalAccountId: shopId }, 'sc-kontor-2');
    expect(again.orders.updated ?? 0).to.equal(1);
    const after = await readOrder(seller, orderId);
    expect(after.paid_amount).to.equal('0.00');
    expect(after.history.slice(before.length)).to.have.length(1);
    expect(after.history.at(-1)).to.match(/: paid 0\.00$/);
    expect(await stockQuantity(seller, stockId)).to.equal(10);
    // A retry of the job (or a second one) finds the order cancelled at the store and sends nothing.
    expect(await runChannelCancel({ accountId: seller.id, orderId })).to.deep.include({ sent: true });
    expect(cancelCalls(shopId)).to.equal(1);
  });

  it('when the store refuses the cancellation (a fulfilled order), then the job fails for good with its words', async () => {
    const { seller, shopId, gid, orderId, s } = await soldInTheStore('SC-REFUSED-1');
    // Shipped at the store meanwhile; Kontor does not know yet (its order is not shipped, so it may be cancelled there).
    const o = s.orders.get(gid)!;
    o.lines[0]!.fulfilled = o.lines[0]!.quantity;
    const res = await call(`order/${orderId}/`, { token: seller.token, body: { order: { status: { is_cancelled: true } } } });
    expect(res.status, res.text).to.equal(200);
    const job = await waitFor(
      'the channel cancel job to fail',
      async () =>
        (await db()('outbox').first('finished_at', 'error').where({ account_id: seller.id, job_name: 'order.channel_cancel' }).whereNotNull('finished_at')) as
          { error: string | null } | undefined,
      20000,
    );
    expect(job.error).to.match(/webshop \(Shopify\) refused the cancellation of order \d+: orderId: Cannot cancel an order with fulfilled line items/);
    expect(cancelCalls(shopId)).to.equal(1);
    expect(o.cancelledAt).to.equal(null);
  });

  describe("a store installed from Kontor's consent link: the access scopes it granted", () => {
    let original: ReturnType<typeof config>;
    before(async () => {
      // Kontor's app installed at the sandbox's stores (as shopify-webhooks.test.ts does); only here,
      // as its webhooks then reach Kontor and import what the tests above import themselves.
      const base = await apiBase();
      original = config();
      setConfig(withDevelopmentShopifyApp(original, base, sandbox.url));
    });
    after(() => setConfig(original));

    /**
     * A store installed from Kontor's consent link, its merchant granting what the link asks, or
     * `scope` (what an earlier Kontor's link asked), with one item listed, 10 in Kontor, and an order
     * of 2 of them imported. Its sandbox account is the shop's domain (the install's token names it).
     */
    async function installedAndSold(seller: Seller, sku: string, scope?: string) {
      const { id: pa } = await createPortalAccount(seller.id, { name: 'Shopify store', platform: 'webshop' });
      const shop = `cancel-${crypto.randomBytes(3).toString('hex')}.myshopify.com`;
      const asked = await call(`admin/portal_account/${pa}/consent/`, { token: seller.token, body: { connector: 'shopify', shop_domain: shop } });
      expect(asked.status, asked.text).to.equal(200);
      const link = new URL(asked.body.url as string);
      if (scope !== undefined) link.searchParams.set('scope', scope);
      const granted = link.searchParams.get('scope')!;
      const approved = await fetch(link, { redirect: 'manual' });
      expect(approved.status).to.equal(302);
      const page = await fetch(approved.headers.get('location')!);
      expect(page.status, await page.text()).to.equal(200);
      portalTargetRepository.forget(seller.id, pa);
      const target = (await portalTargetRepository.target(db(), seller.id, pa))!;
      expect(target.credentials).to.deep.include({ shop_domain: shop, scopes: granted });

      const created = await call('stock/', { token: seller.token, body: { stock: { name: 'Becher Kobalt', sku, quantity: 10, price: '9.90' } } });
      expect(created.status, created.text).to.equal(201);
      const stockId = Number(created.body.stock_id);
      await new WebshopAdapter().list(target, { stockId, name: 'Becher Kobalt', sku, ean: null, price: '9.90', quantityAvailable: 10, group: {} }, 'list');
      const placed = await fetch(`${sandbox.url}/_sandbox/shopify/orders`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ portal_account: shop, lines: [{ sku, quantity: 2 }] }),
      });
      expect(placed.status).to.equal(201);
      const gid = ((await placed.json()) as { id: string }).id;
      // The install subscribed the store's webhooks, whose delivery may import the order first: either way once.
      await importOrders({ accountId: seller.id, portalAccountId: pa }, `${sku}-1`);
      const row = await waitFor(
        'the order imported',
        async () =>
          (await db()('sales_order')
            .first('id')
            .where({ account_id: seller.id, external_order_id: gid.split('/').pop() })) as { id: string } | undefined,
        20000,
      );
      await waitFor('8 in Kontor', async () => ((await stockQuantity(seller, stockId)) === 8 ? true : undefined), 20000);
      return { shop, target, stockId, gid, orderId: row.id, granted };
    }

    it("when a store installed before Kontor asked write_orders gets a seller's cancellation, then Shopify denies orderCancel and the job fails for good naming write_orders and asking to connect the store again and to cancel it in Shopify's admin; the order stays open there", async () => {
      const seller = await newSeller();
      // The list Kontor's consent link asked before it asked write_orders.
      const before = shopifyScopes.filter((x) => x !== 'write_orders').join(',');
      const { shop, target, stockId, gid, orderId } = await installedAndSold(seller, 'SC-SCOPE-OLD', before);
      const job = await cancelledInKontor(seller, orderId);
      expect(job.result).to.equal(null);
      expect(job.error).to.match(new RegExp(`webshop \\(Shopify\\) did not cancel order ${gid.split('/').pop()}: .*lacks the access scope write_orders`));
      expect(job.error).to.contain('connect the store again').and.contain("cancel it in Shopify's admin");
      // Shopify received the mutation and denied it: the buyer's order is open and paid, nothing refunded.
      expect(cancelCalls(shop)).to.equal(1);
      const atStore = shopifyOf(sandbox.state).orders.get(gid)!;
      expect(atStore).to.deep.include({ cancelledAt: null, financial: 'PAID' });
      expect(atStore.cancellation).to.equal(undefined);
      // Kontor's order is cancelled and its stock back (the seller is told so).
      expect((await readOrder(seller, orderId)).status.is_cancelled).to.equal(true);
      expect(await stockQuantity(seller, stockId)).to.equal(10);
      // Shopify's answer as its documented ACCESS_DENIED shape.
      const denied = await fetch(`${sandbox.url}/admin/api/2025-01/graphql.json`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Shopify-Access-Token': String(target.credentials.access_token) },
        body: JSON.stringify({
          query:
            'mutation C($id: ID!) { orderCancel(orderId: $id, refund: true, restock: false, reason: OTHER) { job { id } orderCancelUserErrors { message } } }',
          variables: { id: gid },
        }),
      });
      const body = (await denied.json()) as { data: unknown; errors: unknown[] };
      expect(denied.status).to.equal(200);
      expect(body.data).to.deep.equal({ orderCancel: null });
      expect(body.errors).to.deep.equal([
        {
          message: 'Access denied for orderCancel field. Required access: `write_orders` access scope.',
          locations: [{ line: 1, column: 24 }],
          path: ['orderCancel'],
          extensions: { code: 'ACCESS_DENIED', documentation: 'https://shopify.dev/api/usage/access-scopes', requiredAccess: '`write_orders` access scope.' },
        },
      ]);
      const direct = await failure(new WebshopAdapter().cancelOrder(target, gid.split('/').pop()!, 'again'));
      expect(isPermanent(direct)).to.equal(true);
    });

    it("when a store is installed from Kontor's consent link as it asks now (write_orders among the scopes), then the seller's cancellation cancels and refunds the order at the store", async () => {
      const seller = await newSeller();
      const { shop, gid, orderId, granted } = await installedAndSold(seller, 'SC-SCOPE-NEW');
      expect(granted.split(',')).to.include('write_orders');
      const job = await cancelledInKontor(seller, orderId);
      expect(job.error).to.equal(null);
      expect(job.result).to.deep.include({ sent: true, channel: 'webshop' });
      expect(cancelCalls(shop)).to.equal(1);
      const atStore = shopifyOf(sandbox.state).orders.get(gid)!;
      expect(atStore.cancelledAt).to.be.a('string');
      expect(atStore.financial).to.equal('REFUNDED');
      expect(atStore.cancellation).to.deep.include({ refund: true, restock: false, reason: 'OTHER' });
    });
  });
});
