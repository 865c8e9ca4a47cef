import { expect } from 'chai';
import { db } from '../../lib/db/knex';
import { backfillLinesTakenItself } from '../../lib/db/migrations/20261129_2151_order_line_taken_itself_backfill';
import { call, newSeller, Seller } from '../support/api';
import { createItem } from '../stock/helpers';
import { createOrder, createStock, movements, orderBody, stockQuantity } from './helpers';

/**
 * A line of a set holds the parts it took: every later move of the line (cancel, delete, a
 * quantity change) gives back and takes by what it recorded, not by the set as the seller has
 * recomposed it since (lib/order/README.md, "Stock link").
 */
/** POST order/{order_id}/ as the seller. */
const updateOrder = (seller: Seller, orderId: string, order: Record<string, unknown>) => call(`order/${orderId}/`, { token: seller.token, body: { order } });

/** The item's movements caused by the order, as [title, old, difference, new]. */
const orderMovesOf = async (seller: Seller, stockId: number, orderId: string) =>
  (await movements(seller, stockId)).filter((m) => m.order_id === orderId).map((m) => [m.title, m.quantity.old, m.quantity.difference, m.quantity.new]);

describe('order: a set line holds the parts it took', () => {
  let seller: Seller;
  let partA: number;
  let partB: number;
  let set: number;
  beforeEach(async () => {
    seller = await newSeller();
    partA = await createStock(seller, 'PART-A', 10);
    partB = await createStock(seller, 'PART-B', 10);
    set = await createItem(seller, { name: 'Set of two A', sku: 'SET', set: { sub: [{ id: partA, quantity: 2 }] } });
  });

  const update = (orderId: string, order: Record<string, unknown>) => updateOrder(seller, orderId, order);
  const recompose = async () => {
    const res = await call(`stock/${set}/`, { token: seller.token, body: { stock: { set: { type: ['main'], sub: [{ id: String(partB), quantity: 1 }] } } } });
    expect(res.status, res.text).to.equal(200);
  };
  const quantities = async () => [await stockQuantity(seller, partA), await stockQuantity(seller, partB)];
  const orderMoves = (item: number, orderId: string) => orderMovesOf(seller, item, orderId);

  it('when an order of a set is cancelled after the seller recomposed the set, then the parts it took come back and the new parts stay as they were', async () => {
    const orderId = await createOrder(seller, { line: [{ id: 1, quantity: 1, price: '5.00', stock_align_id: 'SET' }] });
    expect(await quantities()).to.deep.equal([8, 10]);
    await recompose();

    const res = await update(orderId, { status: { is_cancelled: true } });
    expect(res.status, res.text).to.equal(200);
    expect(await quantities()).to.deep.equal([10, 10]);
    expect(await orderMoves(partA, orderId)).to.deep.equal([
      ['order', 10, -2, 8],
      ['order cancelled', 8, 2, 10],
    ]);
    expect(await orderMoves(partB, orderId)).to.deep.equal([]);
  });

  it('when a line of a recomposed set changes its quantity, then it gives back and takes the parts it recorded', async () => {
    const orderId = await createOrder(seller, { line: [{ id: 1, quantity: 2, price: '5.00', stock_align_id: 'SET' }] });
    expect(await quantities()).to.deep.equal([6, 10]);
    await recompose();

    let res = await update(orderId, { line: [{ id: 1, quantity: 1, price: '5.00', stock_align_id: 'SET' }] });
    expect(res.status, res.text).to.equal(200);
    expect(await quantities()).to.deep.equal([8, 10]);
    // More units of a line that holds stock are more of what it sold: the recorded parts.
    res = await update(orderId, { line: [{ id: 1, quantity: 3, price: '5.00', stock_align_id: 'SET' }] });
    expect(res.status, res.text).to.equal(200);
    expect(await quantities()).to.deep.equal([4, 10]);
    expect((await orderMoves(partA, orderId)).map((m) => m[2])).to.deep.equal([-4, 2, -4]);

    res = await update(orderId, { status: { is_cancelled: true } });
    expect(res.status, res.text).to.equal(200);
    expect(await quantities()).to.deep.equal([10, 10]);
    expect(await orderMoves(partB, orderId)).to.deep.equal([]);
  });

  it('when an order of a recomposed set is deleted, then the parts it took come back', async () => {
    const orderId = await createOrder(seller, { line: [{ id: 1, quantity: 1, price: '5.00', stock_align_id: 'SET' }] });
    await recompose();

    const res = await call(`order/${orderId}/`, { token: seller.token, method: 'DELETE' });
    expect(res.status, res.text).to.equal(200);
    expect(await quantities()).to.deep.equal([10, 10]);
    expect(await orderMoves(partA, orderId)).to.deep.equal([
      ['order', 10, -2, 8],
      ['order deleted', 8, 2, 10],
    ]);
  });

  it('when a cancelled order of a set is un-cancelled after a recomposition, then it takes the set as it is now, and a second cancel gives back exactly that', async () => {
    const orderId = await createOrder(seller, { line: [{ id: 1, quantity: 1, price: '5.00', stock_align_id: 'SET' }] });
    expect((await update(orderId, { status: { is_cancelled: true } })).status).to.equal(200);
    expect(await quantities()).to.deep.equal([10, 10]);
    await recompose();

    let res = await update(orderId, { status: { is_cancelled: false } });
    expect(res.status, res.text).to.equal(200);
    expect(await quantities()).to.deep.equal([10, 9]);

    await call(`stock/${set}/`, { token: seller.token, body: { stock: { set: { type: ['main'], sub: [{ id: String(partA), quantity: 3 }] } } } });
    res = await update(orderId, { status: { is_cancelled: true } });
    expect(res.status, res.text).to.equal(200);
    expect(await quantities()).to.deep.equal([10, 10]);
  });

  it('when order/list/ cancels a set order after a recomposition, then the parts the order took come back', async () => {
    let res = await call('order/list/', {
      token: seller.token,
      body: { order: [orderBody({ line: [{ id: 1, quantity: 1, price: '5.00', stock_align_id: 'SET' }] })] },
    });
    expect(res.status, res.text).to.equal(207);
    const [created] = res.body.response as { code: number; order_id: string }[];
    expect(created!.code, res.text).to.equal(201);
    expect(await quantities()).to.deep.equal([8, 10]);
    await recompose();

    res = await call('order/list/', { token: seller.token, body: { order: [{ id: created!.order_id, status: { is_cancelled: true } }] } });
    expect(res.status, res.text).to.equal(207);
    expect((res.body.response as { code: number }[])[0]!.code, res.text).to.equal(200);
    expect(await quantities()).to.deep.equal([10, 10]);
  });

  it('when a line took a set before the parts were recorded (null while it holds stock), then its cancel gives back the set as it is now', async () => {
    const orderId = await createOrder(seller, { line: [{ id: 1, quantity: 1, price: '5.00', stock_align_id: 'SET' }] });
    expect(await quantities()).to.deep.equal([8, 10]);
    // A line stored before migration 20261129_1903: it holds stock and has no record of its parts.
    const order = await db()('sales_order').where({ account_id: seller.id, id: orderId }).first('internal_id');
    const cleared = await db()('sales_order_line').where({ order_internal_id: order!.internal_id, position: 1 }).update({ stock_taken_parts: null });
    expect(cleared).to.equal(1);
    await recompose();

    const res = await update(orderId, { status: { is_cancelled: true } });
    expect(res.status, res.text).to.equal(200);
    // The documented fallback: B (the set now) gets the unit, A stays two short.
    expect(await quantities()).to.deep.equal([8, 11]);
    expect(await orderMoves(partA, orderId)).to.deep.equal([['order', 10, -2, 8]]);
    expect(await orderMoves(partB, orderId)).to.deep.equal([['order cancelled', 10, 1, 11]]);
  });
});

/**
 * A set item deleted after an order line took it: the line's put-back goes to the parts it
 * recorded that still exist (lib/order/README.md, "Stock link").
 */
describe('order: a line of a set deleted since the sale', () => {
  let seller: Seller;
  let partA: number;
  let partB: number;
  let set: number;
  let orderId: string;
  beforeEach(async () => {
    seller = await newSeller();
    partA = await createStock(seller, 'PART-A', 10);
    partB = await createStock(seller, 'PART-B', 10);
    set = await createItem(seller, {
      name: 'Two A and one B',
      sku: 'SET',
      set: {
        sub: [
          { id: partA, quantity: 2 },
          { id: partB, quantity: 1 },
        ],
      },
    });
    orderId = await createOrder(seller, { line: [{ id: 1, quantity: 2, price: '5.00', stock_align_id: 'SET' }] });
    expect(await quantities()).to.deep.equal([6, 8]);
    const res = await call(`stock/${set}/`, { token: seller.token, method: 'DELETE' });
    expect(res.status, res.text).to.equal(200);
    expect((await call(`stock/${set}/`, { token: seller.token })).status).to.equal(404);
  });

  const update = (order: Record<string, unknown>) => updateOrder(seller, orderId, order);
  const quantities = async () => [await stockQuantity(seller, partA), await stockQuantity(seller, partB)];
  const orderMoves = (item: number) => orderMovesOf(seller, item, orderId);

  it('when the order is cancelled, then the parts the line took come back, each with its movement', async () => {
    const res = await update({ status: { is_cancelled: true } });
    expect(res.status, res.text).to.equal(200);
    expect(await quantities()).to.deep.equal([10, 10]);
    expect(await orderMoves(partA)).to.deep.equal([
      ['order', 10, -4, 6],
      ['order cancelled', 6, 4, 10],
    ]);
    expect(await orderMoves(partB)).to.deep.equal([
      ['order', 10, -2, 8],
      ['order cancelled', 8, 2, 10],
    ]);
    // Undoing the cancel is a new sale of the set, which is gone: refused as any deleted item's.
    const undo = await update({ status: { is_cancelled: false } });
    expect(undo.status, undo.text).to.equal(404);
    expect(undo.text).to.contain('order.line[0].stock_align_id');
    expect(await quantities()).to.deep.equal([10, 10]);
  });

  it('when the order is deleted, then the parts the line took come back', async () => {
    const res = await call(`order/${orderId}/`, { token: seller.token, method: 'DELETE' });
    expect(res.status, res.text).to.equal(200);
    expect(await quantities()).to.deep.equal([10, 10]);
    expect(await orderMoves(partA)).to.deep.equal([
      ['order', 10, -4, 6],
      ['order deleted', 6, 4, 10],
    ]);
    expect(await orderMoves(partB)).to.deep.equal([
      ['order', 10, -2, 8],
      ['order deleted', 8, 2, 10],
    ]);
  });

  it('when the line is reduced, then the parts of the units given up come back, and the line still names the set', async () => {
    let res = await update({ line: [{ id: 1, quantity: 1, price: '5.00', stock_align_id: 'SET' }] });
    expect(res.status, res.text).to.equal(200);
    expect(await quantities()).to.deep.equal([8, 9]);
    expect(await orderMoves(partB)).to.deep.equal([
      ['order', 10, -2, 8],
      ['order changed', 8, 1, 9],
    ]);
    res = await call(`order/${orderId}/`, { token: seller.token });
    expect(res.status, res.text).to.equal(200);
    expect((res.body.order as { line: { stock_align_id: string }[] }).line.map((l) => l.stock_align_id)).to.deep.equal(['SET']);

    // The unit still held goes back the same way when the line is removed.
    res = await update({ line: [] });
    expect(res.status, res.text).to.equal(200);
    expect(await quantities()).to.deep.equal([10, 10]);
    expect((await orderMoves(partA)).map((m) => m[2])).to.deep.equal([-4, 2, 2]);
  });

  it('when a part was deleted too, then its share is dropped and the part that exists gets its own back', async () => {
    let res = await call(`stock/${partB}/`, { token: seller.token, method: 'DELETE' });
    expect(res.status, res.text).to.equal(200);

    res = await update({ status: { is_cancelled: true } });
    expect(res.status, res.text).to.equal(200);
    expect(await stockQuantity(seller, partA)).to.equal(10);
    expect(await orderMoves(partA)).to.deep.equal([
      ['order', 10, -4, 6],
      ['order cancelled', 6, 4, 10],
    ]);
  });

  it('when a part was made a set of its own since, then the part itself gets its share back and its new part gets nothing', async () => {
    const partR = await createStock(seller, 'PART-R', 10);
    let res = await call(`stock/${partA}/`, { token: seller.token, body: { stock: { set: { type: ['main'], sub: [{ id: String(partR), quantity: 1 }] } } } });
    expect(res.status, res.text).to.equal(200);

    res = await update({ status: { is_cancelled: true } });
    expect(res.status, res.text).to.equal(200);
    expect(await quantities()).to.deep.equal([10, 10]);
    expect(await stockQuantity(seller, partR)).to.equal(10);
    expect(await orderMoves(partR)).to.deep.equal([]);
  });
});

/**
 * A plain item sold, then made a set by the seller: the line took the item itself and records so
 * ([]), and every later move of it goes to the item's own quantity, not to the parts the set has
 * now (lib/order/README.md, "Stock link"). And the reverse: a set sold, then made plain, gives
 * back the parts it recorded.
 */
describe('order: a line of an item whose set composition changed since the sale', () => {
  let seller: Seller;
  let partA: number;
  let item: number;
  beforeEach(async () => {
    seller = await newSeller();
    partA = await createStock(seller, 'PART-A', 10);
    item = await createStock(seller, 'X', 10);
  });

  const update = (orderId: string, order: Record<string, unknown>) => updateOrder(seller, orderId, order);
  const setOf = async (stockId: number, set: Record<string, unknown>) => {
    const res = await call(`stock/${stockId}/`, { token: seller.token, body: { stock: { set } } });
    expect(res.status, res.text).to.equal(200);
  };
  const makeSet = () => setOf(item, { type: ['main'], sub: [{ id: String(partA), quantity: 2 }] });
  const quantities = async () => [await stockQuantity(seller, item), await stockQuantity(seller, partA)];
  const orderMoves = (stockId: number, orderId: string) => orderMovesOf(seller, stockId, orderId);

  it('when a plain item sold is made a set and the order is cancelled, then the item gets its unit back and the new part gets nothing, also once the set is undone', async () => {
    const orderId = await createOrder(seller, { line: [{ id: 1, quantity: 1, price: '5.00', stock_align_id: 'X' }] });
    expect(await quantities()).to.deep.equal([9, 10]);
    await makeSet();

    const res = await update(orderId, { status: { is_cancelled: true } });
    expect(res.status, res.text).to.equal(200);
    expect(await quantities()).to.deep.equal([10, 10]);
    expect(await orderMoves(item, orderId)).to.deep.equal([
      ['order', 10, -1, 9],
      ['order cancelled', 9, 1, 10],
    ]);
    expect(await orderMoves(partA, orderId)).to.deep.equal([]);

    await setOf(item, { type: ['none'] });
    expect(await quantities()).to.deep.equal([10, 10]);
  });

  it('when the line of a plain item made a set is lowered and raised, then the item itself gives back and takes', async () => {
    const orderId = await createOrder(seller, { line: [{ id: 1, quantity: 2, price: '5.00', stock_align_id: 'X' }] });
    expect(await quantities()).to.deep.equal([8, 10]);
    await makeSet();

    let res = await update(orderId, { line: [{ id: 1, quantity: 1, price: '5.00', stock_align_id: 'X' }] });
    expect(res.status, res.text).to.equal(200);
    expect(await quantities()).to.deep.equal([9, 10]);
    // More units of a line that holds stock are more of what it sold: the item itself.
    res = await update(orderId, { line: [{ id: 1, quantity: 3, price: '5.00', stock_align_id: 'X' }] });
    expect(res.status, res.text).to.equal(200);
    expect(await quantities()).to.deep.equal([7, 10]);
    expect(await orderMoves(item, orderId)).to.deep.equal([
      ['order', 10, -2, 8],
      ['order changed', 8, 1, 9],
      ['order changed', 9, -2, 7],
    ]);
    expect(await orderMoves(partA, orderId)).to.deep.equal([]);

    res = await call(`order/${orderId}/`, { token: seller.token, method: 'DELETE' });
    expect(res.status, res.text).to.equal(200);
    expect(await quantities()).to.deep.equal([10, 10]);
  });

  it('when a plain item sold is made a set and then deleted, then the cancel gives nothing to the part', async () => {
    const orderId = await createOrder(seller, { line: [{ id: 1, quantity: 1, price: '5.00', stock_align_id: 'X' }] });
    await makeSet();
    let res = await call(`stock/${item}/`, { token: seller.token, method: 'DELETE' });
    expect(res.status, res.text).to.equal(200);

    res = await update(orderId, { status: { is_cancelled: true } });
    expect(res.status, res.text).to.equal(200);
    expect(await stockQuantity(seller, partA)).to.equal(10);
    expect(await orderMoves(partA, orderId)).to.deep.equal([]);
  });

  it('when a set sold is made a plain item and the order is cancelled, then the parts it took come back and the item keeps its own quantity', async () => {
    await makeSet();
    const orderId = await createOrder(seller, { line: [{ id: 1, quantity: 1, price: '5.00', stock_align_id: 'X' }] });
    expect(await quantities()).to.deep.equal([10, 8]);
    await setOf(item, { type: ['none'] });

    const res = await update(orderId, { status: { is_cancelled: true } });
    expect(res.status, res.text).to.equal(200);
    expect(await quantities()).to.deep.equal([10, 10]);
    expect(await orderMoves(partA, orderId)).to.deep.equal([
      ['order', 10, -2, 8],
      ['order cancelled', 8, 2, 10],
    ]);
  });
});

/**
 * Migration 20261129_2151: lines that took an item itself before it was recorded (null) get []
 * when their item is no set now; a set's null line keeps the fallback.
 */
describe('order: the backfill of lines that took the item itself', () => {
  let seller: Seller;
  beforeEach(async () => {
    seller = await newSeller();
  });

  const clearRecord = async (orderId: string) => {
    const order = await db()('sales_order').where({ account_id: seller.id, id: orderId }).first('internal_id');
    expect(await db()('sales_order_line').where({ order_internal_id: order!.internal_id }).update({ stock_taken_parts: null })).to.equal(1);
    return order!.internal_id;
  };
  const record = async (internalId: string) =>
    (await db()('sales_order_line').where({ order_internal_id: internalId }).first('stock_taken_parts'))!.stock_taken_parts;

  it("when a plain item's line holds stock with no record, then the backfill gives it [] and a set made of the item later gets nothing on a cancel; a set's line stays null", async () => {
    const partA = await createStock(seller, 'PART-A', 10);
    const item = await createStock(seller, 'X', 10);
    await createItem(seller, { name: 'Set of two A', sku: 'SET', set: { sub: [{ id: partA, quantity: 2 }] } });
    const plainOrder = await createOrder(seller, { line: [{ id: 1, quantity: 1, price: '5.00', stock_align_id: 'X' }] });
    const setOrder = await createOrder(seller, { line: [{ id: 1, quantity: 1, price: '5.00', stock_align_id: 'SET' }] });
    const cancelledOrder = await createOrder(seller, { line: [{ id: 1, quantity: 1, price: '5.00', stock_align_id: 'X' }], status: { is_cancelled: true } });
    const plainLine = await clearRecord(plainOrder);
    const setLine = await clearRecord(setOrder);
    const cancelledLine = await clearRecord(cancelledOrder);

    expect(await backfillLinesTakenItself(db())).to.be.at.least(1);
    expect(await record(plainLine)).to.deep.equal([]);
    expect(await record(setLine)).to.equal(null);
    expect(await record(cancelledLine)).to.equal(null);
    expect(await backfillLinesTakenItself(db())).to.equal(0);

    let res = await call(`stock/${item}/`, { token: seller.token, body: { stock: { set: { type: ['main'], sub: [{ id: String(partA), quantity: 2 }] } } } });
    expect(res.status, res.text).to.equal(200);
    res = await call(`order/${plainOrder}/`, { token: seller.token, body: { order: { status: { is_cancelled: true } } } });
    expect(res.status, res.text).to.equal(200);
    expect([await stockQuantity(seller, item), await stockQuantity(seller, partA)]).to.deep.equal([10, 8]);
  });
});
