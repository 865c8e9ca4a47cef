/**
 * Document 1, Authentication 5: "Orders can be read or written only if the user authorization
 * covers the order's portal account or permits cross-account requests", at the edges the grant
 * matrix does not walk: pagination from a foreign order, filters naming foreign ids, the history of
 * every item, and another seller's ids in bulk items.
 */
import { expect } from 'chai';
import { config, setConfig } from '../../config';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { call, newSeller, query, Seller } from '../support/api';
import { clientToken } from '../support/bound-client';

interface Movement {
  order_id: string | null;
}

describe('grant edges: pagination, filters and bulk items across portal accounts and sellers', () => {
  let seller: Seller;
  let stranger: Seller;
  let bound1: string;
  let stockId: number;
  let order1: string;
  let order2: string;
  const saved = config();

  before(async () => {
    setConfig({ ...saved, orderSearchMinAgeSeconds: 0 });
    seller = await newSeller();
    stranger = await newSeller();
    const account2 = (await createPortalAccount(seller.id, { name: 'Shop 2', platform: 'shop_g' })).id;
    const item = await call('stock/', { token: seller.token, body: { stock: { name: 'Cup', sku: 'CUP', quantity: 10 } } });
    expect(item.status, item.text).to.equal(201);
    stockId = Number(item.body.stock_id);
    const line = [{ id: 1, name: 'Cup', price: '5.00', quantity: 1, stock_align_id: 'CUP' }];
    const a = await call('order/', { token: seller.token, body: { order: { customer: { email: 'a@example.com' }, line } } });
    const b = await call('order/', { token: seller.token, body: { order: { customer: { email: 'b@example.com' }, line }, portal_account_id: account2 } });
    expect([a.status, b.status], a.text + b.text).to.deep.equal([201, 201]);
    order1 = a.body.order_id as string;
    order2 = b.body.order_id as string;
    bound1 = await clientToken(seller, 'edge-one', seller.portalAccountId, 'order_r order_w stock_r stock_w');
  });
  after(() => setConfig(saved));

  it("when a client bound to portal account 1 pages from portal account 2's order (min_id), then the answer is that of an absent id", async () => {
    const foreign = await call(`order/?${query({ pagination: { min_id: order2 } })}`, { token: bound1 });
    const absent = await call(`order/?${query({ pagination: { min_id: '999_2026_11' } })}`, { token: bound1 });
    expect(foreign.status, foreign.text).to.equal(absent.status);
    expect(foreign.body.order).to.deep.equal(absent.body.order);
    const own = await call(`order/?${query({ pagination: { min_id: order1 } })}`, { token: bound1 });
    expect((own.body.order as { id: string }[]).map((o) => o.id)).to.deep.equal([order1]);
  });

  it("when it filters orders or the stock history by portal account 2's order id, then nothing is found", async () => {
    const orders = await call(`order/?${query({ filter: { id: [{ value: order2 }] } })}`, { token: bound1 });
    expect(orders.status, orders.text).to.equal(200);
    expect(orders.body.order).to.deep.equal([]);
    const moves = await call(`stock/history/?${query({ filter: { order_id: [{ value: order2 }] } })}`, { token: bound1 });
    expect(moves.status, moves.text).to.equal(200);
    expect(moves.body.stock_history).to.deep.equal([]);
  });

  it("when it reads the history of every item, then portal account 2's order movements are left out; the seller sees them", async () => {
    const mine = await call('stock/history/', { token: bound1 });
    expect(mine.status, mine.text).to.equal(200);
    const orderIds = (mine.body.stock_history as Movement[]).map((m) => m.order_id);
    expect(orderIds).to.include(order1).and.not.include(order2);
    const all = await call('stock/history/', { token: seller.token });
    expect((all.body.stock_history as Movement[]).map((m) => m.order_id)).to.include.members([order1, order2]);
  });

  it("when another seller names this seller's stock item in stock/list/ or an order line, then 404 (the line's naming order.line[0].stock_align_id) and the quantity is unchanged", async () => {
    const list = await call('stock/list/', { token: stranger.token, body: { stock: [{ id: stockId, quantity: 99 }] } });
    expect(list.status, list.text).to.equal(207);
    const [item] = list.body.response as { code: number }[];
    expect(item!.code).to.equal(404);
    const order = await call('order/', {
      token: stranger.token,
      body: { order: { customer: { email: 'x@example.com' }, line: [{ id: 1, name: 'Cup', price: '1.00', quantity: 1, stock_align_id: `ID_${stockId}` }] } },
    });
    expect(order.status, order.text).to.equal(404);
    expect(order.body.error![0]).to.include({ error: 'unknown_stock_item', field: 'order.line[0].stock_align_id' });
    const read = await call(`stock/${stockId}/`, { token: seller.token });
    expect((read.body.stock as { quantity: number }).quantity).to.equal(8);
  });
});
