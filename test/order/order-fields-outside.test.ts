/**
 * Order_type, Order_address_type and Order_line_type of document 2 field by field, as a tester
 * holding only documents 1 and 2 meets them: written values read back with their type in JSON
 * and XML, values past a bound a 400 naming the field with nothing changed, R fields ignored with
 * a warning each, and add_field[][] (array of array of string) writable in XML as it is read.
 */
import { expect } from 'chai';
import { call, newSeller, query, Seller } from '../support/api';
import { db } from '../../lib/db/knex';
import { createOrder, orderBody as orderBodyWith, readOrder } from './helpers';
import { answeredAddress } from '../support/order-address';

const xmlBody = { 'Content-Type': 'application/xml' };

/** The add_field elements of an order read as XML, as the service wrote them. */
async function addFieldXml(seller: Seller, orderId: string): Promise<string> {
  const res = await call(`order/${orderId}/?${query({ select: { add_field: 1 } })}`, { token: seller.token, headers: { Accept: 'application/xml' } });
  expect(res.status).to.equal(200);
  return (res.text.match(/(<add_field>.*<\/add_field>)/) ?? ['', ''])[1]!;
}

describe('Order_type against document 2 (fields, tried from outside)', () => {
  it('when add_field is read as XML and posted back as XML, then the order keeps the same lists of strings', async () => {
    const seller = await newSeller();
    const orderId = await createOrder(seller, { add_field: [['gift', 'yes'], ['note'], ['', 'x']] });
    const written = await addFieldXml(seller, orderId);
    expect(written).to.equal(
      '<add_field><item>gift</item><item>yes</item></add_field><add_field><item>note</item></add_field><add_field><item></item><item>x</item></add_field>'.replace(
        '<item></item>',
        '<item/>',
      ),
    );

    await call(`order/${orderId}/`, { token: seller.token, body: { order: { add_field: [] } } });
    const back = await call(`order/${orderId}/`, { token: seller.token, headers: xmlBody, body: `<request><order>${written}</order></request>` });
    expect(back.status, back.text).to.equal(200);
    expect((await readOrder(seller, orderId)).add_field).to.deep.equal([['gift', 'yes'], ['note'], ['', 'x']]);
    expect(await addFieldXml(seller, orderId)).to.equal(written);

    // One inner list alone, and one string alone: XML has no list of one.
    const single = await call(`order/${orderId}/`, {
      token: seller.token,
      headers: xmlBody,
      body: '<request><order><add_field><item>colour</item><item>red</item></add_field></order></request>',
    });
    expect(single.status, single.text).to.equal(200);
    expect((await readOrder(seller, orderId)).add_field).to.deep.equal([['colour', 'red']]);
    const one = await call(`order/${orderId}/`, {
      token: seller.token,
      headers: xmlBody,
      body: '<request><order><add_field><item>size</item></add_field></order></request>',
    });
    expect(one.status, one.text).to.equal(200);
    expect((await readOrder(seller, orderId)).add_field).to.deep.equal([['size']]);

    // A created order takes it too.
    const created = await call('order/', {
      token: seller.token,
      headers: xmlBody,
      body: '<request><order><customer><email>x@example.com</email></customer><add_field><item>a</item></add_field><add_field><item>b</item><item>c</item></add_field></order></request>',
    });
    expect(created.status, created.text).to.equal(201);
    expect((await readOrder(seller, created.body.order_id as string)).add_field).to.deep.equal([['a'], ['b', 'c']]);
  });

  it('when add_field is of the wrong shape, then 400 names the field as the client wrote it and the order is unchanged', async () => {
    const seller = await newSeller();
    const orderId = await createOrder(seller, { add_field: [['keep']] });
    for (const [body, field] of [
      [{ add_field: 'flat' }, 'order.add_field'],
      [{ add_field: [[{ a: 1 }]] }, 'order.add_field[0][0]'],
      [{ add_field: Array.from({ length: 101 }, () => ['x']) }, 'order.add_field'],
    ] as const) {
      const res = await call(`order/${orderId}/`, { token: seller.token, body: { order: body } });
      expect(res.status, JSON.stringify(body).slice(0, 40)).to.equal(400);
      expect(res.body.error!.map((e) => e.field)).to.include(field);
    }
    const xml = await call(`order/${orderId}/`, {
      token: seller.token,
      headers: xmlBody,
      body: '<request><order><add_field><item><a>1</a></item></add_field></order></request>',
    });
    expect(xml.status).to.equal(400);
    expect(xml.body.error!.map((e) => e.field)).to.deep.equal(['order.add_field.item']);
    expect((await readOrder(seller, orderId)).add_field).to.deep.equal([['keep']]);
  });

  it('when every field is written, then JSON and XML read it back with the type of document 2', async () => {
    const seller = await newSeller();
    const address = {
      name: 'Ada Buyer',
      name_2: 'c/o Post',
      street: 'Main St 1',
      street_2: 'Backyard',
      zip: '10115',
      city: 'Berlin',
      province: 'BE',
      country: 'Germany',
      country_iso2: 'de',
    };
    const orderId = await createOrder(seller, {
      current_date: '2026-11-02 09:30:00',
      platform: 'auction_a',
      infos: 'seller note',
      pack_infos: 'packed by A',
      hidden_infos: 'for software',
      payment_method_id: 'Prepayment',
      currency_id: 'chf',
      paid_amount: '3',
      customer: {
        email: 'ada@example.com',
        username: 'ada_b',
        comment: 'ring twice',
        vat_id: 'DE123',
        phone_1: '030 1',
        phone_2: '030 2',
        fax: '030 3',
        address,
      },
      shipping: { fee: 4.9, date: '2026-11-03', deliverer: 'Spedition Nord', code: 'X1', method: 'Standard', address, platform_status: 'partially_ok' },
      status: { is_checkout: true, is_packed: true, is_parked: true },
      line: [{ id: 1, name: 'Mug', sku: 'M-1', quantity: '2', price: '7.5', tax: 19, transaction_id: 'T-9' }],
      payment_provider_transaction_id: 'PP-77',
      external_order_id: 'EXT-1',
    });
    const order = await readOrder(seller, orderId);
    expect(order).to.deep.include({
      id: orderId,
      platform: 'auction_a',
      infos: 'seller note',
      pack_infos: 'packed by A',
      hidden_infos: 'for software',
      payment_method_id: 'Prepayment',
      currency_id: 'CHF',
    });
    expect(order.portal_account_id).to.equal(seller.portalAccountId);
    expect(order.current_date).to.equal('2026-11-02T09:30:00.000Z');
    expect(order.invoice_amount).to.equal('19.90');
    expect(order.paid_amount).to.equal('3.00');
    expect(order.customer).to.deep.include({ username: 'ada_b', comment: 'ring twice', vat_id: 'DE123', phone_1: '030 1', phone_2: '030 2', fax: '030 3' });
    expect(order.customer.address).to.deep.equal({ ...address, country_iso2: 'DE' });
    expect(order.shipping).to.deep.include({
      fee: '4.90',
      date: '2026-11-03',
      deliverer: 'Spedition Nord',
      code: 'X1',
      method: 'Standard',
      platform_status: 'partially_ok',
      link: [],
    });
    expect(order.status).to.deep.include({ is_checkout: true, is_packed: true, is_parked: true, is_shipped: false, is_paid: true, shipped_date: null });
    expect(order.status.packed_date).to.match(/^\d{4}-\d{2}-\d{2}T/);
    expect(order.line).to.deep.equal([
      { id: 1, name: 'Mug', sku: 'M-1', quantity: '2', price: '7.50', tax: '19.00', transaction_id: 'T-9', stock_align_id: null },
    ]);
    expect(order.invoice_number).to.be.a('number');
    expect(order.bill_date).to.match(/^\d{4}-\d{2}-\d{2}$/);
    expect(order).to.deep.include({
      payment_provider_transaction_id: 'PP-77',
      external_order_id: 'EXT-1',
      credit: { sub_id: [], main_id: null },
      bill_url: null,
    });

    const inXml = await call(`order/${orderId}/`, { token: seller.token, headers: { Accept: 'application/xml' } });
    for (const [name, value] of [
      ['invoice_amount', '19.90'],
      ['fee', '4.90'],
      ['date', '2026-11-03'],
      ['is_packed', 'true'],
      ['is_shipped', 'false'],
      ['quantity', '2'],
      ['tax', '19.00'],
      ['invoice_number', String(order.invoice_number)],
      ['country_iso2', 'DE'],
    ]) {
      expect(inXml.text, name).to.include(`<${name}>${value}</${name}>`);
    }
  });

  it('when an address is given in part, then JSON and XML answer all nine fields of Order_address_type, null (an empty element) where there is none', async () => {
    const seller = await newSeller();
    const orderId = await createOrder(seller, {
      customer: { email: 'ada@example.com', address: { name: 'Ada Buyer', city: 'Berlin' } },
      shipping: { address: { country_iso2: 'AT' } },
    });
    const order = await readOrder(seller, orderId);
    expect(order.customer!.address).to.deep.equal(answeredAddress({ name: 'Ada Buyer', city: 'Berlin' }));
    expect(order.shipping!.address).to.deep.equal(answeredAddress({ country_iso2: 'AT' }));

    const xml = await call(`order/${orderId}/`, { token: seller.token, headers: { Accept: 'application/xml' } });
    expect(xml.status).to.equal(200);
    const shipTo = xml.text.match(/<shipping>.*?<address>(.*?)<\/address>/s)![1];
    expect(shipTo).to.equal('<name/><name_2/><street/><street_2/><zip/><city/><province/><country/><country_iso2>AT</country_iso2>');

    // Posted back as read (null is "not sent"), the addresses stay as they were.
    const back = await call(`order/${orderId}/`, {
      token: seller.token,
      body: { order: { customer: order.customer, shipping: { address: order.shipping!.address } } },
    });
    expect(back.status, back.text).to.equal(200);
    const again = await readOrder(seller, orderId);
    expect([again.customer!.address, again.shipping!.address]).to.deep.equal([order.customer!.address, order.shipping!.address]);

    const none = await readOrder(seller, await createOrder(seller));
    expect([none.customer!.address, none.shipping!.address]).to.deep.equal([null, null]);
  });

  it('when a value is past its bound, then 400 names each field as written and the order is unchanged; R fields are ignored with a warning each', async () => {
    const seller = await newSeller();
    const orderId = await createOrder(seller, { infos: 'before', shipping: { fee: 1 } });
    const before = await readOrder(seller, orderId);
    const bad = await call(`order/${orderId}/`, {
      token: seller.token,
      body: {
        order: {
          infos: 'after',
          currency_id: 'EURO',
          shipping: { platform_status: 'done', date: '2026-11-31', address: { country_iso2: 'DEU' } },
          customer: { email: '', address: { country_iso2: 'D' } },
          status: { is_packed: 'perhaps' },
          line: [{ name: 'no id' }, { id: 2, quantity: 1.5 }],
          paid_amount: 'ten',
          current_date: 'tomorrow',
        },
      },
    });
    expect(bad.status).to.equal(400);
    expect([...new Set(bad.body.error!.map((e) => e.field))].sort()).to.deep.equal(
      [
        'order.currency_id',
        'order.current_date',
        'order.customer.address.country_iso2',
        'order.customer.email',
        'order.line[0].id',
        'order.line[1].quantity',
        'order.paid_amount',
        'order.shipping.address.country_iso2',
        'order.shipping.date',
        'order.shipping.platform_status',
        'order.status.is_packed',
      ].sort(),
    );
    expect(await readOrder(seller, orderId)).to.deep.equal(before);

    const readOnly = await call(`order/${orderId}/`, {
      token: seller.token,
      body: {
        order: {
          infos: 'after',
          date: '2001-01-01 00:00:00',
          invoice_number: 999,
          invoice_amount: '1.00',
          bill_url: 'https://example.com/bill.pdf',
          bill_date: '2001-01-01',
          portal_account_id: 999,
          status: { packed_date: '2001-01-01 00:00:00' },
          shipping: { link: ['https://example.com'], market_d_fba: { country_iso2: 'DE', center_id: 'LEJ1' } },
          credit: { sub_id: ['1_2001_01'] },
        },
      },
    });
    expect(readOnly.status, readOnly.text).to.equal(200);
    expect(readOnly.body.warning!.map((w) => `${w.warning} ${w.field}`).sort()).to.deep.equal(
      [
        'order.bill_date',
        'order.bill_url',
        'order.credit.sub_id',
        'order.date',
        'order.invoice_amount',
        'order.invoice_number',
        'order.portal_account_id',
        'order.shipping.link',
        'order.shipping.market_d_fba',
        'order.status.packed_date',
      ].map((f) => `read_only_field ${f}`),
    );
    const after = await readOrder(seller, orderId);
    expect(after).to.deep.equal({ ...before, infos: 'after' });
  });

  it('when a decimal has more places than it keeps, then it is rounded on its digits, half away from zero, not as a binary double', async () => {
    const seller = await newSeller();
    // As doubles 2.675 is 2.67499..., 1.005 is 1.00499...: toFixed(2) gave 2.67 and 1.00 (but 10.005 gave 10.01).
    const orderId = await createOrder(seller, {
      shipping: { fee: 1.005 },
      line: [{ id: 1, quantity: 1, price: '2.675', tax: '10,005' }],
      paid_amount: '1.015',
    });
    const order = await readOrder(seller, orderId);
    expect(order.shipping.fee).to.equal('1.01');
    expect(order.line[0]).to.deep.include({ price: '2.68', tax: '10.01' });
    expect(order.invoice_amount).to.equal('3.69');
    expect(order.paid_amount).to.equal('1.02');
  });

  it('when current_date is a day in another notation or a number, then 400 names order.current_date and the order keeps its date', async () => {
    const seller = await newSeller();
    const orderId = await createOrder(seller, { current_date: '2026-11-02 09:30:00' });
    // 01.11.2026 is 1 November to a German seller (JavaScript read it as 11 January); 1700000000 is Unix seconds.
    for (const current_date of ['01.11.2026', '11/01/2026', 'Nov 1 2026', 1700000000, '1700000000']) {
      const res = await call(`order/${orderId}/`, { token: seller.token, body: { order: { current_date } } });
      expect(res.status, `${String(current_date)}: ${res.text}`).to.equal(400);
      expect((res.body.error ?? []).map((e) => e.field)).to.deep.equal(['order.current_date']);
    }
    const xml = await call(`order/${orderId}/`, {
      token: seller.token,
      headers: xmlBody,
      body: '<request><order><current_date>01.11.2026</current_date></order></request>',
    });
    expect(xml.status, xml.text).to.equal(400);
    expect(String((await readOrder(seller, orderId)).current_date)).to.equal('2026-11-02T09:30:00.000Z');
    // The notations of ISO 8601 still go through, an offset honoured.
    const iso = await call(`order/${orderId}/`, { token: seller.token, body: { order: { current_date: '2026-11-01T23:30:00-05:00' } } });
    expect(iso.status, iso.text).to.equal(200);
    expect(String((await readOrder(seller, orderId)).current_date)).to.equal('2026-11-02T04:30:00.000Z');
  });

  it('when Order_filter_type holds several bad fields, then one 400 names every one of them as written', async () => {
    const seller = await newSeller();
    const filter = {
      status: { is_paid: 'maybe', paid_date: { 0: { value: '2026-02-30' } } },
      invoice_number: { 0: { value: 'abc' } },
      id: { 0: { value: '1_2026_11', operator: '!=' } },
      customer: { id: { 0: { value: '1', operator: '<' } } },
      colour: 'red',
    };
    const res = await call(`order/?${query({ filter })}`, { token: seller.token });
    expect(res.status).to.equal(400);
    expect(res.body.error!.map((e) => `${e.error} ${e.field}`).sort()).to.deep.equal([
      'invalid_field filter.invoice_number[0].value',
      'invalid_field filter.status.is_paid',
      'invalid_field filter.status.paid_date[0].value',
      'invalid_operator filter.customer.id[0].operator',
      'invalid_operator filter.id[0].operator',
      'unknown_filter filter.colour',
    ]);
    const objects = await call(
      `order/?${query({ filter: { 0: { status: { is_packed: 'x' } }, 1: { id: { 0: { value: '1_2026_11' } }, transaction_id: { 0: { value: 'T', operator: '~' } } } } })}`,
      { token: seller.token },
    );
    expect(objects.status).to.equal(400);
    expect(objects.body.error!.map((e) => `${e.error} ${e.field}`).sort()).to.deep.equal([
      'invalid_field filter[0].status.is_packed',
      'invalid_operator filter[1].transaction_id[0].operator',
      'singleton_filter filter[1]',
    ]);
  });
});

describe('Order_type.platform: a portal id (document 2: FK)', () => {
  const portals = ['auction_a', 'auction_b', 'market_c', 'market_d', 'market_e', 'market_f', 'shop_g', 'shop_h', 'market_i', 'webshop', 'shop'];

  it('when an order is created with a text that is no portal id, then 400 names order.platform and nothing is stored; each portal id of document 1, or none, is taken and read back', async () => {
    const seller = await newSeller();
    const count = async () => ((await db()('sales_order').where({ account_id: seller.id }).count({ n: '*' }))[0]!.n as string | number).toString();
    for (const platform of ['auction-a', 'Ebay', 'AUCTION_A', 'phone']) {
      const res = await call('order/', { token: seller.token, body: { order: { customer: { email: 'p@example.com' }, platform } } });
      expect(res.status, `${platform}: ${res.text}`).to.equal(400);
      expect(res.body.error!.map((e) => e.field)).to.deep.equal(['order.platform']);
    }
    const inXml = await call('order/', {
      token: seller.token,
      headers: xmlBody,
      body: '<request><order><customer><email>p@example.com</email></customer><platform>ebay</platform></order></request>',
    });
    expect(inXml.status, inXml.text).to.equal(400);
    expect(inXml.body.error!.map((e) => e.field)).to.deep.equal(['order.platform']);
    expect(await count()).to.equal('0');

    for (const platform of portals) expect((await readOrder(seller, await createOrder(seller, { platform }))).platform).to.equal(platform);
    const none = await createOrder(seller);
    expect((await readOrder(seller, none)).platform).to.equal(null);
    // An update sending the platform the order has is taken, as before.
    const same = await call(`order/${none}/`, { token: seller.token, body: { order: { platform: null, infos: 'by phone' } } });
    expect(same.status, same.text).to.equal(200);
  });

  it('when order/list/ creates an order with a text that is no portal id, then that item alone is a 400 naming order[n].platform', async () => {
    const seller = await newSeller();
    const res = await call('order/list/', {
      token: seller.token,
      body: { order: [orderBodyWith({ platform: 'shop_g' }), orderBodyWith({ platform: 'shopify' })] },
    });
    expect(res.status, res.text).to.equal(207);
    const parts = res.body.response as { code: number; error?: { field?: string }[] }[];
    expect(parts.map((p) => p.code)).to.deep.equal([201, 400]);
    expect((parts[1]!.error ?? []).map((e) => e.field)).to.deep.equal(['order[1].platform']);
  });
});

describe('Order_type in XML: read, then posted back as it was read', () => {
  it('when a whole order read as XML is posted back as XML, then 200 and the order reads as before (its empty elements are no value)', async () => {
    const seller = await newSeller();
    const orderId = await createOrder(seller, {
      infos: 'fragile',
      customer: { email: 'xml@example.com', address: { name: 'Anna Berg', city: 'Berlin', country_iso2: 'DE' } },
      line: [{ id: 1, name: 'Mug', price: '9.90', quantity: 2 }],
    });
    const before = await readOrder(seller, orderId);
    const read = await call(`order/${orderId}/`, { token: seller.token, headers: { Accept: 'application/xml' } });
    expect(read.status).to.equal(200);
    const order = read.text.match(/<order>.*<\/order>/s)![0];
    // What this test is about: fields without a value, written as empty elements.
    expect(order).to.include('<platform/>').and.to.include('<payment_method_id/>').and.to.include('<paid_amount/>');

    const back = await call(`order/${orderId}/`, { token: seller.token, headers: xmlBody, body: `<request>${order}</request>` });
    expect(back.status, back.text).to.equal(200);
    expect(back.body.ack).to.equal('warning');
    // The same order, but that a text without value reads '' now: XML cannot tell '' from none.
    const noneAsEmpty = (value: unknown): unknown =>
      value === null
        ? ''
        : Array.isArray(value)
          ? value.map(noneAsEmpty)
          : typeof value === 'object'
            ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, noneAsEmpty(v)]))
            : value;
    const after = await readOrder(seller, orderId);
    expect(noneAsEmpty(after)).to.deep.equal(noneAsEmpty(before));
    expect(after).to.deep.include({
      platform: null,
      payment_method_id: null,
      paid_amount: before.paid_amount,
      invoice_amount: before.invoice_amount,
      infos: 'fragile',
    });

    // An empty text element clears the text, as '' does in JSON.
    const cleared = await call(`order/${orderId}/`, { token: seller.token, headers: xmlBody, body: '<request><order><infos/></order></request>' });
    expect(cleared.status, cleared.text).to.equal(200);
    expect((await readOrder(seller, orderId)).infos).to.equal('');
    // JSON keeps its meaning: '' is no decimal.
    const json = await call(`order/${orderId}/`, { token: seller.token, body: { order: { paid_amount: '' } } });
    expect(json.status).to.equal(400);
    expect(json.body.error![0]!.field).to.equal('order.paid_amount');
  });
});
