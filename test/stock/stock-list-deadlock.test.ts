import { expect } from 'chai';
import type { Knex } from 'knex';
import { db } from '../../lib/db/knex';
import { call, newSeller } from '../support/api';
import { untilOneWaitsForALock } from '../support/lock-wait';

type Part = { path: string; code: number; error?: { error: string }[] };

/**
 * lib/errors multi-status.ts runItem: a deadlock is no item's fault. Its item answered 500
 * internal_error while the rest of the list committed; now the whole list runs again (lib/db).
 */
describe('POST stock/list/ that loses a deadlock', () => {
  it('when an item of the list is chosen as a deadlock victim, then the whole list runs again and every item succeeds', async () => {
    const seller = await newSeller();
    const ids: number[] = [];
    for (const sku of ['A', 'B']) {
      const res = await call('stock/', { token: seller.token, body: { stock: { name: `item ${sku}`, sku, quantity: 1 } } });
      expect(res.status, res.text).to.equal(201);
      ids.push(Number(res.body.stock_id));
    }
    const [a, b] = ids as [number, number];
    const row = (trx: Knex.Transaction, id: number) => trx('stock').where({ account_id: seller.id, id }).forUpdate().first();
    let listed: Promise<Awaited<ReturnType<typeof call>>> | undefined;
    await db().transaction(async (trx) => {
      // Another writer holds B; the list locks A (its first item), then waits for B (its second).
      await row(trx, b);
      listed = call('stock/list/', {
        token: seller.token,
        body: {
          stock: [
            { id: a, name: 'A renamed' },
            { id: b, name: 'B renamed' },
          ],
        },
      });
      await untilOneWaitsForALock();
      // The other writer now waits for A: a circle. The list waited first, so PostgreSQL's check
      // (deadlock_timeout after its wait began) finds the circle there and the list loses.
      await row(trx, a);
    });
    const res = await listed!;
    expect(res.status, res.text).to.equal(207);
    expect(
      (res.body.response as Part[]).map((p) => p.code),
      res.text,
    ).to.deep.equal([200, 200]);
    const names = await db()('stock').where({ account_id: seller.id }).orderBy('id').pluck('name');
    expect(names).to.deep.equal(['A renamed', 'B renamed']);
  });
});
