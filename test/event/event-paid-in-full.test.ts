import { expect } from 'chai';
import { call, newSeller, Seller } from '../support/api';
import { createOrder, orderEvents } from '../order/helpers';
import { EventsWorker, startEventsWorker } from './events-worker';
import { Received, Receiver, startReceiver, waitFor } from './servers';
import { orderNotificationHandler } from './handlers';

interface Notification {
  event: { section: string; type: string };
  order_id: string;
}

describe('event paid_in_full: an order a seller can ship on (events worker)', function () {
  this.timeout(60000);
  let events: EventsWorker | undefined;
  let receiver: Receiver;
  let received: Received[] = [];

  before(async () => {
    events = await startEventsWorker();
    receiver = await startReceiver(() => ({ status: 204 }));
    received = receiver.received;
  });
  after(async () => {
    await events?.stop();
    await receiver.close();
  });

  const handler = async (s: Seller, type: string) => {
    await orderNotificationHandler(s, type, `${receiver.base}/${s.id}/${type}`, 'shipping');
  };

  /** The notifications the seller's handler of `type` received. */
  const deliveries = (s: Seller, type: string) => received.filter((r) => r.path === `/${s.id}/${type}`);
  const bodyOf = (r: Received) => JSON.parse(r.body) as Notification;

  async function transfer(s: Seller, orderId: string, amount: string, requestId: string): Promise<void> {
    const res = await call('bank/transfer/', {
      token: s.token,
      headers: { 'X-Request-Id': requestId },
      body: { bank: { transfer_date: '2026-11-20T10:00:00Z', sender: 'Anna Berg', subject: `Order ${orderId}`, amount } },
    });
    expect(res.status, res.text).to.equal(201);
    expect(res.body.is_order_paid).to.equal('1');
  }

  it('when bank transfers pay 5.00 and then 35.00 of 40.00, then paid_in_full is delivered once, for the second transfer; paid still comes with the first', async () => {
    const s = await newSeller();
    await handler(s, 'paid_in_full');
    await handler(s, 'paid');
    await handler(s, 'changed');
    const orderId = await createOrder(s, { line: [{ id: 1, price: '40.00', quantity: 1 }] });

    await transfer(s, orderId, '5.00', `part-${s.id}`);
    // paid keeps its meaning: the first payment, however small.
    const paid = await waitFor(async () => deliveries(s, 'paid')[0], 'the paid notification');
    expect(bodyOf(paid)).to.deep.include({ event: { section: 'order', type: 'paid' }, order_id: orderId });
    expect(await orderEvents(s)).to.not.include(`paid_in_full:${orderId}`);

    await transfer(s, orderId, '35.00', `rest-${s.id}`);
    const full = await waitFor(async () => deliveries(s, 'paid_in_full')[0], 'the paid_in_full notification');
    expect(bodyOf(full)).to.deep.include({ event: { section: 'order', type: 'paid_in_full' }, order_id: orderId });
    expect(full.headers['x-request-id']).to.equal(`rest-${s.id}`);

    // A later change of the order paid in full is no new crossing: its changed arrives, no second paid_in_full.
    const update = await call(`order/${orderId}/`, { token: s.token, body: { order: { infos: 'packed next' } } });
    expect(update.status, update.text).to.equal(200);
    await waitFor(async () => deliveries(s, 'changed').length === 3, 'the three changed notifications');
    expect(deliveries(s, 'paid_in_full').map((r) => bodyOf(r).order_id)).to.deep.equal([orderId]);
    expect(deliveries(s, 'paid')).to.have.length(1);
  });

  it('when an order is created paid in full, then paid_in_full is delivered; one created partly paid has none', async () => {
    const s = await newSeller();
    await handler(s, 'paid_in_full');
    const partly = await createOrder(s, { paid_amount: '5.00', line: [{ id: 1, price: '40.00', quantity: 1 }] });
    const paid = await createOrder(s, { status: { is_paid: true }, line: [{ id: 1, price: '40.00', quantity: 1 }] });

    const full = await waitFor(async () => deliveries(s, 'paid_in_full')[0], 'the paid_in_full notification');
    expect(bodyOf(full)).to.deep.include({ event: { section: 'order', type: 'paid_in_full' }, order_id: paid });
    const events = await orderEvents(s);
    expect(events).to.include.members([`paid:${partly}`, `paid:${paid}`, `paid_in_full:${paid}`]);
    expect(events).to.not.include(`paid_in_full:${partly}`);
  });

  it('when paid_amount reaches the invoice by API, falls below it as a line is added and reaches it again, then each crossing is one paid_in_full', async () => {
    const s = await newSeller();
    const orderId = await createOrder(s, { line: [{ id: 1, price: '40.00', quantity: 1 }] });
    const update = async (order: Record<string, unknown>) => {
      const res = await call(`order/${orderId}/`, { token: s.token, body: { order } });
      expect(res.status, res.text).to.equal(200);
    };
    const crossings = async () => (await orderEvents(s)).filter((e) => e === `paid_in_full:${orderId}`).length;

    await update({ paid_amount: '10.00' });
    expect(await crossings()).to.equal(0);
    await update({ paid_amount: '40.00' });
    expect(await crossings()).to.equal(1);
    await update({ infos: 'still paid in full' });
    expect(await crossings()).to.equal(1);
    await update({
      line: [
        { id: 1, price: '40.00', quantity: 1 },
        { id: 2, price: '10.00', quantity: 1 },
      ],
    });
    expect(await crossings()).to.equal(1);
    // More than the invoice owes nothing either (document 1 calls it partly paid; nothing is owed).
    await update({ paid_amount: '60.00' });
    expect(await crossings()).to.equal(2);
  });
});
