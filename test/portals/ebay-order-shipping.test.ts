/**
 * The delivery money of eBay orders as sell_fulfillment_v1_oas3.json shapes it, imported so that
 * the order the buyer paid in full is paid in full in Kontor (document 1: any paid_amount other
 * than invoice_amount is only partially paid, so no paid_in_full and no shipment):
 * - `pricingSummary.deliveryCost`: "the total cost of delivering the order to the buyer, before any
 *   shipping/delivery discount is applied"; `deliveryDiscount`: "the total amount of delivery
 *   discounts (including shipping discounts) that apply to the order. This should be a negative
 *   real number";
 * - `LineItem.deliveryCost`: "a breakdown of all costs associated with the fulfillment of the line
 *   item": `shippingCost` ("always returned even when the shipping cost is free"), `discountAmount`,
 *   `importCharges` ("import charges applied to international shipping of the line item");
 * - `Payment.amount`: "the amount that seller receives for the order", which holds the
 *   'Collect and Remit' tax eBay collects and remits.
 * Each test makes the order at the sandbox's eBay, imports it and reads GET order/{id}/.
 */
import { expect } from 'chai';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { importOrders } from '../../lib/order-import/order-import.service';
import { channelLoopForSuite, Sandbox } from '../fleet/support';
import { createStock, stockQuantity } from '../order/helpers';
import { newSeller, Seller } from '../support/api';
import { ebaySandboxOrder, kontorOrder, sandboxPost } from './channel-support';

describe('eBay order delivery costs: shipping, its discounts, import charges', function () {
  this.timeout(60000);
  let sandbox: Sandbox;
  channelLoopForSuite((loop) => ({ sandbox } = loop));

  const ebayOrder = (seller: Seller, body: Record<string, unknown>) => ebaySandboxOrder(sandbox, seller, body);

  async function imported(seller: Seller, ebayId: number, id: string, key: string) {
    const run = await importOrders({ accountId: seller.id, portalAccountId: ebayId }, key);
    expect(run.orders).to.deep.include({ created: 1 });
    return (await kontorOrder(seller, id))!;
  }

  it('when the buyer had a shipping discount, then the shipping fee is the shipping less it and the order is fully paid', async () => {
    const seller = await newSeller();
    const stockId = await createStock(seller, 'SHIP-EBAY-1', 10);
    const { ebayId, id, order } = await ebayOrder(seller, {
      currency: 'EUR',
      lines: [{ sku: 'SHIP-EBAY-1', quantity: 2, price: '12.50', shipping: '6.90', shipping_discount: '2.00' }],
    });
    // The contract's shape: the order's delivery cost before the discount, the discount negative, both in the total.
    expect(order.pricingSummary).to.deep.include({
      priceSubtotal: { value: '25.00', currency: 'EUR' },
      deliveryCost: { value: '6.90', currency: 'EUR' },
      deliveryDiscount: { value: '-2.00', currency: 'EUR' },
      total: { value: '29.90', currency: 'EUR' },
    });
    expect(order.lineItems![0]!.deliveryCost).to.deep.equal({
      shippingCost: { value: '6.90', currency: 'EUR' },
      discountAmount: { value: '2.00', currency: 'EUR' },
    });
    expect(order.lineItems![0]!.total).to.deep.equal({ value: '29.90', currency: 'EUR' });
    expect(order.paymentSummary!.payments![0]!.amount).to.deep.equal({ value: '29.90', currency: 'EUR' });

    const kontor = await imported(seller, ebayId, id, 'ship-ebay-1');
    expect(kontor.line.map((l) => [l.sku, l.quantity, l.price])).to.deep.equal([['SHIP-EBAY-1', '2', '12.50']]);
    expect(kontor.shipping.fee).to.equal('4.90');
    expect(kontor.invoice_amount).to.equal('29.90');
    expect(kontor.paid_amount).to.equal('29.90');
    expect(kontor.status.is_paid).to.equal(true);
    expect(await stockQuantity(seller, stockId)).to.equal(8);
  });

  it('when each line of an order carries its own shipping, one of them discounted, then the shipping fee is their sum less the discount', async () => {
    const seller = await newSeller();
    await createStock(seller, 'SHIP-EBAY-2A', 10);
    await createStock(seller, 'SHIP-EBAY-2B', 10);
    await createStock(seller, 'SHIP-EBAY-2C', 10);
    const { ebayId, id, order } = await ebayOrder(seller, {
      currency: 'EUR',
      lines: [
        { sku: 'SHIP-EBAY-2A', quantity: 1, price: '19.99', shipping: '4.90' },
        { sku: 'SHIP-EBAY-2B', quantity: 3, price: '5.00', shipping: '3.50', shipping_discount: '1.00' },
        { sku: 'SHIP-EBAY-2C', quantity: 1, price: '8.00' },
      ],
    });
    expect(order.pricingSummary).to.deep.include({ deliveryCost: { value: '8.40', currency: 'EUR' }, deliveryDiscount: { value: '-1.00', currency: 'EUR' } });
    // Free shipping is still returned: 0.00.
    expect(order.lineItems![2]!.deliveryCost).to.deep.equal({ shippingCost: { value: '0.00', currency: 'EUR' } });

    const kontor = await imported(seller, ebayId, id, 'ship-ebay-2');
    expect(kontor.line.map((l) => [l.sku, l.quantity, l.price])).to.deep.equal([
      ['SHIP-EBAY-2A', '1', '19.99'],
      ['SHIP-EBAY-2B', '3', '5.00'],
      ['SHIP-EBAY-2C', '1', '8.00'],
    ]);
    expect(kontor.shipping.fee).to.equal('7.40');
    expect(kontor.invoice_amount).to.equal('50.39');
    expect(kontor.paid_amount).to.equal('50.39');
    expect(kontor.status.is_paid).to.equal(true);
  });

  it('when eBay gave a combined-shipping discount on no line beside a line’s own, then the shipping fee takes both off', async () => {
    const seller = await newSeller();
    await createStock(seller, 'SHIP-EBAY-3A', 10);
    await createStock(seller, 'SHIP-EBAY-3B', 10);
    const { ebayId, id, order } = await ebayOrder(seller, {
      currency: 'EUR',
      delivery_discount: '3.90',
      lines: [
        { sku: 'SHIP-EBAY-3A', quantity: 1, price: '10.00', shipping: '4.90', shipping_discount: '0.50' },
        { sku: 'SHIP-EBAY-3B', quantity: 1, price: '10.00', shipping: '3.90' },
      ],
    });
    expect(order.pricingSummary).to.deep.include({ deliveryDiscount: { value: '-4.40', currency: 'EUR' }, total: { value: '24.40', currency: 'EUR' } });

    const kontor = await imported(seller, ebayId, id, 'ship-ebay-3');
    expect(kontor.shipping.fee).to.equal('4.40');
    expect(kontor.invoice_amount).to.equal('24.40');
    expect(kontor.paid_amount).to.equal('24.40');
  });

  it('when the buyer paid import charges on an internationally shipped line, then they are neither shipping nor paid: the invoice is what the seller receives, fully paid', async () => {
    const seller = await newSeller();
    await createStock(seller, 'SHIP-EBAY-4', 10);
    const { ebayId, id, order } = await ebayOrder(seller, {
      currency: 'GBP',
      buyer: { name: 'Jane Doe', street: '1 High St', zip: '10001', city: 'New York', country_iso2: 'US' },
      lines: [{ sku: 'SHIP-EBAY-4', quantity: 1, price: '30.00', shipping: '5.00', import_charges: '7.35' }],
    });
    // The buyer paid 42.35 (line and order total); the seller receives 35.00.
    expect(order.lineItems![0]!.deliveryCost).to.deep.equal({
      shippingCost: { value: '5.00', currency: 'GBP' },
      importCharges: { value: '7.35', currency: 'GBP' },
    });
    expect(order.lineItems![0]!.total).to.deep.equal({ value: '42.35', currency: 'GBP' });
    expect(order.pricingSummary).to.deep.include({ deliveryCost: { value: '12.35', currency: 'GBP' }, total: { value: '42.35', currency: 'GBP' } });
    expect(order.paymentSummary!.payments![0]!.amount).to.deep.equal({ value: '35.00', currency: 'GBP' });
    expect(order.paymentSummary!.totalDueSeller).to.deep.equal({ value: '35.00', currency: 'GBP' });

    const kontor = await imported(seller, ebayId, id, 'ship-ebay-4');
    expect(kontor.currency_id).to.equal('GBP');
    expect(kontor.line.map((l) => [l.quantity, l.price])).to.deep.equal([['1', '30.00']]);
    expect(kontor.shipping.fee).to.equal('5.00');
    expect(kontor.invoice_amount).to.equal('35.00');
    expect(kontor.paid_amount).to.equal('35.00');
    expect(kontor.status.is_paid).to.equal(true);

    // The seller refunds all it received: nothing is left paid (the import charges were never its).
    await sandboxPost(sandbox, `/_sandbox/ebay/orders/${id}/refund`, {});
    expect(sandbox.state.ebay.orders.get(id)!.order).to.deep.include({ orderPaymentStatus: 'FULLY_REFUNDED' });
    await importOrders({ accountId: seller.id, portalAccountId: ebayId }, 'ship-ebay-4b');
    expect((await kontorOrder(seller, id))!.paid_amount).to.equal('0.00');
  });

  it('when eBay collected VAT on an order with shipping, then the fee is the shipping, the lines carry no VAT rate made of the tax amount, and the order is fully paid at the seller’s amount', async () => {
    const seller = await newSeller();
    await createStock(seller, 'SHIP-EBAY-5', 10);
    const { ebayId, id, order } = await ebayOrder(seller, {
      currency: 'EUR',
      // 20 % of 24.90 (the item and its shipping), which eBay collects and remits.
      lines: [{ sku: 'SHIP-EBAY-5', quantity: 1, price: '20.00', shipping: '4.90', collect_and_remit_tax: '4.98' }],
    });
    expect(order.paymentSummary!.payments![0]!.amount).to.deep.equal({ value: '29.88', currency: 'EUR' });
    expect(order.pricingSummary!.total).to.deep.equal({ value: '24.90', currency: 'EUR' });

    const kontor = await imported(seller, ebayId, id, 'ship-ebay-5');
    expect(kontor.line.map((l) => [l.quantity, l.price])).to.deep.equal([['1', '20.00']]);
    expect(kontor.line[0]!.tax ?? null).to.equal(null);
    expect(kontor.shipping.fee).to.equal('4.90');
    expect(kontor.invoice_amount).to.equal('24.90');
    expect(kontor.paid_amount).to.equal('24.90');
    expect(kontor.status.is_paid).to.equal(true);
  });

  it('when eBay charged the buyer for eBay shipping and Buyer Protection, then neither is the seller’s: no shipping fee, the invoice is what the seller receives, fully paid', async () => {
    const seller = await newSeller();
    await createStock(seller, 'SHIP-EBAY-6', 10);
    const { ebayId, id, order } = await ebayOrder(seller, {
      currency: 'GBP',
      lines: [{ sku: 'SHIP-EBAY-6', quantity: 2, price: '10.00', shipping: '3.49', ebay_shipping: '3.49', buyer_protection: '1.10' }],
    });
    // The contract's shape: eBay's charges beside the line's delivery cost; the seller receives the items only.
    expect(order.lineItems![0]!.ebayCollectedCharges).to.deep.equal({
      ebayShipping: { value: '3.49', currency: 'GBP' },
      charges: [{ chargeType: 'BUYER_PROTECTION', amount: { value: '1.10', currency: 'GBP' } }],
    });
    expect(order.pricingSummary!.total).to.deep.equal({ value: '24.59', currency: 'GBP' });
    expect(order.paymentSummary!.payments![0]!.amount).to.deep.equal({ value: '20.00', currency: 'GBP' });

    const kontor = await imported(seller, ebayId, id, 'ship-ebay-6');
    expect(kontor.line.map((l) => [l.quantity, l.price])).to.deep.equal([['2', '10.00']]);
    expect(kontor.shipping.fee).to.equal('0.00');
    expect(kontor.invoice_amount).to.equal('20.00');
    expect(kontor.paid_amount).to.equal('20.00');
    expect(kontor.status.is_paid).to.equal(true);
  });

  it('when a shipping promotion made a line’s shipping free, then it lowers the shipping, not the line’s price, beside an item promotion on another line', async () => {
    const seller = await newSeller();
    await createStock(seller, 'SHIP-EBAY-7A', 10);
    await createStock(seller, 'SHIP-EBAY-7B', 10);
    const { ebayId, id, order } = await ebayOrder(seller, {
      currency: 'EUR',
      lines: [
        { sku: 'SHIP-EBAY-7A', quantity: 2, price: '15.00', shipping: '4.90', shipping_promotion: '4.90' },
        { sku: 'SHIP-EBAY-7B', quantity: 1, price: '8.00', discount: '1.50', shipping: '2.00' },
      ],
    });
    const [free, discounted] = order.lineItems!;
    expect(free!.appliedPromotions!.map((p) => p.discountAmount)).to.deep.equal([{ value: '4.90', currency: 'EUR' }]);
    expect(free!.discountedLineItemCost).to.equal(undefined);
    expect(free!.deliveryCost!.discountAmount).to.deep.equal({ value: '4.90', currency: 'EUR' });
    expect(discounted!.discountedLineItemCost).to.deep.equal({ value: '6.50', currency: 'EUR' });
    expect(order.paymentSummary!.payments![0]!.amount).to.deep.equal({ value: '38.50', currency: 'EUR' });

    const kontor = await imported(seller, ebayId, id, 'ship-ebay-7');
    expect(kontor.line.map((l) => [l.sku, l.quantity, l.price])).to.deep.equal([
      ['SHIP-EBAY-7A', '2', '15.00'],
      ['SHIP-EBAY-7B', '1', '6.50'],
    ]);
    expect(kontor.shipping.fee).to.equal('2.00');
    expect(kontor.invoice_amount).to.equal('38.50');
    expect(kontor.paid_amount).to.equal('38.50');
  });

  it('when eBay lists no payment of a paid order with import charges and eBay’s charges, then the paid amount is what the seller bills, not the buyer’s total', async () => {
    const seller = await newSeller();
    await createStock(seller, 'SHIP-EBAY-8', 10);
    const { ebayId, id, order } = await ebayOrder(seller, {
      currency: 'GBP',
      payments_listed: false,
      lines: [{ sku: 'SHIP-EBAY-8', quantity: 1, price: '30.00', shipping: '6.00', ebay_shipping: '6.00', buyer_protection: '1.50', import_charges: '3.00' }],
    });
    expect(order).to.deep.include({ orderPaymentStatus: 'PAID' });
    expect(order.paymentSummary!.payments).to.deep.equal([]);
    expect(order.pricingSummary!.total).to.deep.equal({ value: '40.50', currency: 'GBP' });

    const kontor = await imported(seller, ebayId, id, 'ship-ebay-8');
    expect(kontor.shipping.fee).to.equal('0.00');
    expect(kontor.invoice_amount).to.equal('30.00');
    expect(kontor.paid_amount).to.equal('30.00');
    expect(kontor.status.is_paid).to.equal(true);

    // A refund of part of it at eBay leaves the rest paid.
    await sandboxPost(sandbox, `/_sandbox/ebay/orders/${id}/refund`, { amount: '5.00' });
    await importOrders({ accountId: seller.id, portalAccountId: ebayId }, 'ship-ebay-8b');
    expect((await kontorOrder(seller, id))!.paid_amount).to.equal('25.00');
  });

  it('when a test asks the sandbox for a shipping discount above the shipping, eBay’s charges it could not show or an amount that is none, then it is refused 400 naming the field and no order is made', async () => {
    const { id: ebayId } = await createPortalAccount((await newSeller()).id, { name: 'eBay shop', platform: 'auction_a' });
    const before = sandbox.state.ebay.orders.size;
    for (const [body, field] of [
      [{ lines: [{ sku: 'X', quantity: 1, shipping: '1.00', shipping_discount: '2.00' }] }, 'lines[0].shipping_discount'],
      [{ lines: [{ sku: 'X', quantity: 1, import_charges: 'lots' }] }, 'lines[0].import_charges'],
      [{ lines: [{ sku: 'X', quantity: 1, shipping: '-1.00' }] }, 'lines[0].shipping'],
      [{ delivery_discount: '5.00', lines: [{ sku: 'X', quantity: 1, shipping: '4.00' }] }, 'delivery_discount'],
      [{ lines: [{ sku: 'X', quantity: 1, shipping: '4.00', shipping_discount: '1.00', shipping_promotion: '3.50' }] }, 'lines[0].shipping_promotion'],
      [{ lines: [{ sku: 'X', quantity: 1, shipping: '2.00', ebay_shipping: '2.50' }] }, 'lines[0].ebay_shipping'],
      [{ lines: [{ sku: 'X', quantity: 1, shipping: '2.00', buyer_protection: '0.80' }] }, 'lines[0].buyer_protection'],
    ] as const) {
      const res = await fetch(`${sandbox.url}/_sandbox/ebay/orders`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ portal_account: ebayId, ...body }),
      });
      expect(res.status).to.equal(400);
      expect(((await res.json()) as { message: string }).message).to.match(new RegExp(`^${field.replace(/[[\]]/g, '\\$&')}:`));
    }
    expect(sandbox.state.ebay.orders.size).to.equal(before);
  });
});
