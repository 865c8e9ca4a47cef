/**
 * market_e at Kaufland: a seller's cancellation in Kontor cancels the order's units at Kaufland
 * (PATCH /order-units/{id}/cancel through order.channel_cancel), against the sandbox played from
 * Kaufland's OpenAPI document; the next fetch finds the Kontor order cancelled already.
 */
import { expect } from 'chai';
import type { Worker } from 'bullmq';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { db } from '../../lib/db/knex';
import { orderImportProcessors } from '../../lib/order-import/order-import.processor';
import { importOrders } from '../../lib/order-import/order-import.service';
import { startWorker } from '../../lib/queue/worker';
import { kauflandOf } from '../../sandbox/kaufland.sandbox';
import { channelLoopForSuite, jobEnd, Sandbox, waitFor } from '../fleet/support';
import { call, newSeller } from '../support/api';
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

  it('when the seller cancels a Kaufland order in Kontor, then each of its order units is cancelled at Kaufland once, and the stock is back; the next fetch brings Kaufland’s refund, not a second cancellation', async () => {
    const seller = await newSeller();
    const { id: portalAccountId } = await createPortalAccount(seller.id, { name: 'Kaufland.de', platform: 'market_e' });
    const created = await call('stock/', {
      token: seller.token,
      body: {
        stock: {
          name: 'Teekanne',
          sku: 'KC-POT-1',
          quantity: 10,
          market_e: { ean: '4006381333931', price: '24.90', delivery_time: '1-2' },
          cia: { market_e: { is_active: true } },
        },
      },
    });
    expect(created.status, created.text).to.equal(201);
    const stockId = Number(created.body.stock_id);
    const upload = await call(`stock/${stockId}/portal_upload/`, {
      token: seller.token,
      body: { portal_upload: { market_e: [{ action: 'list', portal_account_id: portalAccountId }] } },
    });
    const listed = await jobEnd(seller.token, (upload.body.response as { job_id: string }[])[0]!.job_id);
    expect(listed.state, listed.error).to.equal('completed');
    const sale = await fetch(`${sandbox.url}/_sandbox/sell`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ portal: 'market_e', portal_account: portalAccountId, sku: 'KC-POT-1', quantity: 2 }),
    });
    const idOrder = ((await sale.json()) as { order_id: string }).order_id;
    expect((await importOrders({ accountId: seller.id, portalAccountId }, 'kc-1')).orders).to.deep.include({ created: 1 });
    const row = (await db()('sales_order').first('id').where({ account_id: seller.id, external_order_id: idOrder }))!;
    expect(await stockQuantity(seller, stockId)).to.equal(8);

    const res = await call(`order/${row.id}/`, { token: seller.token, body: { order: { status: { is_cancelled: true } } } });
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
    const order = await readOrder(seller, row.id);
    expect(order.status).to.deep.include({ is_cancelled: true, is_paid: false });
    expect(order.history.slice(1)).to.deep.equal([`market_e order ${idOrder} (portal account ${portalAccountId}): paid 0.00`]);
    expect(await stockQuantity(seller, stockId)).to.equal(10);
  });
});
