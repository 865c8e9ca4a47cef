import { expect } from 'chai';
import type { Knex } from 'knex';
import { Client } from 'pg';
import { config } from '../../config';
import { db } from '../../lib/db/knex';
import { addManyToOutbox, addToOutbox, outboxChannel } from '../../lib/queue/outbox';
import { adjustStockQuantities, adjustStockQuantity, StockChange, StockMoved } from '../../lib/stock/stock-quantity';
import { call, newSeller, Seller, withConcurrentCalls } from '../support/api';
import { createItem, readItem } from './helpers';

/** The same items for any seller, by name: plain, reserved, a variant and a set of two parts. */
async function catalogue(seller: Seller): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  ids.set('A', await createItem(seller, { name: 'A', sku: 'A', quantity: 10 }));
  ids.set('B', await createItem(seller, { name: 'B', sku: 'B', quantity: 5, quantity_reserved: 2 }));
  ids.set('P1', await createItem(seller, { name: 'P1', sku: 'P1', quantity: 10 }));
  ids.set('P2', await createItem(seller, { name: 'P2', sku: 'P2', barcode: '4006381333931', quantity: 7 }));
  ids.set(
    'SET',
    await createItem(seller, {
      name: 'SET',
      sku: 'SET',
      set: {
        sub: [
          { id: ids.get('P1'), quantity: 1 },
          { id: ids.get('P2'), quantity: 2 },
        ],
      },
    }),
  );
  const main = await createItem(seller, {
    name: 'SHIRT',
    sku: 'SHIRT',
    variation: { type: 'main', specifics_set: { name_value: [{ name: 'size', value: ['S'] }] } },
  });
  const res = await call(`stock/${main}/`, {
    token: seller.token,
    body: { stock: { variation: { sub: [{ create_quantity: 4, specifics: { name_value: [{ name: 'size', value: ['S'] }] } }] } } },
  });
  expect(res.status, res.text).to.equal(200);
  ids.set('SHIRT', main);
  ids.set('SHIRT-S', Number(((await readItem(seller, main)).variation as { sub: { id: string }[] }).sub[0]!.id));
  return ids;
}

/** A mixed sequence: plain items, a set main and its parts, a variant, an unknown reference, oversold items. */
function sequence(ids: Map<string, number>): StockChange[] {
  const order = (n: number, title = 'order') => ({ title, orderId: `${n}_2026_11`, personId: null });
  return [
    { stockRef: 'A', difference: -3, cause: order(1) },
    { stockRef: 'SET', difference: -1, cause: order(1) },
    { stockRef: '4006381333931', difference: -1, cause: order(2) },
    { stockRef: 'SKU_SET', difference: -2, cause: order(2) },
    { stockRef: `ID_${ids.get('A')}`, difference: 1, cause: order(2, 'order changed') },
    { stockRef: 'NOPE', difference: -1, cause: order(3) },
    { stockRef: String(ids.get('SHIRT-S')), difference: -2, cause: order(3) },
    { stockRef: 'B', difference: -10, cause: order(3) },
    { stockRef: 'P1', difference: 4, cause: order(4, 'order cancelled') },
    { stockRef: 'SET', difference: 1, cause: order(4, 'order cancelled') },
    { stockRef: 'A', difference: -20, cause: order(5) },
  ];
}

/** What the changes left behind, with stock ids replaced by item names so that two sellers compare. */
async function outcome(seller: Seller, ids: Map<string, number>, results: (StockMoved | undefined)[]) {
  const name = new Map([...ids].map(([key, id]) => [id, key]));
  const history = (await db()('stock_history').where({ account_id: seller.id }).whereNot('title', 'like', 'stock%').orderBy('id')) as {
    stock_id: number;
    quantity_old: number;
    quantity_difference: number;
    quantity_new: number;
    title: string;
    order_id: string | null;
    person_id: number | null;
  }[];
  const items = (await db()('stock').select('id', 'quantity', 'quantity_available').where({ account_id: seller.id }).orderBy('id')) as {
    id: number;
    quantity: number;
    quantity_available: number;
  }[];
  const cia = (await db()('outbox').where({ account_id: seller.id, job_name: 'cia.adjust' }).whereRaw("payload->>'reason' NOT LIKE 'stock.%'").orderBy('id'))
    .map((r) => r.payload as { stockId: number; reason: string })
    .map((payload) => `${name.get(payload.stockId)}:${payload.reason}`);
  return {
    results: results.map((r) => r && { ...r, stockId: name.get(r.stockId) }),
    history: history.map((h) => [name.get(h.stock_id), h.quantity_old, h.quantity_difference, h.quantity_new, h.title, h.order_id, h.person_id]),
    items: items.map((i) => [name.get(i.id), i.quantity, i.quantity_available]),
    cia,
  };
}

describe('stock quantity batch (adjustStockQuantities)', () => {
  it('when a mixed sequence runs as one batch, then movements, quantities and results equal single changes made one after another', async () => {
    const single = await newSeller();
    const batch = await newSeller();
    const singleIds = await catalogue(single);
    const batchIds = await catalogue(batch);
    const singleResults = await db().transaction(async (trx) => {
      const results: (StockMoved | undefined)[] = [];
      for (const c of sequence(singleIds)) results.push(await adjustStockQuantity(trx, single.id, c.stockRef, c.difference, c.cause));
      return results;
    });
    const batchResults = await db().transaction((trx) => adjustStockQuantities(trx, batch.id, sequence(batchIds)));

    const expected = await outcome(single, singleIds, singleResults);
    const actual = await outcome(batch, batchIds, batchResults);
    expect(actual.results).to.deep.equal(expected.results);
    expect(actual.history).to.deep.equal(expected.history);
    expect(actual.items).to.deep.equal(expected.items);
    // One cia.adjust per distinct item and reason instead of one per change.
    expect(actual.cia).to.have.members([...new Set(expected.cia)]);
    expect(actual.cia).to.have.length(new Set(actual.cia).size);

    // Spot checks of the rules themselves: unknown reference, oversold items, set sold as its parts.
    expect(actual.results[5]).to.equal(undefined);
    expect(actual.items).to.deep.include.members([
      ['A', -12, -12],
      ['B', -5, -7],
    ]);
    expect(actual.history.filter((h) => h[0] === 'SET').map((h) => [h[1], h[3]])).to.deep.equal([
      [3, 2],
      [2, 0],
      [0, 1],
    ]);
    expect(actual.cia).to.include.members(['SHIRT-S:order', 'SET:order', 'P1:order', 'P2:order', 'SET:order cancelled']);
    // A variant's sale adjusts the variant only: its main offers nothing of its own (lib/cia).
    expect(actual.cia).to.not.include('SHIRT:order');
  });

  it('when an empty batch or only unknown references are given, then nothing is written', async () => {
    const seller = await newSeller();
    await createItem(seller, { name: 'A', sku: 'A', quantity: 1 });
    const results = await db().transaction(async (trx) => [
      await adjustStockQuantities(trx, seller.id, []),
      await adjustStockQuantities(trx, seller.id, [
        { stockRef: 'NOPE', difference: -1, cause: { title: 'order' } },
        { stockRef: 'ID_0', difference: 1, cause: { title: 'order' } },
      ]),
    ]);
    expect(results).to.deep.equal([[], [undefined, undefined]]);
    expect(await db()('stock_history').where({ account_id: seller.id, title: 'order' }).first()).to.equal(undefined);
  });

  it('when one reference of the batch is ambiguous, then 300 is thrown before any item moves', async () => {
    const seller = await newSeller();
    const a = await createItem(seller, { name: 'A', sku: 'A', quantity: 10 });
    await createItem(seller, { name: 'D1', sku: 'DUP', quantity: 1 });
    await createItem(seller, { name: 'D2', sku: 'DUP', quantity: 1 });
    const seen = await db().transaction(async (trx: Knex.Transaction) => {
      const err = await adjustStockQuantities(trx, seller.id, [
        { stockRef: 'A', difference: -1, cause: { title: 'order' } },
        { stockRef: 'DUP', difference: -1, cause: { title: 'order' } },
      ]).catch((e: unknown) => e);
      const row = (await trx('stock').select('quantity').where({ id: a }).first()) as { quantity: number };
      const moved = await trx('stock_history').where({ account_id: seller.id, title: 'order' }).first();
      return { err, quantity: row.quantity, moved };
    });
    expect(seen.err).to.have.property('status', 300);
    expect(seen).to.deep.include({ quantity: 10, moved: undefined });
  });
});

describe('stock quantity batch under concurrency', () => {
  it('when batches over the same items in different orders run with single changes and part updates, then none deadlocks and no update is lost', async () => {
    const seller = await newSeller();
    const x = await createItem(seller, { name: 'X', sku: 'X', quantity: 100 });
    const y = await createItem(seller, { name: 'Y', sku: 'Y', quantity: 100 });
    const z = await createItem(seller, { name: 'Z', sku: 'Z', quantity: 100 });
    const set = await createItem(seller, {
      name: 'Set',
      sku: 'SET',
      set: {
        sub: [
          { id: y, quantity: 1 },
          { id: z, quantity: 2 },
        ],
      },
    });
    const refs = ['X', 'Y', 'Z', 'SET'];
    // The part updates of one account race each other: CONCURRENT_CALLS_PER_ACCOUNT raised for them.
    await withConcurrentCalls(8, () => {
      const work: Promise<unknown>[] = [];
      for (let i = 0; i < 8; i++) {
        // Each batch names the items in another order (rotated, reversed every other time).
        const rotated = [...refs.slice(i % 4), ...refs.slice(0, i % 4)];
        const order = i % 2 ? rotated.reverse() : rotated;
        work.push(
          db().transaction((trx) =>
            adjustStockQuantities(
              trx,
              seller.id,
              order.map((stockRef) => ({ stockRef, difference: -1, cause: { title: 'order', orderId: `${i + 1}_2026_11` } })),
            ),
          ),
        );
        work.push(db().transaction((trx) => adjustStockQuantity(trx, seller.id, i % 2 ? 'Z' : 'SET', -1, { title: 'order' })));
        work.push(
          call(`stock/${i % 2 ? y : z}/`, { token: seller.token, body: { stock: { quantity_reserved: i } } }).then((r) =>
            expect(r.status, r.text).to.equal(200),
          ),
        );
      }
      return Promise.all(work);
    });
    // Batches: 8 x (X, Y, Z, SET = Y + 2 Z); singles: 4 x Z and 4 x SET.
    expect((await readItem(seller, x)).quantity).to.equal(100 - 8);
    expect((await readItem(seller, y)).quantity).to.equal(100 - 8 - 8 - 4);
    expect((await readItem(seller, z)).quantity).to.equal(100 - 8 - 16 - 4 - 8);
    const itemY = await readItem(seller, y);
    const itemZ = await readItem(seller, z);
    expect((await readItem(seller, set)).quantity_available).to.equal(Math.min(itemY.quantity_available, Math.floor(itemZ.quantity_available / 2)));
    // Each item's movements form one chain: every one starts where the previous one ended.
    for (const id of [x, y, z]) {
      const rows = (await db()('stock_history').where({ account_id: seller.id, stock_id: id, title: 'order' }).orderBy('id')) as {
        quantity_old: number;
        quantity_new: number;
      }[];
      for (let i = 1; i < rows.length; i++) expect(rows[i]!.quantity_old).to.equal(rows[i - 1]!.quantity_new);
    }
  });
});

describe('outbox: addManyToOutbox (the stock batch writes cia.adjust with it)', () => {
  it('when several jobs are added, then one INSERT keeps their order, the ids come back in that order and one NOTIFY is sent at commit, however many inserts the transaction made', async () => {
    const seller = await newSeller();
    const listener = new Client({ connectionString: config().databaseUrl });
    await listener.connect();
    try {
      const notes: (string | undefined)[] = [];
      listener.on('notification', (n) => notes.push(n.payload));
      await listener.query(`LISTEN ${outboxChannel}`);
      const ids = await db().transaction(async (trx) => [
        ...(await addManyToOutbox(trx, seller.id, [
          { job: 'cia.adjust', payload: { accountId: seller.id, stockId: 1, reason: 'order' } },
          { job: 'event.emit', payload: { accountId: seller.id, section: 'order', type: 'created', recordId: '1_2026_11' } },
          { job: 'cia.adjust', payload: { accountId: seller.id, stockId: 2, reason: 'order' } },
        ])),
        ...(await addManyToOutbox(trx, seller.id, [])),
        await addToOutbox(trx, seller.id, 'event.emit', { accountId: seller.id, section: 'order', type: 'paid', recordId: '1_2026_11' }),
      ]);
      const rows = (await db()('outbox').select('job_id', 'queue', 'job_name', 'payload').where({ account_id: seller.id }).orderBy('id')) as {
        job_id: string;
        queue: string;
        job_name: string;
        payload: Record<string, unknown>;
      }[];
      expect(rows.map((r) => r.job_id)).to.deep.equal(ids);
      expect(rows.map((r) => [r.queue, r.job_name, r.payload.stockId ?? r.payload.recordId])).to.deep.equal([
        ['cia', 'cia.adjust', 1],
        ['events', 'event.emit', '1_2026_11'],
        ['cia', 'cia.adjust', 2],
        ['events', 'event.emit', '1_2026_11'],
      ]);
      for (let i = 0; i < 40 && notes.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 25));
      await new Promise((resolve) => setTimeout(resolve, 100));
      // Two inserts, one transaction: the relay is woken once.
      expect(notes).to.deep.equal(['']);
    } finally {
      await listener.end();
    }
  });
});
