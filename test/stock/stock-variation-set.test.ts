import { expect } from 'chai';
import { db } from '../../lib/db/knex';
import { call, newSeller, Seller } from '../support/api';
import { ciaRows, createItem, readItem } from './helpers';

const matrix = {
  name_value: [
    { name: 'size', value: ['S', 'M', 'L'] },
    { name: 'colour', value: ['red', 'blue'] },
  ],
};
const spec = (size: string, colour: string) => ({
  name_value: [
    { name: 'size', value: [size] },
    { name: 'colour', value: [colour] },
  ],
});

describe('stock variants', () => {
  let seller: Seller;
  beforeEach(async () => {
    seller = await newSeller();
  });

  it('when a main item creates variants and links an existing one, then the variants read parent and specifics', async () => {
    const existing = await createItem(seller, { name: 'Shirt S blue', quantity: 2 });
    const main = await createItem(seller, {
      name: 'Shirt',
      price: '20.00',
      variation: {
        type: 'main',
        specifics_set: matrix,
        sub: [
          { create_quantity: 5, specifics: spec('M', 'red') },
          { id: existing, specifics: spec('S', 'blue') },
        ],
      },
    });
    const item = await readItem(seller, main);
    const subs = (item.variation as { sub: { id: string }[] }).sub.map((s) => Number(s.id));
    expect(subs).to.have.length(2).and.include(existing);
    const created = await readItem(
      seller,
      subs.find((s) => s !== existing)!,
    );
    expect(created).to.include({ name: 'Shirt', price: '20.00', quantity: 5 });
    expect(created.variation).to.deep.equal({ type: 'sub', specifics: spec('M', 'red'), parent: main });
    expect((await readItem(seller, existing)).variation).to.deep.equal({ type: 'sub', specifics: spec('S', 'blue'), parent: main });
  });

  it('when a variant tries to set its own type, parent or specifics, then the read-only fields warn and type sub is refused', async () => {
    const main = await createItem(seller, { name: 'Shirt', variation: { specifics_set: matrix, sub: [{ create_quantity: 1, specifics: spec('S', 'red') }] } });
    const variant = Number(((await readItem(seller, main)).variation as { sub: { id: string }[] }).sub[0]!.id);
    const ro = await call(`stock/${variant}/`, { token: seller.token, body: { stock: { variation: { parent: 1, specifics: spec('L', 'blue') } } } });
    expect(ro.status).to.equal(200);
    expect(ro.body.warning!.map((w) => w.field)).to.deep.equal(['stock.variation.specifics', 'stock.variation.parent']);
    expect((await readItem(seller, variant)).variation).to.deep.include({ parent: main, specifics: spec('S', 'red') });
    const other = await createItem(seller, { name: 'Other' });
    const refused = await call(`stock/${other}/`, { token: seller.token, body: { stock: { variation: { type: 'sub' } } } });
    expect(refused.status).to.equal(400);
    expect(refused.body.error![0]!.field).to.equal('stock.variation.type');
    const asMain = await call(`stock/${variant}/`, { token: seller.token, body: { stock: { variation: { type: 'main' } } } });
    expect(asMain.status).to.equal(400);
  });

  it('when specifics do not fit the matrix or the sub is wrong, then 400 names the field and nothing is created', async () => {
    const main = await createItem(seller, { name: 'Shirt', variation: { type: 'main', specifics_set: matrix } });
    const cases: [unknown, string][] = [
      [[{ create_quantity: 1, specifics: spec('XL', 'red') }], 'stock.variation.sub[0].specifics.name_value[0].value'],
      [[{ create_quantity: 1, specifics: { name_value: [{ name: 'size', value: ['S', 'M'] }] } }], 'stock.variation.sub[0].specifics.name_value[0].value'],
      [[{ create_quantity: 1 }], 'stock.variation.sub[0].specifics'],
      [[{ specifics: spec('S', 'red') }], 'stock.variation.sub[0].create_quantity'],
      [[{ id: main }], 'stock.variation.sub[0].id'],
      [[{ id: 999999999 }], 'stock.variation.sub[0].id'],
    ];
    for (const [sub, field] of cases) {
      const res = await call(`stock/${main}/`, { token: seller.token, body: { stock: { variation: { sub } } } });
      expect(res.status, field).to.be.oneOf([400, 404]);
      expect(res.body.error![0]!.field).to.equal(field);
    }
    expect(await db()('stock').where('account_id', seller.id)).to.have.length(1);
  });

  it('when two variants of one main would have the same combination of specifics, then 400 names the second and nothing changes', async () => {
    const existing = await createItem(seller, { name: 'Shirt M red', quantity: 2 });
    const main = await createItem(seller, {
      name: 'Shirt',
      variation: { type: 'main', specifics_set: matrix, sub: [{ create_quantity: 1, specifics: spec('S', 'red') }] },
    });
    const first = Number(((await readItem(seller, main)).variation as { sub: { id: string }[] }).sub[0]!.id);
    const cases: [unknown, string][] = [
      // A new variant with the combination of a kept one, the names in another order.
      [
        [
          { id: first },
          {
            create_quantity: 3,
            specifics: {
              name_value: [
                { name: 'colour', value: ['red'] },
                { name: 'size', value: ['S'] },
              ],
            },
          },
        ],
        'stock.variation.sub[1].specifics',
      ],
      // An existing item linked with the combination of the one before it.
      [
        [
          { create_quantity: 3, specifics: spec('M', 'red') },
          { id: existing, specifics: spec('M', 'red') },
        ],
        'stock.variation.sub[1].specifics',
      ],
      // A kept variant (its stored specifics) after a new one with the same.
      [[{ create_quantity: 3, specifics: spec('S', 'red') }, { id: first }], 'stock.variation.sub[1].specifics'],
    ];
    for (const [sub, field] of cases) {
      const res = await call(`stock/${main}/`, { token: seller.token, body: { stock: { variation: { sub } } } });
      expect(res.status, JSON.stringify(sub)).to.equal(400);
      expect(res.body.error![0]).to.include({ error: 'invalid_field', field });
    }
    expect(await db()('stock').where('account_id', seller.id)).to.have.length(3);
    expect((await readItem(seller, main)).variation).to.deep.include({ sub: [{ id: String(first) }] });
    expect((await readItem(seller, existing)).variation).to.deep.equal({ type: 'none' });

    // Distinct combinations go through, a kept variant re-sent with its own specifics too.
    const ok = await call(`stock/${main}/`, {
      token: seller.token,
      body: {
        stock: {
          variation: {
            sub: [
              { id: first, specifics: spec('S', 'red') },
              { id: existing, specifics: spec('M', 'red') },
              { create_quantity: 1, specifics: spec('S', 'blue') },
            ],
          },
        },
      },
    });
    expect(ok.status, ok.text).to.equal(200);
    expect(((await readItem(seller, main)).variation as { sub: unknown[] }).sub).to.have.length(3);
  });

  it('when the main passes type none, then every variant is separated', async () => {
    const main = await createItem(seller, {
      name: 'Shirt',
      variation: {
        specifics_set: matrix,
        sub: [
          { create_quantity: 1, specifics: spec('S', 'red') },
          { create_quantity: 1, specifics: spec('M', 'red') },
        ],
      },
    });
    const subs = ((await readItem(seller, main)).variation as { sub: { id: string }[] }).sub;
    const res = await call(`stock/${main}/`, { token: seller.token, body: { stock: { variation: { type: 'none' } } } });
    expect(res.status, res.text).to.equal(200);
    expect((await readItem(seller, main)).variation).to.deep.equal({ type: 'none' });
    for (const s of subs) expect((await readItem(seller, s.id)).variation).to.deep.equal({ type: 'none' });
  });

  it('when a variant quantity changes, then cia.adjust is queued for it alone, not its main (which offers nothing of its own)', async () => {
    const main = await createItem(seller, { name: 'Shirt', variation: { sub: [{ create_quantity: 1, specifics: spec('S', 'red') }] } });
    const variant = Number(((await readItem(seller, main)).variation as { sub: { id: string }[] }).sub[0]!.id);
    const before = (await ciaRows(seller)).length;
    const res = await call(`stock/${variant}/`, { token: seller.token, body: { stock: { quantity: 9 } } });
    expect(res.status, res.text).to.equal(200);
    expect((await ciaRows(seller)).slice(before).map((r) => r.stockId)).to.deep.equal([variant]);
  });
});

describe('stock sets', () => {
  let seller: Seller;
  beforeEach(async () => {
    seller = await newSeller();
  });

  it('when a set main is made of subs, then its available quantity follows the subs and subs read set.main', async () => {
    const cup = await createItem(seller, { name: 'Cup', quantity: 10, quantity_reserved: 1 });
    const saucer = await createItem(seller, { name: 'Saucer', quantity: 7 });
    const set = await createItem(seller, {
      name: 'Set',
      quantity: 100,
      set: {
        type: ['main'],
        sub: [
          { id: `ID_${cup}`, quantity: 2 },
          { id: saucer, quantity: 2 },
        ],
      },
    });
    const item = await readItem(seller, set);
    expect(item.set).to.deep.equal({
      type: ['main'],
      sub: [
        { id: String(cup), quantity: 2 },
        { id: String(saucer), quantity: 2 },
      ],
    });
    expect(item.quantity_available).to.equal(3); // min(floor(9/2), floor(7/2))
    expect((await readItem(seller, saucer)).set).to.deep.equal({ type: ['sub'], main: [{ id: String(set), quantity: 2 }] });
    const before = (await ciaRows(seller)).length;
    await call(`stock/${saucer}/`, { token: seller.token, body: { stock: { quantity: 3 } } });
    expect((await readItem(seller, set)).quantity_available).to.equal(1);
    expect(
      (await ciaRows(seller))
        .slice(before)
        .map((r) => r.stockId)
        .sort(),
    ).to.deep.equal([saucer, set].sort());
  });

  it('when sets would nest or mix main and sub, then 400 names the field', async () => {
    const sub = await createItem(seller, { name: 'Sub', quantity: 1 });
    const main = await createItem(seller, { name: 'Main', set: { sub: [{ id: sub, quantity: 1 }] } });
    const other = await createItem(seller, { name: 'Other' });
    const nested = await call(`stock/${other}/`, { token: seller.token, body: { stock: { set: { sub: [{ id: main, quantity: 1 }] } } } });
    expect(nested.status).to.equal(400);
    expect(nested.body.error![0]!.field).to.equal('stock.set.sub[0].id');
    const subAsMain = await call(`stock/${sub}/`, { token: seller.token, body: { stock: { set: { type: ['main'] } } } });
    expect(subAsMain.status).to.equal(400);
    const both = await call(`stock/${other}/`, { token: seller.token, body: { stock: { set: { type: ['main', 'sub'] } } } });
    expect(both.status).to.equal(400);
    expect(both.body.error![0]!.field).to.equal('stock.set.type');
    const readOnlyMain = await call(`stock/${other}/`, { token: seller.token, body: { stock: { set: { main: [{ id: String(main), quantity: 1 }] } } } });
    expect(readOnlyMain.body.warning![0]!.field).to.equal('stock.set.main');
    expect((await readItem(seller, other)).set).to.deep.equal({ type: ['none'] });
  });

  it('when a set would hold a variation main, or a set part would become one, then 400 names the field and a sale of the set takes the variant', async () => {
    const main = await createItem(seller, {
      name: 'Shirt',
      quantity: 5,
      variation: { specifics_set: matrix, sub: [{ create_quantity: 4, specifics: spec('S', 'red') }] },
    });
    const variant = Number(((await readItem(seller, main)).variation as { sub: { id: string }[] }).sub[0]!.id);
    const refused = await call('stock/', {
      token: seller.token,
      body: { stock: { name: 'Shirt set', sku: 'SHIRT-SET', set: { sub: [{ id: main, quantity: 1 }] } } },
    });
    expect(refused.status, refused.text).to.equal(400);
    expect(refused.body.error![0]).to.include({ error: 'invalid_field', field: 'stock.set.sub[0].id' });
    expect((await call('stock/SKU_SHIRT-SET/', { token: seller.token })).status).to.equal(404);
    expect((await readItem(seller, main)).set).to.deep.equal({ type: ['none'] });

    // The variant is goods: the set takes it, and a sale of the set takes the variant's units.
    const set = await createItem(seller, { name: 'Shirt set', sku: 'SHIRT-SET', set: { sub: [{ id: variant, quantity: 2 }] } });
    expect((await readItem(seller, set)).quantity_available).to.equal(2);
    const order = await call('order/', {
      token: seller.token,
      body: { order: { customer: { email: 'buyer@example.com' }, line: [{ id: 1, quantity: 1, price: '30.00', stock_align_id: String(set) }] } },
    });
    expect(order.status, order.text).to.equal(201);
    expect((await readItem(seller, variant)).quantity).to.equal(2);
    expect((await readItem(seller, main)).quantity).to.equal(5);

    // A set's part cannot become a variation main.
    const part = await createItem(seller, { name: 'Saucer', quantity: 3 });
    await createItem(seller, { name: 'Cup set', set: { sub: [{ id: part, quantity: 1 }] } });
    const partAsMain = await call(`stock/${part}/`, {
      token: seller.token,
      body: { stock: { variation: { type: 'main', sub: [{ create_quantity: 1, specifics: spec('S', 'red') }] } } },
    });
    expect(partAsMain.status, partAsMain.text).to.equal(400);
    expect(partAsMain.body.error![0]).to.include({ error: 'invalid_field', field: 'stock.variation.type' });
    expect((await readItem(seller, part)).variation).to.deep.equal({ type: 'none' });
  });

  it('when an order line names a variation main, then 400 names the line’s stock_align_id and nothing is stored; naming the variant takes the variant’s units', async () => {
    const main = await createItem(seller, {
      name: 'Polo',
      sku: 'POLO-MAIN',
      quantity: 3,
      variation: { specifics_set: matrix, sub: [{ create_quantity: 4, specifics: spec('M', 'blue') }] },
    });
    const variant = Number(((await readItem(seller, main)).variation as { sub: { id: string }[] }).sub[0]!.id);
    const line = (ref: string) => ({ id: 1, quantity: 1, price: '25.00', stock_align_id: ref });
    const before = (await db()('sales_order').where({ account_id: seller.id }).count({ n: '*' }))[0]!.n;
    for (const ref of ['SKU_POLO-MAIN', String(main)]) {
      const refused = await call('order/', { token: seller.token, body: { order: { customer: { email: 'polo@example.com' }, line: [line(ref)] } } });
      expect(refused.status, refused.text).to.equal(400);
      expect(refused.body.error![0]).to.include({ error: 'invalid_field', field: 'order.line[0].stock_align_id' });
    }
    const listed = await call('order/list/', {
      token: seller.token,
      body: { order: [{ customer: { email: 'polo@example.com' }, line: [line('SKU_POLO-MAIN')] }] },
    });
    expect(listed.status, listed.text).to.equal(207);
    const item = (listed.body.response as { code: number; error?: { field: string }[] }[])[0]!;
    expect(item.code).to.equal(400);
    expect(item.error![0]!.field).to.equal('order[0].line[0].stock_align_id');
    expect((await readItem(seller, main)).quantity).to.equal(3);
    expect(await db()('sales_order').where({ account_id: seller.id }).count({ n: '*' })).to.deep.equal([{ n: before }]);

    const sold = await call('order/', { token: seller.token, body: { order: { customer: { email: 'polo@example.com' }, line: [line(String(variant))] } } });
    expect(sold.status, sold.text).to.equal(201);
    expect((await readItem(seller, variant)).quantity).to.equal(3);
    expect((await readItem(seller, main)).quantity).to.equal(3);
  });

  it('when the set main passes none, then the set is dissolved and the subs are free', async () => {
    const a = await createItem(seller, { name: 'A', quantity: 4 });
    const main = await createItem(seller, { name: 'Main', quantity: 9, set: { sub: [{ id: a, quantity: 2 }] } });
    expect((await readItem(seller, main)).quantity_available).to.equal(2);
    const res = await call(`stock/${main}/`, { token: seller.token, body: { stock: { set: { type: ['NONE'] } } } });
    expect(res.status, res.text).to.equal(200);
    expect((await readItem(seller, main)).set).to.deep.equal({ type: ['none'] });
    expect((await readItem(seller, main)).quantity_available).to.equal(9);
    expect((await readItem(seller, a)).set).to.deep.equal({ type: ['none'] });
  });
});

describe('stock links when items are deleted', () => {
  let seller: Seller;
  beforeEach(async () => {
    seller = await newSeller();
  });

  it('when a variation main is deleted, then its variants become independent items', async () => {
    const main = await createItem(seller, { name: 'Shirt', variation: { sub: [{ create_quantity: 1, specifics: spec('S', 'red') }] } });
    const variant = Number(((await readItem(seller, main)).variation as { sub: { id: string }[] }).sub[0]!.id);
    expect((await call(`stock/${main}/`, { token: seller.token, method: 'DELETE' })).status).to.equal(200);
    expect((await readItem(seller, variant)).variation).to.deep.equal({ type: 'none' });
  });

  it('when a set sub is deleted, then 400 names stock_id and the set keeps its parts (it would sell on without one); taken out of the set first, the part is deleted, and the set main follows its remaining subs and CIA adjusts it', async () => {
    const a = await createItem(seller, { name: 'A', quantity: 4 });
    const b = await createItem(seller, { name: 'B', quantity: 1 });
    const main = await createItem(seller, {
      name: 'Set',
      set: {
        sub: [
          { id: a, quantity: 1 },
          { id: b, quantity: 1 },
        ],
      },
    });
    expect((await readItem(seller, main)).quantity_available).to.equal(1);
    const refused = await call(`stock/${b}/`, { token: seller.token, method: 'DELETE' });
    expect(refused.status, refused.text).to.equal(400);
    expect(refused.body.error).to.deep.equal([
      {
        error: 'status_conflict',
        description: `stock_id: stock ${b} is a part of the set ${main}, which would go on selling without it; take it out of the set first (POST stock/{stock_id}/ of the set with set.sub[] without it) or delete the set`,
        code: 400,
        field: 'stock_id',
      },
    ]);
    expect((await readItem(seller, b)).quantity).to.equal(1);
    expect((await readItem(seller, main)).set).to.deep.equal({
      type: ['main'],
      sub: [
        { id: String(a), quantity: 1 },
        { id: String(b), quantity: 1 },
      ],
    });
    const before = (await ciaRows(seller)).length;
    const out = await call(`stock/${main}/`, { token: seller.token, body: { stock: { set: { type: ['main'], sub: [{ id: String(a), quantity: 1 }] } } } });
    expect(out.status, out.text).to.equal(200);
    expect((await call(`stock/${b}/`, { token: seller.token, method: 'DELETE' })).status).to.equal(200);
    const item = await readItem(seller, main);
    expect(item.set).to.deep.equal({ type: ['main'], sub: [{ id: String(a), quantity: 1 }] });
    expect(item.quantity_available).to.equal(4);
    // The set's change adjusts the set and its parts old and new; the delete, the part.
    expect([...new Set((await ciaRows(seller)).slice(before).map((r) => r.stockId))].sort()).to.deep.equal([a, b, main].sort());
  });

  it('when specifics_set is sent to an item that is not a main, then 400 names it', async () => {
    const plain = await createItem(seller, { name: 'Plain' });
    const res = await call(`stock/${plain}/`, { token: seller.token, body: { stock: { variation: { specifics_set: matrix } } } });
    expect(res.status).to.equal(400);
    expect(res.body.error![0]!.field).to.equal('stock.variation.specifics_set');
    expect((await readItem(seller, plain)).variation).to.deep.equal({ type: 'none' });
  });
});
