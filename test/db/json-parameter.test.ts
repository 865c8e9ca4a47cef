import { expect } from 'chai';
import { db } from '../../lib/db/knex';
import { jsonParameter } from '../../lib/db/json-parameter';
import { orderRepository } from '../../lib/order/order.repository';
import { newSeller } from '../support/api';

describe('db: JSON parameters (lib/db/json-parameter.ts)', () => {
  it('when text holds a lone surrogate, then it reaches Postgres as U+FFFD, where JSON.stringify alone is refused', async () => {
    const texts = ['a\ud800b', '\udfffz', 'ok \ud83d\ude00'];
    const { rows } = (await db().raw('SELECT ?::jsonb AS v', [jsonParameter({ texts })])) as { rows: { v: { texts: string[] } }[] };
    expect(rows[0]!.v.texts).to.deep.equal(['a\ufffdb', '\ufffdz', 'ok \ud83d\ude00']);
    const refused = await db()
      .raw('SELECT ?::jsonb AS v', [JSON.stringify({ texts })])
      .then(
        () => null,
        (err: { code?: string }) => err.code,
      );
    expect(refused).to.equal('22P02');
  });

  it('when text holds no lone surrogate, then it is the plain JSON, a backslash before "ud800" included', async () => {
    const value = { texts: ['plain', 'C:\\ud800\\x', 'ok \ud83d\ude00'], n: 1, d: null };
    expect(jsonParameter(value)).to.equal(JSON.stringify(value));
    const { rows } = (await db().raw('SELECT ?::jsonb AS v', [jsonParameter(value)])) as { rows: { v: typeof value }[] };
    expect(rows[0]!.v).to.deep.equal(value);
  });

  it("when a channel's order carries a lone surrogate, then the order and its lines are stored with U+FFFD in its place, as text bindings stored it", async () => {
    const seller = await newSeller();
    await db().transaction(async (trx) => {
      const [internalId] = await orderRepository.insertMany(trx, seller.id, [
        { number: 1, id: '1_2026_11', columns: { customer_email: 'x\ud800@example.com', customer: { username: 'Bob\udc00' } } },
      ]);
      await orderRepository.insertLines(trx, [
        {
          order_internal_id: internalId!,
          position: 1,
          name: 'Mug \ud800',
          sku: null,
          quantity: 1,
          price: '1.00',
          tax: null,
          transaction_id: null,
          stock_align_id: null,
          stock_id: null,
          stock_taken: 0,
          stock_taken_parts: null,
        },
      ]);
      const order = await trx('sales_order').where({ internal_id: internalId }).first();
      expect(order?.customer_email).to.equal('x\ufffd@example.com');
      expect(order?.customer.username).to.equal('Bob\ufffd');
      const line = (await trx('sales_order_line').where({ order_internal_id: internalId }).first())!;
      expect(line.name).to.equal('Mug \ufffd');
    });
  });
});
