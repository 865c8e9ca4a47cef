import { expect } from 'chai';
import { call, newSeller, plainGet, query, Seller, withConcurrentCalls } from '../support/api';
import { createOrder } from '../order/helpers';

/**
 * Conditional writes of stock items (lib/stock/README.md; RFC 9110 13.1.1): a seller's tool that
 * reads an item, computes a new quantity and writes it back sends the read's ETag as If-Match, and
 * the write applies only while the item still holds that state. A sale booked between the read and
 * the write is never overwritten by the quantity computed from the older read: with quantities,
 * that is the very overselling CIA is there to prevent. If-Match was ignored (the write applied).
 */
describe('stock: conditional writes (If-Match) against sales booked meanwhile', () => {
  let seller: Seller;
  beforeEach(async () => {
    seller = await newSeller();
  });

  async function item(quantity: number): Promise<string> {
    const res = await call('stock/', { token: seller.token, body: { stock: { name: 'Becher', sku: `B-${quantity}-${Math.random()}`, quantity } } });
    expect(res.status, res.text).to.equal(201);
    return String(res.body.stock_id);
  }

  /** The item and the ETag of its read. */
  async function read(stockId: string, params = ''): Promise<{ stock: { quantity: number; name: string }; tag: string }> {
    const res = await call(`stock/${stockId}/${params}`, { token: seller.token });
    expect(res.status, res.text).to.equal(200);
    const tag = res.headers.get('etag');
    expect(tag).to.match(/^"[0-9a-f]{32}\.[A-Za-z0-9_-]{16}"$/);
    return { stock: res.body.stock as { quantity: number; name: string }, tag: tag! };
  }

  const update = (stockId: string, stock: Record<string, unknown>, ifMatch?: string) =>
    call(`stock/${stockId}/`, { token: seller.token, body: { stock }, headers: ifMatch === undefined ? {} : { 'If-Match': ifMatch } });

  const refused = (res: { status: number; body: { error?: { error: string; code: number }[] } }) => {
    expect(res.status).to.equal(412);
    expect(res.body.error?.map((e) => [e.error, e.code])).to.deep.equal([['record_changed', 412]]);
  };

  const sell = (stockId: string, quantity: number) =>
    createOrder(seller, { customer: { email: 'buyer@example.com' }, line: [{ id: 1, price: '9.90', quantity: String(quantity), stock_align_id: stockId }] });

  const movements = async (stockId: string) => {
    const res = await call(`stock/${stockId}/history/`, { token: seller.token });
    expect(res.status, res.text).to.equal(200);
    return (res.body.stock_history as { quantity: { old: number; difference: number; new: number } }[]).map((h) => [
      h.quantity.old,
      h.quantity.difference,
      h.quantity.new,
    ]);
  };

  it('when a tool restocks an item by the quantity it read before a sale, with the read ETag as If-Match, then it is refused 412 and the sale stays; read again, the restock goes through', async () => {
    const stockId = await item(10);
    const before = await read(stockId);
    await sell(stockId, 2);
    // 5 units arrived: the tool writes what it read plus 5.
    refused(await update(stockId, { quantity: before.stock.quantity + 5 }, before.tag));
    expect((await read(stockId)).stock.quantity).to.equal(8);
    expect(await movements(stockId)).to.deep.include.members([[10, -2, 8]]);
    expect(await movements(stockId)).to.not.deep.include.members([[8, 7, 15]]);

    const again = await read(stockId);
    const res = await update(stockId, { quantity: again.stock.quantity + 5 }, again.tag);
    expect(res.status, res.text).to.equal(200);
    expect((await read(stockId)).stock.quantity).to.equal(13);
  });

  it('when OPTIONS describes stock/{stock_id}/ and order/{order_id}/, then their POST and DELETE name If-Match and GET does not', async () => {
    for (const path of ['stock/1/', 'order/1_2026_11/']) {
      const res = await call(path, { method: 'OPTIONS', token: seller.token });
      expect(res.status, res.text).to.equal(200);
      const methods = (res.body.options as { methods: { method: string; headers?: Record<string, string> }[] }).methods;
      const ifMatch = Object.fromEntries(methods.map((m) => [m.method, m.headers?.['If-Match']]));
      expect(ifMatch.POST, path).to.match(/^optional; the ETag of GET /);
      expect(ifMatch.DELETE, path).to.match(/^optional; the ETag of GET /);
      expect(ifMatch.GET, path).to.equal(undefined);
    }
  });

  it('when two tools write the same item at once with the same read ETag, then exactly one write applies and the other is 412', async () => {
    const stockId = await item(10);
    const { tag } = await read(stockId);
    // Two calls in flight at once: document 1's limit of one per account is lifted for them.
    const answers = await withConcurrentCalls(2, () => Promise.all([update(stockId, { quantity: 12 }, tag), update(stockId, { quantity: 7 }, tag)]));
    expect(answers.map((a) => a.status).sort()).to.deep.equal([200, 412]);
    const applied = answers[0]!.status === 200 ? 12 : 7;
    expect((await read(stockId)).stock.quantity).to.equal(applied);
    expect(await movements(stockId)).to.have.deep.members([
      [0, 10, 10],
      [10, applied - 10, applied],
    ]);
  });

  it('when If-Match names the state of a read with another select or in XML, then the update applies; a weak, foreign, malformed or stale tag is refused and * applies', async () => {
    const stockId = await item(4);
    const other = await item(6);
    const full = await read(stockId);
    const narrow = await read(stockId, `?${query({ select: { quantity: '' } })}`);
    const xml = await call(`stock/${stockId}/`, { token: seller.token, headers: { Accept: 'application/xml' } });
    const xmlTag = xml.headers.get('etag')!;
    // One state, three representations: the version is the same, the tags are not.
    expect(new Set([full.tag, narrow.tag, xmlTag]).size).to.equal(3);
    expect(new Set([full.tag, narrow.tag, xmlTag].map((t) => t.split('.')[0])).size).to.equal(1);
    const { tag: otherTag } = await read(other);
    for (const ifMatch of [`W/${full.tag}`, otherTag, 'not a tag', '""']) refused(await update(stockId, { name: ifMatch }, ifMatch));
    expect((await read(stockId)).stock.name).to.equal('Becher');
    const byXmlRead = await update(stockId, { name: 'first' }, `${otherTag}, ${xmlTag}`);
    expect(byXmlRead.status, byXmlRead.text).to.equal(200);
    // The first write changed the item: the narrow read's tag is stale now.
    refused(await update(stockId, { name: 'second' }, narrow.tag));
    expect((await update(stockId, { name: 'third' }, '*')).status).to.equal(200);
    expect((await read(stockId)).stock.name).to.equal('third');
    // Without If-Match an update applies as before.
    expect((await update(stockId, { name: 'fourth' })).status).to.equal(200);
    expect((await read(stockId)).stock.name).to.equal('fourth');
  });

  it('when a tool deletes an item it read with that read ETag as If-Match and a sale moved its stock meanwhile, then the delete is refused 412 and the item stays; with the new ETag it is deleted', async () => {
    const stockId = await item(3);
    const before = await read(stockId);
    await sell(stockId, 1);
    const stale = await call(`stock/${stockId}/`, { token: seller.token, method: 'DELETE', headers: { 'If-Match': before.tag } });
    refused(stale);
    const now = await read(stockId);
    expect(now.stock.quantity).to.equal(2);
    const gone = await call(`stock/${stockId}/`, { token: seller.token, method: 'DELETE', headers: { 'If-Match': now.tag } });
    expect(gone.status, gone.text).to.equal(200);
    expect((await call(`stock/${stockId}/`, { token: seller.token })).status).to.equal(404);
  });

  it('when a read sends its ETag as If-None-Match, then an unchanged item is 304 and the item after a sale is read in full', async () => {
    const stockId = await item(5);
    const { tag } = await read(stockId);
    expect(await plainGet(seller.token, `stock/${stockId}/`, { 'If-None-Match': tag })).to.deep.equal({ status: 304, body: '' });
    await sell(stockId, 1);
    const changed = await plainGet(seller.token, `stock/${stockId}/`, { 'If-None-Match': tag });
    expect(changed.status).to.equal(200);
    expect((JSON.parse(changed.body).stock as { quantity: number }).quantity).to.equal(4);
  });
});
