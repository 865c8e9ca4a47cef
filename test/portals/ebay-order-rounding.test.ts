/**
 * eBay lines whose amount does not divide by their units (sell_fulfillment_v1_oas3.json: a line's
 * `discountedLineItemCost` or `lineItemCost` is the whole line, `quantity` its units, and
 * `pricingSummary.adjustment` a price change on no line), imported so that the order the buyer
 * paid in full is paid in full in Kontor: document 1 calls any paid_amount other than
 * invoice_amount partially paid (no paid_in_full, no shipment), and Order_line_type has only a
 * unit price of two places.
 */
import { expect } from 'chai';
import { importOrders } from '../../lib/order-import/order-import.service';
import { channelLoopForSuite, Sandbox } from '../fleet/support';
import { createStock, stockQuantity } from '../order/helpers';
import { newSeller, Seller } from '../support/api';
import { ebaySandboxOrder, kontorOrder } from './channel-support';

describe('eBay order lines whose amount does not divide by their units', function () {
  this.timeout(60000);
  let sandbox: Sandbox;
  channelLoopForSuite((loop) => ({ sandbox } = loop));

  const ebayOrder = (seller: Seller, body: Record<string, unknown>) => ebaySandboxOrder(sandbox, seller, body);

  it('when a line’s amount after an adjustment or a promotion does not divide by its units, then the unit price is rounded down and the cents left go to the shipping fee: fully paid, not a cent over', async () => {
    const seller = await newSeller();
    const c = await createStock(seller, 'RND-EBAY-C', 10);
    const d = await createStock(seller, 'RND-EBAY-D', 10);
    // Before the adjustment: 30.00 over 3 units, and 13.50 less a 1.00 promotion (12.50) over 6 units.
    const { ebayId, id, order } = await ebayOrder(seller, {
      currency: 'EUR',
      adjustment: '-1.00',
      lines: [
        { sku: 'RND-EBAY-C', quantity: 3, price: '10.00' },
        { sku: 'RND-EBAY-D', quantity: 6, price: '2.25', discount: '1.00' },
      ],
    });
    expect(order.pricingSummary).to.deep.include({ deliveryCost: { value: '0.00', currency: 'EUR' }, total: { value: '41.50', currency: 'EUR' } });
    expect(order.paymentSummary!.payments![0]!.amount).to.deep.equal({ value: '41.50', currency: 'EUR' });

    const run = await importOrders({ accountId: seller.id, portalAccountId: ebayId }, 'rnd-ebay-1');
    expect(run.orders).to.deep.include({ created: 1 });
    const imported = (await kontorOrder(seller, id))!;
    // Line costs 30.00 and 12.50 share the -1.00 by cost: -0.71 and -0.29, so 29.29 and 12.21.
    // Rounded down: 9.76 x 3 = 29.28 (0.01 left) and 2.03 x 6 = 12.18 (0.03 left); 0.04 to shipping.
    // Rounded to the nearest cent, 2.035 made 2.04 x 6 = 12.24: an invoice of 41.52 over a payment of 41.50.
    expect(imported.line.map((l) => [l.sku, l.quantity, l.price])).to.deep.equal([
      ['RND-EBAY-C', '3', '9.76'],
      ['RND-EBAY-D', '6', '2.03'],
    ]);
    expect(imported.shipping.fee).to.equal('0.04');
    expect(imported.invoice_amount).to.equal('41.50');
    expect(imported.paid_amount).to.equal('41.50');
    expect(imported.status.is_paid).to.equal(true);
    expect(await stockQuantity(seller, c)).to.equal(7);
    expect(await stockQuantity(seller, d)).to.equal(4);
  });

  it('when a promotion leaves a line of 3 at 10.00, then each unit is 3.33 and the cent left is on the shipping fee: the invoice is the payment, not a cent below', async () => {
    const seller = await newSeller();
    await createStock(seller, 'RND-EBAY-E', 10);
    const { ebayId, id } = await ebayOrder(seller, { currency: 'EUR', lines: [{ sku: 'RND-EBAY-E', quantity: 3, price: '4.00', discount: '2.00' }] });
    await importOrders({ accountId: seller.id, portalAccountId: ebayId }, 'rnd-ebay-2');
    const imported = (await kontorOrder(seller, id))!;
    expect(imported.line.map((l) => [l.quantity, l.price])).to.deep.equal([['3', '3.33']]);
    expect(imported.shipping.fee).to.equal('0.01');
    expect(imported.invoice_amount).to.equal('10.00');
    expect(imported.paid_amount).to.equal('10.00');
  });
});
