import { expect } from 'chai';
import { call, newSeller, query, Seller, withConcurrentCalls } from '../support/api';
import { createOrder, outbox, readOrder } from '../order/helpers';

interface Customer {
  id: number | string;
  internal_id: number;
  email: string;
  username: string;
  phone_1: string;
  date: string;
  shop_username: string[];
  sales: { amount: string; currency_id: string };
  group_id: number;
}

describe('customer: created with orders, GET admin/customer/', () => {
  let seller: Seller;
  beforeEach(async () => {
    seller = await newSeller();
  });

  const customers = async (params: Record<string, unknown> = {}) => {
    const res = await call(`admin/customer/?${query(params)}`, { token: seller.token });
    expect(res.status, res.text).to.equal(200);
    return res.body.customer as Customer[];
  };
  const customerEvents = async (s: Seller) =>
    (await outbox(s))
      .filter((r) => r.job_name === 'event.emit' && r.payload.section === 'customer')
      .map((r) => `${String(r.payload.type)}:${String(r.payload.recordId)}`);

  it('when the first order of a buyer is created, then a customer is created with the next number and the order carries it', async () => {
    const orderId = await createOrder(seller, { customer: { email: 'anna@example.com', username: 'anna', phone_1: '0301', address: { name: 'Anna B' } } });
    const [customer, ...rest] = await customers();
    expect(rest).to.deep.equal([]);
    expect(customer).to.include({ id: 1, email: 'anna@example.com', username: 'anna', phone_1: '0301', group_id: 0 });
    expect(customer!.shop_username).to.deep.equal(['anna']);
    expect((await readOrder(seller, orderId)).customer.id).to.equal('1');
    expect(await customerEvents(seller)).to.deep.equal(['created:1']);
  });

  it('when later orders name the same customer.id or the same e-mail, then the customer is reused and sales.amount sums its orders', async () => {
    await createOrder(seller, { customer: { email: 'anna@example.com' }, line: [{ id: 1, price: '10', quantity: 2 }] });
    await createOrder(seller, { customer: { email: 'ANNA@example.com', username: 'anna2' }, line: [{ id: 1, price: '5.50' }] });
    await createOrder(seller, { customer: { id: '1', email: 'anna.new@example.com' }, shipping: { fee: '1.25' } });
    // A cancelled order is no sale.
    await createOrder(seller, { customer: { id: '1', email: 'anna.new@example.com' }, line: [{ id: 1, price: '100' }], status: { is_cancelled: true } });
    const list = await customers();
    expect(list).to.have.length(1);
    expect(list[0]).to.include({ id: 1, email: 'anna.new@example.com' });
    expect(list[0]!.sales).to.deep.equal({ amount: '26.75', currency_id: 'EUR' });
    const one = await call('admin/customer/1/', { token: seller.token });
    expect(one.status).to.equal(200);
    expect((one.body.customer as Customer).sales.amount).to.equal('26.75');
    expect(await customerEvents(seller)).to.deep.equal(['created:1']);
  });

  it("when a customer's orders sum to 10^12 or more (each within an amount's 12 digits), then GET admin/customer/ lists it with the whole sum, not a 500", async () => {
    const big = { id: 1, price: '999999999999.99', quantity: 1 };
    await createOrder(seller, { customer: { email: 'big@example.com' }, line: [big] });
    await createOrder(seller, { customer: { email: 'big@example.com' }, line: [big] });
    await createOrder(seller, { customer: { email: 'big@example.com' }, shipping: { fee: '0.02' } });
    await createOrder(seller, { customer: { email: 'small@example.com' } });
    const list = await customers();
    expect(list.map((c) => [c.email, c.sales.amount])).to.deep.equal([
      ['big@example.com', '2000000000000.00'],
      ['small@example.com', '0.00'],
    ]);
    const one = await call(`admin/customer/${list[0]!.id}/`, { token: seller.token });
    expect(one.status, one.text).to.equal(200);
    expect((one.body.customer as Customer).sales.amount).to.equal('2000000000000.00');
  });

  it('when an order names a new customer.id, then the customer is created with that number', async () => {
    const orderId = await createOrder(seller, { customer: { id: 'K-77', email: 'k@example.com' } });
    expect((await readOrder(seller, orderId)).customer.id).to.equal('K-77');
    expect((await customers()).map((c) => c.id)).to.deep.equal(['K-77']);
    // The counter skips numbers a client took.
    await createOrder(seller, { customer: { id: 1, email: 'one@example.com' } });
    await createOrder(seller, { customer: { email: 'other@example.com' } });
    expect((await customers()).map((c) => c.id)).to.deep.equal(['K-77', 1, 2]);
  });

  it('when customers are numbered "007" and "7", then each is answered with its own id, which GET by id, filter id[] and XML give back', async () => {
    await createOrder(seller, { customer: { id: '007', email: 'zero@example.com' } });
    await createOrder(seller, { customer: { id: '7', email: 'seven@example.com' } });
    await createOrder(seller, { customer: { id: '12345678901234567890', email: 'long@example.com' } });
    const byEmail = Object.fromEntries((await customers()).map((c) => [c.email, c.id]));
    // A number is answered as an integer only when it reads back as the same text (document 2: id integer).
    expect(byEmail).to.deep.equal({ 'zero@example.com': '007', 'seven@example.com': 7, 'long@example.com': '12345678901234567890' });
    for (const [email, id] of Object.entries(byEmail)) {
      const one = await call(`admin/customer/${String(id)}/`, { token: seller.token });
      expect(one.status, one.text).to.equal(200);
      expect((one.body.customer as Customer).email, String(id)).to.equal(email);
      expect(
        (await customers({ filter: { id: String(id) } })).map((c) => c.email),
        String(id),
      ).to.deep.equal([email]);
    }
    const inXml = await call('admin/customer/007/', { token: seller.token, headers: { Accept: 'application/xml' } });
    expect(inXml.text).to.include('<id>007</id>');
  });

  it('when the first orders of one new buyer arrive concurrently, then one customer is created', async () => {
    const results = await withConcurrentCalls(6, () =>
      Promise.all(Array.from({ length: 6 }, () => call('order/', { token: seller.token, body: { order: { customer: { email: 'rush@example.com' } } } }))),
    );
    expect(results.map((r) => r.status)).to.deep.equal(Array(6).fill(201));
    expect(await customers()).to.have.length(1);
  });

  it('when an order update changes customer.id, then the order moves to that customer', async () => {
    const orderId = await createOrder(seller, { customer: { email: 'a@example.com' }, line: [{ id: 1, price: '3' }] });
    expect((await call(`order/${orderId}/`, { token: seller.token, body: { order: { customer: { id: 'NEW', email: 'b@example.com' } } } })).status).to.equal(
      200,
    );
    const order = await readOrder(seller, orderId);
    expect(order.customer).to.include({ id: 'NEW', email: 'b@example.com' });
    const byId = Object.fromEntries((await customers()).map((c) => [String(c.id), c.sales.amount]));
    expect(byId).to.deep.equal({ 1: '0.00', NEW: '3.00' });
  });

  it('when customers are filtered, then id, internal_id, name, email, date and group_id select them', async () => {
    await createOrder(seller, { customer: { email: 'anna@example.com', address: { name: 'Anna Berg' } } });
    await createOrder(seller, { customer: { email: 'bert@shop.example', address: { name: 'Bert Cole' } } });
    const [anna, bert] = await customers();
    expect((await customers({ filter: { id: '2' } })).map((c) => c.email)).to.deep.equal(['bert@shop.example']);
    expect((await customers({ filter: { internal_id: anna!.internal_id } })).map((c) => c.id)).to.deep.equal([1]);
    expect((await customers({ filter: { name: { operator: '~', value: ['*berg'] } } })).map((c) => c.id)).to.deep.equal([1]);
    expect((await customers({ filter: { email: { operator: '~', value: ['*@shop.example'] } } })).map((c) => c.id)).to.deep.equal([2]);
    expect((await customers({ filter: { group_id: 0 } })).map((c) => c.id)).to.deep.equal([1, 2]);
    expect(await customers({ filter: { group_id: 3 } })).to.deep.equal([]);
    expect((await customers({ filter: { date: { operator: '>=', value: [bert!.date] } } })).map((c) => c.id)).to.deep.equal([2]);
    expect((await customers({ pagination: { limit: 1, min_id: anna!.internal_id } })).map((c) => c.id)).to.deep.equal([1]);
    const bad = await call(`admin/customer/?${query({ filter: { phone: '1' } })}`, { token: seller.token });
    expect(bad.status).to.equal(400);
  });

  it("when another account's customer is read, then 404 as for an absent one, and the list holds only the own customers", async () => {
    const other = await newSeller();
    await createOrder(other, { customer: { email: 'secret@example.com' } });
    expect((await call('admin/customer/1/', { token: seller.token })).status).to.equal(404);
    expect((await call('admin/customer/1/', { token: other.token })).status).to.equal(200);
    expect(await customers()).to.deep.equal([]);
  });

  it('when the token lacks customer_r, then 403', async () => {
    const limited = await newSeller('order_r');
    expect((await call('admin/customer/', { token: limited.token })).status).to.equal(403);
  });
});
