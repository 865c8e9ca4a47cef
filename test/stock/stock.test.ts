import { expect } from 'chai';
import { db } from '../../lib/db/knex';
import { call, newSeller, query, Seller } from '../support/api';
import { asXmlRequest, ciaRows, createItem, fullItem, fullItemReferences, historyOf, readItem, withoutModifiedTime, writtenToday } from './helpers';
import { answered, answeredUndated } from './stock-groups';

describe('stock items: GET/POST/DELETE stock/ and stock/{stock_id}/', () => {
  let seller: Seller;
  beforeEach(async () => {
    seller = await newSeller();
  });

  it('when a full item is created, then it reads back with every group, computed quantity_available and lister ids', async () => {
    const res = await call('stock/', { token: seller.token, body: { stock: fullItem(seller.portalAccountId, await fullItemReferences(seller)) } });
    expect(res.status, res.text).to.equal(201);
    expect(res.body.ack).to.equal('success');
    const listerIds = res.body.lister_id as number[];
    expect(listerIds).to.have.length(4);
    const item = await readItem(seller, res.body.stock_id as number);
    expect(item).to.include({ id: String(res.body.stock_id), name: 'Espresso cup', sku: 'CUP-ESP', price: '12.90', folder: '/kitchen/cups', quantity: 20 });
    // 20 - 3 - 1 reserved - 2 listed at auction_a
    expect(item.quantity_available).to.equal(14);
    expect(item.market_i).to.deep.include({ tax_id: 1 });
    expect((item.webshop as object[]).map(withoutModifiedTime)).to.deep.equal(
      (fullItem(seller.portalAccountId, []).webshop as Record<string, unknown>[]).map((entry) => answeredUndated('webshop', entry)),
    );
    // Document 2: webshop and lister entries carry modified_time (R), the day they were written.
    expect(writtenToday()).to.include((item.auction_a as { modified_time?: string }[])[0]!.modified_time);
    expect((item.auction_a as { lister_id: string }[])[0]!.lister_id).to.equal(String(listerIds[0]));
    expect(item.variation).to.deep.equal({ type: 'main', sub: [], specifics_set: { name_value: [{ name: 'colour', value: ['white', 'black'] }] } });
    expect(item.set).to.deep.equal({ type: ['none'] });
    expect(item.customs).to.deep.equal(
      answered('customs', [{ client_id: 'customs-1', description: 'porcelain cup', hs_code: '691110', origin_country_iso2: 'DE' }]),
    );
  });

  it('when an item read is posted back unchanged, then read-only fields are answered with a warning each and nothing changes', async () => {
    const id = await createItem(seller, fullItem(seller.portalAccountId, await fullItemReferences(seller)));
    const item = await readItem(seller, id);
    const res = await call(`stock/${id}/`, { token: seller.token, body: { stock: item } });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.ack).to.equal('warning');
    const fields = res.body.warning!.map((w) => w.field);
    expect(fields).to.include.members(['stock.id', 'stock.quantity_available']);
    expect(await readItem(seller, id)).to.deep.equal(item);
  });

  it('when write-only picture fields are sent, then they act but are never returned', async () => {
    const id = await createItem(seller, { name: 'P', picture: { id: ['u1', 'u2'], small: 'u1', is_upload_to_drive: true } });
    await call(`stock/${id}/`, { token: seller.token, body: { stock: { picture: { delete_id: ['u1'] } } } });
    expect((await readItem(seller, id)).picture).to.deep.equal(answered('picture', { id: ['u2'] }));
  });

  it('when picture.id holds more than 12 URLs (document 1, Limits: up to 12 per stock record), then 400 names stock.picture.id and nothing is stored', async () => {
    const urls = (n: number) => Array.from({ length: n }, (_, i) => `https://img.example/${i + 1}.jpg`);
    const id = await createItem(seller, { name: 'P', picture: { id: urls(12) } });
    expect((await readItem(seller, id)).picture).to.deep.equal(answered('picture', { id: urls(12) }));
    const changed = await call(`stock/${id}/`, { token: seller.token, body: { stock: { name: 'Q', picture: { id: urls(13) } } } });
    expect(changed.status, changed.text).to.equal(400);
    expect(changed.body.ack).to.equal('error');
    expect(changed.body.error).to.have.length(1);
    expect(changed.body.error![0]).to.include({ error: 'invalid_field', field: 'stock.picture.id', code: 400 });
    expect(await readItem(seller, id)).to.deep.include({ name: 'P', picture: answered('picture', { id: urls(12) }) });
    const created = await call('stock/', { token: seller.token, body: { stock: { name: 'R', picture: { id: urls(13) } } } });
    expect(created.status, created.text).to.equal(400);
    expect(created.body.error![0]).to.include({ field: 'stock.picture.id' });
    const { body } = await call('stock/?select[name]=', { token: seller.token });
    expect((body.stock as { name: string }[]).map((s) => s.name)).to.deep.equal(['P']);
  });

  it('when values break types, lengths or enums, then 400 names each field and nothing is stored', async () => {
    const res = await call('stock/', {
      token: seller.token,
      body: {
        stock: {
          name: 'x'.repeat(256),
          price: '1234567890123',
          supplier: { price: 'cheap' },
          quantity: 2147483648,
          condition_id: 1e12,
          content: { type: 'litre' },
          shipping: { group_id: [1, 2, 3, 4] },
          market_i: { picture: ['a'] },
          auction_a: [{ duration: '2', payment: { id: ['autopay'] }, refund: { policy_id: 16 } }],
        },
      },
    });
    expect(res.status).to.equal(400);
    expect(res.body.error!.map((e) => e.field)).to.include.members([
      'stock.name',
      'stock.price',
      'stock.supplier.price',
      'stock.quantity',
      'stock.condition_id',
      'stock.content.type',
      'stock.shipping.group_id',
      'stock.market_i.picture',
      'stock.auction_a[0].duration',
      'stock.auction_a[0].payment.id',
      'stock.auction_a[0].refund.policy_id',
    ]);
    expect(await db()('stock').where('account_id', seller.id)).to.have.length(0);
  });

  it('when an unknown field is sent, then 400 names it', async () => {
    const res = await call('stock/', { token: seller.token, body: { stock: { name: 'x', colour: 'red' } } });
    expect(res.status).to.equal(400);
    expect(res.body.error![0]!.field).to.equal('stock.colour');
  });

  it('when an item is updated partly, then the fields not sent are kept and groups merge', async () => {
    const id = await createItem(seller, { name: 'Lamp', sku: 'L', market_d: { sku: 'A1', price: '3.00' }, location: { area: 'B' } });
    const res = await call(`stock/${id}/`, { token: seller.token, body: { stock: { market_d: { price: '4.00' }, folder: 'lights' } } });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.stock_id).to.equal(id);
    const item = await readItem(seller, id);
    expect(item).to.include({ name: 'Lamp', sku: 'L', folder: '/lights' });
    expect(item.market_d).to.deep.equal(answered('market_d', { sku: 'A1', price: '4.00' }));
    expect(item.location).to.deep.equal(answered('location', { area: 'B' }));
  });

  it('when {stock_id} is a prefixed identifier, then it finds the item; several matches answer 300; bad or foreign ids 404', async () => {
    const id = await createItem(seller, { name: 'Pen', sku: 'PEN-1', barcode: '0012345678905', mpn: 'M1', market_d: { sku: 'AZ1' } });
    for (const ref of [`${id}`, `ID_${id}`, 'EAN_0012345678905', 'SKU_PEN-1', 'MPN_M1', 'MKTDSKU_AZ1']) {
      const res = await call(`stock/${encodeURIComponent(ref)}/`, { token: seller.token });
      expect(res.status, ref).to.equal(200);
      expect((res.body.stock as { id: string }).id).to.equal(String(id));
    }
    await createItem(seller, { name: 'Pen 2', sku: 'PEN-1' });
    const ambiguous = await call('stock/SKU_PEN-1/', { token: seller.token });
    expect(ambiguous.status).to.equal(300);
    expect(ambiguous.body.error![0]!.error).to.equal('ambiguous_id');
    for (const ref of ['SKU_NONE', 'abc', '99999999999', 'ID_']) expect((await call(`stock/${ref}/`, { token: seller.token })).status, ref).to.equal(404);
    const other = await newSeller();
    const foreign = await call(`stock/${id}/`, { token: other.token });
    expect(foreign.status).to.equal(404);
    expect((await call(`stock/${id}/`, { token: other.token, method: 'DELETE' })).status).to.equal(404);
    expect((await call(`stock/${id}/`, { token: other.token, body: { stock: { name: 'mine' } } })).status).to.equal(404);
    expect((await readItem(seller, id)).name).to.equal('Pen');
  });

  it('when an item is deleted, then it is gone and CIA hears of it', async () => {
    const id = await createItem(seller, { name: 'Gone', quantity: 2 });
    const res = await call(`stock/${id}/`, { token: seller.token, method: 'DELETE' });
    expect(res.status).to.equal(200);
    expect((await call(`stock/${id}/`, { token: seller.token })).status).to.equal(404);
    expect((await ciaRows(seller)).at(-1)).to.deep.equal({ accountId: seller.id, stockId: id, reason: 'stock.deleted' });
  });

  it('when select names fields, then only those (and id) are returned', async () => {
    const id = await createItem(seller, { name: 'S', sku: 'S1', market_d: { sku: 'X', price: '1.00' } });
    const res = await call(`stock/${id}/?${query({ select: { sku: '', market_d: { price: '' } } })}`, { token: seller.token });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.stock).to.deep.equal({ id: String(id), sku: 'S1', market_d: { price: '1.00' } });
  });

  it('when a token lacks stock_w, then POST is 403 and GET works with stock_r', async () => {
    const reader = await newSeller('stock_r');
    expect((await call('stock/', { token: reader.token, body: { stock: { name: 'x' } } })).status).to.equal(403);
    expect((await call('stock/', { token: reader.token })).status).to.equal(200);
  });

  it('when a full item goes through XML both ways, then it reads back equal to the JSON read', async () => {
    const groups = await fullItemReferences(seller);
    const id = await createItem(seller, fullItem(seller.portalAccountId, groups));
    const json = await readItem(seller, id);
    const xml = await call(`stock/${id}/`, { token: seller.token, headers: { Accept: 'application/xml' } });
    expect(xml.status).to.equal(200);
    expect(xml.text).to.contain('<stock><id>');
    // Post the XML read back as an XML request (response root renamed to request).
    const body = asXmlRequest(xml.text);
    const posted = await call(`stock/${id}/`, { token: seller.token, headers: { 'Content-Type': 'application/xml' }, body });
    expect(posted.status, posted.text).to.equal(200);
    expect(await readItem(seller, id)).to.deep.equal(json);
    const created = await call('stock/', {
      token: seller.token,
      headers: { 'Content-Type': 'application/xml' },
      body: `<request><stock><name>XML item</name><barcode>0012345678905</barcode><quantity>3</quantity><shipping><group_id>${groups[1]}</group_id></shipping><set><type>none</type></set></stock></request>`,
    });
    expect(created.status, created.text).to.equal(201);
    const item = await readItem(seller, created.body.stock_id as number);
    expect(item).to.include({ name: 'XML item', barcode: '0012345678905', quantity: 3 });
    expect(item.shipping).to.deep.equal(answered('shipping', { group_id: [groups[1]] }));
  });
});

describe('stock quantities and history', () => {
  let seller: Seller;
  beforeEach(async () => {
    seller = await newSeller();
  });

  it('when quantity is changed through the API, then a movement is written and cia.adjust queued', async () => {
    const id = await createItem(seller, { name: 'Q', quantity: 5 });
    await call(`stock/${id}/`, { token: seller.token, body: { stock: { quantity: 8, quantity_reserved: 1 } } });
    const history = await historyOf(seller, id);
    expect(history.map((h) => h.quantity)).to.deep.equal([
      { old: 0, difference: 5, new: 5 },
      { old: 5, difference: 3, new: 8 },
    ]);
    expect(history[1]!.title).to.equal('stock');
    expect((await readItem(seller, id)).quantity_available).to.equal(7);
    expect((await ciaRows(seller)).map((r) => r.reason)).to.deep.equal(['stock.created', 'stock.updated']);
  });

  it('when the account does not subtract the auction_a listed quantity, then quantity_available keeps it', async () => {
    await db()('account').where('id', seller.id).update({ is_auction_a_quantity_subtracted: false });
    const id = await createItem(seller, { name: 'Q', quantity: 5, quantity_auction_a: 2 });
    expect((await readItem(seller, id)).quantity_available).to.equal(5);
  });

  it('when history is searched with filters and min_id, then the pages follow the index', async () => {
    const a = await createItem(seller, { name: 'A', quantity: 1 });
    const b = await createItem(seller, { name: 'B', quantity: 1 });
    for (let q = 2; q <= 4; q++) await call(`stock/${a}/`, { token: seller.token, body: { stock: { quantity: q } } });
    const all = await call(`stock/history/?${query({ filter: { stock_id: a }, pagination: { limit: 2, min_id: 1 } })}`, { token: seller.token });
    expect(all.status, all.text).to.equal(200);
    const first = all.body.stock_history as { stock_id: number; quantity: { new: number } }[];
    expect(first.map((h) => h.quantity.new)).to.deep.equal([1, 2]);
    const next = await call(`stock/history/?${query({ filter: { stock_id: a }, pagination: { limit: 2, min_id: all.body.next_min_id } })}`, {
      token: seller.token,
    });
    expect((next.body.stock_history as { quantity: { new: number } }[]).map((h) => h.quantity.new)).to.deep.equal([3, 4]);
    expect(next.body.next_min_id).to.equal(undefined);
    const byB = await call(`stock/${b}/history/?${query({ filter: { 'quantity.difference': { operator: '>', value: 0 } } })}`, { token: seller.token });
    expect((byB.body.stock_history as unknown[]).length).to.equal(1);
    const bad = await call(`stock/${b}/history/?${query({ filter: { stock_id: a } })}`, { token: seller.token });
    expect(bad.status).to.equal(400);
  });
});

describe('stock OPTIONS and 405', () => {
  it('when a stock path is asked with OPTIONS or an unsupported method, then the overview and 405 answer', async () => {
    const seller = await newSeller();
    const options = await call('stock/list/', { token: seller.token, method: 'OPTIONS' });
    expect(options.status).to.equal(200);
    expect(options.headers.get('allow')).to.equal('POST, OPTIONS');
    expect((await call('stock/folder/', { token: seller.token, method: 'DELETE' })).status).to.equal(405);
  });
});
