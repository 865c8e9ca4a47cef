/**
 * Order_line_type's quantity and price as a tester holding document 2 tries them: what the
 * service refuses is a 400 naming `order.line[i].…` with the order unchanged; what a real
 * marketplace order carries (a discount line below zero) still passes.
 */
import { expect } from 'chai';
import { newSeller, Seller } from '../support/api';
import { createOrder, readOrder } from './helpers';

describe('order lines tried from outside (document 2)', () => {
  let seller: Seller;
  beforeEach(async () => {
    seller = await newSeller();
  });

  it('when a line has a price below zero (a voucher), then the order is taken and its amount counts it off', async () => {
    const orderId = await createOrder(seller, {
      line: [
        { id: 1, name: 'Cup', quantity: '2', price: '10.00' },
        { id: 2, name: 'Voucher', quantity: '1', price: '-5.00' },
      ],
    });
    const order = await readOrder(seller, orderId);
    expect(order.line.map((l) => l.price)).to.deep.equal(['10.00', '-5.00']);
    expect(order.invoice_amount).to.equal('15.00');
  });
});
