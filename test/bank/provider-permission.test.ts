import { expect } from 'chai';
import { db } from '../../lib/db/knex';
import { newSeller } from '../support/api';
import { asked, connect, control, openTasks, pay, payments, providerAccount, ProviderWorld, startProviderWorld, sync } from './provider-support';

describe('bank: payment provider sync, Transaction Search permission', () => {
  let world: ProviderWorld;
  before(async () => {
    world = await startProviderWorld('provider-permission');
  });
  after(async () => {
    await world.stop();
  });

  it('when PayPal refuses Transaction Search (403) right after connecting, then the sync is retried and the seller reads that access may still be being granted; after 9 hours it is a task; once granted the payments come', async () => {
    const s = await newSeller();
    const { id, clientId } = await connect(world, s);
    await control(world, '/_sandbox/paypal/apps', { client_id: clientId, transaction_search: false }, 200);
    await pay(world, { client_id: clientId, amount: '12.00', currency: 'GBP', payer_name: 'Grant Waiter' });

    const early = await sync(s, id);
    expect(await early.getState()).to.equal('failed');
    expect(early.attemptsMade, 'retried').to.equal(3);
    expect(early.failedReason).to.contain('403 NOT_AUTHORIZED').and.contain('Transaction Search access may still be being granted by PayPal');
    expect(asked(world, clientId).map((a) => a.status)).to.deep.equal([403, 403, 403]);
    const waiting = await providerAccount(s, id);
    expect(waiting.lastError).to.contain(`payment provider account "Shop PayPal" (id ${id})`).and.contain('may still be being granted');
    expect(waiting.lastError).to.not.contain('sandbox-secret');
    expect(await openTasks(s), 'no task while PayPal may still be granting it').to.deep.equal([]);

    // Connected 10 hours ago: beyond PayPal's 9 hours, the refusal is the seller's to fix.
    await db()('payment_provider_account')
      .where({ account_id: s.id, id })
      .update({ created_at: new Date(Date.now() - 10 * 3_600_000) });
    const late = await sync(s, id);
    expect(await late.getState()).to.equal('failed');
    expect(late.attemptsMade, 'not retried').to.equal(1);
    const tasks = await openTasks(s);
    expect(tasks.map((t) => [t.title, t.priority])).to.deep.equal([['Payment provider sync failed: Shop PayPal', 'high']]);
    expect(tasks[0]!.text).to.contain('Transaction Search enabled').and.contain('client_id');
    expect((await providerAccount(s, id)).lastError).to.contain('more than 9 hours');

    // Another refused sync the same day adds no second task.
    expect(await (await sync(s, id)).getState()).to.equal('failed');
    expect(await openTasks(s)).to.have.length(1);

    // The seller enables it; PayPal grants it to tokens issued from then on (a new token each sync).
    await control(world, '/_sandbox/paypal/apps', { client_id: clientId, transaction_search: true }, 200);
    const granted = await sync(s, id);
    expect(await granted.getState(), granted.failedReason).to.equal('completed');
    expect((await payments(s)).map((p) => [p.sender, p.amount])).to.deep.equal([['Grant Waiter', '12.00']]);
    expect((await providerAccount(s, id)).lastError).to.equal(null);
  });

  it('when a permission enabled on the app is granted only later, then the syncs before are retried with the message and the first one after stores the payments', async () => {
    const s = await newSeller();
    const { id, clientId } = await connect(world, s);
    await control(world, '/_sandbox/paypal/apps', { client_id: clientId, transaction_search: true, granted_after_seconds: 3600 }, 200);
    await pay(world, { client_id: clientId, amount: '6.50', payer_name: 'Patient Payer' });
    const before = await sync(s, id);
    expect(await before.getState()).to.equal('failed');
    expect(before.failedReason).to.contain('may still be being granted');
    world.sandbox.state.paypal.searchFrom.set(clientId, Date.now());
    const after = await sync(s, id);
    expect(await after.getState(), after.failedReason).to.equal('completed');
    expect(await payments(s)).to.have.length(1);
    expect(await openTasks(s)).to.deep.equal([]);
  });

  it('when the client credentials are refused (401 invalid_client), then the job fails at once, even right after connecting, and the seller gets a task about the credentials', async () => {
    const s = await newSeller();
    const { id, clientId } = await connect(world, s, 'wrong-secret');
    world.sandbox.state.paypal.clients.set(clientId, 'the-real-secret');
    const job = await sync(s, id);
    expect(await job.getState()).to.equal('failed');
    expect(job.attemptsMade).to.equal(1);
    expect(job.failedReason).to.contain('check its client_id and client_secret').and.not.contain('wrong-secret');
    expect((await providerAccount(s, id)).lastError).to.contain('refused the client credentials (401)');
    expect((await openTasks(s)).map((t) => t.title)).to.deep.equal(['Payment provider sync failed: Shop PayPal']);
  });
});
