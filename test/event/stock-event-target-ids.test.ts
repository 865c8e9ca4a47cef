/**
 * A stock item's cia.event target[] naming a stock cia handler by the id POST admin/event/handler/
 * answered (document 1 Events 5; document 2 Stock_cia_portal_type target[] string FK): the id is
 * an integer there, so a client passes it as it got it.
 */
import { expect } from 'chai';
import { call, newSeller, Seller } from '../support/api';

async function stockCiaHandler(seller: Seller, targetName: string): Promise<number> {
  const res = await call('admin/event/handler/', {
    token: seller.token,
    body: {
      event_handler: {
        type: { id: 'cia' },
        section: 'stock',
        action: { id: 'notification', required: { url: 'https://receiver.example/stock', format: 'post', target_name: targetName } },
      },
    },
  });
  expect(res.status, res.text).to.equal(201);
  expect(res.body.event_handler_id).to.be.a('number');
  return res.body.event_handler_id as number;
}

const targetsOf = async (seller: Seller, stockId: unknown) => {
  const res = await call(`stock/${String(stockId)}/`, { token: seller.token });
  expect(res.status, res.text).to.equal(200);
  return (res.body.stock as { cia?: { event?: { target?: unknown } } }).cia?.event?.target;
};

describe('stock cia.event target[] naming handlers by their integer id', () => {
  it('when target[] holds the event_handler_id as answered (an integer), then the item is written and reads it back as text, as the GET answers ids in target[]', async () => {
    const seller = await newSeller();
    const id = await stockCiaHandler(seller, 'shop-sync');
    const created = await call('stock/', {
      token: seller.token,
      body: { stock: { name: 'cup', quantity: 2, cia: { event: { is_active: true, target: [id, 'shop-sync'] } } } },
    });
    expect(created.status, created.text).to.equal(201);
    expect(await targetsOf(seller, created.body.stock_id)).to.deep.equal([String(id), 'shop-sync']);

    const updated = await call(`stock/${String(created.body.stock_id)}/`, { token: seller.token, body: { stock: { cia: { event: { target: id } } } } });
    expect(updated.status, updated.text).to.equal(200);
    expect(await targetsOf(seller, created.body.stock_id)).to.deep.equal([String(id)]);
  });

  it("when target[] holds another seller's handler id as an integer, then 400 names the target and nothing is stored", async () => {
    const seller = await newSeller();
    const other = await newSeller();
    const foreign = await stockCiaHandler(other, 'their-sync');
    const res = await call('stock/', {
      token: seller.token,
      body: { stock: { name: 'cup', quantity: 2, cia: { event: { is_active: true, target: [foreign] } } } },
    });
    expect(res.status, res.text).to.equal(400);
    expect(res.body.ack).to.equal('error');
    expect(res.body.error?.[0]).to.deep.include({ field: 'stock.cia.event.target[0]', code: 400 });
    expect(res.body.error?.[0]?.description).to.contain('names no event handler');
    expect((await call('stock/', { token: seller.token })).body.stock).to.deep.equal([]);
  });

  it('when target[] holds a number that is no handler id (0, a fraction), then 400 names the target', async () => {
    const seller = await newSeller();
    await stockCiaHandler(seller, 'shop-sync');
    for (const bad of [0, 1.5, true]) {
      const res = await call('stock/', { token: seller.token, body: { stock: { name: 'cup', cia: { event: { target: [bad] } } } } });
      expect(res.status, `${String(bad)}: ${res.text}`).to.equal(400);
      expect(res.body.error?.[0]?.field).to.equal('stock.cia.event.target[0]');
    }
  });
});
