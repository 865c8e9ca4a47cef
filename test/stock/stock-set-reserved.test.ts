/**
 * Units reserved on a set main are not available (document 2, Stock_type quantity_available:
 * "quantity minus reserved quantities ... basis for CIA"): a set main's quantity_available is
 * what its parts give less its own reservations, in GET stock/{id}/, in the searches filtering on
 * it and in the movements a sale of the set writes (lib/stock README, "Quantities").
 */
import { expect } from 'chai';
import { db } from '../../lib/db/knex';
import { backfillSetMainsReserved } from '../../lib/db/migrations/20261130_0080_stock_set_main_reserved';
import { call, newSeller, query, Seller } from '../support/api';
import { createOrder } from '../order/helpers';
import { createItem, historyOf, readItem } from './helpers';

describe('stock: units reserved on a set main', () => {
  let seller: Seller;
  beforeEach(async () => {
    seller = await newSeller();
  });

  async function update(stockId: number, stock: Record<string, unknown>): Promise<void> {
    const res = await call(`stock/${stockId}/`, { token: seller.token, body: { stock } });
    expect(res.status, res.text).to.equal(200);
  }
  const available = async (stockId: number) => (await readItem(seller, stockId)).quantity_available;
  async function found(filter: Record<string, unknown>): Promise<number[]> {
    const res = await call(`stock/?${query({ filter })}`, { token: seller.token });
    expect(res.status, res.text).to.equal(200);
    return (res.body.stock as { id: string }[]).map((s) => Number(s.id));
  }

  it('when a set of one part with 5 has 3 reserved, then GET answers 2, a search on quantity_available finds 2, and a change of the reservation moves it', async () => {
    const part = await createItem(seller, { name: 'Cup', quantity: 5 });
    const set = await createItem(seller, { name: 'Cup set', quantity: 0, quantity_reserved: 3, set: { sub: [{ id: String(part), quantity: 1 }] } });
    const item = await readItem(seller, set);
    expect({ quantity_reserved: item.quantity_reserved, quantity_available: item.quantity_available }).to.deep.equal({
      quantity_reserved: 3,
      quantity_available: 2,
    });
    // The part keeps its own: the reservation is of sets.
    expect(await available(part)).to.equal(5);
    expect(await found({ id: [set], quantity_available: 2 })).to.deep.equal([set]);
    expect(await found({ id: [set], quantity_available: 5 })).to.deep.equal([]);

    // Both reserved quantities count, as on a plain item.
    await update(set, { quantity_reserved: 1, quantity_reserved_2: 2 });
    expect(await available(set)).to.equal(2);
    await update(set, { quantity_reserved: 0, quantity_reserved_2: 0 });
    expect(await available(set)).to.equal(5);
    await update(set, { quantity_reserved: 4 });
    expect(await available(set)).to.equal(1);
    expect(await found({ id: [set], quantity_available: { operator: '<', value: 2 } })).to.deep.equal([set]);

    // A change of the part moves the set with its reservation still taken off.
    await update(part, { quantity: 9 });
    expect(await available(set)).to.equal(5);
  });

  it('when a set with 3 reserved is sold, then its movement and its available quantity keep the reservation off, also with a part sold in the same order', async () => {
    const part = await createItem(seller, { name: 'Cup', quantity: 10 });
    const set = await createItem(seller, { name: 'Cup pair', quantity_reserved: 3, set: { sub: [{ id: String(part), quantity: 2 }] } });
    expect(await available(set)).to.equal(2);

    const orderId = await createOrder(seller, {
      line: [
        { id: 1, quantity: 1, price: '5.00', stock_align_id: String(part) },
        { id: 2, quantity: 1, price: '20.00', stock_align_id: String(set) },
      ],
    });
    // The part's line first: 9 parts give 4 sets, less 3 reserved; the set's line takes 2 more:
    // 7 give 3, less 3.
    expect(await available(set)).to.equal(0);
    const sold = (await historyOf(seller, set)).filter((m) => m.order_id === orderId);
    expect(sold.map((m) => m.quantity)).to.deep.equal([{ old: 1, difference: -1, new: 0 }]);
  });

  it('when more sets are reserved than the parts give, then quantity_available goes below 0 as a plain item’s does', async () => {
    const plain = await createItem(seller, { name: 'Saucer', quantity: 5, quantity_reserved: 7 });
    expect(await available(plain)).to.equal(-2);
    const part = await createItem(seller, { name: 'Cup', quantity: 5 });
    const set = await createItem(seller, { name: 'Cup set', quantity_reserved: 7, set: { sub: [{ id: String(part), quantity: 1 }] } });
    expect(await available(set)).to.equal(-2);
  });

  it('when a set is listed at auction_a, then its listed quantity is taken off as a plain item’s is (the account subtracts it by default)', async () => {
    const part = await createItem(seller, { name: 'Cup', quantity: 5 });
    const set = await createItem(seller, { name: 'Cup set', quantity_auction_a: 1, quantity_reserved: 1, set: { sub: [{ id: String(part), quantity: 1 }] } });
    expect(await available(set)).to.equal(3);
  });

  it('when the reservations would take a set below the integer column, then the write still succeeds and the set reads the lowest integer', async () => {
    const part = await createItem(seller, {
      name: 'Cup',
      quantity: -500000000,
      quantity_reserved: 500000000,
      quantity_reserved_2: 500000000,
      quantity_auction_a: 500000000,
    });
    expect(await available(part)).to.equal(-2000000000);
    const set = await createItem(seller, { name: 'Cup set', quantity_reserved: 500000000, set: { sub: [{ id: String(part), quantity: 1 }] } });
    expect(await available(set)).to.equal(-2147483648);
  });

  it('when a set main was stored before the rule (its parts’ value alone), then migration 20261130_0080 stores it less its reservations, once', async () => {
    const part = await createItem(seller, { name: 'Cup', quantity: 5 });
    const set = await createItem(seller, { name: 'Cup set', quantity_reserved: 3, set: { sub: [{ id: String(part), quantity: 1 }] } });
    const plain = await createItem(seller, { name: 'Saucer', quantity: 5, quantity_reserved: 3 });
    await db()('stock').where({ account_id: seller.id, id: set }).update({ quantity_available: 5 });
    expect(await backfillSetMainsReserved(db())).to.be.at.least(1);
    expect(await available(set)).to.equal(2);
    expect(await available(plain)).to.equal(2);
    expect(await backfillSetMainsReserved(db())).to.equal(0);
  });
});
