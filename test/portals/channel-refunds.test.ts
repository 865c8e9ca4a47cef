/**
 * Refunds made at the channel reach the Kontor order's paid amount through the order import,
 * as the vendors document where a refund shows (sandbox played from the contracts):
 * - Shopify: `totalReceivedSet` is "before returns"; `netPaymentSet` is "the total amount
 *   received minus the total amount refunded"; a REFUNDED order holds no payment;
 * - eBay: paymentSummary.refunds (OrderRefund) "does not include line item level refunds", which
 *   are listed in `lineItems[].refunds` only.
 */
import { expect } from 'chai';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { importOrders } from '../../lib/order-import/order-import.service';
import { channelLoopForSuite, Sandbox } from '../fleet/support';
import { newSeller, Seller } from '../support/api';
import { createStock } from '../order/helpers';
import { kontorOrder, sandboxPost } from './channel-support';

describe('channel refunds: a refund at Shopify or eBay lowers the imported order’s paid amount', function () {
  this.timeout(60000);
  let sandbox: Sandbox;
  channelLoopForSuite((loop) => ({ sandbox } = loop));

  const post = (path: string, body: unknown) => sandboxPost(sandbox, path, body);

  /** The Kontor order the import made of a channel order (the test fails without one). */
  const importedOrder = async (seller: Seller, externalOrderId: string) => {
    const order = await kontorOrder(seller, externalOrderId);
    expect(order, `no order ${externalOrderId}`).to.not.equal(undefined);
    return order!;
  };

  it('when the store refunds part, then all of a Shopify order, then the next fetches lower its paid amount to what the buyer still paid', async () => {
    const seller = await newSeller();
    await createStock(seller, 'RF-SHOP-1', 10);
    const { id: shopId } = await createPortalAccount(seller.id, { name: 'Shopify store', platform: 'webshop' });
    const placed = await post('/_sandbox/shopify/orders', {
      portal_account: shopId,
      lines: [{ sku: 'RF-SHOP-1', quantity: 2, price: '24.90' }],
      shipping: '4.90',
    });
    const id = String(placed.id).split('/').pop()!;
    const first = await importOrders({ accountId: seller.id, portalAccountId: shopId }, 'rf-shop-1');
    expect(first.orders).to.deep.include({ created: 1 });
    expect((await importedOrder(seller, id)).paid_amount).to.equal('54.70');

    await post(`/_sandbox/shopify/orders/${id}/refund`, { amount: '24.90' });
    const second = await importOrders({ accountId: seller.id, portalAccountId: shopId }, 'rf-shop-2');
    expect(second.orders).to.deep.include({ updated: 1 });
    const partly = await importedOrder(seller, id);
    expect(partly.paid_amount).to.equal('29.80');
    expect(partly.history.some((h) => /paid 29\.80/.test(h))).to.equal(true);

    await post(`/_sandbox/shopify/orders/${id}/refund`, {});
    await importOrders({ accountId: seller.id, portalAccountId: shopId }, 'rf-shop-3');
    expect((await importedOrder(seller, id)).paid_amount).to.equal('0.00');
  });

  it('when a Shopify order was refunded in full before its first fetch, then it is imported unpaid, not paid in full', async () => {
    const seller = await newSeller();
    await createStock(seller, 'RF-SHOP-2', 10);
    const { id: shopId } = await createPortalAccount(seller.id, { name: 'Shopify store', platform: 'webshop' });
    const placed = await post('/_sandbox/shopify/orders', { portal_account: shopId, lines: [{ sku: 'RF-SHOP-2', quantity: 1, price: '19.90' }] });
    const id = String(placed.id).split('/').pop()!;
    await post(`/_sandbox/shopify/orders/${id}/refund`, {});
    const imported = await importOrders({ accountId: seller.id, portalAccountId: shopId }, 'rf-shop-4');
    expect(imported.orders).to.deep.include({ created: 1 });
    const order = await importedOrder(seller, id);
    expect(order.status.is_paid).to.equal(false);
    expect(order.paid_amount).to.equal(null);
  });

  it('when the seller refunds one line of an eBay order, then the next fetch lowers its paid amount by that refund', async () => {
    const seller = await newSeller();
    await createStock(seller, 'RF-EBAY-A', 10);
    await createStock(seller, 'RF-EBAY-B', 10);
    const { id: ebayId } = await createPortalAccount(seller.id, { name: 'eBay shop', platform: 'auction_a' });
    const { order_id: orderId } = (await post('/_sandbox/ebay/orders', {
      portal_account: ebayId,
      lines: [
        { sku: 'RF-EBAY-A', quantity: 1, price: '20.00' },
        { sku: 'RF-EBAY-B', quantity: 1, price: '15.00' },
      ],
    })) as { order_id: string };
    const first = await importOrders({ accountId: seller.id, portalAccountId: ebayId }, 'rf-ebay-1');
    expect(first.orders).to.deep.include({ created: 1 });
    expect((await importedOrder(seller, orderId)).paid_amount).to.equal('35.00');

    const lineB = sandbox.state.ebay.orders.get(orderId)!.order.lineItems![1]!.lineItemId!;
    await post(`/_sandbox/ebay/orders/${orderId}/refund`, { line_item_id: lineB, amount: '15.00' });
    const second = await importOrders({ accountId: seller.id, portalAccountId: ebayId }, 'rf-ebay-2');
    expect(second.orders).to.deep.include({ updated: 1 });
    expect((await importedOrder(seller, orderId)).paid_amount).to.equal('20.00');

    // An order-level refund on top: both kinds are taken off.
    await post(`/_sandbox/ebay/orders/${orderId}/refund`, { amount: '5.00' });
    await importOrders({ accountId: seller.id, portalAccountId: ebayId }, 'rf-ebay-3');
    expect((await importedOrder(seller, orderId)).paid_amount).to.equal('15.00');
  });
});
