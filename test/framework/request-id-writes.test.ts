import { expect } from 'chai';
import { db } from '../../lib/db/knex';
import { call, newSeller, Seller } from '../support/api';
import { createOrder, createStock } from '../order/helpers';
import { fixture } from '../bank/fixtures';

/** The outbox rows of the seller written after row `after`. */
async function rowsAfter(seller: Seller, after: string): Promise<{ job_name: string; request_id?: string }[]> {
  const rows: { job_name: string; payload: { request_id?: string } }[] = await db()('outbox')
    .select('job_name', 'payload')
    .where({ account_id: seller.id })
    .andWhere('id', '>', after)
    .orderBy('id');
  return rows.map((r) => ({ job_name: r.job_name, request_id: r.payload.request_id }));
}

async function lastRow(): Promise<string> {
  const { rows } = (await db().raw('SELECT coalesce(max(id), 0)::text AS id FROM outbox')) as { rows: { id: string }[] };
  return rows[0]!.id;
}

interface WriteCase {
  name: string;
  /** The call to make for a seller with one stock item (SKU-A, 5 in stock) and one order of 2 of it. */
  request(
    seller: Seller,
    stockId: number,
    orderId: string,
  ): { path: string; method?: 'POST' | 'DELETE'; body?: Record<string, unknown> | Buffer; headers?: Record<string, string> };
}

// Every endpoint whose writes queue jobs, with what it queues for a seller with one item and one order.
const writes: WriteCase[] = [
  {
    name: 'POST order/',
    request: () => ({ path: 'order/', body: { order: { customer: { email: 'b@example.com' }, line: [{ id: 1, quantity: 1, stock_align_id: 'SKU-A' }] } } }),
  },
  {
    name: 'POST order/list/',
    request: () => ({
      path: 'order/list/',
      body: {
        order: [{ customer: { email: 'c@example.com' }, line: [{ id: 1, quantity: 1, stock_align_id: 'SKU-A' }] }, { customer: { email: 'd@example.com' } }],
      },
    }),
  },
  {
    name: 'POST order/{order_id}/',
    request: (_s, _i, orderId) => ({ path: `order/${orderId}/`, body: { order: { line: [{ id: 1, quantity: 3, stock_align_id: 'SKU-A' }] } } }),
  },
  { name: 'DELETE order/{order_id}/', request: (_s, _i, orderId) => ({ path: `order/${orderId}/`, method: 'DELETE' }) },
  {
    name: 'POST order/{order_id}/send_mit/',
    request: (_s, _i, orderId) => ({ path: `order/${orderId}/send_mit/`, body: { send_mit: { deliverer: 'DHL', code: 'C1' } } }),
  },
  { name: 'POST stock/', request: () => ({ path: 'stock/', body: { stock: { name: 'Pen', sku: 'PEN-1', quantity: 2 } } }) },
  { name: 'POST stock/list/', request: () => ({ path: 'stock/list/', body: { stock: [{ name: 'Ink', sku: 'INK-1', quantity: 2 }] } }) },
  { name: 'POST stock/{stock_id}/', request: (_s, stockId) => ({ path: `stock/${stockId}/`, body: { stock: { quantity: 9 } } }) },
  { name: 'POST stock/{stock_id}/cia/', request: (_s, stockId) => ({ path: `stock/${stockId}/cia/`, body: {} }) },
  {
    name: 'POST bank/statement/',
    request: () => ({
      path: 'bank/statement/',
      body: fixture('camt053.001.08.xml', { ORDER_1: 'none', ORDER_2: 'none' }),
      headers: { 'Content-Type': 'application/xml' },
    }),
  },
];

describe('request id in the jobs of every write (the web opens its transactions for the request)', () => {
  for (const write of writes) {
    it(`when ${write.name} is called with X-Request-Id, then every job its writes queue carries that id`, async () => {
      const seller = await newSeller();
      const stockId = await createStock(seller, 'SKU-A', 5);
      const orderId = await createOrder(seller, { line: [{ id: 1, quantity: 2, stock_align_id: 'SKU-A' }] });
      const before = await lastRow();
      const requestId = `erp-${write.name.replace(/[^a-z]/gi, '')}-${seller.id}`;
      const { path, method, body, headers } = write.request(seller, stockId, orderId);
      const res = await call(path, { token: seller.token, method, body, headers: { ...headers, 'X-Request-Id': requestId } });
      expect(res.status, res.text).to.be.within(200, 207);
      const rows = await rowsAfter(seller, before);
      expect(rows.length, 'jobs queued').to.be.above(0);
      expect(rows).to.deep.equal(rows.map((r) => ({ job_name: r.job_name, request_id: requestId })));
    });
  }

  it('when jobs are queued in a savepoint of a list (an update in order/list/), then they carry the request id too', async () => {
    const seller = await newSeller();
    await createStock(seller, 'SKU-A', 5);
    const orderId = await createOrder(seller, { line: [{ id: 1, quantity: 2, stock_align_id: 'SKU-A' }] });
    const before = await lastRow();
    const res = await call('order/list/', {
      token: seller.token,
      body: { order: [{ id: orderId, line: [{ id: 1, quantity: 1, stock_align_id: 'SKU-A' }] }] },
      headers: { 'X-Request-Id': `list-update-${seller.id}` },
    });
    expect(res.status, res.text).to.equal(207);
    const rows = await rowsAfter(seller, before);
    expect(rows.map((r) => r.job_name)).to.include('cia.adjust');
    expect(
      rows.every((r) => r.request_id === `list-update-${seller.id}`),
      JSON.stringify(rows),
    ).to.equal(true);
  });
});
