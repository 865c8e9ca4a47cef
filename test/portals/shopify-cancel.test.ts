/**
 * Shopify cancellations both ways (issue 33), through Kontor's API and workers against the
 * sandbox's store built from the Admin GraphQL schema: an order the store cancels comes in
 * cancelled through the order import (stock back, the quantity at eBay and the store); an order
 * the seller cancels in Kontor is cancelled at the store with orderCancel (refund, no restock:
 * Kontor's CIA sets the store's quantity), once, and the store's cancellation is not echoed back.
 */
import { expect } from 'chai';
import type { Worker } from 'bullmq';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { db } from '../../lib/db/knex';
import { orderImportProcessors } from '../../lib/order-import/order-import.processor';
import { importOrders } from '../../lib/order-import/order-import.service';
import { runChannelCancel } from '../../lib/order/order-channel-cancel.run';
import { startWorker } from '../../lib/queue/worker';
import { WebshopAdapter } from '../../lib/portals/webshop.adapter';
import { shopifyOf } from '../../sandbox/shopify.sandbox';
import { channelLoopForSuite, Sandbox, waitFor } from '../fleet/support';
import { call, newSeller } from '../support/api';
import { readOrder, stockQuantity } from '../order/helpers';

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

  const cancelCalls = (shopId: number) =>
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
    const res = await call(`order/${orderId}/`, { token: seller.token, body: { order: { status: { is_cancelled: true } } } });
    expect(res.status, res.text).to.equal(200);

    const job = await waitFor(
      'the channel cancel job to finish',
      async () =>
        (await db()('outbox')
          .first('finished_at', 'result', 'error')
          .where({ account_id: seller.id, job_name: 'order.channel_cancel' })
          .whereNotNull('finished_at')) as { result: unknown; error: string | null } | undefined,
      20000,
    );
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
});
