/**
 * market_e at Kaufland: a seller's cancellation in Kontor cancels the order's units at Kaufland
 * (PATCH /order-units/{id}/cancel through order.channel_cancel), against the sandbox played from
 * Kaufland's OpenAPI document; the next fetch finds the Kontor order cancelled already.
 */
import { expect } from 'chai';
import type { Worker } from 'bullmq';
import { db } from '../../lib/db/knex';
import { orderImportProcessors } from '../../lib/order-import/order-import.processor';
import { importOrders } from '../../lib/order-import/order-import.service';
import { startWorker } from '../../lib/queue/worker';
import { kauflandOf } from '../../sandbox/kaufland.sandbox';
import { channelLoopForSuite, Sandbox, waitFor } from '../fleet/support';
import { kauflandItem } from './kaufland-support';
import { call } from '../support/api';
import { readOrder, stockQuantity } from '../order/helpers';

describe('market_e at Kaufland: a seller cancelling in Kontor cancels the order units at Kaufland', function () {
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

  /** A seller whose item (10 in stock) is listed at the sandbox's Kaufland with CIA on, and a checkout of `quantity` pieces there imported into Kontor. */
  async function kauflandSale(sku: string, quantity: number, fetchKey: string) {
    const { seller, portalAccountId, stockId, list } = await kauflandItem(sku);
    const listed = await list();
    expect(listed.state, listed.error).to.equal('completed');
    const sale = await fetch(`${sandbox.url}/_sandbox/sell`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ portal: 'market_e', portal_account: portalAccountId, sku, quantity }),
    });
    const idOrder = ((await sale.json()) as { order_id: string }).order_id;
    expect((await importOrders({ accountId: seller.id, portalAccountId }, fetchKey)).orders).to.deep.include({ created: 1 });
    const row = (await db()('sales_order').first('id').where({ account_id: seller.id, external_order_id: idOrder }))!;
    expect(await stockQuantity(seller, stockId)).to.equal(10 - quantity);
    return { seller, portalAccountId, stockId, idOrder, orderId: row.id };
  }

  it('when the seller cancels a Kaufland order in Kontor, then each of its order units is cancelled at Kaufland once, and the stock is back; the next fetch brings Kaufland’s refund, not a second cancellation', async () => {
    const { seller, portalAccountId, stockId, idOrder, orderId } = await kauflandSale('KC-POT-1', 2, 'kc-1');

    const res = await call(`order/${orderId}/`, { token: seller.token, body: { order: { status: { is_cancelled: true } } } });
    expect(res.status, res.text).to.equal(200);
    const job = await waitFor(
      'the channel cancel job',
      async () =>
        (await db()('outbox').first('result', 'error').where({ account_id: seller.id, job_name: 'order.channel_cancel' }).whereNotNull('finished_at')) as
          { result: unknown; error: string | null } | undefined,
      20000,
    );
    expect(job.error).to.equal(null);
    expect(job.result).to.deep.include({ sent: true, channel: 'market_e' });
    const k = kauflandOf(sandbox.state);
    const units = k.orders.get(idOrder)!.units;
    expect(units).to.have.length(2);
    for (const id of units) expect(k.orderUnits.get(id)).to.deep.include({ status: 'cancelled', cancel_reason: 'GeneralAdjustment' });
    const cancels = sandbox.state.requests.filter((r) => r.portal === 'market_e' && /\/v2\/order-units\/\d+\/cancel$/.test(r.path));
    expect(cancels.map((r) => r.path).sort()).to.deep.equal(units.map((id) => `/v2/order-units/${id}/cancel`).sort());
    expect(await stockQuantity(seller, stockId)).to.equal(10);

    // Kaufland now shows the units cancelled: the next fetch does not cancel again; it brings what
    // Kaufland's cancelled units mean for the money (they count for no payment: Kaufland refunds the buyer).
    const again = await importOrders({ accountId: seller.id, portalAccountId }, 'kc-2');
    expect(again.orders).to.deep.include({ updated: 1, created: 0 });
    const order = await readOrder(seller, orderId);
    expect(order.status).to.deep.include({ is_cancelled: true, is_paid: false });
    expect(order.history.slice(1)).to.deep.equal([`market_e order ${idOrder} (portal account ${portalAccountId}): paid 0.00`]);
    expect(await stockQuantity(seller, stockId)).to.equal(10);
  });
  it('when Kaufland cancels one piece of an order of three (OrderUnitStatus cancelled), then the next fetch sets its line to 0 and its piece comes back to stock and to the Kaufland unit; a second fetch moves nothing; the last pieces cancelled cancel the order with the stock back once', async () => {
    const { seller, portalAccountId, stockId, idOrder, orderId } = await kauflandSale('KC-POT-2', 3, 'kcu-1');
    const k = kauflandOf(sandbox.state);
    const units = k.orders.get(idOrder)!.units;
    expect(units).to.have.length(3);
    const atKaufland = () => sandbox.state.quantities(String(portalAccountId)).market_e?.['KC-POT-2'];
    await waitFor('7 at Kaufland', () => atKaufland() === 7, 20000);

    const status = (id: number, to: string) =>
      fetch(`${sandbox.url}/_sandbox/kaufland/order-units/${id}/status`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ status: to }),
      });
    expect((await status(units[1]!, 'cancelled')).status).to.equal(200);
    expect((await importOrders({ accountId: seller.id, portalAccountId }, 'kcu-2')).orders).to.deep.include({ updated: 1 });
    let order = await readOrder(seller, orderId);
    expect(order.status.is_cancelled).to.equal(false);
    expect(order.line.map((l) => [l.transaction_id, l.quantity])).to.deep.equal(units.map((id, i) => [String(id), i === 1 ? '0' : '1']));
    expect(order.invoice_amount).to.equal((2 * 24.9 + Number(order.shipping?.fee ?? 0)).toFixed(2));
    expect(order.history.at(-1)).to.match(/line 2 quantity 1 -> 0$/);
    expect(await stockQuantity(seller, stockId)).to.equal(8);
    await waitFor('8 at Kaufland', () => atKaufland() === 8, 20000);

    const history = order.history.length;
    expect((await importOrders({ accountId: seller.id, portalAccountId }, 'kcu-3')).orders.updated ?? 0).to.equal(0);
    expect((await readOrder(seller, orderId)).history).to.have.length(history);
    expect(await stockQuantity(seller, stockId)).to.equal(8);

    for (const id of [units[0]!, units[2]!]) expect((await status(id, 'cancelled')).status).to.equal(200);
    expect((await importOrders({ accountId: seller.id, portalAccountId }, 'kcu-4')).orders).to.deep.include({ updated: 1 });
    order = await readOrder(seller, orderId);
    expect(order.status.is_cancelled).to.equal(true);
    expect(await stockQuantity(seller, stockId)).to.equal(10);
  });
});
