import { expect } from 'chai';
import { config, setConfig } from '../../config';
import { db } from '../../lib/db/knex';
import { call, newSeller, Seller } from '../support/api';
import { createOrder, createStock, orderBody, orderEvents, readOrder, stockQuantity } from './helpers';

interface Item {
  path: string;
  code: number;
  order_id?: string;
  error?: { error: string; field?: string }[];
  warning?: { field?: string }[];
}

describe('order: POST order/list/', () => {
  let seller: Seller;
  beforeEach(async () => {
    seller = await newSeller();
  });

  const list = (order: unknown) => call('order/list/', { token: seller.token, body: { order } });

  it('when items without id and with id are sent, then each is created or updated on its own and 207 lists path, code and order_id', async () => {
    const existing = await createOrder(seller, { infos: 'old' });
    const res = await list([
      orderBody({ infos: 'one' }),
      { id: existing, infos: 'new' },
      { infos: 'no customer' },
      orderBody({ infos: 'two', invoice_amount: '9' }),
      { id: '999_2020_01', infos: 'absent' },
    ]);
    expect(res.status, res.text).to.equal(207);
    const items = res.body.response as Item[];
    expect(items.map((i) => [i.path, i.code])).to.deep.equal([
      ['order[0]', 201],
      ['order[1]', 200],
      ['order[2]', 400],
      ['order[3]', 201],
      ['order[4]', 404],
    ]);
    expect(items[1]!.order_id).to.equal(existing);
    expect(items[2]!.error![0]!.field).to.equal('order[2].customer');
    expect(items[3]!.warning![0]!.field).to.equal('order[3].invoice_amount');
    expect(items[4]!.error![0]!.error).to.equal('not_found');
    expect((await readOrder(seller, items[0]!.order_id!)).infos).to.equal('one');
    expect((await readOrder(seller, existing)).infos).to.equal('new');
    expect((await readOrder(seller, items[3]!.order_id!)).infos).to.equal('two');
    expect(await orderEvents(seller)).to.deep.equal([
      `created:${existing}`,
      `created:${items[0]!.order_id}`,
      `changed:${existing}`,
      `created:${items[3]!.order_id}`,
    ]);
  });

  it('when an item fails in the middle of its work, then it leaves nothing while the others are kept', async () => {
    const item = await createStock(seller, 'SKU-A', 10);
    const res = await list([
      orderBody({ line: [{ id: 1, quantity: 2, stock_align_id: 'SKU-A' }] }),
      orderBody({
        line: [
          { id: 1, quantity: 3, stock_align_id: 'SKU-A' },
          { id: 2, quantity: 1, stock_align_id: 'NOPE' },
        ],
      }),
      orderBody({ line: [{ id: 1, quantity: 1, stock_align_id: 'SKU-A' }] }),
    ]);
    const items = res.body.response as Item[];
    expect(items.map((i) => i.code)).to.deep.equal([201, 404, 201]);
    expect(items[1]!.error![0]!.field).to.equal('order[1].line[1].stock_align_id');
    expect(await stockQuantity(seller, item)).to.equal(7);
    // The failed item took no order number: the numbers stay consecutive.
    expect(items.filter((i) => i.order_id).map((i) => i.order_id!.split('_')[0])).to.deep.equal(['1', '2']);
    const rows = await db()('sales_order').where({ account_id: seller.id }).count({ n: '*' }).first();
    expect(Number(rows?.n)).to.equal(2);
  });

  it('when more than 200 items or no list is sent, then 400 names order and nothing is stored', async () => {
    const tooMany = await list(Array.from({ length: 201 }, () => orderBody()));
    expect(tooMany.status).to.equal(400);
    expect(tooMany.body.error![0]!.field).to.equal('order');
    expect((await call('order/list/', { token: seller.token, body: {} })).status).to.equal(400);
    expect(await db()('sales_order').where({ account_id: seller.id }).first()).to.equal(undefined);
  });

  it("when items name an absent order, another seller's or a malformed id, then each 404 names order[n].id, where the client wrote it", async () => {
    const other = await newSeller();
    const theirs = await createOrder(other, { infos: 'theirs' });
    const res = await list([
      { id: '999_2020_01', infos: 'absent' },
      { id: theirs, infos: 'taken' },
      { id: 'bad', infos: 'malformed' },
    ]);
    expect(res.status, res.text).to.equal(207);
    const items = res.body.response as Item[];
    expect(items.map((i) => [i.code, i.error![0]!.error, i.error![0]!.field])).to.deep.equal([
      [404, 'not_found', 'order[0].id'],
      [404, 'not_found', 'order[1].id'],
      [404, 'not_found', 'order[2].id'],
    ]);
    expect((await readOrder(other, theirs)).infos).to.equal('theirs');
  });

  it('when an item is not an object, then that item alone is a 400', async () => {
    const res = await list([orderBody(), 'text', 5]);
    expect((res.body.response as Item[]).map((i) => i.code)).to.deep.equal([201, 400, 400]);
  });

  it('when 200 items are sent, then all are created and the call weighs 20 requests', async () => {
    // A window length no other run uses: the rate counter of this call starts empty even when
    // parallel test databases reuse this account id in the shared Redis.
    const saved = config();
    setConfig({ ...saved, rateLimitWindowSeconds: 7919 });
    try {
      const res = await list(Array.from({ length: 200 }, (_, i) => orderBody({ infos: `n${i}` })));
      expect(res.status).to.equal(207);
      expect((res.body.response as Item[]).every((i) => i.code === 201)).to.equal(true);
      const limit = Number(res.headers.get('x-ratelimit-limit'));
      const remaining = Number(res.headers.get('x-ratelimit-remaining'));
      expect(limit - remaining).to.equal(20);
    } finally {
      setConfig(saved);
    }
  });
});
