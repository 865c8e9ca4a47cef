/**
 * Item and shipping discounts of an eBay order in the shapes sell_fulfillment_v1_oas3.json allows
 * and the sandbox does not make (an order-level shipping promotion, an item discount given only in
 * pricingSummary.priceDiscount), mapped by channelOrderOf: the lines and the shipping fee bill what
 * the seller received (Payment.amount), so document 1's paid_in_full holds.
 */
import { expect } from 'chai';
import { channelOrderOf, EbayOrder } from '../../lib/portals/ebay/ebay-order.mapping';

const eur = (value: string) => ({ value, currency: 'EUR' });
const paidOrder = (order: Partial<EbayOrder>, payment: string): EbayOrder => ({
  orderId: '26-00001-00001',
  creationDate: '2026-11-01T10:00:00.000Z',
  orderPaymentStatus: 'PAID',
  paymentSummary: { payments: [{ paymentMethod: 'EBAY', paymentStatus: 'PAID', amount: eur(payment) }], refunds: [] },
  ...order,
});
const billed = (o: ReturnType<typeof channelOrderOf>) =>
  (o.line.reduce((s, l) => s + Math.round(Number(l.price) * 100) * l.quantity, 0) + Math.round(Number(o.shipping?.fee ?? 0) * 100)) / 100;

describe('eBay order discounts: priceDiscount for the items, delivery discounts for the shipping', () => {
  it('when a free-shipping promotion is listed on the line but given only in the order’s deliveryDiscount, then it comes off the shipping alone', () => {
    const mapped = channelOrderOf(
      paidOrder(
        {
          pricingSummary: { priceSubtotal: eur('30.00'), deliveryCost: eur('4.90'), deliveryDiscount: eur('-4.90'), total: eur('30.00') },
          lineItems: [
            {
              lineItemId: '1',
              sku: 'LAMP-1',
              quantity: 2,
              lineItemCost: eur('30.00'),
              appliedPromotions: [{ promotionId: 'SHIP1', description: 'Free shipping', discountAmount: eur('4.90') }],
              deliveryCost: { shippingCost: eur('4.90') },
              total: eur('30.00'),
              taxes: [],
              refunds: [],
            },
          ],
        },
        '30.00',
      ),
    );
    expect(mapped.line.map((l) => [l.quantity, l.price])).to.deep.equal([[2, '15.00']]);
    expect(mapped.shipping?.fee).to.equal('0.00');
    expect(billed(mapped)).to.equal(30);
    expect(mapped.paid_amount).to.equal('30.00');
  });

  it('when priceDiscount holds an item discount a line carries no discountedLineItemCost of, then that line takes it; a line with one keeps it', () => {
    const mapped = channelOrderOf(
      paidOrder(
        {
          pricingSummary: { priceSubtotal: eur('30.00'), priceDiscount: eur('-5.00'), deliveryCost: eur('0.00'), total: eur('25.00') },
          lineItems: [
            {
              lineItemId: '1',
              sku: 'A',
              quantity: 1,
              lineItemCost: eur('20.00'),
              appliedPromotions: [{ promotionId: 'P1', discountAmount: eur('3.00') }],
              deliveryCost: { shippingCost: eur('0.00') },
              taxes: [],
              refunds: [],
            },
            {
              lineItemId: '2',
              sku: 'B',
              quantity: 1,
              lineItemCost: eur('10.00'),
              discountedLineItemCost: eur('8.00'),
              appliedPromotions: [{ promotionId: 'P2', discountAmount: eur('2.00') }],
              deliveryCost: { shippingCost: eur('0.00') },
              taxes: [],
              refunds: [],
            },
          ],
        },
        '25.00',
      ),
    );
    expect(mapped.line.map((l) => [l.sku, l.price])).to.deep.equal([
      ['A', '17.00'],
      ['B', '8.00'],
    ]);
    expect(billed(mapped)).to.equal(25);
    expect(mapped.paid_amount).to.equal('25.00');
  });

  const line = (lineItemId: string, cost: string, promotion: string) => ({
    lineItemId,
    sku: `SKU-${lineItemId}`,
    quantity: 1,
    lineItemCost: eur(cost),
    appliedPromotions: [{ promotionId: `P${lineItemId}`, discountAmount: eur(promotion) }],
    deliveryCost: { shippingCost: eur('0.00') },
    taxes: [],
    refunds: [],
  });

  it('when priceDiscount shares out over lines of equal weight in odd cents, then no line bills more than its cost and the lines add up to the payment', () => {
    const mapped = channelOrderOf(
      paidOrder(
        {
          pricingSummary: { priceSubtotal: eur('40.00'), priceDiscount: eur('-0.02'), deliveryCost: eur('0.00'), total: eur('39.98') },
          lineItems: ['1', '2', '3', '4'].map((id) => line(id, '10.00', '0.01')),
        },
        '39.98',
      ),
    );
    expect(mapped.line.map((l) => l.price)).to.deep.equal(['9.99', '9.99', '10.00', '10.00']);
    expect(billed(mapped)).to.equal(39.98);
  });

  it('when a cheap line’s promotions weigh more than its cost, then it is billed 0.00 and the rest of priceDiscount comes off the other line', () => {
    const mapped = channelOrderOf(
      paidOrder(
        {
          pricingSummary: { priceSubtotal: eur('25.00'), priceDiscount: eur('-10.00'), deliveryCost: eur('0.00'), total: eur('15.00') },
          lineItems: [line('1', '5.00', '9.00'), line('2', '20.00', '1.00')],
        },
        '15.00',
      ),
    );
    expect(mapped.line.map((l) => [l.sku, l.price])).to.deep.equal([
      ['SKU-1', '0.00'],
      ['SKU-2', '15.00'],
    ]);
    expect(billed(mapped)).to.equal(15);
    expect(mapped.paid_amount).to.equal('15.00');
  });
});
