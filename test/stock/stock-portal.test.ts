import { expect } from 'chai';
import { call, newSeller, Seller } from '../support/api';
import { createItem, readItem, withoutModifiedTime } from './helpers';
import { answeredFields, answeredUndated } from './stock-groups';

type Lister = { lister_id: string; name?: string; price?: string; refund?: { policy_id: number }; location?: { city: string } };

describe('stock portal field groups and listers', () => {
  let seller: Seller;
  beforeEach(async () => {
    seller = await newSeller();
  });

  it('when lister_id is 0, NO_<n>, absent or unknown, then listers are created, addressed or refused', async () => {
    const created = await call('stock/', { token: seller.token, body: { stock: { name: 'Item', auction_a: [{ name: 'Offer one', price: '5.00' }] } } });
    expect(created.status, created.text).to.equal(201);
    const id = created.body.stock_id as number;
    const [first] = created.body.lister_id as number[];
    // Absent with one lister: that lister.
    await call(`stock/${id}/`, { token: seller.token, body: { stock: { auction_a: [{ price: '6.00' }] } } });
    let listers = (await readItem(seller, id)).auction_a as Lister[];
    expect(listers).to.have.length(1);
    expect(listers[0]).to.include({ lister_id: String(first), price: '6.00', name: 'Offer one' });
    // 0 creates a second one.
    const second = await call(`stock/${id}/`, { token: seller.token, body: { stock: { auction_a: [{ lister_id: 0, name: 'Offer two' }] } } });
    const secondId = (second.body.lister_id as number[])[0]!;
    expect(secondId).to.not.equal(first);
    // Absent with two listers: refused.
    const ambiguous = await call(`stock/${id}/`, { token: seller.token, body: { stock: { auction_a: [{ price: '1.00' }] } } });
    expect(ambiguous.status).to.equal(400);
    expect(ambiguous.body.error![0]!.field).to.equal('stock.auction_a[0].lister_id');
    // NO_<n> addresses one.
    const byNo = await call(`stock/${id}/`, { token: seller.token, body: { stock: { auction_a: [{ lister_id: `NO_${secondId}`, price: '7.00' }] } } });
    expect(byNo.body.lister_id).to.deep.equal([secondId]);
    listers = (await readItem(seller, id)).auction_a as Lister[];
    expect(listers.map((l) => l.price)).to.deep.equal(['6.00', '7.00']);
    // Unknown lister: 404 naming the field.
    const unknown = await call(`stock/${id}/`, { token: seller.token, body: { stock: { auction_a: [{ lister_id: 123456789, price: '1.00' }] } } });
    expect(unknown.status).to.equal(404);
    expect(unknown.body.error![0]!.field).to.equal('stock.auction_a[0].lister_id');
    const malformed = await call(`stock/${id}/`, { token: seller.token, body: { stock: { auction_a: [{ lister_id: 'X_1' }] } } });
    expect(malformed.status).to.equal(400);
  });

  it('when a lister sets a shared field, then every lister with that lister_id gets it', async () => {
    const created = await call('stock/', { token: seller.token, body: { stock: { name: 'Item', auction_a: [{ lister_id: 0 }] } } });
    const id = created.body.stock_id as number;
    const lister = (created.body.lister_id as number[])[0]!;
    await call(`stock/${id}/`, {
      token: seller.token,
      body: { stock: { market_c: [{ lister_id: lister, price: '3.00' }], auction_b: [{ lister_id: lister }], shop: [{ lister_id: lister }] } },
    });
    await call(`stock/${id}/`, {
      token: seller.token,
      body: { stock: { auction_a: [{ lister_id: lister, refund: { policy_id: 22 }, location: { city: 'Köln' }, payment: { advice: 'fast' } }] } },
    });
    const item = await readItem(seller, id);
    for (const group of ['auction_b', 'market_c', 'shop'] as const) {
      const [entry] = item[group] as Lister[];
      expect(entry, group).to.deep.include(
        answeredFields(group, { lister_id: String(lister), refund: { policy_id: 22 }, location: { city: 'Köln' }, payment: { advice: 'fast' } }),
      );
    }
  });

  it('when a lister offer name is set, then the master name follows (v1.0.2) unless name is sent too', async () => {
    const id = await createItem(seller, { name: 'Master' });
    await call(`stock/${id}/`, { token: seller.token, body: { stock: { market_c: [{ name: 'Offer name' }] } } });
    expect((await readItem(seller, id)).name).to.equal('Offer name');
    await call(`stock/${id}/`, { token: seller.token, body: { stock: { name: 'Own', market_c: [{ name: 'Other offer' }] } } });
    expect((await readItem(seller, id)).name).to.equal('Own');
  });

  it('when portal constraints are broken, then 400 names each field', async () => {
    const res = await call('stock/', {
      token: seller.token,
      body: {
        stock: {
          name: 'x',
          market_e: { delivery_time: 'z', picture: Array.from({ length: 13 }, (_, i) => `p${i}`) },
          market_d: { id_type: 'GTIN' },
          market_f: { quantity: 10000 },
          market_i: { tax_id: 5, delivery_time: 2, picture: ['a', 'b', 'c', 'd'] },
          webshop: [{ name: 'no shop id' }],
          shop_g: { eco_participation_category_id: 100 },
          auction_a: [{ type_id: '2', vat: '100', picture: { layout_id: 1 }, auction_a_plus: 2, name: 'n'.repeat(81) }],
          auction_b: [{ condition_id: '9', fsk: 17 }],
          market_c: [{ refund: { policy_id: 30 } }],
          cia: { auction_a: { max_quantity: -2 } },
        },
      },
    });
    expect(res.status).to.equal(400);
    expect(res.body.error!.map((e) => e.field)).to.include.members([
      'stock.market_e.delivery_time',
      'stock.market_e.picture',
      'stock.market_d.id_type',
      'stock.market_f.quantity',
      'stock.market_i.tax_id',
      'stock.market_i.delivery_time',
      'stock.market_i.picture',
      'stock.webshop[0].shop_id',
      'stock.shop_g.eco_participation_category_id',
      'stock.auction_a[0].type_id',
      'stock.auction_a[0].vat',
      'stock.auction_a[0].picture.layout_id',
      'stock.auction_a[0].auction_a_plus',
      'stock.auction_a[0].name',
      'stock.auction_b[0].condition_id',
      'stock.auction_b[0].fsk',
      'stock.market_c[0].refund.policy_id',
      'stock.cia.auction_a.max_quantity',
    ]);
  });

  it('when webshop entries are updated, then they merge by shop_id', async () => {
    const id = await createItem(seller, {
      name: 'W',
      webshop: [
        { shop_id: 'a', name: 'A' },
        { shop_id: 'b', name: 'B' },
      ],
    });
    await call(`stock/${id}/`, { token: seller.token, body: { stock: { webshop: [{ shop_id: 'b', is_active: true }, { shop_id: 'c' }] } } });
    expect(((await readItem(seller, id)).webshop as object[]).map(withoutModifiedTime)).to.deep.equal(
      [{ shop_id: 'a', name: 'A' }, { shop_id: 'b', name: 'B', is_active: true }, { shop_id: 'c' }].map((entry) => answeredUndated('webshop', entry)),
    );
  });
});
