import { expect } from 'chai';
import { call, newSeller, Seller } from '../support/api';
import { createOrder, orderEvents, readOrder } from './helpers';

const today = () => new Date().toISOString().slice(0, 10);

describe('order: status flags, paid state, invoice numbers, unchangeable fields', () => {
  let seller: Seller;
  beforeEach(async () => {
    seller = await newSeller();
  });

  const update = (orderId: string, order: Record<string, unknown>) => call(`order/${orderId}/`, { token: seller.token, body: { order } });
  const line = { id: 1, quantity: 2, price: '10.00' };

  it('when is_paid is set at creation, then the order is fully paid with paid_date, an invoice number and bill_date, and the events paid and paid_in_full', async () => {
    const orderId = await createOrder(seller, { line: [line], status: { is_paid: true } });
    const order = await readOrder(seller, orderId);
    expect(order.status.is_paid).to.equal(true);
    expect(order.paid_amount).to.equal('20.00');
    expect(order.status.paid_date).to.be.a('string');
    expect(order.invoice_number).to.equal(1);
    expect(order.bill_date).to.equal(today());
    expect(await orderEvents(seller)).to.deep.equal([`created:${orderId}`, `paid:${orderId}`, `paid_in_full:${orderId}`]);
  });

  it('when is_paid is sent on update with another value, then 400 names order.status.is_paid; the same value is accepted', async () => {
    const orderId = await createOrder(seller, { line: [line] });
    const res = await update(orderId, { status: { is_paid: true } });
    expect(res.status).to.equal(400);
    expect(res.body.error![0]).to.include({ field: 'order.status.is_paid', error: 'not_changeable' });
    expect((await readOrder(seller, orderId)).status.is_paid).to.equal(false);
    expect((await update(orderId, { status: { is_paid: false }, infos: 'ok' })).status).to.equal(200);
  });

  it('when paid_amount equals invoice_amount, then the order is paid; another value marks it partially paid', async () => {
    const full = await createOrder(seller, { line: [line] });
    expect((await update(full, { paid_amount: '20.00' })).status).to.equal(200);
    let order = await readOrder(seller, full);
    expect(order).to.include({ paid_amount: '20.00', invoice_amount: '20.00', invoice_number: 1, bill_date: today() });
    expect(order.status.is_paid).to.equal(true);
    expect(order.status.paid_date).to.be.a('string');

    const partial = await createOrder(seller, { line: [line] });
    expect((await update(partial, { paid_amount: '5' })).status).to.equal(200);
    order = await readOrder(seller, partial);
    expect(order).to.include({ paid_amount: '5.00', invoice_number: 2 });
    expect(order.status.is_paid).to.equal(true);

    // The rest arrives later: still the same invoice number, no second paid event.
    expect((await update(partial, { paid_amount: '20' })).status).to.equal(200);
    order = await readOrder(seller, partial);
    expect(order).to.include({ paid_amount: '20.00', invoice_number: 2 });
    const events = await orderEvents(seller);
    expect(events.filter((e) => e === `paid:${partial}`)).to.have.length(1);
    expect(events.filter((e) => e === `paid:${full}`)).to.have.length(1);
  });

  it('when paid_amount is set to 0, then the order is no longer paid but keeps its invoice number', async () => {
    const orderId = await createOrder(seller, { line: [line], paid_amount: '20' });
    expect((await update(orderId, { paid_amount: 0 })).status).to.equal(200);
    const order = await readOrder(seller, orderId);
    expect(order.status).to.include({ is_paid: false, paid_date: null });
    expect(order.invoice_number).to.equal(1);
  });

  it('when a free order (invoice 0.00) is sent with paid_amount 0.00, at creation or later, then it is paid in full like one marked is_paid', async () => {
    const free = { id: 1, quantity: 1, price: '0.00' };
    const marked = await createOrder(seller, { line: [free], status: { is_paid: true } });
    const sent = await createOrder(seller, { line: [free], paid_amount: '0.00' });
    const later = await createOrder(seller, { line: [free] });
    expect((await readOrder(seller, later)).status.is_paid).to.equal(false);
    expect((await update(later, { paid_amount: '0' })).status).to.equal(200);
    for (const orderId of [marked, sent, later]) {
      const order = await readOrder(seller, orderId);
      expect(order, orderId).to.include({ paid_amount: '0.00', invoice_amount: '0.00', bill_date: today() });
      expect(order.status.is_paid, orderId).to.equal(true);
      expect(order.invoice_number, orderId).to.be.a('number');
      expect(await orderEvents(seller), orderId).to.include.members([`paid:${orderId}`, `paid_in_full:${orderId}`]);
    }
    // A paid order of 20.00 set to 0 is still unpaid again.
    const owed = await createOrder(seller, { line: [line], paid_amount: '20' });
    expect((await update(owed, { paid_amount: '0.00' })).status).to.equal(200);
    expect((await readOrder(seller, owed)).status.is_paid).to.equal(false);
  });

  it('when a prepaid payment method is chosen, at creation or later, then the order is paid', async () => {
    const atCreation = await createOrder(seller, { line: [line], payment_method_id: 'CCAccepted' });
    expect((await readOrder(seller, atCreation)).status.is_paid).to.equal(true);
    expect((await readOrder(seller, atCreation)).paid_amount).to.equal('20.00');

    const later = await createOrder(seller, { line: [line], payment_method_id: 'COD' });
    expect((await readOrder(seller, later)).status.is_paid).to.equal(false);
    expect((await update(later, { payment_method_id: 'Escrow' })).status).to.equal(200);
    const order = await readOrder(seller, later);
    expect(order.status.is_paid).to.equal(true);
    expect(order.invoice_number).to.equal(2);
  });

  it('when platform or payment_provider_transaction_id is changed once set, then 400 names the field; setting the same value or a first value works', async () => {
    const orderId = await createOrder(seller, { platform: 'auction_a' });
    for (const [fields, field] of [
      [{ platform: 'market_c' }, 'order.platform'],
      [{ payment_provider_transaction_id: 'B' }, 'order.payment_provider_transaction_id'],
    ] as const) {
      if (field === 'order.payment_provider_transaction_id') expect((await update(orderId, { payment_provider_transaction_id: 'A' })).status).to.equal(200);
      const res = await update(orderId, fields);
      expect(res.status, res.text).to.equal(400);
      expect(res.body.error![0]).to.include({ field, error: 'not_changeable' });
    }
    expect((await update(orderId, { platform: 'auction_a', payment_provider_transaction_id: 'A' })).status).to.equal(200);
    const order = await readOrder(seller, orderId);
    expect(order).to.include({ platform: 'auction_a', payment_provider_transaction_id: 'A' });
  });

  it('when an order created without platform is given one on update (POST order/{id}/ or order/list/), then 400 not_changeable names order.platform and nothing changes', async () => {
    const orderId = await createOrder(seller, { infos: 'before' });
    const res = await update(orderId, { platform: 'auction_a', infos: 'after' });
    expect(res.status, res.text).to.equal(400);
    expect(res.body.ack).to.equal('error');
    expect(res.body.error![0]).to.include({ field: 'order.platform', error: 'not_changeable', code: 400 });
    const list = await call('order/list/', { token: seller.token, body: { order: [{ id: orderId, platform: 'market_c' }] } });
    expect(list.status, list.text).to.equal(207);
    const [item] = list.body.response as { path: string; code: number; error: { field: string; error: string }[] }[];
    expect(item).to.include({ path: 'order[0]', code: 400 });
    expect(item!.error[0]).to.include({ field: 'order[0].platform', error: 'not_changeable' });
    expect(await readOrder(seller, orderId)).to.include({ platform: null, infos: 'before' });
    expect(await orderEvents(seller)).to.deep.equal([`created:${orderId}`]);
  });

  it('when a flag is set, then its date is set, kept while the flag stays, cleared when unset, and packed/shipped/cancelled events are queued', async () => {
    const orderId = await createOrder(seller);
    expect((await update(orderId, { status: { is_packed: true, is_initial_contact: true, is_checkout: true, is_parked: true } })).status).to.equal(200);
    const packed = await readOrder(seller, orderId);
    expect(packed.status).to.include({ is_packed: true, is_initial_contact: true, is_checkout: true, is_parked: true });
    expect(packed.status.packed_date).to.be.a('string');
    expect(packed.status.initial_contact_date).to.be.a('string');

    expect((await update(orderId, { status: { is_packed: true, is_shipped: true } })).status).to.equal(200);
    const shipped = await readOrder(seller, orderId);
    expect(shipped.status.packed_date).to.equal(packed.status.packed_date);
    expect(shipped.status.shipped_date).to.be.a('string');

    expect((await update(orderId, { status: { is_arrived: true } })).status).to.equal(200);
    expect((await readOrder(seller, orderId)).status.arrived_date).to.be.a('string');

    expect((await update(orderId, { status: { is_packed: false } })).status).to.equal(200);
    expect((await readOrder(seller, orderId)).status).to.include({ is_packed: false, packed_date: null });
    expect(await orderEvents(seller)).to.deep.equal([
      `created:${orderId}`,
      `packed:${orderId}`,
      `changed:${orderId}`,
      `shipped:${orderId}`,
      `changed:${orderId}`,
      `changed:${orderId}`,
      `changed:${orderId}`,
    ]);
  });

  it('when a cancelled order is shipped, or a shipped order cancelled, then 400 names the flag and nothing changes', async () => {
    const cancelled = await createOrder(seller, { status: { is_cancelled: true } });
    let res = await update(cancelled, { status: { is_shipped: true } });
    expect(res.status).to.equal(400);
    expect(res.body.error![0]).to.include({ field: 'order.status.is_shipped', error: 'status_conflict' });

    const shipped = await createOrder(seller, { status: { is_shipped: true } });
    res = await update(shipped, { status: { is_cancelled: true } });
    expect(res.status).to.equal(400);
    expect(res.body.error![0]).to.include({ field: 'order.status.is_cancelled', error: 'status_conflict' });
    expect((await readOrder(seller, shipped)).status.is_cancelled).to.equal(false);

    res = await call('order/', { token: seller.token, body: { order: { customer: { email: 'a@b.c' }, status: { is_shipped: true, is_cancelled: true } } } });
    expect(res.status).to.equal(400);
  });

  it('when an update is refused, then none of its other changes or events are kept', async () => {
    const orderId = await createOrder(seller, { infos: 'before', status: { is_shipped: true } });
    const res = await update(orderId, { infos: 'after', paid_amount: '1', status: { is_cancelled: true } });
    expect(res.status).to.equal(400);
    const order = await readOrder(seller, orderId);
    expect(order).to.include({ infos: 'before', paid_amount: null, invoice_number: null });
    expect(await orderEvents(seller)).to.deep.equal([`created:${orderId}`, `shipped:${orderId}`]);
  });

  it('when is_arrived is sent with is_shipped false, or is_shipped unset on an arrived order, then 400 names is_shipped and nothing changes', async () => {
    const orderId = await createOrder(seller);
    let res = await update(orderId, { status: { is_shipped: false, is_arrived: true } });
    expect(res.status).to.equal(400);
    expect(res.body.error![0]).to.include({ field: 'order.status.is_shipped', error: 'status_conflict' });
    expect((await readOrder(seller, orderId)).status).to.include({ is_shipped: false, is_arrived: false });
    expect((await update(orderId, { status: { is_shipped: true, is_arrived: true } })).status).to.equal(200);
    res = await update(orderId, { status: { is_shipped: false } });
    expect(res.status).to.equal(400);
    expect(res.body.error![0]!.field).to.equal('order.status.is_shipped');
    expect((await readOrder(seller, orderId)).status).to.include({ is_shipped: true, is_arrived: true });
  });

  /** A body exactly as real clients send it: the flag as 1, not true. */
  const rawJson = (path: string, json: string) => call(path, { token: seller.token, headers: { 'Content-Type': 'application/json' }, body: json });

  it('when an order is created with status.is_arrived 1 alone, then it is shipped and arrived with both dates and a shipped event', async () => {
    const res = await rawJson('order/', '{"order":{"customer":{"email":"buyer@example.com"},"status":{"is_arrived":1}}}');
    expect(res.status, res.text).to.equal(201);
    const orderId = res.body.order_id as string;
    const { status } = await readOrder(seller, orderId);
    expect(status).to.include({ is_shipped: true, is_arrived: true });
    expect(status.shipped_date).to.be.a('string');
    expect(status.arrived_date).to.be.a('string');
    expect(await orderEvents(seller)).to.deep.equal([`created:${orderId}`, `shipped:${orderId}`]);
  });

  it('when an unshipped order is updated with status.is_arrived 1 alone, then it is shipped and arrived with both dates', async () => {
    const orderId = await createOrder(seller);
    const res = await rawJson(`order/${orderId}/`, '{"order":{"status":{"is_arrived":1}}}');
    expect(res.status, res.text).to.equal(200);
    const { status } = await readOrder(seller, orderId);
    expect(status).to.include({ is_shipped: true, is_arrived: true });
    expect(status.shipped_date).to.be.a('string');
    expect(status.arrived_date).to.be.a('string');
    expect(await orderEvents(seller)).to.deep.equal([`created:${orderId}`, `shipped:${orderId}`, `changed:${orderId}`]);
  });

  it('when a cancelled order gets status.is_arrived 1 alone, then 400 names is_arrived and nothing changes', async () => {
    const orderId = await createOrder(seller, { status: { is_cancelled: true } });
    const res = await rawJson(`order/${orderId}/`, '{"order":{"status":{"is_arrived":1}}}');
    expect(res.status).to.equal(400);
    expect(res.body.error![0]).to.include({ field: 'order.status.is_arrived', error: 'status_conflict' });
    expect((await readOrder(seller, orderId)).status).to.include({ is_cancelled: true, is_shipped: false, is_arrived: false, shipped_date: null });
  });

  it('when a cancellation is undone, then the order is open again and cancelled_date cleared', async () => {
    const orderId = await createOrder(seller, { status: { is_cancelled: true } });
    expect((await readOrder(seller, orderId)).status.cancelled_date).to.be.a('string');
    expect((await update(orderId, { status: { is_cancelled: false } })).status).to.equal(200);
    expect((await readOrder(seller, orderId)).status).to.include({ is_cancelled: false, cancelled_date: null });
    expect(await orderEvents(seller)).to.deep.equal([`created:${orderId}`, `cancelled:${orderId}`, `changed:${orderId}`]);
  });
});
