import { expect } from 'chai';
import { db } from '../../lib/db/knex';
import { newSeller } from '../support/api';
import {
  asked,
  connect,
  control,
  openTasks,
  pay,
  payments,
  providerAccount,
  ProviderWorld,
  startProviderWorld,
  storedPayments,
  sync,
} from './provider-support';

describe('bank: payment provider sync, the window it lists (RESULTSET_TOO_LARGE, late listing, currencies)', () => {
  let world: ProviderWorld;
  before(async () => {
    world = await startProviderWorld('provider-window');
  });
  after(async () => {
    await world.stop();
  });

  it('when the window matches more transactions than PayPal lists at once, then it is split until each part fits and every payment is stored once, with its currency', async () => {
    const s = await newSeller();
    const { id, clientId } = await connect(world, s);
    await control(world, '/_sandbox/paypal/limits', { client_id: clientId, max_result_items: 3 }, 200);
    const currencies = ['EUR', 'CHF', 'USD', 'JPY', 'PLN', 'EUR', 'GBP', 'DKK', 'EUR', 'SEK'];
    const ids: string[] = [];
    for (const [i, currency] of currencies.entries()) {
      const amount = currency === 'JPY' ? '1500' : `${i + 1}.25`;
      ids.push(
        await pay(world, { client_id: clientId, amount, currency, payer_name: `Buyer ${i}`, date: new Date(Date.now() - (i + 1) * 3_600_000).toISOString() }),
      );
    }
    const job = await sync(s, id);
    expect(await job.getState(), job.failedReason).to.equal('completed');
    expect(job.attemptsMade).to.equal(1);
    const answers = asked(world, clientId);
    expect(answers.filter((a) => a.status === 400).length, 'RESULTSET_TOO_LARGE answers').to.be.greaterThan(0);
    expect(answers.every((a) => a.status === 200 || a.status === 400)).to.equal(true);
    expect(answers.every((a) => Date.parse(a.query.end_date!) - Date.parse(a.query.start_date!) <= 31 * 86_400_000)).to.equal(true);
    const stored = await storedPayments(s);
    expect(stored.map((p) => p.entry_ref).sort()).to.deep.equal([...ids].sort());
    const byId = new Map(stored.map((p) => [p.entry_ref, p]));
    expect(ids.map((t) => byId.get(t)!.currency_id)).to.deep.equal(currencies);
    expect(byId.get(ids[3]!)!.amount).to.equal('1500.00');
    expect(byId.get(ids[1]!)!.amount).to.equal('2.25');
    expect(await payments(s)).to.have.length(10);
    expect((await providerAccount(s, id)).lastError).to.equal(null);
    expect(await openTasks(s)).to.deep.equal([]);
  });

  it('when even the narrowest window is too large, then the sync fails saying so, stores nothing and skips nothing: a later sync that can list them stores them all', async () => {
    const s = await newSeller();
    const { id, clientId } = await connect(world, s);
    await control(world, '/_sandbox/paypal/limits', { client_id: clientId, max_result_items: 3 }, 200);
    const at = new Date(Date.now() - 3_600_000).toISOString();
    for (let i = 0; i < 4; i++) await pay(world, { client_id: clientId, amount: '2.00', payer_name: `Burst ${i}`, date: at });
    const job = await sync(s, id);
    expect(await job.getState()).to.equal('failed');
    expect(job.attemptsMade, 'not retried').to.equal(1);
    expect(job.failedReason).to.contain('RESULTSET_TOO_LARGE').and.contain('narrowest window');
    const account = await providerAccount(s, id);
    expect(account.lastError).to.contain('RESULTSET_TOO_LARGE').and.contain(`payment provider account "Shop PayPal" (id ${id})`);
    expect(account.lastError).to.not.contain('client_secret');
    expect(account.syncedUntil).to.equal(null);
    expect(await payments(s)).to.deep.equal([]);
    const tasks = await openTasks(s);
    expect(tasks.map((t) => t.title)).to.deep.equal(['Payment provider sync failed: Shop PayPal']);
    expect(tasks[0]!.text).to.contain('RESULTSET_TOO_LARGE');

    await control(world, '/_sandbox/paypal/limits', { client_id: clientId, max_result_items: 10 }, 200);
    const again = await sync(s, id);
    expect(await again.getState(), again.failedReason).to.equal('completed');
    expect((await payments(s)).map((p) => p.sender)).to.have.members(['Burst 0', 'Burst 1', 'Burst 2', 'Burst 3']);
    expect((await providerAccount(s, id)).lastError).to.equal(null);
  });

  it('when PayPal lists a payment only after the next sync ran (up to 3 hours late), then the sync after that still finds it', async () => {
    const s = await newSeller();
    const { id, clientId } = await connect(world, s);
    const late = await pay(world, {
      client_id: clientId,
      amount: '9.90',
      payer_name: 'Late Lister',
      date: new Date(Date.now() - 2 * 3_600_000).toISOString(),
      listed_after_minutes: 60,
    });
    expect(await (await sync(s, id)).getState()).to.equal('completed');
    expect(await payments(s)).to.deep.equal([]);
    // PayPal lists it now, two hours after its date; the next sync's window starts 3 hours before the last one ended.
    world.sandbox.state.paypal.payments.find((p) => p.transactionId === late)!.listedFrom = Date.now();
    expect(await (await sync(s, id)).getState()).to.equal('completed');
    expect((await storedPayments(s)).map((p) => p.entry_ref)).to.deep.equal([late]);
  });

  it('when PayPal lists a payment without a currency, then it is not stored (no EUR is guessed) and the seller reads why on the account', async () => {
    const s = await newSeller();
    const { id, clientId } = await connect(world, s);
    const good = await pay(world, { client_id: clientId, amount: '4.00', currency: 'CHF', payer_name: 'Good Payer' });
    // PayPal's money always carries currency_code; a listing without one is put into the sandbox by hand.
    world.sandbox.state.paypal.payments.push({
      clientId,
      transactionId: 'NOCURRENCY0000001',
      date: new Date(Date.now() - 60_000).toISOString(),
      amount: '5.00',
      currency: '',
      payerName: 'No Currency',
      email: 'n@example.com',
      invoiceId: '',
      subject: '',
    });
    const job = await sync(s, id);
    expect(await job.getState(), job.failedReason).to.equal('completed');
    expect(job.returnvalue).to.include({ stored: 1, unreadable: 1 });
    expect(await storedPayments(s)).to.deep.equal([{ entry_ref: good, amount: '4.00', currency_id: 'CHF' }]);
    expect((await providerAccount(s, id)).lastError).to.contain('NOCURRENCY0000001 (no ISO 4217 currency_code)');
    expect(Number((await db()('bank').where({ account_id: s.id }).count({ n: '*' }))[0]!.n)).to.equal(1);
  });
});
