import { expect } from 'chai';
import { db } from '../../lib/db/knex';
import { loadCiaInput } from '../../lib/stock/stock-cia.repository';
import { adjustStockQuantity } from '../../lib/stock/stock-quantity';
import { call, newSeller, Seller, withConcurrentCalls } from '../support/api';
import { ciaRows, createItem, historyOf, readItem, stockCiaHandler } from './helpers';

describe('stock quantity contract (adjustStockQuantity, loadCiaInput)', () => {
  let seller: Seller;
  beforeEach(async () => {
    seller = await newSeller();
  });

  it('when an order takes 3 by sku, then quantity drops, history names the order and cia.adjust is queued', async () => {
    const id = await createItem(seller, { name: 'Mug', sku: 'MUG-1', quantity: 10 });
    const before = (await ciaRows(seller)).length;
    const result = await db().transaction((trx) => adjustStockQuantity(trx, seller.id, 'MUG-1', -3, { title: 'order', orderId: '1_2026_11' }));
    expect(result).to.deep.equal({ stockId: id, quantityOld: 10, quantityNew: 7 });
    const item = await readItem(seller, id);
    expect(item.quantity).to.equal(7);
    expect(item.quantity_available).to.equal(7);
    const history = await historyOf(seller, id);
    expect(history.at(-1)).to.include({ title: 'order', order_id: '1_2026_11' });
    expect(history.at(-1)!.quantity).to.deep.equal({ old: 10, difference: -3, new: 7 });
    expect((await ciaRows(seller)).slice(before)).to.deep.equal([{ accountId: seller.id, stockId: id, reason: 'order' }]);
  });

  it('when the reference is a barcode, an id, or a prefixed identifier, then each finds the item', async () => {
    const id = await createItem(seller, { name: 'Pen', sku: 'PEN', barcode: '4006381333931', mpn: 'P-9', quantity: 5, market_d: { sku: 'AMZ-PEN' } });
    for (const ref of ['4006381333931', String(id), `ID_${id}`, 'EAN_4006381333931', 'SKU_PEN', 'MPN_P-9', 'MKTDSKU_AMZ-PEN']) {
      const result = await db().transaction((trx) => adjustStockQuantity(trx, seller.id, ref, -1, { title: 'order' }));
      expect(result?.stockId, ref).to.equal(id);
    }
    expect((await readItem(seller, id)).quantity).to.equal(-2);
  });

  it('when an order oversells, then quantity goes below 0 and the seller sees it', async () => {
    const id = await createItem(seller, { name: 'Last one', sku: 'L1', quantity: 1 });
    const result = await db().transaction((trx) => adjustStockQuantity(trx, seller.id, 'L1', -2, { title: 'order' }));
    expect(result).to.deep.include({ quantityOld: 1, quantityNew: -1 });
    expect((await readItem(seller, id)).quantity_available).to.equal(-1);
  });

  it('when no item of the account matches, then undefined and nothing changes', async () => {
    const other = await newSeller();
    await createItem(other, { name: 'Foreign', sku: 'FOREIGN', quantity: 4 });
    const result = await db().transaction((trx) => adjustStockQuantity(trx, seller.id, 'FOREIGN', -1, { title: 'order' }));
    expect(result).to.equal(undefined);
  });

  it('when two items share the sku, then ambiguous (300) is thrown', async () => {
    await createItem(seller, { name: 'A', sku: 'DUP', quantity: 1 });
    await createItem(seller, { name: 'B', sku: 'DUP', quantity: 1 });
    const err = await db()
      .transaction((trx) => adjustStockQuantity(trx, seller.id, 'DUP', -1, { title: 'order' }))
      .catch((e: unknown) => e);
    expect(err).to.have.property('status', 300);
  });

  it('when a variant is sold, then cia.adjust is queued for it alone, not its main item (which offers nothing of its own)', async () => {
    const main = await createItem(seller, { name: 'Shirt', variation: { type: 'main', specifics_set: { name_value: [{ name: 'size', value: ['S', 'M'] }] } } });
    await call(`stock/${main}/`, {
      token: seller.token,
      body: { stock: { variation: { sub: [{ create_quantity: 4, specifics: { name_value: [{ name: 'size', value: ['S'] }] } }] } } },
    });
    const variant = Number(((await readItem(seller, main)).variation as { sub: { id: string }[] }).sub[0]!.id);
    const before = (await ciaRows(seller)).length;
    await db().transaction((trx) => adjustStockQuantity(trx, seller.id, String(variant), -1, { title: 'order' }));
    expect((await ciaRows(seller)).slice(before).map((r) => r.stockId)).to.deep.equal([variant]);
    const input = await loadCiaInput(db(), seller.id, main);
    expect(input).to.deep.include({ variationType: 'main', variants: [{ stockId: variant, quantityAvailable: 3 }] });
  });

  it('when a set main is sold, then each sub moves by its quantity in the set and the main follows', async () => {
    const a = await createItem(seller, { name: 'Cup', quantity: 10 });
    const b = await createItem(seller, { name: 'Saucer', quantity: 7 });
    const set = await createItem(seller, {
      name: 'Cup and 2 saucers',
      set: {
        sub: [
          { id: a, quantity: 1 },
          { id: b, quantity: 2 },
        ],
      },
    });
    expect((await readItem(seller, set)).quantity_available).to.equal(3);
    const result = await db().transaction((trx) => adjustStockQuantity(trx, seller.id, String(set), -1, { title: 'order' }));
    expect(result).to.deep.equal({ stockId: set, quantityOld: 3, quantityNew: 2 });
    expect((await readItem(seller, a)).quantity).to.equal(9);
    expect((await readItem(seller, b)).quantity).to.equal(5);
    const input = await loadCiaInput(db(), seller.id, b);
    expect(input).to.deep.include({ setType: 'sub', setMainIds: [set], quantityAvailable: 5 });
  });

  it('when the cia input of an item is loaded, then it carries quantities and cia settings', async () => {
    await stockCiaHandler(seller, 'hook-1');
    const id = await createItem(seller, {
      name: 'Lamp',
      quantity: 8,
      quantity_reserved: 2,
      quantity_reserved_2: 1,
      quantity_auction_a: 1,
      cia: {
        market_d: { is_active: true, max_quantity: 3, portal_account_id: [seller.portalAccountId] },
        auction_a: { is_active: false },
        event: { is_active: true, max_quantity: 2, target: ['hook-1'] },
      },
    });
    const input = await loadCiaInput(db(), seller.id, id);
    expect(input).to.deep.equal({
      accountId: seller.id,
      stockId: id,
      variationType: 'none',
      variationParentId: null,
      setType: 'none',
      setMainIds: [],
      quantityAvailable: 4,
      variants: [],
      cia: {
        market_d: { is_active: true, max_quantity: 3, portal_account_id: [seller.portalAccountId] },
        auction_a: { is_active: false, max_quantity: null, portal_account_id: [] },
      },
      eventTargets: ['hook-1'],
      eventMaxQuantity: 2,
    });
    expect(await loadCiaInput(db(), seller.id + 100000, id)).to.equal(undefined);
  });
});

describe('stock quantity under concurrent orders', () => {
  it('when 10 orders take one unit of the same item at once, then exactly 10 units and 10 movements are gone', async () => {
    const seller = await newSeller();
    const id = await createItem(seller, { name: 'Hot item', sku: 'HOT', quantity: 5 });
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        db().transaction((trx) => adjustStockQuantity(trx, seller.id, 'HOT', -1, { title: 'order', orderId: `${i + 1}_2026_11` })),
      ),
    );
    expect((await readItem(seller, id)).quantity).to.equal(-5);
    const history = await historyOf(seller, id);
    expect(
      history
        .slice(1)
        .map((h) => h.quantity.new)
        .sort((a, b) => b - a),
    ).to.deep.equal([4, 3, 2, 1, 0, -1, -2, -3, -4, -5]);
  });
});

describe('stock quantity: sets sold while their parts change', () => {
  it('when a set and its parts are sold and updated at the same time, then no request fails and the quantities add up', async () => {
    const seller = await newSeller();
    const a = await createItem(seller, { name: 'A', sku: 'SA', quantity: 100 });
    const b = await createItem(seller, { name: 'B', sku: 'SB', quantity: 100 });
    const set = await createItem(seller, {
      name: 'Set',
      sku: 'SET',
      set: {
        sub: [
          { id: a, quantity: 1 },
          { id: b, quantity: 2 },
        ],
      },
    });
    // The stock updates of one account race each other: CONCURRENT_CALLS_PER_ACCOUNT raised for them.
    await withConcurrentCalls(6, () => {
      const work: Promise<unknown>[] = [];
      for (let i = 0; i < 6; i++) {
        work.push(db().transaction((trx) => adjustStockQuantity(trx, seller.id, 'SET', -1, { title: 'order' })));
        work.push(db().transaction((trx) => adjustStockQuantity(trx, seller.id, i % 2 ? 'SA' : 'SB', -1, { title: 'order' })));
        work.push(
          call(`stock/${i % 2 ? a : b}/`, { token: seller.token, body: { stock: { quantity_reserved: i } } }).then((r) =>
            expect(r.status, r.text).to.equal(200),
          ),
        );
      }
      return Promise.all(work);
    });
    expect((await readItem(seller, a)).quantity).to.equal(100 - 6 - 3);
    expect((await readItem(seller, b)).quantity).to.equal(100 - 12 - 3);
    const itemA = await readItem(seller, a);
    const itemB = await readItem(seller, b);
    expect((await readItem(seller, set)).quantity_available).to.equal(Math.min(itemA.quantity_available, Math.floor(itemB.quantity_available / 2)));
  });
});
