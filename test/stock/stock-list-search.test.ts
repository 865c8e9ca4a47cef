import { expect } from 'chai';
import { db } from '../../lib/db/knex';
import { call, newSeller, query, Seller } from '../support/api';
import { createItem, readItem } from './helpers';

type Part = { path: string; code: number; stock_id?: number; error?: { field?: string }[]; warning?: { field?: string }[] };

describe('POST stock/list/', () => {
  let seller: Seller;
  beforeEach(async () => {
    seller = await newSeller();
  });

  it('when items create, update and fail, then 207 answers each and a failed item leaves nothing behind', async () => {
    const existing = await createItem(seller, { name: 'Old', quantity: 1 });
    const setSub = await createItem(seller, { name: 'Sub', quantity: 1 });
    const res = await call('stock/list/', {
      token: seller.token,
      body: {
        stock: [
          { name: 'New', sku: 'N1', quantity: 4 },
          { id: existing, name: 'Renamed', quantity_available: 99 },
          { name: 'Bad', price: 'x' },
          { id: 987654321, name: 'Missing' },
          // Valid fields but a refused set: the item itself must not be created.
          {
            name: 'Half',
            set: {
              sub: [
                { id: setSub, quantity: 1 },
                { id: 999999999, quantity: 1 },
              ],
            },
          },
        ],
      },
    });
    expect(res.status, res.text).to.equal(207);
    const parts = res.body.response as Part[];
    expect(parts.map((p) => [p.path, p.code])).to.deep.equal([
      ['stock[0]', 201],
      ['stock[1]', 200],
      ['stock[2]', 400],
      ['stock[3]', 404],
      ['stock[4]', 404],
    ]);
    expect(parts[1]!.stock_id).to.equal(existing);
    expect(parts[1]!.warning![0]!.field).to.equal('stock[1].quantity_available');
    expect(parts[2]!.error![0]!.field).to.equal('stock[2].price');
    expect(parts[4]!.error![0]!.field).to.equal('stock[4].set.sub[1].id');
    expect((await readItem(seller, parts[0]!.stock_id!)).name).to.equal('New');
    expect((await readItem(seller, existing)).name).to.equal('Renamed');
    const names = (await db()('stock').where('account_id', seller.id).select('name')).map((r: { name: string }) => r.name);
    expect(names.sort()).to.deep.equal(['New', 'Renamed', 'Sub']);
    expect((await readItem(seller, setSub)).set).to.deep.equal({ type: ['none'] });
  });

  it('when more than 200 items are sent, then 400 and nothing is stored', async () => {
    const res = await call('stock/list/', { token: seller.token, body: { stock: Array.from({ length: 201 }, (_, i) => ({ name: `i${i}` })) } });
    expect(res.status).to.equal(400);
    expect(res.body.error![0]!.field).to.equal('stock');
    expect(await db()('stock').where('account_id', seller.id)).to.have.length(0);
  });

  it('when 200 items are sent, then they count as 20 calls in the rate limit', async () => {
    const res = await call('stock/list/', { token: seller.token, body: { stock: Array.from({ length: 200 }, (_, i) => ({ name: `i${i}` })) } });
    expect(res.status).to.equal(207);
    const after = await call('stock/', { token: seller.token });
    const used = Number(after.headers.get('x-ratelimit-limit')) - Number(after.headers.get('x-ratelimit-remaining'));
    expect(used).to.equal(21);
  });
});

describe('GET stock/ search', () => {
  let seller: Seller;
  let ids: number[];
  before(async () => {
    seller = await newSeller();
    ids = [];
    ids.push(
      await createItem(seller, {
        name: 'Red 100% cotton shirt',
        sku: 'SH-1',
        barcode: '111',
        folder: '/shirts',
        quantity: 5,
        market_d: { sku: 'AZ-1', is_active: true },
      }),
    );
    ids.push(await createItem(seller, { name: 'Blue shirt', sku: 'SH-2', barcode: '222', folder: '/shirts', quantity: 0, quantity_reserved: 0 }));
    ids.push(
      await createItem(seller, {
        name: 'Green mug',
        sku: 'MG-1',
        mpn: 'M-1',
        folder: '/mugs',
        quantity: 12,
        quantity_reserved: 10,
        variation: { type: 'main' },
      }),
    );
    const other = await newSeller();
    await createItem(other, { name: 'Foreign shirt', sku: 'SH-1' });
  });

  const search = async (params: Record<string, unknown>) => {
    const res = await call(`stock/?${query(params)}`, { token: seller.token });
    expect(res.status, res.text).to.equal(200);
    return res.body;
  };
  const idsOf = (body: Record<string, unknown>) => (body.stock as { id: string }[]).map((s) => Number(s.id));

  it('when filtering by name ~, sku, barcode, mpn and folder, then only matching items of the account come back', async () => {
    expect(idsOf(await search({ filter: { name: { operator: '~', value: '*shirt*' } } }))).to.deep.equal([ids[0], ids[1]]);
    expect(idsOf(await search({ filter: { name: { operator: '~', value: '*100%*' } } }))).to.deep.equal([ids[0]]);
    expect(idsOf(await search({ filter: { name: { operator: '~', value: '*1_0%*' } } }))).to.deep.equal([]);
    expect(idsOf(await search({ filter: { sku: ['SH-1', 'MG-1'] } }))).to.deep.equal([ids[0], ids[2]]);
    expect(idsOf(await search({ filter: { barcode: '222' } }))).to.deep.equal([ids[1]]);
    expect(idsOf(await search({ filter: { mpn: 'M-1' } }))).to.deep.equal([ids[2]]);
    expect(idsOf(await search({ filter: { folder: '/mugs' } }))).to.deep.equal([ids[2]]);
    expect(idsOf(await search({ filter: { id: [ids[1], ids[2]] } }))).to.deep.equal([ids[1], ids[2]]);
  });

  it('when filtering by quantity ranges, variation type, modified date and market_d, then the conditions hold', async () => {
    expect(idsOf(await search({ filter: { quantity: { operator: '>=', value: 5 } } }))).to.deep.equal([ids[0], ids[2]]);
    expect(
      idsOf(
        await search({
          filter: {
            quantity_available: [
              { operator: '>', value: 0 },
              { operator: '<', value: 5 },
            ],
          },
        }),
      ),
    ).to.deep.equal([ids[2]]);
    expect(idsOf(await search({ filter: { variation: { type: 'main' } } }))).to.deep.equal([ids[2]]);
    expect(idsOf(await search({ filter: { modified_date: { operator: '>=', value: '2020-01-01' } } }))).to.have.length(3);
    expect(idsOf(await search({ filter: { modified_date: { operator: '<', value: '2020-01-01' } } }))).to.have.length(0);
    expect(idsOf(await search({ filter: { market_d: { sku: 'AZ-1' } } }))).to.deep.equal([ids[0]]);
    expect(idsOf(await search({ filter: { market_d: { is_active: 1 } } }))).to.deep.equal([ids[0]]);
    // Several filter objects are ORed.
    expect(idsOf(await search({ filter: [{ sku: 'SH-2' }, { folder: '/mugs' }] }))).to.deep.equal([ids[1], ids[2]]);
  });

  it('when filters are unknown or malformed, then 400 names them; the id filter takes no prefixed identifiers', async () => {
    for (const filter of [
      { colour: 'red' },
      { quantity: 'many' },
      { id: 'SKU_SH-1' },
      { variation: { type: { operator: '~', value: 'm*' } } },
      // Not a value of document 2's variation.type / set.type: no item can be one, so it is a mistake.
      { variation: { type: 'Main' } },
      { set: { type: ['main', 'mian'] } },
    ]) {
      const res = await call(`stock/?${query({ filter })}`, { token: seller.token });
      expect(res.status, JSON.stringify(filter)).to.equal(400);
      expect(res.body.error![0]!.field).to.match(/^filter\./);
    }
  });

  it('when paging by page and by min_id, then both walk the items in id order', async () => {
    const p1 = await search({ pagination: { limit: 2 } });
    const p2 = await search({ pagination: { limit: 2, page: 2 } });
    expect([...idsOf(p1), ...idsOf(p2)]).to.deep.equal(ids);
    const m1 = await search({ pagination: { limit: 2, min_id: ids[0] } });
    expect(idsOf(m1)).to.deep.equal([ids[0], ids[1]]);
    const m2 = await search({ pagination: { limit: 2, min_id: m1.next_min_id } });
    expect(idsOf(m2)).to.deep.equal([ids[2]]);
    expect(m2.next_min_id).to.equal(undefined);
  });

  it('when select names fields, then each item carries only those and its id', async () => {
    const body = await search({ select: { name: '', set: '' }, filter: { sku: 'SH-2' } });
    expect(body.stock).to.deep.equal([{ id: String(ids[1]), name: 'Blue shirt', set: { type: ['none'] } }]);
  });
});
