import { expect } from 'chai';
import { allOrdersOf } from '../../lib/access/caller';
import { transaction } from '../../lib/db';
import { applyChannelChangeIn } from '../../lib/order';
import { call, newSeller, Seller } from '../support/api';
import { createOrder, orderEvents, readOrder } from './helpers';

const today = () => new Date().toISOString().slice(0, 10);

/**
 * Document 1 (States rules 1 and 2): the paid state follows paid_amount against invoice_amount.
 * A free order made paid (0.00 of 0.00) whose lines, fee or discount raise its invoice later
 * kept is_paid at paid_amount 0.00: a seller shipped it though nothing was paid.
 */
describe('order: the paid state follows the invoice amount at paid_amount 0.00', () => {
  let seller: Seller;
  beforeEach(async () => {
    seller = await newSeller();
  });

  const free = { id: 1, quantity: 1, price: '0.00' };
  const bought = { id: 2, quantity: 2, price: '10.00' };
  const update = (orderId: string, order: Record<string, unknown>) => call(`order/${orderId}/`, { token: seller.token, body: { order } });
  type Warned = { warning?: { warning: string; field?: string; description?: string }[] };
  const unpaidWarning = (body: Warned, field: string) => (body.warning ?? []).find((w) => w.warning === 'not_paid' && w.field === field);

  it('when lines are added to a free order made paid, then it is unpaid again at paid_amount 0.00, keeping its invoice number; paid again when paid_amount is set', async () => {
    const orderId = await createOrder(seller, { line: [free], status: { is_paid: true } });
    const paid = await readOrder(seller, orderId);
    expect(paid.status.is_paid).to.equal(true);
    expect(paid).to.include({ invoice_number: 1, bill_date: today() });

    const res = await update(orderId, { line: [free, bought] });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.ack).to.equal('warning');
    expect(unpaidWarning(res.body, 'order.paid_amount')?.description).to.include('20.00');
    const order = await readOrder(seller, orderId);
    expect(order.status).to.include({ is_paid: false, paid_date: null });
    expect(order).to.include({ paid_amount: '0.00', invoice_amount: '20.00', invoice_number: 1, bill_date: today() });
    expect(order.history).to.include('unpaid: invoice amount 0.00 -> 20.00 at paid_amount 0.00');
    expect(await orderEvents(seller)).to.deep.equal([`created:${orderId}`, `paid:${orderId}`, `paid_in_full:${orderId}`, `changed:${orderId}`]);

    // The buyer pays: paid again under the same invoice number.
    expect((await update(orderId, { paid_amount: '20.00' })).status).to.equal(200);
    const settled = await readOrder(seller, orderId);
    expect(settled.status.is_paid).to.equal(true);
    expect(settled.status.paid_date).to.be.a('string');
    expect(settled).to.include({ paid_amount: '20.00', invoice_number: 1 });
  });

  it('when the lines are removed again back to 0.00, then the order is paid again (0.00 of 0.00), with paid and paid_in_full', async () => {
    const orderId = await createOrder(seller, { line: [free], status: { is_paid: true } });
    expect((await update(orderId, { line: [free, bought] })).status).to.equal(200);
    expect((await readOrder(seller, orderId)).status.is_paid).to.equal(false);

    const res = await update(orderId, { line: [free] });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.ack).to.equal('success');
    const order = await readOrder(seller, orderId);
    expect(order.status.is_paid).to.equal(true);
    expect(order.status.paid_date).to.be.a('string');
    expect(order).to.include({ paid_amount: '0.00', invoice_amount: '0.00', invoice_number: 1 });
    expect(order.history).to.include('paid: invoice amount 20.00 -> 0.00 at paid_amount 0.00');
    const events = await orderEvents(seller);
    expect(events.filter((e) => e === `paid:${orderId}`)).to.have.length(2);
    expect(events.filter((e) => e === `paid_in_full:${orderId}`)).to.have.length(2);
  });

  it('when order/list/ or a shipping fee raises the invoice of a free order made paid, then it is unpaid; the item answer warns', async () => {
    const listed = await createOrder(seller, { line: [free], paid_amount: '0.00' });
    const fee = await createOrder(seller, { line: [free], status: { is_paid: true } });
    const res = await call('order/list/', {
      token: seller.token,
      body: {
        order: [
          { id: listed, line: [free, bought] },
          { id: fee, shipping: { fee: '4.95' } },
        ],
      },
    });
    expect(res.status, res.text).to.be.oneOf([200, 207]);
    const items = res.body.response as ({ path: string; code: number } & Warned)[];
    expect(items.map((i) => i.code)).to.deep.equal([200, 200]);
    expect(unpaidWarning(items[0]!, 'order[0].paid_amount'), JSON.stringify(items[0])).to.not.equal(undefined);
    expect(unpaidWarning(items[1]!, 'order[1].paid_amount'), JSON.stringify(items[1])).to.not.equal(undefined);
    for (const [orderId, invoice] of [
      [listed, '20.00'],
      [fee, '4.95'],
    ] as const) {
      const order = await readOrder(seller, orderId);
      expect(order.status, orderId).to.include({ is_paid: false, paid_date: null });
      expect(order, orderId).to.include({ paid_amount: '0.00', invoice_amount: invoice });
      expect(order.invoice_number, orderId).to.be.a('number');
    }
  });

  it('when a free order made paid is read and posted back with a 20.00 line, then the paid_amount it read (0.00, unchanged) leaves it unpaid with the warning and history, as without paid_amount', async () => {
    const orderId = await createOrder(seller, { line: [free], status: { is_paid: true } });
    const read = await readOrder(seller, orderId);
    expect(read).to.include({ paid_amount: '0.00', invoice_number: 1 });

    const res = await update(orderId, { ...read, line: [free, bought] });
    expect(res.status, res.text).to.equal(200);
    expect(unpaidWarning(res.body, 'order.paid_amount'), res.text).to.not.equal(undefined);
    const order = await readOrder(seller, orderId);
    expect(order.status).to.include({ is_paid: false, paid_date: null });
    expect(order).to.include({ paid_amount: '0.00', invoice_amount: '20.00', invoice_number: 1 });
    expect(order.history).to.include('unpaid: invoice amount 0.00 -> 20.00 at paid_amount 0.00');

    // Posted back again with the lines at 0.00: paid again, as the same change without paid_amount.
    const back = await update(orderId, { ...order, line: [free] });
    expect(back.status, back.text).to.equal(200);
    const paidAgain = await readOrder(seller, orderId);
    expect(paidAgain.status.is_paid).to.equal(true);
    expect(paidAgain).to.include({ paid_amount: '0.00', invoice_amount: '0.00', invoice_number: 1 });
    expect(paidAgain.history).to.include('paid: invoice amount 20.00 -> 0.00 at paid_amount 0.00');
  });

  it('when a free order paid by a prepaid payment method gets lines, then it is unpaid: the prepayment was 0.00 (posting back the same method does not pay it)', async () => {
    const orderId = await createOrder(seller, { line: [free], payment_method_id: 'CCAccepted' });
    expect((await readOrder(seller, orderId)).status.is_paid).to.equal(true);
    const res = await update(orderId, { line: [free, bought], payment_method_id: 'CCAccepted' });
    expect(res.status, res.text).to.equal(200);
    const order = await readOrder(seller, orderId);
    expect(order.status).to.include({ is_paid: false, paid_date: null });
    expect(order).to.include({ paid_amount: '0.00', invoice_amount: '20.00', invoice_number: 1 });
  });

  it("when a channel's line quantity raises the invoice of a free order made paid, then it is unpaid, said in the history", async () => {
    const orderId = await createOrder(seller, { line: [{ ...bought, quantity: 0, transaction_id: 'T2' }], status: { is_paid: true } });
    expect((await readOrder(seller, orderId)).status.is_paid).to.equal(true);
    await transaction((trx) =>
      applyChannelChangeIn(
        trx,
        { ...allOrdersOf(seller.id), portalAccountId: null },
        orderId,
        { line_quantity: [{ transaction_id: 'T2', quantity: 2 }] },
        'channel',
      ),
    );
    const order = await readOrder(seller, orderId);
    expect(order.status).to.include({ is_paid: false, paid_date: null });
    expect(order).to.include({ paid_amount: '0.00', invoice_amount: '20.00', invoice_number: 1 });
    expect(order.history).to.include('unpaid: invoice amount 0.00 -> 20.00 at paid_amount 0.00');
  });

  it('when paid_amount is not 0.00 or was never set, then a changed invoice leaves the paid state as it was', async () => {
    const partly = await createOrder(seller, { line: [bought], paid_amount: '5.00' });
    const res = await update(partly, { line: [bought, { ...free, id: 3, price: '7.00' }] });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.ack).to.equal('success');
    const order = await readOrder(seller, partly);
    expect(order.status.is_paid).to.equal(true);
    expect(order).to.include({ paid_amount: '5.00', invoice_amount: '27.00', invoice_number: 1 });

    // An order never paid (paid_amount null) emptied to 0.00 stays unpaid: nothing was written to follow.
    const unpaid = await createOrder(seller, { line: [bought] });
    expect((await update(unpaid, { line: [free] })).status).to.equal(200);
    const emptied = await readOrder(seller, unpaid);
    expect(emptied.status.is_paid).to.equal(false);
    expect(emptied).to.include({ paid_amount: null, invoice_number: null });
  });
});
