/**
 * A bank reversal of a credit that paid an order whose currency was changed after the payment
 * (possible before the currency became unchangeable once money is booked): nothing can be taken
 * off, and the seller's task names that reason, not the portal-account access it does not lack.
 */
import { expect } from 'chai';
import { db } from '../../lib/db/knex';
import { call, newSeller, query, Seller } from '../support/api';
import { readOrder } from '../order/helpers';
import { importStatement, orderPaidBy, bankWorkerForSuite } from './bank-worker';
import { fixture } from './fixtures';

interface TaskView {
  title: string;
  text: string;
  reference: { section: string; id: string };
}

describe('bank: a reversal of a payment on an order of another currency now', () => {
  bankWorkerForSuite('bank-reversal-currency');

  async function tasks(s: Seller): Promise<TaskView[]> {
    const res = await call(`task/?${query({ pagination: { limit: 100 } })}`, { token: s.token });
    expect(res.status, res.text).to.equal(200);
    return (res.body.task ?? []) as TaskView[];
  }

  it("when the bank reverses a EUR credit that paid an order whose currency is USD by now, then nothing is taken off and the seller's task names the changed currency, not the import's access", async () => {
    const s = await newSeller();
    const anna = await orderPaidBy(s, '49.90', 'Anna Schmidt');
    const bernd = await orderPaidBy(s, '24.50', 'Bernd Bauer');
    await importStatement(s, fixture('mt940-reversal-credits.sta', { ORDER_1: anna, ORDER_2: bernd }));
    expect((await readOrder(s, bernd)).paid_amount).to.equal('24.50');
    // As POST order/{id}/ {"currency_id":"USD"} did before it was refused for an order with money booked.
    await db()('sales_order').where({ id: bernd }).update({ currency_id: 'USD' });

    await importStatement(s, fixture('mt940-reversal.sta', { ORDER_1: anna, ORDER_2: bernd }));

    expect((await readOrder(s, bernd)).paid_amount).to.equal('24.50');
    const task = (await tasks(s)).find((t) => t.reference.section === 'order' && t.reference.id === bernd);
    expect(task, 'a task naming the order').to.not.equal(undefined);
    expect(task!.text).to.include('no longer in EUR (its currency was changed after the payment)');
    expect(task!.text).to.not.include('access to all portal accounts');
  });
});
