/**
 * Amazon orders the buyer pays on delivery (orders_2026-01-01.json: data set PAYMENT,
 * Order.payment.paymentExecutions[].paymentMethod "for example, CashOnDelivery, ConvenienceStore,
 * CreditCard, Invoice, Pix"; PackageStatus DELIVERED "Package completion at final destination").
 * Such an order is not paid when Amazon calls it UNSHIPPED: the carrier collects the money at the
 * door. Imported paid, the seller's books showed money that had not come. Each test places the
 * order at the sandbox's Amazon (which checks requests and answers against the contract; the
 * suite asserts no violation), imports it, and reads what a client sees on GET order/{id}/.
 */
import { expect } from 'chai';
import { importOrders } from '../../lib/order-import/order-import.service';
import { includedData } from '../../lib/portals/amazon/orders-2026';
import { amazonOf } from '../../sandbox/amazon.sandbox';
import { order2026 } from '../../sandbox/amazon-orders.sandbox';
import { channelLoopForSuite, jobEnd, Sandbox } from '../fleet/support';
import { createStock, orderEvents } from '../order/helpers';
import { call, newSeller, Seller } from '../support/api';
import { amazonSandboxOrder, kontorOrder, sandboxPost } from './channel-support';

const DE = 'A1PA6795UKMFR9';

describe('channel orders of Amazon paid on delivery: unpaid until Amazon shows them delivered', function () {
  this.timeout(60000);
  let sandbox: Sandbox;
  channelLoopForSuite((loop) => ({ sandbox } = loop));

  const post = (path: string, body: unknown) => sandboxPost(sandbox, path, body);

  /** A market_d account of the seller against the sandbox, and an order placed there (UNSHIPPED at once). */
  async function amazonOrder(seller: Seller, body: Record<string, unknown>) {
    const { amazonId, orderId: id } = await amazonSandboxOrder(sandbox, seller, DE, { currency: 'EUR', ...body });
    const served = () => order2026(amazonOf(sandbox.state).orders.get(id)!, new Set(includedData)) as Record<string, unknown>;
    let runs = 0;
    const fetch = () => importOrders({ accountId: seller.id, portalAccountId: Number(amazonId) }, `cod-${amazonId}-${++runs}`);
    return { id, served, fetch };
  }

  /** send_mit through the API (POST order/{id}/send_mit/), which confirms the shipment at Amazon. */
  async function ship(seller: Seller, orderId: string) {
    const shipped = await call(`order/${orderId}/send_mit/`, {
      token: seller.token,
      body: { send_mit: { deliverer: 'DHL', code: ['00340434161094042557'], date: '2026-11-25' } },
    });
    expect(shipped.status, shipped.text).to.equal(202);
    const sent = await jobEnd(seller.token, shipped.body.job_id as string);
    expect(sent.state, sent.error).to.equal('completed');
  }

  it('when the buyer pays cash on delivery, then the order is imported unpaid (0.00, payment method COD), stays unpaid once shipped, and is paid in full when Amazon shows its package delivered', async () => {
    const seller = await newSeller();
    await createStock(seller, 'COD-DE-1', 10);
    const { id, served, fetch } = await amazonOrder(seller, {
      payment_method: 'CashOnDelivery',
      lines: [{ sku: 'COD-DE-1', quantity: 2, price: '20.00', shipping: '4.90', cod_fee: '2.00' }],
    });
    // The contract's shapes: the payment's method (data set PAYMENT), the COD_FEE in the proceeds.
    expect(served().payment).to.deep.equal({
      paymentExecutions: [{ paymentMethod: 'CashOnDelivery', paymentAmount: { amount: '46.90', currencyCode: 'EUR' } }],
    });

    await fetch();
    let order = (await kontorOrder(seller, id))!;
    expect(order.invoice_amount).to.equal('46.90');
    expect(order.paid_amount).to.equal(null);
    expect(order.status).to.deep.include({ is_paid: false, is_shipped: false });
    expect(order.payment_method_id).to.equal('COD');

    // Shipped from Kontor: Amazon's order is SHIPPED, its package SHIPPED; the money is still at the door.
    await ship(seller, order.id);
    expect(served().fulfillment).to.deep.include({ fulfillmentStatus: 'SHIPPED' });
    await fetch();
    order = (await kontorOrder(seller, id))!;
    expect(order.paid_amount).to.equal(null);
    expect(order.status).to.deep.include({ is_paid: false, is_shipped: true });

    // The carrier delivered (and collected): PackageStatus DELIVERED.
    await post(`/_sandbox/amazon/orders/${id}/package_status`, { status: 'DELIVERED' });
    expect((served().packages as { packageStatus: unknown }[]).map((k) => k.packageStatus)).to.deep.equal([{ status: 'DELIVERED' }]);
    await fetch();
    order = (await kontorOrder(seller, id))!;
    expect(order.paid_amount).to.equal('46.90');
    expect(order.status).to.deep.include({ is_paid: true, is_shipped: true });
    expect(await orderEvents(seller)).to.include(`paid_in_full:${order.id}`);
  });

  it('when a cash-on-delivery package could not be delivered, or Amazon names no payment but charged a COD fee, then the order stays unpaid', async () => {
    const seller = await newSeller();
    await createStock(seller, 'COD-DE-2', 10);
    // No payment_method: the sandbox names none in PAYMENT's place only from the COD fee (its default), so drop it.
    const { id, served, fetch } = await amazonOrder(seller, { lines: [{ sku: 'COD-DE-2', quantity: 1, price: '15.00', cod_fee: '2.00' }] });
    amazonOf(sandbox.state).orders.get(id)!.paymentMethod = undefined;
    expect(served().payment).to.equal(undefined);

    await fetch();
    let order = (await kontorOrder(seller, id))!;
    expect(order.paid_amount).to.equal(null);
    expect(order.status).to.deep.include({ is_paid: false });

    await ship(seller, order.id);
    await post(`/_sandbox/amazon/orders/${id}/package_status`, { status: 'UNDELIVERABLE' });
    await fetch();
    order = (await kontorOrder(seller, id))!;
    expect(order.paid_amount).to.equal(null);
    expect(order.status).to.deep.include({ is_paid: false, is_shipped: true });
  });

  it("when Amazon names cash on delivery only as an item's shipping constraint (no payment data, no COD fee), then the order is imported unpaid", async () => {
    const seller = await newSeller();
    await createStock(seller, 'COD-JP-5', 10);
    const { id, served, fetch } = await amazonOrder(seller, { lines: [{ sku: 'COD-JP-5', quantity: 1, price: '59.80' }] });
    // ItemShippingConstraints.cashOnDelivery MANDATORY: "Payment must be collected from the customer at the time of delivery".
    amazonOf(sandbox.state).orders.get(id)!.reshape = (order) => {
      for (const item of order.orderItems as { fulfillment?: Record<string, unknown> }[])
        item.fulfillment = { ...item.fulfillment, shipping: { shippingConstraints: { cashOnDelivery: 'MANDATORY' } } };
    };
    expect(served().payment).to.equal(undefined);
    await fetch();
    const order = (await kontorOrder(seller, id))!;
    expect(order.invoice_amount).to.equal('59.80');
    expect(order.paid_amount).to.equal(null);
    expect(order.status).to.deep.include({ is_paid: false });
    expect(order.payment_method_id).to.equal('COD');
  });

  it('when a cash-on-delivery order has a CANCELLED package (a label the seller cancelled) beside the DELIVERED one that carried its units, then it is paid in full', async () => {
    const seller = await newSeller();
    await createStock(seller, 'COD-DE-4', 10);
    const { id, served, fetch } = await amazonOrder(seller, {
      payment_method: 'CashOnDelivery',
      lines: [{ sku: 'COD-DE-4', quantity: 2, price: '12.00' }],
    });
    await fetch();
    const order = (await kontorOrder(seller, id))!;
    await ship(seller, order.id);
    const placed = amazonOf(sandbox.state).orders.get(id)!;
    const carried = placed.packages[0]!;
    // The first label, cancelled before the carrier took it (PackageStatus CANCELLED, detailedStatus LABEL_CANCELLED).
    placed.packages.unshift({ ...carried, packageReferenceId: `${carried.packageReferenceId}0`, trackingNumber: 'CANCELLED-LABEL', status: 'CANCELLED' });
    await post(`/_sandbox/amazon/orders/${id}/package_status`, { status: 'DELIVERED', package_reference_id: carried.packageReferenceId });
    expect((served().packages as { packageStatus: { status: string } }[]).map((k) => k.packageStatus.status)).to.deep.equal(['CANCELLED', 'DELIVERED']);
    await fetch();
    const paid = (await kontorOrder(seller, id))!;
    expect(paid.paid_amount).to.equal(paid.invoice_amount);
    expect(paid.status).to.deep.include({ is_paid: true, is_shipped: true });
  });

  it('when Amazon ships a cash-on-delivery order itself (AFN: no packages to show a delivery), then it stays unpaid though SHIPPED', async () => {
    const seller = await newSeller();
    const { id, fetch } = await amazonOrder(seller, {
      fulfilled_by: 'AMAZON',
      payment_method: 'CashOnDelivery',
      lines: [{ sku: 'COD-FBA-1', quantity: 1, price: '30.00' }],
    });
    await post(`/_sandbox/amazon/orders/${id}/status`, { status: 'SHIPPED' });
    await fetch();
    const order = (await kontorOrder(seller, id))!;
    expect(order.paid_amount).to.equal(null);
    expect(order.status).to.deep.include({ is_paid: false, is_shipped: true });
    expect(order.payment_method_id).to.equal('COD');
  });

  it('when a delivery tip is PENDING (not charged yet) and grandTotal leaves it out, then the order is paid in full at its invoice, and stays so unchanged when the tip is charged (FINALIZED, in grandTotal)', async () => {
    const seller = await newSeller();
    await createStock(seller, 'TIP-DE-1', 10);
    const { id, served, fetch } = await amazonOrder(seller, {
      delivery_tip: '3.00',
      delivery_tip_status: 'PENDING',
      pending_tip_outside_total: true,
      lines: [{ sku: 'TIP-DE-1', quantity: 1, price: '25.00', shipping: '4.90' }],
    });
    const proceeds = () => served().proceeds as { grandTotal: unknown; breakdowns: unknown[] };
    expect(proceeds().grandTotal).to.deep.equal({ amount: '29.90', currencyCode: 'EUR' });
    expect(proceeds().breakdowns).to.deep.include({ type: 'DELIVERY_TIP', status: 'PENDING', subtotal: { amount: '3.00', currencyCode: 'EUR' } });

    await fetch();
    let order = (await kontorOrder(seller, id))!;
    expect(order.invoice_amount).to.equal('29.90');
    expect(order.paid_amount).to.equal('29.90');
    expect(order.status).to.deep.include({ is_paid: true });
    expect(await orderEvents(seller)).to.include(`paid_in_full:${order.id}`);

    await post(`/_sandbox/amazon/orders/${id}/delivery_tip`, { status: 'FINALIZED' });
    expect(proceeds().grandTotal).to.deep.equal({ amount: '32.90', currencyCode: 'EUR' });
    await fetch();
    order = (await kontorOrder(seller, id))!;
    expect(order.invoice_amount).to.equal('29.90');
    expect(order.paid_amount).to.equal('29.90');
    expect(order.history.filter((h) => /paid/.test(h))).to.deep.equal([]);
  });

  it('when the buyer paid by card (PAYMENT says CreditCard), then the order is imported paid in full from UNSHIPPED as before, with no payment method set', async () => {
    const seller = await newSeller();
    await createStock(seller, 'CARD-DE-1', 10);
    const { id, served, fetch } = await amazonOrder(seller, {
      payment_method: 'CreditCard',
      lines: [{ sku: 'CARD-DE-1', quantity: 2, price: '20.00', shipping: '4.90' }],
    });
    expect(served().payment).to.deep.equal({ paymentExecutions: [{ paymentMethod: 'CreditCard', paymentAmount: { amount: '44.90', currencyCode: 'EUR' } }] });
    await fetch();
    const order = (await kontorOrder(seller, id))!;
    expect(order.invoice_amount).to.equal('44.90');
    expect(order.paid_amount).to.equal('44.90');
    expect(order.status).to.deep.include({ is_paid: true, is_shipped: false });
    expect(order.payment_method_id ?? null).to.equal(null);
    expect(await orderEvents(seller)).to.include(`paid_in_full:${order.id}`);
  });
});
