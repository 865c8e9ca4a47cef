/**
 * Known channel orders whose prices or payment come after the import (lib/order-import README,
 * "Data completed later"): the prices the channel gives since reach the Kontor order whatever the
 * channel's state by then (decided on the Kontor order's own state), money is booked only on an
 * order it fits, and an order the channel says is paid without naming an amount is paid in full,
 * as a new order in that shape is. Each order is placed at the sandbox's channel (which checks
 * requests and answers against the vendor's contract; the suite asserts no violation), imported,
 * changed there, imported again, and read as a client sees it on GET order/{id}/.
 * - Amazon gives no prices before payment is authorised (ordersV0.json getOrderItems: "When an
 *   order is in the Pending state ... the ItemPrice ... [is] not returned"; the sandbox plays the
 *   rule for the Orders API v2026-01-01), and an order may be SHIPPED by the next read (FBA ships
 *   within the fetch gap, or the import paused). OrderProceeds.grandTotal is optional
 *   (orders_2026-01-01.json: OrderProceeds has no required field).
 * - eBay lets the seller adjust the total before the buyer pays (PricingSummary.adjustment, "returned
 *   if the seller adjusted the total of the order"), and the order may be FULFILLED by the next read.
 */
import { expect } from 'chai';
import { importOrders } from '../../lib/order-import/order-import.service';
import { amazonOf } from '../../sandbox/amazon.sandbox';
import type { EbayOrder } from '../../sandbox/ebay-state.sandbox';
import { channelLoopForSuite, jobEnd, Sandbox } from '../fleet/support';
import { createStock, orderEvents, stockQuantity } from '../order/helpers';
import { call, newSeller, Seller } from '../support/api';
import { amazonSandboxOrder, ebaySandboxOrder, kontorOrder, sandboxPost } from './channel-support';

const DE = 'A1PA6795UKMFR9';

describe('channel orders priced or paid after the import: the prices reach the order, and the payment only where it fits', function () {
  this.timeout(60000);
  let sandbox: Sandbox;
  channelLoopForSuite((loop) => ({ sandbox } = loop));

  const post = (path: string, body: unknown) => sandboxPost(sandbox, path, body);
  let runs = 0;
  const fetchOrders = (seller: Seller, portalAccountId: number) => importOrders({ accountId: seller.id, portalAccountId }, `paid-later-${++runs}`);
  /** The Kontor order of a channel order; fails the test when there is none. */
  const orderOf = async (seller: Seller, id: string) => (await kontorOrder(seller, id))!;

  /** An Amazon order placed Pending (no prices, no address yet) for a new market_d account, imported once: the account, its id, the stock item. */
  async function pendingAmazonOrder(sku: string, extra: Record<string, unknown> = {}) {
    const seller = await newSeller();
    const stockId = await createStock(seller, sku, 10);
    const { amazonId, orderId: id } = await amazonSandboxOrder(sandbox, seller, DE, {
      status: 'PENDING',
      currency: 'EUR',
      lines: [{ sku, quantity: 2, price: '12.50', shipping: '3.90' }],
      buyer: { name: 'Petra Pending', street: 'Ringstraße 5', zip: '50667', city: 'Köln', phone: '+49 221 555' },
      ...extra,
    });
    expect((await fetchOrders(seller, amazonId)).orders).to.deep.include({ created: 1 });
    const pending = await orderOf(seller, id);
    expect(pending.line.map((l) => l.price)).to.deep.equal(['0.00']);
    expect({ invoice_amount: pending.invoice_amount, paid_amount: pending.paid_amount, is_paid: pending.status.is_paid }).to.deep.equal({
      invoice_amount: '0.00',
      paid_amount: null,
      is_paid: false,
    });
    return { seller, amazonId, id, stockId, pending };
  }

  describe('Amazon: an order read Pending, next read Shipped', () => {
    for (const fulfilledBy of ['MERCHANT', 'AMAZON'] as const)
      it(`when a ${fulfilledBy === 'AMAZON' ? 'FBA' : 'seller-fulfilled'} order is next read SHIPPED, then its prices, shipping fee and address are completed and it is paid in full at its invoice amount`, async () => {
        const { seller, amazonId, id, pending } = await pendingAmazonOrder(`PL-AZ-${fulfilledBy}`, fulfilledBy === 'AMAZON' ? { fulfilled_by: 'AMAZON' } : {});
        await post(`/_sandbox/amazon/orders/${id}/status`, { status: 'SHIPPED' });

        expect((await fetchOrders(seller, amazonId)).orders).to.deep.include({ updated: 1 });
        const order = await orderOf(seller, id);
        expect(order.line.map((l) => [l.quantity, l.price])).to.deep.equal([['2', '12.50']]);
        expect(order.shipping).to.deep.include({ fee: '3.90' });
        expect(order.shipping.address).to.deep.include({ street: 'Ringstraße 5', zip: '50667', city: 'Köln', country_iso2: 'DE' });
        expect({ invoice_amount: order.invoice_amount, paid_amount: order.paid_amount }).to.deep.equal({ invoice_amount: '28.90', paid_amount: '28.90' });
        expect(order.status).to.deep.include({ is_paid: true, is_shipped: true });
        expect(order.invoice_number).to.not.equal(null);
        expect(order.history.at(-1)).to.contain('prices, shipping and address completed (invoice amount 0.00 -> 28.90), paid 28.90, shipped');
        expect(await orderEvents(seller)).to.include(`paid_in_full:${pending.id}`);
      });

    it('when the seller shipped the order here while it was Pending and Amazon then shows it SHIPPED with its prices, then the order keeps its 0.00 lines and no money is booked on it; the history says why', async () => {
      const { seller, amazonId, id, pending, stockId } = await pendingAmazonOrder('PL-AZ-HERE');
      const shipped = await call(`order/${pending.id}/`, { token: seller.token, body: { order: { status: { is_shipped: true } } } });
      expect(shipped.status, shipped.text).to.equal(200);
      await post(`/_sandbox/amazon/orders/${id}/status`, { status: 'SHIPPED' });

      await fetchOrders(seller, amazonId);
      const order = await orderOf(seller, id);
      expect(order.line.map((l) => l.price)).to.deep.equal(['0.00']);
      expect({ invoice_amount: order.invoice_amount, paid_amount: order.paid_amount, invoice_number: order.invoice_number }).to.deep.equal({
        invoice_amount: '0.00',
        paid_amount: null,
        invoice_number: null,
      });
      expect(order.status).to.deep.include({ is_paid: false, is_shipped: true });
      expect(order.history.at(-1))
        .to.contain('not applied, as the order is already shipped, invoiced or cancelled here')
        .and.contain("paid 28.90 at the channel, but the order's lines are still 0.00: not booked");
      expect(await stockQuantity(seller, stockId)).to.equal(8);
    });
  });

  describe('Amazon: paid without OrderProceeds.grandTotal', () => {
    /** Amazon answers the order without proceeds.grandTotal (optional in the contract) from now on. */
    const withoutGrandTotal = (id: string) => {
      amazonOf(sandbox.state).orders.get(id)!.reshape = (order) => {
        const proceeds = order.proceeds as { grandTotal?: unknown } | undefined;
        if (proceeds) delete proceeds.grandTotal;
      };
    };

    it('when an order read Pending is next read Unshipped without a grandTotal, then the known order is paid in full at its completed invoice amount, as a new order of that shape is', async () => {
      const { seller, amazonId, id, pending } = await pendingAmazonOrder('PL-AZ-NOTOTAL');
      withoutGrandTotal(id);
      await post(`/_sandbox/amazon/orders/${id}/status`, { status: 'UNSHIPPED' });

      expect((await fetchOrders(seller, amazonId)).orders).to.deep.include({ updated: 1 });
      const order = await orderOf(seller, id);
      expect({ invoice_amount: order.invoice_amount, paid_amount: order.paid_amount, is_paid: order.status.is_paid }).to.deep.equal({
        invoice_amount: '28.90',
        paid_amount: '28.90',
        is_paid: true,
      });
      expect(order.invoice_number).to.not.equal(null);
      expect(order.history.at(-1)).to.contain(
        'prices, shipping and address completed (invoice amount 0.00 -> 28.90), paid 28.90 in full (the channel names no amount)',
      );
      expect(await orderEvents(seller)).to.include(`paid_in_full:${pending.id}`);

      // Read again (the overlap): paid once.
      expect((await fetchOrders(seller, amazonId)).orders.updated ?? 0).to.equal(0);
      expect((await orderOf(seller, id)).history.filter((h) => h.includes('in full'))).to.have.length(1);
    });

    it('when a cash-on-delivery order is delivered and Amazon names no grandTotal, then the known order is paid in full at its invoice amount', async () => {
      const seller = await newSeller();
      await createStock(seller, 'PL-AZ-COD', 10);
      const { amazonId, orderId: id } = await amazonSandboxOrder(sandbox, seller, DE, {
        currency: 'EUR',
        payment_method: 'CashOnDelivery',
        lines: [{ sku: 'PL-AZ-COD', quantity: 2, price: '20.00', shipping: '4.90', cod_fee: '2.00' }],
      });
      withoutGrandTotal(id);
      await fetchOrders(seller, amazonId);
      const unpaid = await orderOf(seller, id);
      expect({ invoice_amount: unpaid.invoice_amount, paid_amount: unpaid.paid_amount, is_paid: unpaid.status.is_paid }).to.deep.equal({
        invoice_amount: '46.90',
        paid_amount: null,
        is_paid: false,
      });

      // Shipped from Kontor (send_mit confirms the shipment at Amazon): the money is still at the door.
      const shipped = await call(`order/${unpaid.id}/send_mit/`, {
        token: seller.token,
        body: { send_mit: { deliverer: 'DHL', code: ['00340434161094042557'], date: '2026-11-25' } },
      });
      expect(shipped.status, shipped.text).to.equal(202);
      const sent = await jobEnd(seller.token, shipped.body.job_id as string);
      expect(sent.state, sent.error).to.equal('completed');
      await fetchOrders(seller, amazonId);
      expect((await orderOf(seller, id)).status).to.deep.include({ is_paid: false, is_shipped: true });
      // The carrier delivered (and collected): PackageStatus DELIVERED; Amazon names no amount.
      await post(`/_sandbox/amazon/orders/${id}/package_status`, { status: 'DELIVERED' });
      await fetchOrders(seller, amazonId);
      const paid = await orderOf(seller, id);
      expect({ paid_amount: paid.paid_amount, is_paid: paid.status.is_paid }).to.deep.equal({ paid_amount: '46.90', is_paid: true });
      expect(paid.history.at(-1)).to.contain('paid 46.90 in full (the channel names no amount)');
      expect(await orderEvents(seller)).to.include(`paid_in_full:${paid.id}`);
    });

    it('when an order imported paid 28.90 is next read SHIPPED without a grandTotal, then it stays paid 28.90 (no amount is not 0.00), and again when the grandTotal is back', async () => {
      const seller = await newSeller();
      await createStock(seller, 'PL-AZ-LOST', 10);
      const { amazonId, orderId: id } = await amazonSandboxOrder(sandbox, seller, DE, {
        currency: 'EUR',
        lines: [{ sku: 'PL-AZ-LOST', quantity: 2, price: '12.50', shipping: '3.90' }],
      });
      await fetchOrders(seller, amazonId);
      const money = (o: Awaited<ReturnType<typeof orderOf>>) => ({ paid_amount: o.paid_amount, is_paid: o.status.is_paid, is_shipped: o.status.is_shipped });
      expect(money(await orderOf(seller, id))).to.deep.equal({ paid_amount: '28.90', is_paid: true, is_shipped: false });

      withoutGrandTotal(id);
      await post(`/_sandbox/amazon/orders/${id}/status`, { status: 'SHIPPED' });
      expect((await fetchOrders(seller, amazonId)).orders).to.deep.include({ updated: 1 });
      const shipped = await orderOf(seller, id);
      expect(money(shipped), shipped.history.join('\n')).to.deep.equal({ paid_amount: '28.90', is_paid: true, is_shipped: true });
      expect(shipped.history.filter((h) => /paid/.test(h))).to.deep.equal([]);
      // Read again without it: nothing changed.
      expect((await fetchOrders(seller, amazonId)).orders.updated ?? 0).to.equal(0);

      // Amazon names the grandTotal again: the same 28.90, nothing to book.
      amazonOf(sandbox.state).orders.get(id)!.reshape = undefined;
      await fetchOrders(seller, amazonId);
      const again = await orderOf(seller, id);
      expect(money(again)).to.deep.equal({ paid_amount: '28.90', is_paid: true, is_shipped: true });
      expect(again.history.filter((h) => /paid/.test(h))).to.deep.equal([]);
    });

    it('when an order is first read Unshipped without a grandTotal, then the new order is paid in full at its invoice amount', async () => {
      const seller = await newSeller();
      await createStock(seller, 'PL-AZ-NEW', 10);
      const { amazonId, orderId: id } = await amazonSandboxOrder(sandbox, seller, DE, {
        currency: 'EUR',
        lines: [{ sku: 'PL-AZ-NEW', quantity: 2, price: '12.50', shipping: '3.90' }],
      });
      withoutGrandTotal(id);
      expect((await fetchOrders(seller, amazonId)).orders).to.deep.include({ created: 1 });
      const order = await orderOf(seller, id);
      expect({ invoice_amount: order.invoice_amount, paid_amount: order.paid_amount, is_paid: order.status.is_paid }).to.deep.equal({
        invoice_amount: '28.90',
        paid_amount: '28.90',
        is_paid: true,
      });
    });
  });

  describe('eBay: the seller adjusts the total before payment, and the next read shows the order paid and shipped', () => {
    it('when eBay shows the adjusted prices only once the order is paid and FULFILLED, then the order takes them and is paid in full at its invoice amount', async () => {
      const seller = await newSeller();
      await createStock(seller, 'PL-EBAY-ADJ', 10);
      const { ebayId, id } = await ebaySandboxOrder(sandbox, seller, {
        payment_status: 'PENDING',
        lines: [{ sku: 'PL-EBAY-ADJ', quantity: 2, price: '12.50', shipping: '4.90' }],
      });
      await fetchOrders(seller, ebayId);
      const unpaid = await orderOf(seller, id);
      expect(unpaid.line.map((l) => l.price)).to.deep.equal(['12.50']);
      expect({ invoice_amount: unpaid.invoice_amount, is_paid: unpaid.status.is_paid }).to.deep.equal({ invoice_amount: '29.90', is_paid: false });

      // The seller takes 5.00 off the total before the buyer pays (PricingSummary.adjustment); the payment is of the new total.
      const order = sandbox.state.ebay.orders.get(id)!.order as EbayOrder;
      order.pricingSummary = { ...order.pricingSummary, adjustment: { value: '-5.00', currency: 'EUR' }, total: { value: '24.90', currency: 'EUR' } };
      for (const p of order.paymentSummary!.payments!) p.amount = { value: '24.90', currency: 'EUR' };
      await post(`/_sandbox/ebay/orders/${id}/pay`, {});
      // Shipped by the next read (the seller shipped it at eBay).
      order.orderFulfillmentStatus = 'FULFILLED';
      for (const item of order.lineItems ?? []) item.lineItemFulfillmentStatus = 'FULFILLED';
      order.lastModifiedDate = new Date(Date.now() + 1000).toISOString();

      expect((await fetchOrders(seller, ebayId)).orders).to.deep.include({ updated: 1 });
      const paid = await orderOf(seller, id);
      expect(paid.line.map((l) => [l.quantity, l.price])).to.deep.equal([['2', '10.00']]);
      expect({ invoice_amount: paid.invoice_amount, paid_amount: paid.paid_amount }).to.deep.equal({ invoice_amount: '24.90', paid_amount: '24.90' });
      expect(paid.status).to.deep.include({ is_paid: true, is_shipped: true });
      expect(await orderEvents(seller)).to.include(`paid_in_full:${paid.id}`);
    });
  });
});
