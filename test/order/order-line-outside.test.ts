/**
 * Order_line_type's quantity and price as a tester holding document 2 tries them: what the
 * service refuses is a 400 naming `order.line[i].…` with the order unchanged; what a real
 * marketplace order carries (a discount line below zero) still passes.
 */
import { expect } from 'chai';
import { call, errorFields, newSeller, Seller } from '../support/api';
import { createOrder, readOrder } from './helpers';

const xmlBody = { 'Content-Type': 'application/xml' };

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

  describe('quantity (document 2: string) is a whole number in digits', () => {
    it('when a line quantity is written in exponent form, in JSON or XML, then 400 names order.line[i].quantity and the order keeps its lines', async () => {
      const orderId = await createOrder(seller, { line: [{ id: 1, name: 'Cup', quantity: '2', price: '10.00' }] });
      for (const quantity of ['1e2', '1E2', '2e0', '0x10', '1_0']) {
        const res = await call(`order/${orderId}/`, {
          token: seller.token,
          body: {
            order: {
              line: [
                { id: 1, name: 'Cup', quantity: '1', price: '10.00' },
                { id: 2, name: 'Cup', quantity, price: '10.00' },
              ],
            },
          },
        });
        expect(res.status, `${quantity}: ${res.text}`).to.equal(400);
        expect(errorFields(res), quantity).to.deep.equal(['order.line[1].quantity']);
      }
      const xml = await call(`order/${orderId}/`, {
        token: seller.token,
        headers: xmlBody,
        body: '<request><order><line><id>1</id><quantity>1</quantity></line><line><id>2</id><name>Cup</name><quantity>1e2</quantity><price>10.00</price></line></order></request>',
      });
      expect(xml.status, xml.text).to.equal(400);
      expect(errorFields(xml)).to.deep.equal(['order.line[1].quantity']);
      const order = await readOrder(seller, orderId);
      expect(order.line.map((l) => l.quantity)).to.deep.equal(['2']);
      expect(order.invoice_amount).to.equal('20.00');
    });

    it('when a new order has a line quantity in exponent form, then 400 names it and no order is made', async () => {
      const before = await call('order/', { token: seller.token });
      const res = await call('order/', {
        token: seller.token,
        headers: xmlBody,
        body: '<request><order><customer><email>buyer@example.com</email></customer><line><id>1</id><quantity>1</quantity></line><line><id>2</id><quantity>1e2</quantity></line></order></request>',
      });
      expect(res.status, res.text).to.equal(400);
      expect(errorFields(res)).to.deep.equal(['order.line[1].quantity']);
      expect((await call('order/', { token: seller.token })).body.order).to.deep.equal(before.body.order);
    });

    it('when a line quantity is digits (as text, with spaces or a fraction of zeros, or a JSON number), then it is taken', async () => {
      const orderId = await createOrder(seller, {
        line: [
          { id: 1, quantity: '3', price: '1.00' },
          { id: 2, quantity: ' 4 ', price: '1.00' },
          { id: 3, quantity: '5.00', price: '1.00' },
          { id: 4, quantity: 6, price: '1.00' },
        ],
      });
      expect((await readOrder(seller, orderId)).line.map((l) => l.quantity)).to.deep.equal(['3', '4', '5', '6']);
      const xml = await call(`order/${orderId}/`, {
        token: seller.token,
        headers: xmlBody,
        body: '<request><order><line><id>1</id><quantity>100</quantity><price>1.00</price></line></order></request>',
      });
      expect(xml.status, xml.text).to.equal(200);
      expect((await readOrder(seller, orderId)).line.map((l) => l.quantity)).to.deep.equal(['100']);
    });

    it('when the one line of an order is wrong, in XML (one element) or JSON (an object), then 400 names it with its index, as for two lines', async () => {
      const xml = await call('order/', {
        token: seller.token,
        headers: xmlBody,
        body: '<request><order><customer><email>buyer@example.com</email></customer><line><id>1</id><quantity>1e2</quantity></line></order></request>',
      });
      expect(xml.status, xml.text).to.equal(400);
      expect(errorFields(xml)).to.deep.equal(['order.line[0].quantity']);
      const json = await call('order/', { token: seller.token, body: { order: { customer: { email: 'buyer@example.com' }, line: { id: 1, quantity: 'x' } } } });
      expect(json.status, json.text).to.equal(400);
      expect(errorFields(json)).to.deep.equal(['order.line[0].quantity']);
      const one = await call('order/', {
        token: seller.token,
        headers: xmlBody,
        body: '<request><order><customer><email>buyer@example.com</email></customer><line><id>1</id><quantity>3</quantity><price>2.00</price></line></order></request>',
      });
      expect(one.status, one.text).to.equal(201);
      const order = await readOrder(seller, one.body.order_id as string);
      expect(order.line.map((l) => l.quantity)).to.deep.equal(['3']);
      expect(order.invoice_amount).to.equal('6.00');
    });
  });
});
