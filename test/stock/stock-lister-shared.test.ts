import { expect } from 'chai';
import { call, newSeller, Seller } from '../support/api';
import { readItem, withoutModifiedTime } from './helpers';
import { answeredFields, answeredUndated } from './stock-groups';

type Lister = Record<string, unknown> & { lister_id: string };

/** The fields document 2 says are identical for all listers with one lister_id, as an auction_a lister carries them. */
const shared = {
  payment: { advice: 'Please pay within 7 days' },
  refund: { policy_id: 14, advice: '30 days return' },
  location: { city: 'Köln', zip: '50667', country_id: 77 },
  freetext: [{ id: '1', value: 'Gift wrapping on request' }],
  picture: { type_id: 2, url: ['https://img.example/cup-1.jpg', 'https://img.example/cup-2.jpg'] },
};

describe('stock listers: fields shared by one lister_id', () => {
  let seller: Seller;
  beforeEach(async () => {
    seller = await newSeller();
  });

  /** An item with one auction_a lister carrying the shared fields; its stock id and lister id. */
  async function auctionAItem(): Promise<{ id: number; lister: number }> {
    const res = await call('stock/', {
      token: seller.token,
      body: {
        stock: {
          name: 'Cup',
          auction_a: [{ lister_id: 0, name: 'Cup offer', price: '9.00', ...shared, picture: { ...shared.picture, is_in_description: true } }],
        },
      },
    });
    expect(res.status, res.text).to.equal(201);
    return { id: res.body.stock_id as number, lister: (res.body.lister_id as number[])[0]! };
  }

  const update = async (id: number, stock: Record<string, unknown>) => {
    const res = await call(`stock/${id}/`, { token: seller.token, body: { stock } });
    expect(res.status, res.text).to.equal(200);
  };
  const listerOf = async (id: number, group: string) => ((await readItem(seller, id))[group] as Lister[])[0]!;

  it('when a market_c and then an auction_b lister join an auction_a lister_id, then each reads back its shared fields at once', async () => {
    const { id, lister } = await auctionAItem();
    await update(id, { market_c: [{ lister_id: lister, price: '8.50' }] });
    const marketC = await listerOf(id, 'market_c');
    expect(withoutModifiedTime(marketC)).to.deep.equal(answeredUndated('market_c', { lister_id: String(lister), price: '8.50', ...shared }));

    await update(id, { auction_b: [{ lister_id: `NO_${lister}`, subtitle: 'Porcelain' }] });
    const auctionB = await listerOf(id, 'auction_b');
    expect(withoutModifiedTime(auctionB)).to.deep.equal(answeredUndated('auction_b', { lister_id: String(lister), subtitle: 'Porcelain', ...shared }));
    // What is not shared stays with its lister.
    expect(await listerOf(id, 'auction_a')).to.deep.include(
      answeredFields('auction_a', { name: 'Cup offer', price: '9.00', picture: { ...shared.picture, is_in_description: true } }),
    );
  });

  it('when a joining lister sends part of a shared field, then it is merged into what the lister_id has, on every lister', async () => {
    const { id, lister } = await auctionAItem();
    await update(id, { shop: [{ lister_id: lister, refund: { advice: '14 days return' } }] });
    const refund = { policy_id: 14, advice: '14 days return' };
    expect(await listerOf(id, 'shop')).to.deep.equal({ lister_id: String(lister), ...shared, refund });
    expect((await listerOf(id, 'auction_a')).refund).to.deep.equal(refund);
  });

  it('when one lister writes a shared field, then every lister with that lister_id shows it', async () => {
    const { id, lister } = await auctionAItem();
    await update(id, { market_c: [{ lister_id: lister }], auction_b: [{ lister_id: lister }] });
    await update(id, {
      market_c: [
        { lister_id: lister, location: { city: 'Bonn' }, freetext: [{ id: '2', value: 'Ships in 24 h' }], picture: { url: ['https://img.example/new.jpg'] } },
      ],
    });
    const expected = {
      payment: shared.payment,
      refund: shared.refund,
      location: { city: 'Bonn', zip: '50667', country_id: 77 },
      freetext: [{ id: '2', value: 'Ships in 24 h' }],
    };
    for (const group of ['auction_a', 'auction_b', 'market_c']) {
      const entry = await listerOf(id, group);
      expect(entry, group).to.deep.include(answeredFields(group, expected));
      expect(entry.picture as Record<string, unknown>, group).to.deep.include({ type_id: 2, url: ['https://img.example/new.jpg'] });
    }
  });
});
