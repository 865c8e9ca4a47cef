import { expect } from 'chai';
import { db } from '../../lib/db/knex';
import { call, newSeller, Seller, withConcurrentCalls } from '../support/api';
import { createOrder, orderBody, orderEvents, readOrder } from './helpers';

describe('order: create, read, update, delete, history', () => {
  let seller: Seller;
  beforeEach(async () => {
    seller = await newSeller();
  });

  const countOrders = async (s: Seller) => Number((await db()('sales_order').where({ account_id: s.id }).count({ n: '*' }).first())?.n);

  it('when an order is created, then it answers 201 with an id <number>_<YYYY>_<MM> and reads back every field', async () => {
    const res = await call('order/', {
      token: seller.token,
      body: {
        order: {
          platform: 'auction_a',
          infos: 'note',
          pack_infos: 'box 3',
          hidden_infos: 'x',
          payment_method_id: 'COD',
          external_order_id: 'EXT-1',
          add_field: [['gift', 'yes']],
          customer: {
            email: 'anna@example.com',
            username: 'anna_b',
            comment: 'please hurry',
            vat_id: 'DE123',
            phone_1: '0301',
            address: { name: 'Anna B', street: 'Hauptstr. 1', zip: '10115', city: 'Berlin', country: 'Deutschland', country_iso2: 'de' },
          },
          shipping: { fee: '4.90', deliverer: 'DHL', code: '00340434', method: 'parcel', date: '2026-11-22', address: { name: 'Anna B', city: 'Berlin' } },
          line: [
            { id: 2, name: 'Mug', sku: 'MUG', quantity: '2', price: '7.50', tax: '19', transaction_id: 'T-2' },
            { id: 1, name: 'Plate', quantity: 1, price: 12, tax: 19, transaction_id: 'T-1' },
          ],
        },
      },
    });
    expect(res.status, res.text).to.equal(201);
    expect(res.body.ack).to.equal('success');
    const orderId = res.body.order_id as string;
    const now = new Date();
    expect(orderId).to.equal(`1_${now.getUTCFullYear()}_${String(now.getUTCMonth() + 1).padStart(2, '0')}`);

    const order = await readOrder(seller, orderId);
    expect(order.id).to.equal(orderId);
    expect(order.portal_account_id).to.equal(seller.portalAccountId);
    expect(order.currency_id).to.equal('EUR');
    expect(order.invoice_amount).to.equal('31.90');
    expect(order.paid_amount).to.equal(null);
    expect(order.platform).to.equal('auction_a');
    expect(order.payment_method_id).to.equal('COD');
    expect(order.add_field).to.deep.equal([['gift', 'yes']]);
    expect(order.customer).to.include({ id: '1', email: 'anna@example.com', username: 'anna_b', comment: 'please hurry', vat_id: 'DE123', phone_1: '0301' });
    expect(order.customer.address).to.include({ name: 'Anna B', country_iso2: 'DE' });
    expect(order.shipping).to.include({ fee: '4.90', deliverer: 'DHL', code: '00340434', date: '2026-11-22' });
    expect(order.shipping.link).to.have.length(1);
    expect(order.line.map((l) => l.id)).to.deep.equal([1, 2]);
    expect(order.line[1]).to.deep.equal({
      id: 2,
      name: 'Mug',
      sku: 'MUG',
      quantity: '2',
      price: '7.50',
      tax: '19.00',
      transaction_id: 'T-2',
      stock_align_id: null,
    });
    expect(order.status).to.include({ is_paid: false, paid_date: null, is_shipped: false, is_cancelled: false });
    expect(order.credit).to.deep.equal({ sub_id: [], main_id: null });
    expect(Date.parse(String(order.date))).to.be.closeTo(Date.now(), 60000);
    expect(await orderEvents(seller)).to.deep.equal([`created:${orderId}`]);
  });

  it('when orders are created concurrently, then each gets its own consecutive number', async () => {
    const results = await withConcurrentCalls(8, () =>
      Promise.all(Array.from({ length: 8 }, () => call('order/', { token: seller.token, body: { order: orderBody() } }))),
    );
    expect(results.map((r) => r.status)).to.deep.equal(Array(8).fill(201));
    const numbers = results.map((r) => Number(String(r.body.order_id).split('_')[0])).sort((a, b) => a - b);
    expect(numbers).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('when customer.email is missing, empty or null, then 400 names order.customer.email and nothing is stored', async () => {
    // null means absent (as in what the service answers): a null customer is a missing one.
    for (const customer of [undefined, null, {}, { email: '' }, { email: '   ' }, { email: null }]) {
      const res = await call('order/', { token: seller.token, body: { order: { customer, infos: 'x' } } });
      expect(res.status, res.text).to.equal(400);
      expect(res.body.error![0]!.field).to.equal(customer === undefined || customer === null ? 'order.customer' : 'order.customer.email');
    }
    expect(await countOrders(seller)).to.equal(0);
    expect(await orderEvents(seller)).to.deep.equal([]);
  });

  it('when read-only fields are sent, then each is named in a warning and none is written', async () => {
    const res = await call('order/', {
      token: seller.token,
      body: {
        order: orderBody({
          id: '99_2020_01',
          invoice_amount: '1000.00',
          invoice_number: 77,
          status: { is_packed: true, packed_date: '2020-01-01' },
          bill_date: '2020-01-01',
        }),
      },
    });
    expect(res.status, res.text).to.equal(201);
    expect(res.body.ack).to.equal('warning');
    expect(res.body.warning!.map((w) => w.field)).to.have.members([
      'order.id',
      'order.invoice_amount',
      'order.invoice_number',
      'order.status.packed_date',
      'order.bill_date',
    ]);
    const order = await readOrder(seller, res.body.order_id as string);
    expect(order.id).to.not.equal('99_2020_01');
    expect(order.invoice_amount).to.equal('0.00');
    expect(order.invoice_number).to.equal(null);
    expect(order.status.is_packed).to.equal(true);
    expect(order.status.packed_date).to.not.equal('2020-01-01');
  });

  it('when a field has a wrong type or an unknown name, then 400 names it and nothing is stored', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ paid_amount: 'lots' }, 'order.paid_amount'],
      [{ line: [{ id: 1, quantity: -1 }] }, 'order.line[0].quantity'],
      [{ line: [{ name: 'no id' }] }, 'order.line[0].id'],
      [{ line: [{ id: 1 }, { id: 1 }] }, 'order.line[1].id'],
      [{ status: { is_shipped: 'maybe' } }, 'order.status.is_shipped'],
      [{ currency_id: 'QQQ' }, 'order.currency_id'],
      [{ payment_method_id: 'Gold' }, 'order.payment_method_id'],
      [{ colour: 'red' }, 'order.colour'],
      [{ line: [{ id: 1, quantity: 1000000, price: '99999999999.00' }] }, 'order.line'],
      [{ paid_amount: '-1' }, 'order.paid_amount'],
      [{ current_date: -1e15 }, 'order.current_date'],
      [{ current_date: 'soon' }, 'order.current_date'],
      [{ customer: { email: 'a@b.c', address: { country_iso2: 'DEU' } } }, 'order.customer.address.country_iso2'],
      [{ shipping: { platform_status: 'fine' } }, 'order.shipping.platform_status'],
    ];
    for (const [fields, field] of cases) {
      const res = await call('order/', { token: seller.token, body: { order: orderBody(fields) } });
      expect(res.status, `${JSON.stringify(fields)}: ${res.text}`).to.equal(400);
      expect(res.body.error!.map((e) => e.field)).to.include(field);
    }
    expect(await countOrders(seller)).to.equal(0);
  });

  it('when credit.main_id names an order, then that order lists this one in credit.sub_id; an unknown one is a 404 naming it', async () => {
    const main = await createOrder(seller);
    const credit = await createOrder(seller, { credit: { main_id: main } });
    expect((await readOrder(seller, main)).credit).to.deep.equal({ sub_id: [credit], main_id: null });
    expect((await readOrder(seller, credit)).credit).to.deep.equal({ sub_id: [], main_id: main });
    const other = await newSeller();
    await createOrder(other);
    await createOrder(other);
    // Number 3 exists only in the other account.
    const foreign = await createOrder(other);
    const res = await call('order/', { token: seller.token, body: { order: orderBody({ credit: { main_id: foreign } }) } });
    expect(res.status, res.text).to.equal(404);
    expect(res.body.error![0]).to.include({ field: 'order.credit.main_id', error: 'unknown_order', code: 404 });
  });

  it('when the order a credit note was made from is deleted, then the note reads credit.main_id null and its read body posts back with 200', async () => {
    const main = await createOrder(seller);
    const credit = await createOrder(seller, { credit: { main_id: main }, infos: 'refund' });
    const deleted = await call(`order/${main}/`, { token: seller.token, method: 'DELETE' });
    expect(deleted.status, deleted.text).to.equal(200);
    const note = await readOrder(seller, credit);
    expect(note.credit).to.deep.equal({ sub_id: [], main_id: null });
    const back = await call(`order/${credit}/`, { token: seller.token, body: { order: note } });
    expect(back.status, back.text).to.equal(200);
    expect((await readOrder(seller, credit)).infos).to.equal('refund');
  });

  it('when an update names the order itself as its credit.main_id, then 400 names the field and the order keeps its main', async () => {
    const main = await createOrder(seller);
    const credit = await createOrder(seller, { credit: { main_id: main } });
    const res = await call(`order/${credit}/`, { token: seller.token, body: { order: { credit: { main_id: credit }, infos: 'x' } } });
    expect(res.status, res.text).to.equal(400);
    expect(res.body.error!.map((e) => [e.error, e.field])).to.deep.equal([['invalid_field', 'order.credit.main_id']]);
    const note = await readOrder(seller, credit);
    expect([note.credit, note.infos]).to.deep.equal([{ sub_id: [], main_id: main }, null]);
  });

  it('when currency_id is given, then the order keeps it', async () => {
    const orderId = await createOrder(seller, { currency_id: 'usd' });
    expect((await readOrder(seller, orderId)).currency_id).to.equal('USD');
  });

  it('when an order is updated, then the fields sent change, the rest stays, and a changed event is queued', async () => {
    const orderId = await createOrder(seller, { infos: 'a', pack_infos: 'p', line: [{ id: 1, price: '10', quantity: 1 }] });
    const res = await call(`order/${orderId}/`, { token: seller.token, body: { order: { infos: 'b', shipping: { fee: '5' } } } });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.order_id).to.equal(orderId);
    const order = await readOrder(seller, orderId);
    expect(order).to.include({ infos: 'b', pack_infos: 'p', invoice_amount: '15.00' });
    expect(await orderEvents(seller)).to.deep.equal([`created:${orderId}`, `changed:${orderId}`]);
  });

  it('when lines are sent on update, then they replace the lines and invoice_amount follows', async () => {
    const orderId = await createOrder(seller, {
      line: [
        { id: 1, price: '10', quantity: 1 },
        { id: 2, price: '1', quantity: 1 },
      ],
    });
    await call(`order/${orderId}/`, { token: seller.token, body: { order: { line: [{ id: 3, price: '2.50', quantity: 4 }] } } });
    const order = await readOrder(seller, orderId);
    expect(order.line.map((l) => l.id)).to.deep.equal([3]);
    expect(order.invoice_amount).to.equal('10.00');
  });

  it('when history is passed at creation, then it is written; later entries come only through order/{id}/history/', async () => {
    const orderId = await createOrder(seller, { history: ['imported', 'checked'] });
    expect((await readOrder(seller, orderId)).history).to.deep.equal(['imported', 'checked']);

    const update = await call(`order/${orderId}/`, { token: seller.token, body: { order: { history: ['sneaky'] } } });
    expect(update.status).to.equal(200);
    expect(update.body.warning!.map((w) => w.field)).to.deep.equal(['order.history']);

    const append = await call(`order/${orderId}/history/`, { token: seller.token, body: { text: 'mail sent' } });
    expect(append.status, append.text).to.equal(200);
    const history = await call(`order/${orderId}/history/`, { token: seller.token });
    expect(history.status).to.equal(200);
    expect(history.body.history).to.deep.equal(['imported', 'checked', 'mail sent']);

    const empty = await call(`order/${orderId}/history/`, { token: seller.token, body: { text: '' } });
    expect(empty.status).to.equal(400);
    expect(empty.body.error![0]!.field).to.equal('text');
  });

  it('when an order is deleted, then it is gone and later reads are 404', async () => {
    const orderId = await createOrder(seller, { history: ['x'], line: [{ id: 1 }] });
    const res = await call(`order/${orderId}/`, { token: seller.token, method: 'DELETE' });
    expect(res.status, res.text).to.equal(200);
    expect((await call(`order/${orderId}/`, { token: seller.token })).status).to.equal(404);
    expect((await call(`order/${orderId}/`, { token: seller.token, method: 'DELETE' })).status).to.equal(404);
    expect(await countOrders(seller)).to.equal(0);
  });

  it("when another account's order is read, changed, deleted or its history used, then 404 exactly as for an absent one", async () => {
    const other = await newSeller();
    const orderId = await createOrder(other, { infos: 'secret' });
    const absent = await call('order/999_2020_01/', { token: seller.token });
    for (const res of [
      await call(`order/${orderId}/`, { token: seller.token }),
      await call(`order/${orderId}/`, { token: seller.token, body: { order: { infos: 'mine' } } }),
      await call(`order/${orderId}/`, { token: seller.token, method: 'DELETE' }),
      await call(`order/${orderId}/history/`, { token: seller.token }),
      await call(`order/${orderId}/history/`, { token: seller.token, body: { text: 'x' } }),
    ]) {
      expect(res.status).to.equal(404);
      expect(res.body.error![0]!.error).to.equal(absent.body.error![0]!.error);
    }
    expect((await readOrder(other, orderId)).infos).to.equal('secret');
  });

  it('when the order id in the path is malformed, then 404', async () => {
    for (const id of ['abc', '1_2026', '0_2026_01', '1_2026_01_2', "1'--"]) {
      expect((await call(`order/${encodeURIComponent(id)}/`, { token: seller.token })).status, id).to.equal(404);
    }
  });

  it('when a method a path does not support is used, then 405 with Allow; OPTIONS gives the overview', async () => {
    const list = await call('order/list/', { token: seller.token });
    expect(list.status).to.equal(405);
    expect(list.headers.get('allow')).to.equal('POST, OPTIONS');
    const remove = await call('order/', { token: seller.token, method: 'DELETE' });
    expect(remove.status).to.equal(405);
    const options = await call('order/{order_id}/'.replace('{order_id}', '1_2026_01'), { token: seller.token, method: 'OPTIONS' });
    expect(options.status).to.equal(200);
    expect(options.headers.get('allow')).to.equal('GET, POST, DELETE, OPTIONS');
  });

  it('when the token lacks order_w, then writing is 403 and reading with order_r works', async () => {
    const reader = await newSeller('order_r');
    expect((await call('order/', { token: reader.token, body: { order: orderBody() } })).status).to.equal(403);
    expect((await call('order/', { token: reader.token })).status).to.equal(200);
  });
});

describe('order: posting back what was read, XML', () => {
  let seller: Seller;
  beforeEach(async () => {
    seller = await newSeller();
  });

  it('when an order read from the service is posted back unchanged, then it is accepted with read-only warnings and nothing changes', async () => {
    const orderId = await createOrder(seller, {
      platform: 'webshop',
      paid_amount: '3',
      history: ['a'],
      status: { is_packed: true },
      shipping: { fee: '1', deliverer: 'DHL', code: '1' },
      line: [{ id: 1, quantity: 2, price: '1.00' }],
    });
    const before = await readOrder(seller, orderId);
    const res = await call(`order/${orderId}/`, { token: seller.token, body: { order: before } });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.warning!.map((w) => w.field)).to.include.members([
      'order.id',
      'order.invoice_amount',
      'order.history',
      'order.shipping.link',
      'order.status.packed_date',
    ]);
    const after = await readOrder(seller, orderId);
    expect(after).to.deep.equal(before);

    const bulk = await call('order/list/', { token: seller.token, body: { order: [after] } });
    expect((bulk.body.response as { code: number }[])[0]!.code).to.equal(200);
    expect(await readOrder(seller, orderId)).to.deep.equal(before);
  });

  it('when an order is created in XML, then single elements count as lists and text values are converted', async () => {
    const xml =
      '<?xml version="1.0" encoding="UTF-8"?><request><order><customer><email>x@example.com</email></customer>' +
      '<status><is_checkout>1</is_checkout></status><line><id>1</id><quantity>3</quantity><price>2.50</price></line></order></request>';
    const res = await call('order/', { token: seller.token, body: xml, headers: { 'Content-Type': 'application/xml', Accept: 'application/json' } });
    expect(res.status, res.text).to.equal(201);
    const order = await readOrder(seller, res.body.order_id as string);
    expect(order.invoice_amount).to.equal('7.50');
    expect(order.status.is_checkout).to.equal(true);
    expect(order.line).to.have.length(1);
  });
});
