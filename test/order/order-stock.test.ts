import { expect } from 'chai';
import { db } from '../../lib/db/knex';
import { call, newSeller, Seller, withConcurrentCalls } from '../support/api';
import { whileDatabaseRefuses } from '../support/db-refusal';
import { createItem, readItem } from '../stock/helpers';
import { ciaJobs, createOrder, createStock, movements, orderBody, readOrder, stockQuantity } from './helpers';

describe('order: stock link of lines', () => {
  let seller: Seller;
  beforeEach(async () => {
    seller = await newSeller();
  });

  const update = (orderId: string, order: Record<string, unknown>) => call(`order/${orderId}/`, { token: seller.token, body: { order } });

  it('when a line names a stock item by sku, barcode or id, then its quantity leaves stock with a movement naming the order and a cia.adjust job', async () => {
    const bySku = await createStock(seller, 'SKU-A', 10);
    const byBarcode = await createStock(seller, 'SKU-B', 10, '4006381333931');
    const byId = await createStock(seller, 'SKU-C', 10);
    const orderId = await createOrder(seller, {
      line: [
        { id: 1, quantity: 2, price: '1', stock_align_id: 'SKU-A' },
        { id: 2, quantity: 3, price: '1', stock_align_id: '4006381333931' },
        { id: 3, quantity: 4, price: '1', stock_align_id: String(byId) },
      ],
    });
    expect(await stockQuantity(seller, bySku)).to.equal(8);
    expect(await stockQuantity(seller, byBarcode)).to.equal(7);
    expect(await stockQuantity(seller, byId)).to.equal(6);
    const [movement] = (await movements(seller, bySku)).filter((m) => m.order_id !== null);
    expect(movement).to.deep.include({ order_id: orderId, quantity: { old: 10, difference: -2, new: 8 } });
    expect(await ciaJobs(seller, bySku)).to.be.greaterThan(0);
    expect((await readOrder(seller, orderId)).line.map((l) => l.stock_align_id)).to.deep.equal(['SKU-A', '4006381333931', String(byId)]);
  });

  it('when an order takes a set main, then each sub moves by its share, the main follows and every movement names the order', async () => {
    const cup = await createStock(seller, 'CUP', 10);
    const saucer = await createStock(seller, 'SAUCER', 7);
    const sub = [
      { id: cup, quantity: 1 },
      { id: saucer, quantity: 2 },
    ];
    const set = await createItem(seller, { name: 'Cup and 2 saucers', sku: 'SET', set: { sub } });
    const orderId = await createOrder(seller, { line: [{ id: 1, quantity: 2, stock_align_id: 'SET' }] });
    expect(await stockQuantity(seller, cup)).to.equal(8);
    expect(await stockQuantity(seller, saucer)).to.equal(3);
    expect((await readItem(seller, set)).quantity_available).to.equal(1);
    for (const [item, difference] of [
      [cup, -2],
      [saucer, -4],
      [set, -2],
    ] as const) {
      const sold = (await movements(seller, item)).filter((m) => m.order_id !== null);
      expect(sold.map((m) => [m.order_id, m.quantity.difference])).to.deep.equal([[orderId, difference]]);
    }
    expect(await ciaJobs(seller, set)).to.be.greaterThan(0);
  });

  it('when the database refuses a write POST order/ leaves to its end (a line, a movement), then nothing of the order is stored and the next order takes its number', async () => {
    const item = await createStock(seller, 'SKU-A', 10);
    const refusals = [
      ['sales_order_line', "sku IS DISTINCT FROM 'REFUSED'"],
      ['stock_history', 'quantity_difference <> -4'],
    ];
    for (const [table, check] of refusals) {
      const res = await whileDatabaseRefuses(table!, check!, () =>
        call('order/', { token: seller.token, body: { order: orderBody({ line: [{ id: 1, quantity: 4, sku: 'REFUSED', stock_align_id: 'SKU-A' }] }) } }),
      );
      expect(res.status, `${table}: ${res.text}`).to.equal(500);
      expect(res.body.error![0]!.error).to.equal('internal_error');
    }
    expect(await stockQuantity(seller, item)).to.equal(10);
    expect((await movements(seller, item)).filter((m) => m.order_id !== null)).to.deep.equal([]);
    expect(await db()('sales_order').where({ account_id: seller.id }).first()).to.equal(undefined);
    expect(await ciaJobs(seller, item)).to.equal(1);
    const orderId = await createOrder(seller, { line: [{ id: 1, quantity: 4, stock_align_id: 'SKU-A' }] });
    expect(orderId).to.match(/^1_/);
    expect(await stockQuantity(seller, item)).to.equal(6);
  });

  it('when stock_align_id names no item of the account, then 404 names order.line[i].stock_align_id and no stock moves', async () => {
    const item = await createStock(seller, 'SKU-A', 10);
    const other = await newSeller();
    await createStock(other, 'FOREIGN', 10);
    for (const ref of ['NOPE', 'FOREIGN']) {
      const res = await call('order/', {
        token: seller.token,
        body: {
          order: orderBody({
            line: [
              { id: 1, quantity: 1, stock_align_id: 'SKU-A' },
              { id: 2, quantity: 1, stock_align_id: ref },
            ],
          }),
        },
      });
      // Document 1, Errors: 404 when "a contained object with a given id does not exist".
      expect(res.status, res.text).to.equal(404);
      expect(res.body.error![0]).to.include({ field: 'order.line[1].stock_align_id', error: 'unknown_stock_item', code: 404 });
    }
    // Lines sent out of their id order: the field names the line where the client wrote it.
    const unsorted = await call('order/', {
      token: seller.token,
      body: {
        order: orderBody({
          line: [
            { id: 2, quantity: 1, stock_align_id: 'NOPE' },
            { id: 1, quantity: 1, stock_align_id: 'SKU-A' },
          ],
        }),
      },
    });
    expect(unsorted.status, unsorted.text).to.equal(404);
    expect(unsorted.body.error![0]).to.include({ field: 'order.line[0].stock_align_id', error: 'unknown_stock_item' });
    expect(await stockQuantity(seller, item)).to.equal(10);
    expect((await movements(seller, item)).filter((m) => m.order_id !== null)).to.deep.equal([]);
    expect(await db()('sales_order').where({ account_id: seller.id }).first()).to.equal(undefined);
  });

  it('when an order would take an item past a billion units below zero (lines of a million, a set part times its count), then 400 names the line and nothing is written, not a 500', async () => {
    const deep = await createStock(seller, 'DEEP', -500_000_000);
    const lines = Array.from({ length: 600 }, (_, i) => ({ id: i + 1, quantity: 1_000_000, price: '0.00', stock_align_id: 'DEEP' }));
    const res = await call('order/', { token: seller.token, body: { order: orderBody({ line: lines }) } });
    expect(res.status, res.text).to.equal(400);
    expect(res.body.error!.map((e) => [e.error, e.field])).to.deep.equal([['invalid_field', 'order.line[500].stock_align_id']]);
    expect(await stockQuantity(seller, deep)).to.equal(-500_000_000);
    // Within the bound it is taken, oversold as an order that already happened is.
    await createOrder(seller, { line: lines.slice(0, 500) });
    expect(await stockQuantity(seller, deep)).to.equal(-1_000_000_000);

    const part = await createStock(seller, 'PART', 0);
    await createItem(seller, { name: 'Crate', sku: 'CRATE', set: { sub: [{ id: part, quantity: 100_000 }] } });
    const crates = await call('order/list/', {
      token: seller.token,
      body: { order: [orderBody({ line: [{ id: 1, quantity: 20_000, stock_align_id: 'CRATE' }] })] },
    });
    expect(crates.status, crates.text).to.equal(207);
    expect(crates.body.error!.map((e) => [e.error, e.field])).to.deep.equal([['invalid_field', 'order[0].line[0].stock_align_id']]);
    expect(await stockQuantity(seller, part)).to.equal(0);
  });

  it('when the order is cancelled, then the quantity goes back; when the cancellation is undone, it leaves again', async () => {
    const item = await createStock(seller, 'SKU-A', 10);
    const orderId = await createOrder(seller, { line: [{ id: 1, quantity: 3, stock_align_id: 'SKU-A' }] });
    expect(await stockQuantity(seller, item)).to.equal(7);
    expect((await update(orderId, { status: { is_cancelled: true } })).status).to.equal(200);
    expect(await stockQuantity(seller, item)).to.equal(10);
    // Cancelled again (no change): nothing moves twice.
    expect((await update(orderId, { status: { is_cancelled: true } })).status).to.equal(200);
    expect(await stockQuantity(seller, item)).to.equal(10);
    expect((await update(orderId, { status: { is_cancelled: false } })).status).to.equal(200);
    expect(await stockQuantity(seller, item)).to.equal(7);
    const differences = (await movements(seller, item)).filter((m) => m.order_id === orderId).map((m) => m.quantity.difference);
    expect(differences).to.deep.equal([-3, 3, -3]);
  });

  it('when a cancelled order is created, then no stock leaves, but the link must still name an item', async () => {
    const item = await createStock(seller, 'SKU-A', 10);
    await createOrder(seller, { status: { is_cancelled: true }, line: [{ id: 1, quantity: 3, stock_align_id: 'SKU-A' }] });
    expect(await stockQuantity(seller, item)).to.equal(10);
    const res = await call('order/', {
      token: seller.token,
      body: { order: orderBody({ status: { is_cancelled: true }, line: [{ id: 1, quantity: 3, stock_align_id: 'NOPE' }] }) },
    });
    expect(res.status).to.equal(404);
    expect(res.body.error![0]!.field).to.equal('order.line[0].stock_align_id');
  });

  it('when an unshipped order is deleted, then its quantity goes back; a shipped one keeps it out', async () => {
    const item = await createStock(seller, 'SKU-A', 10);
    const open = await createOrder(seller, { line: [{ id: 1, quantity: 3, stock_align_id: 'SKU-A' }] });
    const shipped = await createOrder(seller, { status: { is_shipped: true }, line: [{ id: 1, quantity: 2, stock_align_id: 'SKU-A' }] });
    expect(await stockQuantity(seller, item)).to.equal(5);
    expect((await call(`order/${open}/`, { token: seller.token, method: 'DELETE' })).status).to.equal(200);
    expect(await stockQuantity(seller, item)).to.equal(8);
    expect((await call(`order/${shipped}/`, { token: seller.token, method: 'DELETE' })).status).to.equal(200);
    expect(await stockQuantity(seller, item)).to.equal(8);
  });

  it('when a cancelled order is deleted, then nothing goes back twice', async () => {
    const item = await createStock(seller, 'SKU-A', 10);
    const orderId = await createOrder(seller, { line: [{ id: 1, quantity: 3, stock_align_id: 'SKU-A' }] });
    await update(orderId, { status: { is_cancelled: true } });
    expect((await call(`order/${orderId}/`, { token: seller.token, method: 'DELETE' })).status).to.equal(200);
    expect(await stockQuantity(seller, item)).to.equal(10);
  });

  it('when lines change on update, then only the differences move, and a line moved to another item swaps them', async () => {
    const a = await createStock(seller, 'SKU-A', 10);
    const b = await createStock(seller, 'SKU-B', 10);
    const orderId = await createOrder(seller, {
      line: [
        { id: 1, quantity: 3, stock_align_id: 'SKU-A' },
        { id: 2, quantity: 1, stock_align_id: 'SKU-B' },
      ],
    });
    expect(
      (
        await update(orderId, {
          line: [
            { id: 1, quantity: 5, stock_align_id: 'SKU-A' },
            { id: 2, quantity: 1, stock_align_id: 'SKU-B' },
          ],
        })
      ).status,
    ).to.equal(200);
    expect(await stockQuantity(seller, a)).to.equal(5);
    expect(await stockQuantity(seller, b)).to.equal(9);
    expect((await movements(seller, a)).filter((m) => m.order_id === orderId).map((m) => m.quantity.difference)).to.deep.equal([-3, -2]);
    expect((await movements(seller, b)).filter((m) => m.order_id === orderId).map((m) => m.quantity.difference)).to.deep.equal([-1]);

    expect((await update(orderId, { line: [{ id: 1, quantity: 5, stock_align_id: 'SKU-B' }] })).status).to.equal(200);
    expect(await stockQuantity(seller, a)).to.equal(10);
    expect(await stockQuantity(seller, b)).to.equal(5);
  });

  it('when an update names an unknown item, then 404 and the stock stays as it was', async () => {
    const a = await createStock(seller, 'SKU-A', 10);
    const orderId = await createOrder(seller, { line: [{ id: 1, quantity: 3, stock_align_id: 'SKU-A' }] });
    const res = await update(orderId, { line: [{ id: 1, quantity: 1, stock_align_id: 'NOPE' }] });
    expect(res.status).to.equal(404);
    expect(res.body.error![0]!.field).to.equal('order.line[0].stock_align_id');
    expect(await stockQuantity(seller, a)).to.equal(7);
    expect((await readOrder(seller, orderId)).line[0]!.stock_align_id).to.equal('SKU-A');
  });

  it('when orders for the same item are created concurrently, then every committed quantity leaves stock exactly once', async () => {
    const item = await createStock(seller, 'SKU-A', 5);
    const results = await withConcurrentCalls(8, () =>
      Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          call('order/', {
            token: seller.token,
            body: { order: orderBody({ line: [{ id: 1, quantity: 1 + (i % 2), stock_align_id: 'SKU-A' }] }) },
          }),
        ),
      ),
    );
    expect(results.map((r) => r.status)).to.deep.equal(Array(8).fill(201));
    const committed = 8 + 4;
    expect(await stockQuantity(seller, item)).to.equal(5 - committed);
    const moved = (await movements(seller, item)).filter((m) => m.order_id !== null);
    expect(moved).to.have.length(8);
    // Each movement starts where the previous one ended: no lost update.
    const sorted = moved.map((m) => m.quantity).sort((x, y) => y.old - x.old);
    for (let i = 1; i < sorted.length; i++) expect(sorted[i]!.old).to.equal(sorted[i - 1]!.new);
  });

  it('when creates and updates touching the same items in opposite orders run concurrently, then all succeed and stock adds up', async () => {
    const a = await createStock(seller, 'SKU-A', 100);
    const b = await createStock(seller, 'SKU-B', 100);
    const existing: string[] = [];
    for (let i = 0; i < 4; i++)
      existing.push(
        await createOrder(seller, {
          line: [
            { id: 1, quantity: 1, price: '2', stock_align_id: 'SKU-A' },
            { id: 2, quantity: 1, price: '2', stock_align_id: 'SKU-B' },
          ],
        }),
      );
    const results = await withConcurrentCalls(8, () =>
      Promise.all([
        ...[0, 1, 2, 3].map((i) =>
          call('order/', {
            token: seller.token,
            body: {
              order: orderBody({
                status: { is_paid: true },
                line:
                  i % 2
                    ? [
                        { id: 1, quantity: 2, stock_align_id: 'SKU-A' },
                        { id: 2, quantity: 2, stock_align_id: 'SKU-B' },
                      ]
                    : [
                        { id: 1, quantity: 2, stock_align_id: 'SKU-B' },
                        { id: 2, quantity: 2, stock_align_id: 'SKU-A' },
                      ],
              }),
            },
          }),
        ),
        ...existing.map((orderId, i) =>
          update(orderId, {
            paid_amount: '4',
            line:
              i % 2
                ? [
                    { id: 1, quantity: 3, stock_align_id: 'SKU-B' },
                    { id: 2, quantity: 3, stock_align_id: 'SKU-A' },
                  ]
                : [
                    { id: 1, quantity: 3, stock_align_id: 'SKU-A' },
                    { id: 2, quantity: 3, stock_align_id: 'SKU-B' },
                  ],
          }),
        ),
      ]),
    );
    expect(results.map((r) => r.status)).to.deep.equal([201, 201, 201, 201, 200, 200, 200, 200]);
    // 4 creates take 2 of each item, 4 updates hold 3 instead of 1 of each.
    expect(await stockQuantity(seller, a)).to.equal(100 - 4 * 2 - 4 * 3);
    expect(await stockQuantity(seller, b)).to.equal(100 - 4 * 2 - 4 * 3);
    const invoices = [];
    for (const r of results.slice(0, 4)) invoices.push((await readOrder(seller, r.body.order_id as string)).invoice_number);
    for (const orderId of existing) invoices.push((await readOrder(seller, orderId)).invoice_number);
    expect([...invoices].sort((x, y) => Number(x) - Number(y))).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8]);
  });
});
