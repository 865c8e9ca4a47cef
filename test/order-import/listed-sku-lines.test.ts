/**
 * A sale on a listing whose item the seller gave another SKU since: eBay holds the listing under
 * the SKU it was listed by (the inventory item's key, sell_inventory_v1_oas3.json) and Amazon under
 * the SKU that is its listing id (listingsItems_2021-08-01.json), so the channel's order line names
 * that SKU (eBay LineItem.sku, Amazon SellerSKU). The import links the line to the item the
 * listing was made for (portal_listing), not to whatever item holds that SKU now. Through the
 * API, the workers and the sandbox.
 */
import { expect } from 'chai';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { db } from '../../lib/db/knex';
import { importOrders } from '../../lib/order-import/order-import.service';
import { queues } from '../../lib/queue/queue.registry';
import { channelLoopForSuite, jobEnd, Sandbox, waitFor } from '../fleet/support';
import { readOrder, stockQuantity } from '../order/helpers';
import { ebayListable, kontorOrder, sandboxAmazonAccount, sandboxPost } from '../portals/channel-support';
import { call, newSeller, Seller } from '../support/api';
import { createItem } from '../stock/helpers';

describe('order import: a sale on a listing whose item has another SKU now', function () {
  this.timeout(60000);
  let sandbox: Sandbox;
  channelLoopForSuite((loop) => ({ sandbox } = loop));

  async function listed(seller: Seller, stockId: number, portal: 'auction_a' | 'market_d', portalAccountId: number) {
    const res = await call(`stock/${stockId}/portal_upload/`, {
      token: seller.token,
      body: { portal_upload: { [portal]: [{ action: 'list', portal_account_id: portalAccountId }] } },
    });
    expect(res.status, res.text).to.equal(207);
    const job = await jobEnd(seller.token, (res.body.response as { job_id: string }[])[0]!.job_id);
    expect(job.state, job.error).to.equal('completed');
  }

  async function relabel(seller: Seller, stockId: number, stock: Record<string, unknown>) {
    const res = await call(`stock/${stockId}/`, { token: seller.token, body: { stock } });
    expect(res.status, res.text).to.equal(200);
  }

  async function theOrder(seller: Seller) {
    const rows = (await db()('sales_order').where({ account_id: seller.id }).select('id')) as { id: string }[];
    expect(rows).to.have.length(1);
    return readOrder(seller, rows[0]!.id);
  }

  it('when an eBay buyer buys from a listing made under the old SKU, which another item holds now, then the line takes the listed item’s stock', async () => {
    const seller = await newSeller();
    const ebayId = Number((await createPortalAccount(seller.id, { name: 'eBay shop', platform: 'auction_a' })).id);
    const lamp = await createItem(seller, { name: 'Lamp', sku: 'LS-OLD', price: '19.90', quantity: 5, auction_a: [ebayListable] });
    await listed(seller, lamp, 'auction_a', ebayId);
    await relabel(seller, lamp, { sku: 'LS-NEW' });
    const other = await createItem(seller, { name: 'Other lamp', sku: 'LS-OLD', price: '9.90', quantity: 7 });

    await sandboxPost(sandbox, '/_sandbox/ebay/orders', { portal_account: ebayId, lines: [{ sku: 'LS-OLD', quantity: 2, price: '19.90' }] });
    expect((await importOrders({ accountId: seller.id, portalAccountId: ebayId }, `ls-ebay-${seller.id}`)).orders).to.deep.include({ created: 1 });
    const order = await theOrder(seller);
    expect(order.line.map((l) => [l.sku, l.quantity, l.stock_align_id ?? null])).to.deep.equal([['LS-OLD', '2', `ID_${lamp}`]]);
    expect(await stockQuantity(seller, lamp)).to.equal(3);
    expect(await stockQuantity(seller, other)).to.equal(7);
  });

  it('when the listing made under the old SKU has ended, then a sale under that SKU goes to its item while no item holds the SKU, and to the item that holds it once one does (listed outside Kontor)', async () => {
    const seller = await newSeller();
    const ebayId = Number((await createPortalAccount(seller.id, { name: 'eBay shop', platform: 'auction_a' })).id);
    const lamp = await createItem(seller, { name: 'Lamp', sku: 'LS-END', price: '19.90', quantity: 5, auction_a: [ebayListable] });
    await listed(seller, lamp, 'auction_a', ebayId);
    await relabel(seller, lamp, { sku: 'LS-END-NEW' });
    // The listing ended (the worker's delete job, as an end runs): its record stays, ended.
    const { lister_id: listerId } = (await db()('portal_listing').where({ account_id: seller.id, stock_id: lamp }).first('lister_id')) as { lister_id: string };
    const jobId = `ls-end-${seller.id}`;
    await queues().add(
      'portal.upload',
      { accountId: seller.id, stockId: lamp, portal: 'auction_a', portalAccountId: ebayId, action: 'delete', listerId },
      jobId,
    );
    await waitFor('the end to run', async () => ((await (await queues().get('portal_upload').getJob(jobId))?.getState()) === 'completed' ? true : undefined));
    expect(((await db()('portal_listing').where({ account_id: seller.id, stock_id: lamp }).first('status')) as { status: string }).status).to.equal('ended');

    // Sold before the end, fetched after: no item holds LS-END now, so the listing's item.
    const sale = async (quantity: number, job: string) => {
      const { order_id: id } = (await sandboxPost(sandbox, '/_sandbox/ebay/orders', {
        portal_account: ebayId,
        lines: [{ sku: 'LS-END', quantity, price: '9.90' }],
      })) as { order_id: string };
      expect((await importOrders({ accountId: seller.id, portalAccountId: ebayId }, `${job}-${seller.id}`)).orders).to.deep.include({ created: 1 });
      return (await kontorOrder(seller, id))!.line.map((l) => l.stock_align_id ?? null);
    };
    expect(await sale(1, 'ls-end-1')).to.deep.equal([`ID_${lamp}`]);

    // The seller gives LS-END to another item and lists it in Seller Hub: its sales go to that item.
    const vase = await createItem(seller, { name: 'Vase', sku: 'LS-END', price: '9.90', quantity: 7 });
    expect(await sale(2, 'ls-end-2')).to.deep.equal([`ID_${vase}`]);
    expect(await stockQuantity(seller, vase)).to.equal(5);
  });

  it('when an eBay buyer bought from a listing whose item the seller has deleted since, then the order is imported with the line left for the seller, not refused for an item that is gone', async () => {
    const seller = await newSeller();
    const ebayId = Number((await createPortalAccount(seller.id, { name: 'eBay shop', platform: 'auction_a' })).id);
    const lamp = await createItem(seller, { name: 'Lamp', sku: 'LS-GONE', price: '19.90', quantity: 5, auction_a: [ebayListable] });
    await listed(seller, lamp, 'auction_a', ebayId);
    const gone = await call(`stock/${lamp}/`, { token: seller.token, method: 'DELETE' });
    expect(gone.status, gone.text).to.equal(200);

    // Bought before the listing ended, fetched after the item went.
    await sandboxPost(sandbox, '/_sandbox/ebay/orders', { portal_account: ebayId, lines: [{ sku: 'LS-GONE', quantity: 1, price: '19.90' }] });
    expect((await importOrders({ accountId: seller.id, portalAccountId: ebayId }, `ls-gone-${seller.id}`)).orders).to.deep.include({ created: 1 });
    const order = await theOrder(seller);
    expect(order.line.map((l) => [l.sku, l.quantity, l.stock_align_id ?? null])).to.deep.equal([['LS-GONE', '1', null]]);
  });

  it('when an Amazon buyer buys from a listing made under the old SKU, now no item’s, then the line is linked to the listed item, not left for the seller', async () => {
    const seller = await newSeller();
    const amazonId = await sandboxAmazonAccount(sandbox, seller, 'A1PA6795UKMFR9');
    const pot = await createItem(seller, {
      name: 'Teekanne',
      sku: 'LS-POT-OLD',
      price: '19.90',
      quantity: 6,
      market_d: { id_type: 'EAN', id: '4006381333931', price: '19.90' },
    });
    await listed(seller, pot, 'market_d', amazonId);
    await relabel(seller, pot, { sku: 'LS-POT-NEW' });

    await sandboxPost(sandbox, '/_sandbox/amazon/orders', {
      portal_account: amazonId,
      marketplace_id: 'A1PA6795UKMFR9',
      pending_ms: 0,
      lines: [{ sku: 'LS-POT-OLD', quantity: 1, price: '19.90' }],
    });
    expect((await importOrders({ accountId: seller.id, portalAccountId: amazonId }, `ls-amazon-${seller.id}`)).orders).to.deep.include({ created: 1 });
    const order = await theOrder(seller);
    expect(order.line.map((l) => [l.sku, l.quantity, l.stock_align_id ?? null])).to.deep.equal([['LS-POT-OLD', '1', `ID_${pot}`]]);
    expect(await stockQuantity(seller, pot)).to.equal(5);
  });
});
