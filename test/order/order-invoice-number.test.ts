import { expect } from 'chai';
import { config, Config, setConfig } from '../../config';
import { db } from '../../lib/db/knex';
import { backfillOrderInvoiceNumbers } from '../../lib/db/migrations/20261125_0100_order_invoice_number';
import { call, newSeller, query, Seller } from '../support/api';
import { createOrder, orderBody, readOrder } from './helpers';

/**
 * Invoice numbers are found through order_invoice_number (sales_order.invoice_number has no
 * index, so that a payment's UPDATE is HOT): every path that gives one writes its row.
 */
describe('order: invoice numbers in order_invoice_number', () => {
  let saved: Config;
  before(() => {
    saved = config();
    setConfig({ ...saved, orderSearchMinAgeSeconds: 0 });
  });
  after(() => setConfig(saved));

  const ids = async (seller: Seller, params: Record<string, unknown>) => {
    const res = await call(`order/?${query(params)}`, { token: seller.token });
    expect(res.status, res.text).to.equal(200);
    return (res.body.order as { id: string }[]).map((o) => o.id);
  };
  /** The account's invoice numbers as the orders hold them and as order_invoice_number does. */
  const both = async (seller: Seller) => {
    const orders = await db()('sales_order')
      .select('invoice_number', 'internal_id')
      .where({ account_id: seller.id })
      .whereNotNull('invoice_number')
      .orderBy('invoice_number');
    const looked = await db()('order_invoice_number')
      .select('invoice_number', { internal_id: 'order_internal_id' })
      .where({ account_id: seller.id })
      .orderBy('invoice_number');
    return { orders, looked };
  };

  it('when orders are invoiced by a paid create, order/list/, an update and a bank transfer, then each number has its row and the filter finds it', async () => {
    const seller = await newSeller();
    const created = await createOrder(seller, { status: { is_paid: true } });
    const res = await call('order/list/', { token: seller.token, body: { order: [orderBody({ infos: 'unpaid' }), orderBody({ status: { is_paid: true } })] } });
    expect(res.status, res.text).to.equal(207);
    const [unpaid, listed] = (res.body.response as { order_id: string }[]).map((i) => i.order_id);
    const updated = await createOrder(seller, { line: [{ id: 1, price: '4.00' }] });
    expect((await call(`order/${updated}/`, { token: seller.token, body: { order: { paid_amount: '4.00' } } })).status).to.equal(200);
    const byBank = await createOrder(seller, { line: [{ id: 1, price: '7.00' }] });
    const transfer = { transfer_date: '2026-11-20', sender: 'Anna Berg', subject: `Order ${byBank}`, amount: '3.00' };
    expect((await call('bank/transfer/', { token: seller.token, body: { bank: transfer } })).status).to.equal(201);
    // The rest paid later: the order keeps its number, no second row.
    expect((await call('bank/transfer/', { token: seller.token, body: { bank: { ...transfer, amount: '4.00' } } })).status).to.equal(201);
    expect((await readOrder(seller, byBank)).paid_amount).to.equal('7.00');

    const numbers: (number | null)[] = [];
    for (const id of [created, listed!, updated, byBank]) numbers.push((await readOrder(seller, id)).invoice_number);
    expect(numbers).to.deep.equal([1, 2, 3, 4]);
    const { orders, looked } = await both(seller);
    expect(looked).to.deep.equal(orders);
    expect(looked).to.have.length(4);

    expect(await ids(seller, { filter: { invoice_number: [1, 4] } })).to.deep.equal([created, byBank]);
    expect(await ids(seller, { filter: { invoice_number: { operator: '>=', value: [3] } } })).to.deep.equal([updated, byBank]);
    expect(await ids(seller, { filter: { invoice_number: { operator: '!=', value: [1, 2, 3] } } })).to.deep.equal([unpaid, byBank]);
    expect(await ids(seller, { filter: [{ invoice_number: 2 }, { status: { is_paid: 0 } }] })).to.deep.equal([unpaid, listed]);
  });

  it('when an invoiced order is deleted, then its invoice number row goes with it and its number is not found', async () => {
    const seller = await newSeller();
    const order = await createOrder(seller, { status: { is_paid: true } });
    expect((await call(`order/${order}/`, { token: seller.token, method: 'DELETE' })).status).to.equal(200);
    expect(await db()('order_invoice_number').where({ account_id: seller.id })).to.deep.equal([]);
    expect(await ids(seller, { filter: { invoice_number: 1 } })).to.deep.equal([]);
  });

  it('when orders were invoiced before order_invoice_number existed, then the backfill gives them their rows once', async () => {
    const seller = await newSeller();
    const order = await createOrder(seller, { status: { is_paid: true } });
    // As migration 20261125_0100 found such an order: the number on the row only.
    await db()('order_invoice_number').where({ account_id: seller.id }).delete();
    expect(await ids(seller, { filter: { invoice_number: 1 } })).to.deep.equal([]);

    expect(await backfillOrderInvoiceNumbers(db())).to.be.at.least(1);
    expect(await ids(seller, { filter: { invoice_number: 1 } })).to.deep.equal([order]);
    const { orders, looked } = await both(seller);
    expect(looked).to.deep.equal(orders);
    expect(await backfillOrderInvoiceNumbers(db())).to.equal(0);
  });
});
