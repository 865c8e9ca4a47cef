/**
 * The ack of a 207 (document 1: "only success or warning means the request succeeded"): it sums
 * up the parts, so a client that reads nothing but ack is not told all went well when parts
 * failed. lib/http/envelope.ts answerEnvelope.
 */
import { expect } from 'chai';
import { call, newSeller, query, Seller } from '../support/api';
import { createStock, orderBody, stockQuantity } from '../order/helpers';

const goodOrder = (n: number) => orderBody({ customer: { email: `buyer${n}@example.com` } });
const badCurrency = () => orderBody({ currency: 'XXX' });

/** The buyers the seller has: an order written takes in its buyer (GET order/ shows only orders 10 s old). */
async function buyersOf(seller: Seller): Promise<number> {
  const res = await call(`admin/customer/?${query({ pagination: { limit: 10 } })}`, { token: seller.token });
  expect(res.status, res.text).to.equal(200);
  return (res.body.customer as unknown[]).length;
}

describe('the ack of a 207 answer', () => {
  it('when every part succeeds, then ack is success and there is no warning', async () => {
    const seller = await newSeller();
    const res = await call('order/list/', { token: seller.token, body: { order: [goodOrder(1), goodOrder(2)] } });
    expect(res.status, res.text).to.equal(207);
    expect(res.body.ack).to.equal('success');
    expect(res.body).to.not.have.property('warning');
    expect(res.body).to.not.have.property('error');
    expect(await buyersOf(seller)).to.equal(2);
  });

  it('when some parts fail, then ack is warning with one part_failed warning per failed part, and the other parts are done', async () => {
    const seller = await newSeller();
    const res = await call('order/list/', { token: seller.token, body: { order: [goodOrder(1), badCurrency(), goodOrder(2), badCurrency()] } });
    expect(res.status, res.text).to.equal(207);
    expect(res.body.ack).to.equal('warning');
    expect(res.body).to.not.have.property('error');
    const parts = res.body.response as { path: string; code: number; error?: { field: string }[] }[];
    expect(parts.map((p) => p.code)).to.deep.equal([201, 400, 201, 400]);
    const warnings = res.body.warning as { warning: string; field: string; code: number; description: string }[];
    expect(warnings.map((w) => [w.warning, w.field, w.code])).to.deep.equal([
      ['part_failed', 'order[1]', 400],
      ['part_failed', 'order[3]', 400],
    ]);
    expect(warnings[0]!.description).to.match(/^order\[1\] failed: .*currency/);
    expect(await buyersOf(seller)).to.equal(2);
  });

  it('when every part fails, then ack is error, error[] gathers the parts errors with their fields, response[] stays whole and nothing is written', async () => {
    const seller = await newSeller();
    const res = await call('order/list/', { token: seller.token, body: { order: [badCurrency(), badCurrency()] } });
    expect(res.status, res.text).to.equal(207);
    expect(res.body.ack).to.equal('error');
    expect(res.body.error!.map((e) => [e.field, e.code])).to.deep.equal([
      ['order[0].currency', 400],
      ['order[1].currency', 400],
    ]);
    expect(res.body.error_description)
      .to.be.a('string')
      .and.match(/currency/);
    expect((res.body.response as { code: number }[]).map((p) => p.code)).to.deep.equal([400, 400]);
    expect(await buyersOf(seller)).to.equal(0);
  });

  it('when stock/list/ has a failed part, then its ack says so too, in XML as in JSON', async () => {
    const seller = await newSeller();
    const body = '<request><stock><sku>A-1</sku><quantity>1</quantity></stock><stock><sku>A-2</sku><quantity>x</quantity></stock></request>';
    const res = await call('stock/list/', { token: seller.token, headers: { 'Content-Type': 'application/xml', Accept: 'application/xml' }, body });
    expect(res.status, res.text).to.equal(207);
    expect(res.text).to.contain('<ack>warning</ack>').and.contain('<warning>part_failed</warning>').and.contain('<field>stock[1]</field>');
  });
  describe('a part refused 300 because it names a stock id two items answer to (document 1: 300, "several records would be found")', () => {
    it('when one part of stock/list/ names an ambiguous id, then ack is warning with its part_failed (code 300, its field), and the other part is done', async () => {
      const seller = await newSeller();
      const first = await createStock(seller, 'TWIN', 1);
      const second = await createStock(seller, 'TWIN', 2);
      const res = await call('stock/list/', {
        token: seller.token,
        body: {
          stock: [
            { id: 'SKU_TWIN', quantity: 9 },
            { id: String(first), quantity: 5 },
          ],
        },
      });
      expect(res.status, res.text).to.equal(207);
      expect(res.body.ack, res.text).to.equal('warning');
      const parts = res.body.response as { path: string; code: number; error?: { error: string; field?: string; code: number }[] }[];
      expect(parts.map((p) => p.code)).to.deep.equal([300, 200]);
      expect(parts[0]!.error).to.deep.include({
        error: 'ambiguous_id',
        description: 'stock id SKU_TWIN matches several records; use an unambiguous id',
        code: 300,
        field: 'stock[0].id',
      });
      const warnings = res.body.warning as { warning: string; field: string; code: number }[];
      expect(warnings.map((w) => [w.warning, w.field, w.code])).to.deep.equal([['part_failed', 'stock[0]', 300]]);
      expect([await stockQuantity(seller, first), await stockQuantity(seller, second)]).to.deep.equal([5, 2]);
    });

    it('when the one part of order/list/ has a line naming an ambiguous stock_align_id, then ack is error, error[] names the line and no order or buyer is written', async () => {
      const seller = await newSeller();
      const first = await createStock(seller, 'TWIN', 4);
      const second = await createStock(seller, 'TWIN', 4);
      const line = { id: 1, quantity: 1, price: '5.00', stock_align_id: 'TWIN' };
      const res = await call('order/list/', { token: seller.token, body: { order: [goodOrder(1)].map((o) => ({ ...o, line: [line] })) } });
      expect(res.status, res.text).to.equal(207);
      expect(res.body.ack, res.text).to.equal('error');
      expect(res.body.error!.map((e) => [e.error, e.field, e.code])).to.deep.equal([['ambiguous_id', 'order[0].line[0].stock_align_id', 300]]);
      expect((res.body.response as { code: number }[]).map((p) => p.code)).to.deep.equal([300]);
      expect(await buyersOf(seller)).to.equal(0);
      expect([await stockQuantity(seller, first), await stockQuantity(seller, second)]).to.deep.equal([4, 4]);
    });

    it('when POST order/ has such a line, then the 300 names the line field and nothing is written', async () => {
      const seller = await newSeller();
      await createStock(seller, 'TWIN', 4);
      await createStock(seller, 'TWIN', 4);
      const lines = [
        { id: 1, quantity: 1, price: '5.00' },
        { id: 2, quantity: 1, price: '5.00', stock_align_id: 'TWIN' },
      ];
      const res = await call('order/', { token: seller.token, body: { order: orderBody({ line: lines }) } });
      expect(res.status, res.text).to.equal(300);
      expect(res.body.ack).to.equal('error');
      expect(res.body.error!.map((e) => [e.error, e.field, e.code])).to.deep.equal([['ambiguous_id', 'order.line[1].stock_align_id', 300]]);
      expect(await buyersOf(seller)).to.equal(0);
    });
  });
});
