import { expect } from 'chai';
import { db } from '../../lib/db/knex';
import { call, newSeller, Seller } from '../support/api';
import { whileDatabaseRefuses } from '../support/db-refusal';
import { ciaRows, historyOf, readItem } from './helpers';

type Part = { path: string; code: number; stock_id?: number; lister_id?: number[]; error?: { error: string; field?: string }[] };

describe('POST stock/list/ set-based creates', () => {
  let seller: Seller;
  beforeEach(async () => {
    seller = await newSeller();
  });

  const list = (stock: unknown[]) => call('stock/list/', { token: seller.token, body: { stock } });

  it('when new items, an invalid one and an unknown lister id come in one list, then each valid item is stored with its movement, lister and cia.adjust', async () => {
    const res = await list([
      { name: 'A', sku: 'A', quantity: 3, auction_a: [{ name: 'Offer A', price: '1.00' }] },
      { name: 'Bad', quantity: 'x' },
      { name: 'B', sku: 'B', quantity: 0 },
      { name: 'C', auction_a: [{ lister_id: 424242, name: 'Offer C' }] },
      { name: 'D', sku: 'D', quantity: 5, auction_a: [{ lister_id: 0, name: 'Offer D' }] },
    ]);
    expect(res.status, res.text).to.equal(207);
    const parts = res.body.response as Part[];
    expect(parts.map((p) => p.code)).to.deep.equal([201, 400, 201, 404, 201]);
    expect(parts[1]!.error![0]!.field).to.equal('stock[1].quantity');
    expect(parts[3]!.error![0]!.field).to.equal('stock[3].auction_a[0].lister_id');
    const [a, , b, , d] = parts.map((p) => p.stock_id);
    expect(a! < b! && b! < d!).to.equal(true);
    expect((await readItem(seller, a!)).quantity_available).to.equal(3);
    expect(((await readItem(seller, d!)).auction_a as { lister_id: string }[])[0]!.lister_id).to.equal(String(parts[4]!.lister_id![0]));
    expect(parts[0]!.lister_id![0]).to.not.equal(parts[4]!.lister_id![0]);
    expect((await historyOf(seller, a!)).map((m) => m.quantity)).to.deep.equal([{ old: 0, difference: 3, new: 3 }]);
    expect(await historyOf(seller, b!)).to.deep.equal([]);
    expect((await historyOf(seller, d!)).map((m) => m.quantity)).to.deep.equal([{ old: 0, difference: 5, new: 5 }]);
    expect((await ciaRows(seller)).map((r) => [r.stockId, r.reason])).to.deep.equal([a, b, d].map((stockId) => [stockId, 'stock.created']));
    expect((await db()('stock').where('account_id', seller.id).select('name').orderBy('id')).map((r: { name: string }) => r.name)).to.deep.equal([
      'A',
      'B',
      'D',
    ]);
  });

  it('when the database refuses one new item of a set-based list, then the list runs again item by item and only that item fails', async () => {
    // A refusal only the database knows of (no rule of the service checks it): the set-based
    // INSERT fails as a whole, and the item-by-item run must isolate it.
    const res = await whileDatabaseRefuses('stock', "sku IS DISTINCT FROM 'DB-REFUSES'", () =>
      list([
        { name: 'First', sku: 'OK-1', quantity: 2 },
        { name: 'Refused', sku: 'DB-REFUSES', quantity: 7 },
        { name: 'Third', sku: 'OK-3', quantity: 4 },
      ]),
    );
    expect(res.status, res.text).to.equal(207);
    const parts = res.body.response as Part[];
    expect(parts.map((p) => p.code)).to.deep.equal([201, 500, 201]);
    expect(parts[1]!.error![0]!.error).to.equal('internal_error');
    expect(parts[1]!.stock_id).to.equal(undefined);
    const rows = await db()('stock').where('account_id', seller.id).select('id', 'sku', 'quantity').orderBy('id');
    expect(rows).to.deep.equal([
      { id: parts[0]!.stock_id, sku: 'OK-1', quantity: 2 },
      { id: parts[2]!.stock_id, sku: 'OK-3', quantity: 4 },
    ]);
    expect((await historyOf(seller, parts[0]!.stock_id!)).map((m) => m.quantity.new)).to.deep.equal([2]);
    expect((await historyOf(seller, parts[2]!.stock_id!)).map((m) => m.quantity.new)).to.deep.equal([4]);
    expect((await ciaRows(seller)).map((r) => r.stockId)).to.deep.equal([parts[0]!.stock_id, parts[2]!.stock_id]);
  });
});
