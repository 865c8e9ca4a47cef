import { expect } from 'chai';
import { db } from '../../lib/db/knex';
import { call, newSeller, Seller } from '../support/api';
import { whileDatabaseRefuses } from '../support/db-refusal';
import { createOrder, createStock, movements, orderBody, orderEvents, readOrder, stockQuantity } from './helpers';

interface Item {
  path: string;
  code: number;
  order_id?: string;
  error?: { error: string; field?: string }[];
}

const numberOf = (orderId: string) => Number(orderId.split('_')[0]);

describe('order: POST order/list/ set-based creates', () => {
  let seller: Seller;
  beforeEach(async () => {
    seller = await newSeller();
  });

  const list = (order: unknown[]) => call('order/list/', { token: seller.token, body: { order } });

  it('when creates, refused items and an update are mixed in one list, then order and invoice numbers stay consecutive and stock is exact', async () => {
    const a = await createStock(seller, 'SKU-A', 100);
    const existing = await createOrder(seller, { line: [{ id: 1, quantity: 1, stock_align_id: 'SKU-A' }] });
    const res = await list([
      orderBody({ customer: { email: 'one@example.com' }, line: [{ id: 1, quantity: 2, stock_align_id: 'SKU-A' }] }),
      orderBody({ line: [{ id: 1, quantity: 1, stock_align_id: 'NOPE' }] }),
      orderBody({ customer: { email: 'one@example.com' }, status: { is_paid: true }, line: [{ id: 1, quantity: 3, price: '2.00', stock_align_id: 'SKU-A' }] }),
      { id: existing, status: { is_paid: true }, paid_amount: '1.00' },
      orderBody({ payment_method_id: 'NOPE' }),
      orderBody({ customer: { email: 'two@example.com' }, status: { is_paid: true }, line: [{ id: 1, quantity: 4, price: '1.00', stock_align_id: 'SKU-A' }] }),
    ]);
    expect(res.status, res.text).to.equal(207);
    const items = res.body.response as Item[];
    expect(items.map((i) => i.code)).to.deep.equal([201, 404, 201, 400, 400, 201]);
    const created = [items[0]!, items[2]!, items[5]!].map((i) => i.order_id!);
    expect(created.map(numberOf)).to.deep.equal([2, 3, 4].map((n) => n + numberOf(existing) - 1));
    expect(items[1]!.order_id).to.equal(undefined);
    expect(await stockQuantity(seller, a)).to.equal(100 - 1 - 2 - 3 - 4);
    expect((await movements(seller, a)).filter((m) => m.order_id !== null).map((m) => [m.order_id, m.quantity.new])).to.deep.equal([
      [existing, 99],
      [created[0], 97],
      [created[1], 94],
      [created[2], 90],
    ]);
    const [first, second, third] = [await readOrder(seller, created[0]!), await readOrder(seller, created[1]!), await readOrder(seller, created[2]!)];
    expect([first!.invoice_number, second!.invoice_number, third!.invoice_number]).to.deep.equal([null, 1, 2]);
    expect(second!.customer.id).to.equal(first!.customer.id);
    expect(third!.customer.id).to.not.equal(first!.customer.id);
    expect(second!.line[0]).to.include({ stock_align_id: 'SKU-A', quantity: '3' });
    expect(await orderEvents(seller)).to.deep.equal([
      `created:${existing}`,
      `created:${created[0]}`,
      `created:${created[1]}`,
      `paid:${created[1]}`,
      `paid_in_full:${created[1]}`,
      `created:${created[2]}`,
      `paid:${created[2]}`,
      `paid_in_full:${created[2]}`,
    ]);
    expect(await db()('sales_order').where({ account_id: seller.id }).count('* as n').first()).to.deep.equal({ n: '4' });
  });

  it('when orders of one list share customers by e-mail and number, then each customer is found as one by one and keeps the last contact data', async () => {
    const earlier = await createOrder(seller, { customer: { email: 'Old@example.com', username: 'old', phone_1: '111' } });
    const res = await list([
      orderBody({ customer: { email: 'old@example.com', username: 'second', comment: 'c1' } }),
      orderBody({ customer: { email: 'new@example.com', username: 'n1', phone_1: '222' } }),
      orderBody({ customer: { email: 'NEW@example.com', username: 'n2', address: { name: 'Ann' } } }),
      orderBody({ customer: { id: 'K-1', email: 'kay@example.com' } }),
      orderBody({ customer: { id: 'K-1', email: 'kay@example.com', username: 'kay' } }),
    ]);
    expect(res.status, res.text).to.equal(207);
    expect(
      (res.body.response as Item[]).map((i) => i.code),
      res.text,
    ).to.deep.equal([201, 201, 201, 201, 201]);
    const ids = (res.body.response as Item[]).map((i) => i.order_id!);
    const customerOf = async (id: string) => (await readOrder(seller, id)).customer.id;
    const numbers = [];
    for (const id of [earlier, ...ids]) numbers.push(await customerOf(id));
    expect(numbers[1]).to.equal(numbers[0]);
    expect(numbers[3]).to.equal(numbers[2]);
    expect(numbers.slice(4)).to.deep.equal(['K-1', 'K-1']);
    const rows = await db()('customer')
      .where({ account_id: seller.id })
      .orderBy('internal_id')
      .select('number', 'email', 'username', 'phone_1', 'comment', 'address_name', 'shop_username');
    expect(rows).to.deep.equal([
      { number: numbers[0], email: 'old@example.com', username: 'second', phone_1: '111', comment: 'c1', address_name: null, shop_username: ['old', 'second'] },
      { number: numbers[2], email: 'NEW@example.com', username: 'n2', phone_1: '222', comment: null, address_name: 'Ann', shop_username: ['n1', 'n2'] },
      { number: 'K-1', email: 'kay@example.com', username: 'kay', phone_1: null, comment: null, address_name: null, shop_username: ['kay'] },
    ]);
  });

  it('when a run of creates is refused whole and an update ends it, then the next run finds its buyers again: no customer twice', async () => {
    const earlier = await createOrder(seller, { customer: { email: 'known@example.com' } });
    const res = await list([
      orderBody({ line: [{ id: 1 }, { id: 1 }], customer: { email: 'refused@example.com' } }),
      { id: earlier, infos: 'changed' },
      orderBody({ customer: { email: 'known@example.com', username: 'again' } }),
    ]);
    expect(res.status, res.text).to.equal(207);
    const items = res.body.response as Item[];
    expect(items.map((i) => i.code)).to.deep.equal([400, 200, 201]);
    expect((await readOrder(seller, items[2]!.order_id!)).customer.id).to.equal((await readOrder(seller, earlier)).customer.id);
    expect(await db()('customer').where({ account_id: seller.id }).count('* as n').first()).to.deep.equal({ n: '1' });
  });

  it('when the database refuses one order of a set-based list, then the list runs again order by order and only that order fails', async () => {
    const a = await createStock(seller, 'SKU-A', 10);
    // A refusal only the database knows of: the set-based INSERT of the orders fails as a whole.
    const res = await whileDatabaseRefuses('sales_order', "infos IS DISTINCT FROM 'DB-REFUSES'", () =>
      list([
        orderBody({ line: [{ id: 1, quantity: 1, stock_align_id: 'SKU-A' }] }),
        orderBody({ infos: 'DB-REFUSES', line: [{ id: 1, quantity: 5, stock_align_id: 'SKU-A' }] }),
        orderBody({ line: [{ id: 1, quantity: 2, stock_align_id: 'SKU-A' }] }),
      ]),
    );
    expect(res.status, res.text).to.equal(207);
    const items = res.body.response as Item[];
    expect(items.map((i) => i.code)).to.deep.equal([201, 500, 201]);
    expect(items[1]!.error![0]!.error).to.equal('internal_error');
    expect([items[0]!, items[2]!].map((i) => numberOf(i.order_id!))).to.deep.equal([1, 2]);
    expect(await stockQuantity(seller, a)).to.equal(7);
    expect((await movements(seller, a)).filter((m) => m.order_id !== null).map((m) => m.order_id)).to.deep.equal([items[0]!.order_id, items[2]!.order_id]);
    expect(await db()('sales_order').where({ account_id: seller.id }).count('* as n').first()).to.deep.equal({ n: '2' });
  });
});
