import { expect } from 'chai';
import { paidInCreditSign } from '../../lib/db/migrations/20261130_0180_order_credit_paid_sign';
import { db } from '../../lib/db/knex';
import { call, newSeller, Seller } from '../support/api';
import { createOrder, orderEvents, readOrder } from './helpers';

/**
 * paid_amount of a credit order (negative invoice_amount, lib/order/README.md "paid_amount of a
 * credit order"): the amount refunded, stored in the invoice's sign. is_paid at creation stored
 * -16.36, which POST order/{order_id}/ then refused as negative, so the order's own answer did not
 * post back; and 10.00 refunded of 16.36 passed paid_amount >= invoice_amount: paid in full.
 */
describe('order: paid_amount of a credit order is the amount refunded, in the invoice sign', () => {
  let seller: Seller;
  let main: string;
  beforeEach(async () => {
    seller = await newSeller();
    main = await createOrder(seller, { status: { is_paid: true }, line: [{ id: 1, name: 'Lampe', quantity: 4, price: '16.36', tax: '19' }] });
  });

  const credit = (fields: Record<string, unknown> = {}) =>
    createOrder(seller, { credit: { main_id: main }, line: [{ id: 1, name: 'Lampe', quantity: 1, price: '-16.36', tax: '19' }], ...fields });
  const update = (orderId: string, order: Record<string, unknown>) => call(`order/${orderId}/`, { token: seller.token, body: { order } });
  const eventsOf = async (orderId: string) => (await orderEvents(seller)).filter((e) => e.endsWith(`:${orderId}`)).map((e) => e.split(':')[0]);
  type Warned = { warning?: { warning: string; field?: string; description?: string }[] };
  const overpaid = (body: Warned) => (body.warning ?? []).filter((w) => w.warning === 'overpaid');

  it('when a credit order created paid is posted back as read, then it answers 200 and stays paid at -16.36, with no second paid_in_full', async () => {
    const orderId = await credit({ status: { is_paid: true } });
    const read = (await call(`order/${orderId}/`, { token: seller.token })).body.order as Record<string, unknown>;
    expect(read).to.include({ paid_amount: '-16.36', invoice_amount: '-16.36' });

    // Before: 400 "order.paid_amount must not be negative".
    const res = await update(orderId, read);
    expect(res.status, res.text).to.equal(200);
    expect(overpaid(res.body), res.text).to.deep.equal([]);
    const again = await update(orderId, { paid_amount: '-16.36' });
    expect(again.status, again.text).to.equal(200);
    const order = await readOrder(seller, orderId);
    expect(order.status.is_paid).to.equal(true);
    expect(order).to.include({ paid_amount: '-16.36', invoice_amount: '-16.36' });
    expect(order.history.filter((h) => h.startsWith('paid_amount set to'))).to.deep.equal([]);
    expect(await eventsOf(orderId)).to.deep.equal(['created', 'paid', 'paid_in_full', 'changed', 'changed']);
  });

  it('when 10.00 of a credit order of -16.36 is refunded, then it is partly paid at -10.00 with paid and no paid_in_full; the full refund then emits it', async () => {
    const orderId = await credit();
    const res = await update(orderId, { paid_amount: '10.00' });
    expect(res.status, res.text).to.equal(200);
    // Before: a warning overpaid of 26.36 "to be given back to the buyer".
    expect(res.body.ack, res.text).to.equal('success');
    const partly = await readOrder(seller, orderId);
    expect(partly.status.is_paid).to.equal(true);
    expect(partly).to.include({ paid_amount: '-10.00', invoice_amount: '-16.36' });
    expect(partly.history).to.include('paid_amount set to -10.00 by hand (was 0.00)');
    // Before: paid_in_full at 10.00 >= -16.36.
    expect(await eventsOf(orderId)).to.deep.equal(['created', 'paid', 'changed']);

    // The same refund in the stored form is no change.
    expect((await update(orderId, { paid_amount: '-10.00' })).status).to.equal(200);
    expect(await eventsOf(orderId)).to.deep.equal(['created', 'paid', 'changed', 'changed']);

    const full = await update(orderId, { paid_amount: '-16.36' });
    expect(full.status, full.text).to.equal(200);
    expect(full.body.ack, full.text).to.equal('success');
    expect((await readOrder(seller, orderId)).paid_amount).to.equal('-16.36');
    expect(await eventsOf(orderId)).to.deep.equal(['created', 'paid', 'changed', 'changed', 'paid_in_full', 'changed']);
  });

  it('when a credit order is created with the refund as its magnitude, then it is stored in the invoice sign and paid in full', async () => {
    const orderId = await credit({ paid_amount: '16.36' });
    const order = await readOrder(seller, orderId);
    expect(order.status.is_paid).to.equal(true);
    expect(order).to.include({ paid_amount: '-16.36', invoice_amount: '-16.36' });
    expect(await eventsOf(orderId)).to.deep.equal(['created', 'paid', 'paid_in_full']);
  });

  it('when more than the credit is refunded, then the answer warns of the 3.64 to claim back; a cancelled credit order of all its refund', async () => {
    const orderId = await credit();
    const res = await update(orderId, { paid_amount: '-20.00' });
    expect(res.status, res.text).to.equal(200);
    const [more] = overpaid(res.body);
    expect(more, res.text).to.include({ field: 'order.paid_amount' });
    expect(more!.description).to.include('3.64 EUR').and.include('claimed back from the buyer');
    expect((await readOrder(seller, orderId)).paid_amount).to.equal('-20.00');

    const cancel = await update(orderId, { paid_amount: '-10.00', status: { is_cancelled: true } });
    expect(cancel.status, cancel.text).to.equal(200);
    expect(overpaid(cancel.body)[0]?.description, cancel.text).to.include('10.00 EUR');
  });

  it('when an ordinary order is sent a negative paid_amount, then it stays a 400 naming it', async () => {
    const res = await update(main, { paid_amount: '-5.00' });
    expect(res.status, res.text).to.equal(400);
    expect(res.body.error!.map((e: { field?: string }) => e.field)).to.include('order.paid_amount');
    expect((await readOrder(seller, main)).paid_amount).to.equal('65.44');
  });

  it("when a credit order's lines become an ordinary invoice, then its refund stays -16.36 (26.36 owed, not paid in full) and its read body posts back", async () => {
    const orderId = await credit({ status: { is_paid: true } });
    const res = await update(orderId, { line: [{ id: 1, name: 'Lampe', quantity: 1, price: '10.00', tax: '19' }] });
    expect(res.status, res.text).to.equal(200);
    const read = (await call(`order/${orderId}/`, { token: seller.token })).body.order as Record<string, unknown>;
    expect(read).to.include({ paid_amount: '-16.36', invoice_amount: '10.00' });
    const back = await update(orderId, read);
    expect(back.status, back.text).to.equal(200);
    expect((await readOrder(seller, orderId)).paid_amount).to.equal('-16.36');
    // The buyer now owes 26.36: a transfer of that pays it in full.
    const paid = await call('bank/transfer/', {
      token: seller.token,
      body: { bank: { transfer_date: '2026-11-20T10:00:00Z', sender: 'Anna Berg', subject: `Order ${orderId}`, amount: '26.36' } },
    });
    expect(paid.body.is_order_paid, paid.text).to.equal('1');
    expect((await readOrder(seller, orderId)).paid_amount).to.equal('10.00');
    expect((await eventsOf(orderId)).filter((e) => e === 'paid_in_full')).to.have.length(2);
  });

  it('when a credit order kept a positive refund (the only form a paid_amount could have before), then the migration states it in the invoice sign, said in its history', async () => {
    const orderId = await credit({ paid_amount: '-10.00' });
    await db()('sales_order').where({ account_id: seller.id, id: orderId }).update({ paid_amount: '10.00' });
    const ordinary = await createOrder(seller, { paid_amount: '5.00', line: [{ id: 1, quantity: 1, price: '20.00' }] });
    await paidInCreditSign(db());
    const order = await readOrder(seller, orderId);
    expect(order.paid_amount).to.equal('-10.00');
    expect(order.history).to.include("paid_amount -10.00: a credit order's refund is kept in its invoice's sign (was 10.00)");
    expect((await readOrder(seller, ordinary)).paid_amount).to.equal('5.00');
    expect(await paidInCreditSign(db())).to.equal(0);
  });

  it('when a transfer names a credit order refunded more than its credit, then no money is booked on it', async () => {
    const orderId = await credit();
    expect((await update(orderId, { paid_amount: '-20.00' })).status).to.equal(200);
    const res = await call('bank/transfer/', {
      token: seller.token,
      body: { bank: { transfer_date: '2026-11-20T10:00:00Z', sender: 'Anna Berg', subject: `Order ${orderId}`, amount: '3.64' } },
    });
    expect(res.status, res.text).to.equal(201);
    // The credit order owes the seller nothing: before, -16.36 - (-20.00) = 3.64 read as owed.
    expect(res.body.is_order_paid).to.equal('0');
    expect((await readOrder(seller, orderId)).paid_amount).to.equal('-20.00');
  });
});
