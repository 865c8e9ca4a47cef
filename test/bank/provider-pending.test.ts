import { expect } from 'chai';
import { db } from '../../lib/db/knex';
import { newSeller } from '../support/api';
import { waitFor } from '../event/servers';
import { createOrder, readOrder } from '../order/helpers';
import {
  asked,
  connect,
  openTasks,
  pay,
  payments,
  providerAccount,
  ProviderWorld,
  setStatus,
  startProviderWorld,
  storedPayments,
  sync,
} from './provider-support';

const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();

describe('bank: payment provider sync, payments pending when first seen', () => {
  let world: ProviderWorld;
  before(async () => {
    world = await startProviderWorld('provider-pending');
  });
  after(async () => {
    await world.stop();
  });

  it('when a payment made 5 days ago is pending at the first sync and completes later, then a later sync stores it once, with its currency, and pays the order it names', async () => {
    const s = await newSeller();
    const { id, clientId } = await connect(world, s);
    const order = await createOrder(s, { line: [{ id: 1, price: '49.00', quantity: 1 }] });
    const madeAt = daysAgo(5);
    const echeck = await pay(world, {
      client_id: clientId,
      amount: '49.00',
      currency: 'EUR',
      status: 'P',
      payer_name: 'Erika Scheck',
      invoice_id: order,
      date: madeAt,
    });

    const first = await sync(s, id);
    expect(await first.getState(), first.failedReason).to.equal('completed');
    expect(first.returnvalue).to.include({ stored: 0, pending: 1 });
    expect(await payments(s)).to.deep.equal([]);
    expect((await providerAccount(s, id)).pending).to.deep.equal([echeck]);

    // Still pending: asked for by its id, nothing stored.
    const second = await sync(s, id);
    expect(await second.getState(), second.failedReason).to.equal('completed');
    expect(await payments(s)).to.deep.equal([]);
    const byId = asked(world, clientId).filter((a) => a.query.transaction_id === echeck);
    expect(byId.length).to.equal(1);
    expect(Date.parse(byId[0]!.query.start_date!)).to.be.below(Date.parse(daysAgo(5)));

    await setStatus(world, echeck, 'S');
    const third = await sync(s, id);
    expect(await third.getState(), third.failedReason).to.equal('completed');
    // The window of that sync begins 3 hours before the last one ended: the payment, 5 days old, is not in it.
    const windowOfThird = asked(world, clientId)
      .filter((a) => a.query.transaction_id === undefined)
      .at(-1)!;
    expect(Date.parse(windowOfThird.query.start_date!)).to.be.above(Date.parse(daysAgo(1)));
    expect(await storedPayments(s)).to.deep.equal([{ entry_ref: echeck, amount: '49.00', currency_id: 'EUR' }]);
    await waitFor(async () => ((await readOrder(s, order)).paid_amount === '49.00' ? true : undefined), 'the order paid');
    const [row] = await payments(s);
    expect(row).to.include({ sender: 'Erika Scheck', amount: '49.00', status: 'completed', order_id: order });
    // Its date is the one the payment was made on, not the day it completed.
    expect(row!.transfer_date).to.equal(madeAt);
    expect((await providerAccount(s, id)).pending).to.deep.equal([]);

    // Synced again: stored once, and no longer asked for.
    const before = asked(world, clientId).length;
    expect(await (await sync(s, id)).getState()).to.equal('completed');
    expect(
      asked(world, clientId)
        .slice(before)
        .filter((a) => a.query.transaction_id !== undefined),
    ).to.deep.equal([]);
    expect(await payments(s)).to.have.length(1);
    expect(await openTasks(s)).to.deep.equal([]);
  });

  it('when a pending payment is denied, then nothing is stored, it is no longer asked for, and the order stays unpaid', async () => {
    const s = await newSeller();
    const { id, clientId } = await connect(world, s);
    const order = await createOrder(s, { line: [{ id: 1, price: '20.00', quantity: 1 }] });
    const denied = await pay(world, {
      client_id: clientId,
      amount: '20.00',
      currency: 'USD',
      status: 'P',
      payer_name: 'Dan Nied',
      invoice_id: order,
      date: daysAgo(2),
    });
    expect(await (await sync(s, id)).getState()).to.equal('completed');
    expect((await providerAccount(s, id)).pending).to.deep.equal([denied]);

    await setStatus(world, denied, 'D');
    const job = await sync(s, id);
    expect(await job.getState(), job.failedReason).to.equal('completed');
    expect(job.returnvalue).to.include({ stored: 0, failed: 1, pending: 0 });
    expect((await providerAccount(s, id)).pending).to.deep.equal([]);
    const before = asked(world, clientId).length;
    expect(await (await sync(s, id)).getState()).to.equal('completed');
    expect(
      asked(world, clientId)
        .slice(before)
        .filter((a) => a.query.transaction_id !== undefined),
    ).to.deep.equal([]);
    expect(await payments(s)).to.deep.equal([]);
    expect(Number((await readOrder(s, order)).paid_amount ?? 0)).to.equal(0);
    expect(await openTasks(s)).to.deep.equal([]);
  });

  it('when PayPal lists a payment as reversed (V), then it is not stored and not remembered', async () => {
    const s = await newSeller();
    const { id, clientId } = await connect(world, s);
    const reversed = await pay(world, { client_id: clientId, amount: '8.00', status: 'V', payer_name: 'Vera Reversed', date: daysAgo(0.01) });
    const kept = await pay(world, { client_id: clientId, amount: '3.00', payer_name: 'Kept Payer', date: daysAgo(0.01) });
    expect(await (await sync(s, id)).getState()).to.equal('completed');
    expect((await storedPayments(s)).map((p) => p.entry_ref)).to.deep.equal([kept]);
    expect((await providerAccount(s, id)).pending).to.not.include(reversed);
  });

  it('when a payment stays pending beyond 30 days, then it is no longer asked for, nothing is stored, and the seller gets a task naming it', async () => {
    const s = await newSeller();
    const { id, clientId } = await connect(world, s);
    const stale = await pay(world, { client_id: clientId, amount: '75.50', currency: 'CHF', status: 'P', payer_name: 'Stefan Stale', date: daysAgo(30.5) });
    const fresh = await pay(world, { client_id: clientId, amount: '1.00', status: 'P', payer_name: 'Fresh Pending', date: daysAgo(1) });
    const job = await sync(s, id);
    expect(await job.getState(), job.failedReason).to.equal('completed');
    expect(job.returnvalue).to.include({ stored: 0, givenUp: 1, pending: 1 });
    expect((await providerAccount(s, id)).pending).to.deep.equal([fresh]);
    const tasks = await openTasks(s);
    expect(tasks.map((t) => t.title)).to.deep.equal([`PayPal payment still pending: ${stale}`]);
    expect(tasks[0]!.text).to.contain('75.50 CHF from Stefan Stale').and.contain('more than 30 days');

    // A remembered one whose 30 days run out is given up at the next sync the same way, once.
    await db()('payment_provider_pending')
      .where({ account_id: s.id, transaction_id: fresh })
      .update({ transaction_date: new Date(daysAgo(31)) });
    expect(await (await sync(s, id)).getState()).to.equal('completed');
    expect(await (await sync(s, id)).getState()).to.equal('completed');
    expect((await providerAccount(s, id)).pending).to.deep.equal([]);
    expect((await openTasks(s)).map((t) => t.title)).to.have.members([`PayPal payment still pending: ${stale}`, `PayPal payment still pending: ${fresh}`]);
    expect(await payments(s)).to.deep.equal([]);
  });
});
