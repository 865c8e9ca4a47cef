import { expect } from 'chai';
import { db } from '../../lib/db/knex';
import { call, newSeller, Seller } from '../support/api';
import { whileDatabaseRefuses } from '../support/db-refusal';
import { createOrder, createStock, movements, orderBody, outbox, readOrder, stockQuantity } from './helpers';

interface Item {
  path: string;
  code: number;
  order_id?: string;
  error?: { error: string; field?: string }[];
}

const address = (i: number) => ({ name: `Buyer ${i}`, street: `Street ${i}`, zip: `1000${i}`, city: 'Berlin', country_iso2: 'DE' });

describe('order: POST order/list/ from new buyers (issue 32), and one item sold by every line', () => {
  let seller: Seller;
  beforeEach(async () => {
    seller = await newSeller();
  });

  const list = async (order: unknown[]) => {
    const res = await call('order/list/', { token: seller.token, body: { order } });
    expect(res.status, res.text).to.equal(207);
    return res.body.response as Item[];
  };
  const customerRows = () =>
    db()('customer')
      .where({ account_id: seller.id })
      .orderBy('internal_id')
      .select('number', 'email', 'username', 'address_name', 'address', 'shop_username', 'currency_id');
  const customerEvents = async () =>
    (await outbox(seller)).filter((r) => r.job_name === 'event.emit' && r.payload.section === 'customer').map((r) => String(r.payload.recordId));

  it('when a list comes from new buyers, then each gets one customer, numbered as one by one, found again by its next order', async () => {
    // A number a client gave earlier is skipped by the counter, as for one order after another.
    await createOrder(seller, { customer: { id: '3', email: 'earlier@example.com' } });
    const items = await list([
      orderBody({ customer: { email: 'a@example.com', username: 'a1', address: address(1) } }),
      orderBody({ customer: { email: 'b@example.com', username: 'b', address: address(2) }, currency_id: 'USD' }),
      orderBody({ customer: { email: 'A@example.com', username: 'a2', phone_1: '030' } }),
      orderBody({ customer: { id: 'K-9', email: 'k@example.com', address: address(4) } }),
      orderBody({ customer: { email: 'c@example.com', address: address(5) } }),
      orderBody({ customer: { email: 'd@example.com' } }),
    ]);
    expect(items.map((i) => i.code)).to.deep.equal([201, 201, 201, 201, 201, 201]);
    const ids = items.map((i) => i.order_id!);
    const numbers: unknown[] = [];
    for (const id of ids) numbers.push((await readOrder(seller, id)).customer.id);
    expect(numbers).to.deep.equal(['1', '2', '1', 'K-9', '4', '5']);
    expect(await customerRows()).to.deep.equal([
      { number: '3', email: 'earlier@example.com', username: null, address_name: null, address: null, shop_username: [], currency_id: 'EUR' },
      // What the later order sent overwrites, the rest stays; both user names.
      { number: '1', email: 'A@example.com', username: 'a2', address_name: 'Buyer 1', address: address(1), shop_username: ['a1', 'a2'], currency_id: 'EUR' },
      { number: '2', email: 'b@example.com', username: 'b', address_name: 'Buyer 2', address: address(2), shop_username: ['b'], currency_id: 'USD' },
      { number: 'K-9', email: 'k@example.com', username: null, address_name: 'Buyer 4', address: address(4), shop_username: [], currency_id: 'EUR' },
      { number: '4', email: 'c@example.com', username: null, address_name: 'Buyer 5', address: address(5), shop_username: [], currency_id: 'EUR' },
      { number: '5', email: 'd@example.com', username: null, address_name: null, address: null, shop_username: [], currency_id: 'EUR' },
    ]);
    expect(await customerEvents()).to.deep.equal(['3', '1', '2', 'K-9', '4', '5']);
    // The next order of a buyer of the list finds its customer; the next new buyer continues the numbers.
    const again = await createOrder(seller, { customer: { email: 'b@example.com', username: 'b2' } });
    expect((await readOrder(seller, again)).customer.id).to.equal('2');
    const next = await list([orderBody({ customer: { email: 'c@example.com' } }), orderBody({ customer: { email: 'e@example.com' } })]);
    const [c, e] = [await readOrder(seller, next[0]!.order_id!), await readOrder(seller, next[1]!.order_id!)];
    expect([c.customer.id, e.customer.id]).to.deep.equal(['4', '6']);
    expect((await customerRows()).map((r) => r.number)).to.deep.equal(['3', '1', '2', 'K-9', '4', '5', '6']);
    const res = await call('admin/customer/2/', { token: seller.token });
    expect(res.status, res.text).to.equal(200);
    expect((res.body.customer as { shop_username: string[] }).shop_username).to.deep.equal(['b', 'b2']);
  });

  it('when every line of a list takes from one item, then its movements chain old, difference and new line after line', async () => {
    const item = await createStock(seller, 'BEST', 100);
    const items = await list([
      orderBody({ customer: { email: 'x@example.com' }, line: [1, 2, 3].map((id) => ({ id, quantity: id, stock_align_id: 'BEST' })) }),
      orderBody({ customer: { email: 'y@example.com' }, line: [{ id: 1, quantity: 4, stock_align_id: 'BEST' }] }),
      orderBody({ customer: { email: 'x@example.com' }, line: [1, 2].map((id) => ({ id, quantity: 5, stock_align_id: 'BEST' })) }),
    ]);
    expect(items.map((i) => i.code)).to.deep.equal([201, 201, 201]);
    const [first, second, third] = items.map((i) => i.order_id!);
    expect(await stockQuantity(seller, item)).to.equal(100 - 6 - 4 - 10);
    const taken = (await movements(seller, item)).filter((m) => m.order_id !== null);
    expect(taken.map((m) => [m.order_id, m.quantity.old, m.quantity.difference, m.quantity.new])).to.deep.equal([
      [first, 100, -1, 99],
      [first, 99, -2, 97],
      [first, 97, -3, 94],
      [second, 94, -4, 90],
      [third, 90, -5, 85],
      [third, 85, -5, 80],
    ]);
  });

  it('when a list of new buyers is refused part-way, then the refused orders get nothing and the others their customers, numbered without gaps', async () => {
    const item = await createStock(seller, 'SKU-A', 10);
    // A rule refuses the second order before its customer is made; the database refuses the fourth's customer.
    const items = await whileDatabaseRefuses('customer', "email IS DISTINCT FROM 'refused@example.com'", () =>
      list([
        orderBody({ customer: { email: 'one@example.com', address: address(1) }, line: [{ id: 1, quantity: 1, stock_align_id: 'SKU-A' }] }),
        orderBody({ customer: { email: 'unknown-item@example.com' }, line: [{ id: 1, quantity: 1, stock_align_id: 'NOPE' }] }),
        orderBody({ customer: { email: 'two@example.com' }, line: [{ id: 1, quantity: 2, stock_align_id: 'SKU-A' }] }),
        orderBody({ customer: { email: 'refused@example.com' }, line: [{ id: 1, quantity: 3, stock_align_id: 'SKU-A' }] }),
        orderBody({ customer: { email: 'one@example.com', username: 'again' }, line: [{ id: 1, quantity: 4, stock_align_id: 'SKU-A' }] }),
      ]),
    );
    expect(items.map((i) => i.code)).to.deep.equal([201, 404, 201, 500, 201]);
    expect(items[1]!.error![0]).to.include({ field: 'order[1].line[0].stock_align_id' });
    expect(items[3]!.error![0]!.error).to.equal('internal_error');
    expect([items[1]!.order_id, items[3]!.order_id]).to.deep.equal([undefined, undefined]);
    const created = [items[0]!, items[2]!, items[4]!].map((i) => i.order_id!);
    const customers: unknown[] = [];
    for (const id of created) customers.push((await readOrder(seller, id)).customer.id);
    expect(customers).to.deep.equal(['1', '2', '1']);
    expect((await customerRows()).map((r) => [r.number, r.email, r.shop_username])).to.deep.equal([
      ['1', 'one@example.com', ['again']],
      ['2', 'two@example.com', []],
    ]);
    expect(await customerEvents()).to.deep.equal(['1', '2']);
    expect(await stockQuantity(seller, item)).to.equal(10 - 1 - 2 - 4);
    expect(await db()('sales_order').where({ account_id: seller.id }).count('* as n').first()).to.deep.equal({ n: '3' });
    // The counter gave back what the refused ones would have taken.
    const later = await createOrder(seller, { customer: { email: 'three@example.com' } });
    expect((await readOrder(seller, later)).customer.id).to.equal('3');
  });
});
