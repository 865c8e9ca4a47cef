import { expect } from 'chai';
import { db } from '../../lib/db/knex';
import { call, newSeller, Seller, withConcurrentCalls } from '../support/api';
import { untilOneWaitsForALock } from '../support/lock-wait';
import { createOrder, createStock, movements, orderBody, outbox, stockQuantity } from './helpers';

interface Item {
  path: string;
  code: number;
  order_id?: string;
  error?: { error: string; field?: string }[];
  warning?: { field?: string }[];
}

describe('order: POST order/list/ stock in one batch', () => {
  let seller: Seller;
  beforeEach(async () => {
    seller = await newSeller();
  });

  const list = (order: unknown) => call('order/list/', { token: seller.token, body: { order } });

  it('when a list takes from the same items, then movements follow the list order, each item gets one cia.adjust and stock adds up', async () => {
    const a = await createStock(seller, 'SKU-A', 10);
    const b = await createStock(seller, 'SKU-B', 10);
    const existing = await createOrder(seller, { line: [{ id: 1, quantity: 2, stock_align_id: 'SKU-A' }] });
    const before = (await outbox(seller)).length;
    const res = await list([
      orderBody({
        line: [
          { id: 1, quantity: 1, stock_align_id: 'SKU-A' },
          { id: 2, quantity: 2, stock_align_id: 'SKU-B' },
        ],
      }),
      { id: existing, line: [{ id: 1, quantity: 5, stock_align_id: 'SKU-A' }] },
      orderBody({ line: [{ id: 1, quantity: 1, stock_align_id: 'NOPE' }] }),
      orderBody({ status: { is_cancelled: true }, line: [{ id: 1, quantity: 4, stock_align_id: 'SKU-B' }] }),
      orderBody({
        line: [
          { id: 2, quantity: 3, stock_align_id: 'SKU-B' },
          { id: 1, quantity: 12, stock_align_id: 'SKU-A' },
        ],
      }),
    ]);
    expect(res.status, res.text).to.equal(207);
    const items = res.body.response as Item[];
    expect(items.map((i) => i.code)).to.deep.equal([201, 200, 404, 201, 201]);
    expect(items[2]!.error![0]).to.include({ field: 'order[2].line[0].stock_align_id', error: 'unknown_stock_item' });
    expect(await stockQuantity(seller, a)).to.equal(10 - 1 - 5 - 12);
    expect(await stockQuantity(seller, b)).to.equal(10 - 2 - 3);
    const first = items[0]!.order_id!;
    const last = items[4]!.order_id!;
    expect((await movements(seller, a)).filter((m) => m.order_id !== null).map((m) => [m.order_id, m.title, m.quantity])).to.deep.equal([
      [existing, 'order', { old: 10, difference: -2, new: 8 }],
      [first, 'order', { old: 8, difference: -1, new: 7 }],
      [existing, 'order changed', { old: 7, difference: -3, new: 4 }],
      [last, 'order', { old: 4, difference: -12, new: -8 }],
    ]);
    const cia = (await outbox(seller))
      .slice(before)
      .filter((r) => r.job_name === 'cia.adjust')
      .map((r) => `${String(r.payload.stockId)}:${String(r.payload.reason)}`);
    expect(cia).to.have.members([`${a}:order`, `${b}:order`, `${a}:order changed`]);
  });

  it('when an item a line takes from is deleted while the list waits for its lock, then the list runs again and only that order fails', async () => {
    const a = await createStock(seller, 'SKU-A', 10);
    const gone = await createStock(seller, 'SKU-GONE', 10);
    const holder = await db().transaction();
    try {
      await holder('stock').where({ account_id: seller.id, id: gone }).forUpdate();
      const pending = list([
        orderBody({ line: [{ id: 1, quantity: 1, stock_align_id: 'SKU-A' }] }),
        orderBody({ invoice_amount: '9', line: [{ id: 1, quantity: 1, stock_align_id: 'SKU-GONE' }] }),
        orderBody({ invoice_amount: '9', line: [{ id: 1, quantity: 2, stock_align_id: 'SKU-A' }] }),
      ]);
      await untilOneWaitsForALock('%FOR UPDATE OF s%');
      await holder('stock').where({ account_id: seller.id, id: gone }).delete();
      await holder.commit();
      const res = await pending;
      expect(res.status, res.text).to.equal(207);
      const items = res.body.response as Item[];
      expect(items.map((i) => i.code)).to.deep.equal([201, 404, 201]);
      expect(items[1]!.error![0]!.field).to.equal('order[1].line[0].stock_align_id');
      // The second run neither repeats the first run's warnings nor loses them.
      expect(items[2]!.warning!.map((w) => w.field)).to.deep.equal(['order[2].invoice_amount']);
      expect(items.filter((i) => i.order_id).map((i) => i.order_id!.split('_')[0])).to.deep.equal(['1', '2']);
    } finally {
      if (!holder.isCompleted()) await holder.rollback();
    }
    expect(await stockQuantity(seller, a)).to.equal(7);
    expect(await db()('sales_order').where({ account_id: seller.id }).count('* as n').first()).to.deep.equal({ n: '2' });
  });

  it('when every line of a list takes one item (a best-seller), then its movements chain old to new in list order, one cia.adjust, exact stock', async () => {
    const item = await createStock(seller, 'SKU-BEST', 1000);
    const before = (await outbox(seller)).length;
    const quantities = Array.from({ length: 40 }, (_, i) => [1 + (i % 3), 1 + (i % 2), 2]);
    const res = await list(quantities.map((q) => orderBody({ line: q.map((quantity, n) => ({ id: n + 1, quantity, stock_align_id: 'SKU-BEST' })) })));
    expect(res.status, res.text).to.equal(207);
    const items = res.body.response as Item[];
    expect(items.every((i) => i.code === 201)).to.equal(true);
    const taken = quantities.flat();
    const moved = (await movements(seller, item)).filter((m) => m.order_id !== null);
    // Each line one movement, in the list's order and each order's line order, each starting where the last ended.
    let level = 1000;
    expect(moved.map((m) => [m.order_id, m.quantity])).to.deep.equal(
      taken.map((quantity, n) => {
        const step = [items[Math.floor(n / 3)]!.order_id, { old: level, difference: -quantity, new: level - quantity }];
        level -= quantity;
        return step;
      }),
    );
    expect(await stockQuantity(seller, item)).to.equal(1000 - taken.reduce((a, b) => a + b, 0));
    const cia = (await outbox(seller)).slice(before).filter((r) => r.job_name === 'cia.adjust');
    expect(cia.map((r) => r.payload.stockId)).to.deep.equal([item]);
  });

  it('when an item a POST order/ takes from is deleted while it waits for its lock, then 404 names the line and nothing of the order is stored', async () => {
    const gone = await createStock(seller, 'SKU-GONE', 10);
    const holder = await db().transaction();
    try {
      await holder('stock').where({ account_id: seller.id, id: gone }).forUpdate();
      const pending = call('order/', { token: seller.token, body: { order: orderBody({ line: [{ id: 1, quantity: 1, stock_align_id: 'SKU-GONE' }] }) } });
      await untilOneWaitsForALock('%FOR UPDATE OF s%');
      await holder('stock').where({ account_id: seller.id, id: gone }).delete();
      await holder.commit();
      const res = await pending;
      expect(res.status, res.text).to.equal(404);
      expect(res.body.error![0]).to.include({ field: 'order.line[0].stock_align_id', error: 'unknown_stock_item' });
    } finally {
      if (!holder.isCompleted()) await holder.rollback();
    }
    expect(await db()('sales_order').where({ account_id: seller.id }).first()).to.equal(undefined);
    expect(await createOrder(seller, {})).to.match(/^1_/);
  });

  it('when lists, single orders and updates over the same items in opposite orders run concurrently, then all succeed and stock adds up', async () => {
    const skus = ['SKU-A', 'SKU-B', 'SKU-C'];
    const ids = [];
    for (const sku of skus) ids.push(await createStock(seller, sku, 1000));
    const lines = (order: string[], quantity: number) => order.map((sku, i) => ({ id: i + 1, quantity, stock_align_id: sku }));
    const existing: string[] = [];
    for (let i = 0; i < 4; i++) existing.push(await createOrder(seller, { line: lines(skus, 1) }));
    const reversed = [...skus].reverse();
    // Eight calls of one account in flight at once: CONCURRENT_CALLS_PER_ACCOUNT raised for them.
    const results = await withConcurrentCalls(8, () =>
      Promise.all([
        list(Array.from({ length: 10 }, () => orderBody({ line: lines(skus, 1) }))),
        list(Array.from({ length: 10 }, () => orderBody({ line: lines(reversed, 2) }))),
        list(existing.slice(0, 2).map((id) => ({ id, line: lines(reversed, 3) }))),
        ...[0, 1, 2].map((i) => call('order/', { token: seller.token, body: { order: orderBody({ line: lines(i % 2 ? skus : reversed, 1) }) } })),
        ...existing.slice(2).map((id, i) => call(`order/${id}/`, { token: seller.token, body: { order: { line: lines(i % 2 ? skus : reversed, 4) } } })),
      ]),
    );
    expect(
      results.map((r) => r.status),
      results.map((r) => r.text).join('\n'),
    ).to.deep.equal([207, 207, 207, 201, 201, 201, 200, 200]);
    for (const r of results.slice(0, 3))
      expect(
        (r.body.response as Item[]).every((i) => i.code === 201 || i.code === 200),
        r.text,
      ).to.equal(true);
    // Lists: 10 x 1 and 10 x 2; updates hold 3 and 4 instead of 1 (2 orders each); singles: 3 x 1.
    const expected = 1000 - 4 - 10 - 20 - 2 * 2 - 2 * 3 - 3;
    for (const id of ids) expect(await stockQuantity(seller, id)).to.equal(expected);
  });
});
