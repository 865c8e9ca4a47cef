import crypto from 'node:crypto';
import { expect } from 'chai';
import { config, setConfig } from '../../config';
import { db } from '../../lib/db/knex';
import { queues } from '../../lib/queue/queue.registry';
import { schedules } from '../../lib/queue/schedules';
import { call, newSeller, query, Seller } from '../support/api';
import { kontor } from '../support/cli';
import { waitFor } from '../event/servers';
import { Sandbox, startSandbox } from '../fleet/support';
import { createOrder, readOrder } from '../order/helpers';
import { startBankWorker } from './bank-worker';
import { payments, sync } from './provider-support';

describe('bank: payment provider (PayPal transaction search) sync', () => {
  let bankWorker: { stop(): Promise<void> } | undefined;
  let sandbox: Sandbox;
  before(async () => {
    const original = config();
    sandbox = await startSandbox();
    bankWorker = await startBankWorker('provider');
    // The sandbox's URL stays set only while this file runs.
    const stop = bankWorker.stop;
    bankWorker.stop = async () => {
      await stop();
      setConfig(original);
    };
  });
  after(async () => {
    await bankWorker?.stop();
    await sandbox.close();
  });

  async function connect(s: Seller, secret = 'sandbox-secret'): Promise<{ id: number; clientId: string }> {
    const clientId = `client-${crypto.randomBytes(4).toString('hex')}`;
    const res = await kontor(
      'payment-provider',
      'connect',
      '--login',
      s.login,
      '--name',
      'Shop PayPal',
      '--client-id',
      clientId,
      '--client-secret',
      secret,
      '--base-url',
      sandbox.url,
    );
    expect(res.code, res.err).to.equal(0);
    expect(res.out).to.not.contain(secret);
    return { id: (JSON.parse(res.out) as { id: number }).id, clientId };
  }

  const pay = async (fields: Record<string, unknown>) => {
    const res = await fetch(`${sandbox.url}/_sandbox/paypal/payments`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(fields),
    });
    expect(res.status).to.equal(201);
    return (await res.json()) as { transaction_id: string };
  };

  it('when a payment is made at the provider, then after the sync it is listed with its status and the order it names (or whose transaction id it is) is paid', async () => {
    const s = await newSeller();
    const { id, clientId } = await connect(s);
    const byInvoiceId = await createOrder(s, { line: [{ id: 1, price: '19.90', quantity: 1 }] });
    await pay({ client_id: clientId, amount: '19.90', payer_name: 'Jürgen Müller', invoice_id: byInvoiceId });
    const second = await pay({ client_id: clientId, amount: '5.00', payer_name: 'Anna Berg', subject: 'thanks' });
    const byTransaction = await createOrder(s, { payment_provider_transaction_id: second.transaction_id, line: [{ id: 1, price: '5.00', quantity: 1 }] });
    const job = await sync(s, id);
    expect(await job!.getState(), job!.failedReason).to.equal('completed');
    await waitFor(async () => ((await readOrder(s, byTransaction)).paid_amount === '5.00' ? true : undefined), 'the match');
    expect((await readOrder(s, byInvoiceId)).paid_amount).to.equal('19.90');
    const rows = await payments(s);
    expect(rows.map((r) => [r.type, r.sender, r.amount, r.status, r.order_id])).to.deep.equal([
      ['payment_provider', 'Jürgen Müller', '19.90', 'completed', byInvoiceId],
      ['payment_provider', 'Anna Berg', '5.00', 'completed', byTransaction],
    ]);
    // The next sync looks back over the last hours again: nothing is stored twice.
    expect(await (await sync(s, id))!.getState()).to.equal('completed');
    expect(await payments(s)).to.have.length(2);
    const asked = sandbox.state.requests.filter((r) => r.portal === 'paypal' && r.portalAccount === clientId).map((r) => r.body as Record<string, string>);
    // Every status is asked for (a pending payment is remembered, a completed one stored): no transaction_status filter.
    expect(asked[0]).to.include({ fields: 'transaction_info,payer_info', page_size: '500', page: '1' });
    expect(asked[0]).to.not.have.property('transaction_status');
    expect(Date.parse(asked[0]!.end_date!) - Date.parse(asked[0]!.start_date!)).to.be.at.most(31 * 86_400_000);
  });

  it('when more payments than one page came, then every page is fetched', async () => {
    const s = await newSeller();
    const { id, clientId } = await connect(s);
    const at = Date.now() - 3_600_000;
    for (let i = 0; i < 501; i++) {
      sandbox.state.paypal.payments.push({
        clientId,
        transactionId: `PAGED${String(i).padStart(12, '0')}`,
        date: new Date(at + i).toISOString(),
        amount: '1.00',
        currency: 'EUR',
        payerName: 'Many Buyers',
        email: 'b@example.com',
        invoiceId: '',
        subject: `gift ${i}`,
      });
    }
    expect(await (await sync(s, id))!.getState()).to.equal('completed');
    const pages = sandbox.state.requests.filter((r) => r.portal === 'paypal' && r.portalAccount === clientId).map((r) => (r.body as { page: string }).page);
    expect(pages).to.deep.equal(['1', '2']);
    expect(Number((await db()('bank').where({ account_id: s.id, type: 'payment_provider' }).count({ n: '*' }))[0]!.n)).to.equal(501);
  });

  it('when the provider answers 429 with Retry-After and then 503, then the sync is retried and completes', async () => {
    const s = await newSeller();
    const { id, clientId } = await connect(s);
    await pay({ client_id: clientId, amount: '3.00', payer_name: 'Carl Dorn' });
    sandbox.state.faults.push({ portal: 'paypal', status: 429, remaining: 1, retryAfter: '1', message: 'too many requests' });
    sandbox.state.faults.push({ portal: 'paypal', status: 503, remaining: 1, message: 'busy' });
    const job = await sync(s, id);
    expect(await job!.getState(), job!.failedReason).to.equal('completed');
    const statuses = sandbox.state.requests.filter((r) => r.portal === 'paypal' && r.portalAccount === clientId).map((r) => r.status);
    expect(statuses).to.deep.equal([429, 503, 200]);
    expect(job!.attemptsMade).to.equal(3);
    expect(await payments(s)).to.have.length(1);
  });

  it('when the provider refuses the credentials (401), then the job fails naming the provider account and the seller gets a task', async () => {
    const s = await newSeller();
    const { id, clientId } = await connect(s, 'wrong-secret');
    sandbox.state.paypal.clients.set(clientId, 'the-real-secret');
    const job = await sync(s, id);
    expect(await job!.getState()).to.equal('failed');
    expect(job!.attemptsMade).to.equal(1);
    expect(job!.failedReason).to.contain(`payment provider account "Shop PayPal" (id ${id})`);
    expect(job!.failedReason).to.not.contain('wrong-secret');
    const tasks = await call(`task/?${query({ filter: { is_completed: false } })}`, { token: s.token });
    expect(tasks.status, tasks.text).to.equal(200);
    const titles = (tasks.body.task as { title: string; text: string }[]).map((t) => t.title);
    expect(titles).to.deep.equal(['Payment provider sync failed: Shop PayPal']);
  });

  it('when the scheduler ticks (twice in one minute), then each connected account gets one sync job, its id from the account and the tick', async () => {
    const s = await newSeller();
    const { id, clientId } = await connect(s);
    await pay({ client_id: clientId, amount: '7.00', payer_name: 'Gustav Holm' });
    const tick = schedules().find((x) => x.name === 'bank-provider-sync')!;
    await tick.enqueue(new Date('2026-11-23T21:05:10Z'));
    await tick.enqueue(new Date('2026-11-23T21:05:40Z'));
    const job = await waitFor(async () => {
      const found = await queues().get('bank').getJob(`bank-provider-sync-${id}-202611232105`);
      return found && (await found.getState()) === 'completed' ? found : undefined;
    }, 'the sync of the account');
    expect(job.data).to.deep.equal({ accountId: s.id, providerAccountId: id, tick: '202611232105' });
    await waitFor(async () => ((await payments(s)).length === 1 ? true : undefined), 'the payment stored');
  });
});
