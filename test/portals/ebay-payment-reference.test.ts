/**
 * eBay's payment reference (sell_fulfillment_v1_oas3.json Payment.paymentReferenceId: "This field
 * is only returned if payment has been made by the buyer, and the paymentMethod is ESCROW"), which
 * the import keeps as the order's payment_provider_transaction_id (bank matching's provider id):
 * an order paid through eBay (method EBAY) is imported paid without one; an ESCROW order first
 * fetched unpaid takes it on the import that finds it paid, once. Read through the API.
 */
import { expect } from 'chai';
import { importOrders } from '../../lib/order-import/order-import.service';
import type { EbayOrder } from '../../sandbox/ebay-state.sandbox';
import { channelLoopForSuite, Sandbox } from '../fleet/support';
import { stockQuantity } from '../order/helpers';
import { channelChangeHelpers } from './channel-changes-support';

describe('eBay payment reference: only a paid ESCROW payment names one', function () {
  this.timeout(60000);
  let sandbox: Sandbox;
  channelLoopForSuite((loop) => ({ sandbox } = loop));

  const { post, sellerWith, kontorOrder } = channelChangeHelpers(() => sandbox);
  const payments = (id: string) => (sandbox.state.ebay.orders.get(id)!.order as EbayOrder).paymentSummary!.payments!;
  const sale = async (channelId: number, sku: string, extra: Record<string, unknown>) =>
    ((await post('/_sandbox/ebay/orders', { portal_account: channelId, lines: [{ sku, quantity: 2, price: '12.50' }], ...extra })) as { order_id: string })
      .order_id;

  it('when a buyer pays through eBay (method EBAY), then eBay names no reference and the order is imported paid in full without one', async () => {
    const { seller, channelId, stock } = await sellerWith('auction_a', { 'PR-EBAY': 10 });
    const id = await sale(channelId, 'PR-EBAY', {});
    expect(payments(id)).to.have.length(1);
    expect(payments(id)[0]).to.include({ paymentMethod: 'EBAY', paymentStatus: 'PAID' });
    expect(payments(id)[0]).not.to.have.property('paymentReferenceId');

    const first = await importOrders({ accountId: seller.id, portalAccountId: channelId }, 'pr-ebay-1');
    expect(first.orders).to.deep.include({ created: 1 });
    const order = await kontorOrder(seller, id);
    expect(order.paid_amount).to.equal('25.00');
    expect(order.status).to.deep.include({ is_paid: true });
    expect(order.payment_provider_transaction_id ?? null).to.equal(null);
    expect(await stockQuantity(seller, stock['PR-EBAY']!)).to.equal(8);
    const again = await importOrders({ accountId: seller.id, portalAccountId: channelId }, 'pr-ebay-2');
    expect(again.orders.updated ?? 0).to.equal(0);
  });

  it('when an ESCROW order is fetched unpaid, then it has no reference; the import that finds it paid gives the order eBay’s reference, once', async () => {
    const { seller, channelId } = await sellerWith('auction_a', { 'PR-ESCROW': 10 });
    const id = await sale(channelId, 'PR-ESCROW', { payment_method: 'ESCROW', payment_status: 'PENDING' });
    expect(payments(id)[0]).to.include({ paymentMethod: 'ESCROW', paymentStatus: 'PENDING' });
    expect(payments(id)[0]).not.to.have.property('paymentReferenceId');
    await importOrders({ accountId: seller.id, portalAccountId: channelId }, 'pr-escrow-1');
    const unpaid = await kontorOrder(seller, id);
    expect(unpaid.paid_amount ?? '0.00').to.equal('0.00');
    expect(unpaid.payment_provider_transaction_id ?? null).to.equal(null);

    await post(`/_sandbox/ebay/orders/${id}/pay`, {});
    const reference = payments(id)[0]!.paymentReferenceId;
    expect(reference).to.match(/^SBX[0-9A-F]{12}$/);
    const second = await importOrders({ accountId: seller.id, portalAccountId: channelId }, 'pr-escrow-2');
    expect(second.orders).to.deep.include({ updated: 1 });
    const paid = await kontorOrder(seller, id);
    expect(paid.paid_amount).to.equal('25.00');
    expect(paid.status).to.deep.include({ is_paid: true });
    expect(paid.payment_provider_transaction_id).to.equal(reference);
    expect(paid.history.filter((h) => h.includes(`payment reference ${reference!}`))).to.have.length(1);

    // Fetched again (the overlap): nothing is told twice.
    const third = await importOrders({ accountId: seller.id, portalAccountId: channelId }, 'pr-escrow-3');
    expect(third.orders.updated ?? 0).to.equal(0);
    expect((await kontorOrder(seller, id)).history.filter((h) => h.includes('payment reference'))).to.have.length(1);
  });

  it('when an ESCROW order is paid when first fetched, then it is imported with eBay’s reference', async () => {
    const { seller, channelId } = await sellerWith('auction_a', { 'PR-ESCROW-PAID': 10 });
    const id = await sale(channelId, 'PR-ESCROW-PAID', { payment_method: 'ESCROW' });
    const reference = payments(id)[0]!.paymentReferenceId;
    expect(reference).to.match(/^SBX/);
    await importOrders({ accountId: seller.id, portalAccountId: channelId }, 'pr-escrow-paid-1');
    const order = await kontorOrder(seller, id);
    expect(order.paid_amount).to.equal('25.00');
    expect(order.payment_provider_transaction_id).to.equal(reference);
  });

  it('when the sandbox is asked for a payment method eBay’s sales here do not play, then it refuses it', async () => {
    await post('/_sandbox/ebay/orders', { portal_account: 1, lines: [], payment_method: 'PAYPAL' }, [400]);
  });
});
