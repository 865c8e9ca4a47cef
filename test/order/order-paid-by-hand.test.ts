/**
 * paid_amount written by the seller (POST order/{order_id}/, order/list/): a history entry like a
 * bank payment's, a warning when the order then holds more than its invoice (money to give back),
 * and a currency that stays once money is booked or an invoice issued.
 */
import { expect } from 'chai';
import { call, newSeller, Seller } from '../support/api';
import { createOrder, readOrder } from './helpers';

interface WarningView {
  warning: string;
  description: string;
  code: number;
  field?: string;
}

describe('order: paid_amount set by hand', () => {
  let seller: Seller;
  beforeEach(async () => {
    seller = await newSeller();
  });

  const update = (orderId: string, order: Record<string, unknown>) => call(`order/${orderId}/`, { token: seller.token, body: { order } });
  const history = async (orderId: string) => {
    const res = await call(`order/${orderId}/history/`, { token: seller.token });
    expect(res.status, res.text).to.equal(200);
    return res.body.history as string[];
  };
  const warnings = (body: { warning?: unknown }) => (body.warning ?? []) as WarningView[];

  it('when the seller sets paid_amount on POST order/{id}/ or order/list/, then the order history says so (an unchanged value writes nothing)', async () => {
    const orderId = await createOrder(seller, { line: [{ id: 1, quantity: 2, price: '10.00' }] });
    let res = await update(orderId, { paid_amount: '5.00' });
    expect(res.status, res.text).to.equal(200);
    expect(await history(orderId)).to.deep.equal(['paid_amount set to 5.00 by hand (was 0.00)']);
    res = await call('order/list/', { token: seller.token, body: { order: [{ id: orderId, paid_amount: '20' }] } });
    expect(res.status, res.text).to.be.oneOf([200, 207]);
    expect(await history(orderId)).to.deep.equal(['paid_amount set to 5.00 by hand (was 0.00)', 'paid_amount set to 20.00 by hand (was 5.00)']);
    // The whole order posted back: paid_amount as it is, no entry.
    expect((await update(orderId, { paid_amount: '20.00', infos: 'x' })).status).to.equal(200);
    expect(await history(orderId)).to.have.length(2);
    expect((await readOrder(seller, orderId)).paid_amount).to.equal('20.00');
  });

  it('when paid_amount by hand exceeds the invoice, then 200 with warning overpaid naming the amount to give back; within the invoice no warning', async () => {
    const orderId = await createOrder(seller, { line: [{ id: 1, quantity: 1, price: '5.00' }] });
    const within = await update(orderId, { paid_amount: '5.00' });
    expect(within.status, within.text).to.equal(200);
    expect(warnings(within.body).map((w) => w.warning)).to.deep.equal([]);
    const res = await update(orderId, { paid_amount: '500.00' });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.ack).to.equal('warning');
    const [w, ...rest] = warnings(res.body);
    expect(rest).to.deep.equal([]);
    expect(w).to.include({ warning: 'overpaid', code: 200, field: 'order.paid_amount' });
    expect(w!.description).to.include('495.00');
    expect((await readOrder(seller, orderId)).paid_amount).to.equal('500.00');
  });

  it('when the lines of a paid order are lowered below what was paid, or a paid order is cancelled, then 200 with warning overpaid naming what to give back', async () => {
    const orderId = await createOrder(seller, { line: [{ id: 1, quantity: 2, price: '10.00' }], paid_amount: '20.00' });
    const lower = await update(orderId, { line: [{ id: 1, quantity: 1, price: '10.00' }] });
    expect(lower.status, lower.text).to.equal(200);
    expect(warnings(lower.body).map((w) => [w.warning, w.field])).to.deep.equal([['overpaid', 'order.paid_amount']]);
    expect(warnings(lower.body)[0]!.description).to.include('10.00');
    expect(await readOrder(seller, orderId)).to.include({ paid_amount: '20.00', invoice_amount: '10.00' });

    const paid = await createOrder(seller, { line: [{ id: 1, quantity: 1, price: '30.00' }], paid_amount: '30.00' });
    const cancel = await call('order/list/', { token: seller.token, body: { order: [{ id: paid, status: { is_cancelled: true } }] } });
    expect(cancel.status, cancel.text).to.be.oneOf([200, 207]);
    const item = (cancel.body.response as { code: number; warning?: WarningView[] }[])[0]!;
    expect(item.code).to.equal(200);
    expect(warnings(item).map((w) => [w.warning, w.field])).to.deep.equal([['overpaid', 'order[0].paid_amount']]);
    expect(warnings(item)[0]!.description).to.include('30.00');
    expect((await readOrder(seller, paid)).status.is_cancelled).to.equal(true);
  });

  it('when the currency of an order with money booked or an invoice number is changed, then 400 not_changeable names order.currency_id and nothing changes; an unpaid order may change it', async () => {
    const paid = await createOrder(seller, { line: [{ id: 1, quantity: 1, price: '50.00' }] });
    expect((await update(paid, { paid_amount: '50.00' })).status).to.equal(200);
    const res = await update(paid, { currency_id: 'USD', infos: 'changed' });
    expect(res.status, res.text).to.equal(400);
    expect(res.body.error![0]).to.include({ field: 'order.currency_id', error: 'not_changeable' });
    expect(await readOrder(seller, paid)).to.include({ currency_id: 'EUR', paid_amount: '50.00', infos: null });
    // The same currency (a post-back) passes.
    expect((await update(paid, { currency_id: 'eur', infos: 'same' })).status).to.equal(200);

    // Paid back to 0.00: the invoice number stays, and so does the currency.
    expect((await update(paid, { paid_amount: '0.00' })).status).to.equal(200);
    const listed = await call('order/list/', { token: seller.token, body: { order: [{ id: paid, currency_id: 'USD' }] } });
    const item = (listed.body.response as { code: number; error?: { field: string; error: string }[] }[])[0]!;
    expect(item.code).to.equal(400);
    expect(item.error![0]).to.include({ field: 'order[0].currency_id', error: 'not_changeable' });
    expect((await readOrder(seller, paid)).currency_id).to.equal('EUR');

    const open = await createOrder(seller, { line: [{ id: 1, quantity: 1, price: '50.00' }] });
    expect((await update(open, { currency_id: 'USD' })).status).to.equal(200);
    expect((await readOrder(seller, open)).currency_id).to.equal('USD');
  });
});
