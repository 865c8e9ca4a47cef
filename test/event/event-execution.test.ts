import crypto from 'node:crypto';
import type { Job } from 'bullmq';
import { expect } from 'chai';
import { config, setConfig } from '../../config';
import { setAccountAddress } from '../../lib/account';
import { db } from '../../lib/db/knex';
import { dispatchEvent } from '../../lib/event/event-dispatch.service';
import { eventProcessors } from '../../lib/event/event.processor';
import { mergedJobId } from '../../lib/queue/merged-jobs';
import { addToOutbox } from '../../lib/queue/outbox';
import { call, newSeller, Seller } from '../support/api';
import { CaughtMail, Received, waitFor } from './servers';
import { useEventsWorker } from './events-worker';
import { runJobOf } from './handlers';

async function createHandler(seller: Seller, handler: Record<string, unknown>): Promise<{ id: number; secret: string }> {
  const res = await call('admin/event/handler/', { token: seller.token, body: { event_handler: handler } });
  expect(res.status, res.text).to.equal(201);
  return { id: res.body.event_handler_id as number, secret: res.body.signing_secret as string };
}

const notification = (url: string, targetName = 'erp', extra: Record<string, unknown> = {}) => ({
  type: { id: 'created' },
  section: 'order',
  action: { id: 'notification', required: { url, format: 'post', target_name: targetName } },
  ...extra,
});

async function createOrder(seller: Seller, order: Record<string, unknown> = {}): Promise<string> {
  const res = await call('order/', { token: seller.token, body: { order: { customer: { email: 'buyer@example.com' }, ...order } } });
  expect(res.status, res.text).to.equal(201);
  return res.body.order_id as string;
}

async function finalJob(seller: Seller, jobId: string): Promise<Record<string, unknown>> {
  return waitFor(async () => {
    const res = await call(`job/${jobId}/`, { token: seller.token });
    const job = res.body.job as Record<string, unknown> | undefined;
    // finished_date too: a status read in the instant a job completes can lack its result.
    return job && (job.state === 'completed' || job.state === 'failed') && job.finished_date ? job : undefined;
  }, `job ${jobId} to finish`);
}

describe('event execution (events worker)', function () {
  this.timeout(60000);
  const flakyCalls = new Map<string, number>();
  const setting = useEventsWorker('admin', {
    mail: true,
    answer: (r) => {
      if (r.path.startsWith('/flaky')) {
        const calls = (flakyCalls.get(r.path) ?? 0) + 1;
        flakyCalls.set(r.path, calls);
        return { status: calls === 1 ? 503 : 200 };
      }
      return { status: r.path.startsWith('/gone') ? 410 : 204 };
    },
    settings: () => ({ jobBackoffMs: 50, jobAttempts: 4, webhookRetryBaseMs: 50, webhookRetryMaxDelayMs: 200 }),
  });
  let base = '';
  let received: Received[] = [];
  let mails: CaughtMail[] = [];
  before(() => {
    ({ base, received } = setting.receiver);
    mails = setting.mails;
  });

  it('when an order is created, then the notification handler POSTs order_id and user_id signed so the receiver can verify it', async () => {
    const seller = await newSeller();
    const path = `/ok/${seller.id}`;
    const handler = await createHandler(seller, notification(`${base}${path}`));
    const orderId = await createOrder(seller);

    const delivery = await waitFor(async () => received.find((r) => r.path === path), 'the notification');
    const body = JSON.parse(delivery.body) as Record<string, unknown>;
    expect(body).to.deep.include({
      event: { section: 'order', type: 'created' },
      order_id: orderId,
      user_id: seller.id,
      handler_id: handler.id,
      target_name: 'erp',
    });
    expect(delivery.headers['content-type']).to.match(/^application\/json/);

    const timestamp = String(delivery.headers['x-kontor-timestamp']);
    expect(Math.abs(Date.now() / 1000 - Number(timestamp))).to.be.below(60);
    const expected = `v1=${crypto.createHmac('sha256', handler.secret).update(`${timestamp}.${delivery.body}`).digest('hex')}`;
    expect(crypto.timingSafeEqual(Buffer.from(String(delivery.headers['x-kontor-signature'])), Buffer.from(expected))).to.equal(true);
    const forged = `v1=${crypto.createHmac('sha256', 'not-the-secret').update(`${timestamp}.${delivery.body}`).digest('hex')}`;
    expect(delivery.headers['x-kontor-signature']).to.not.equal(forged);

    const runJob = (await runJobOf(seller, handler.id))!;
    expect(delivery.headers['x-kontor-delivery']).to.equal(runJob);
    const job = await finalJob(seller, runJob);
    expect(job.state).to.equal('completed');
    expect(job.result).to.deep.include({ handler_id: handler.id, action: 'notification', status: 204, state: 'delivered', delivery_id: runJob });
  });

  it('when the order was created with an X-Request-Id, then the webhook delivery carries it', async () => {
    const seller = await newSeller();
    const path = `/ok/rid/${seller.id}`;
    await createHandler(seller, notification(`${base}${path}`));
    const res = await call('order/', {
      token: seller.token,
      headers: { 'X-Request-Id': `shop-${seller.id}` },
      body: { order: { customer: { email: 'buyer@example.com' } } },
    });
    expect(res.status, res.text).to.equal(201);
    const delivery = await waitFor(async () => received.find((r) => r.path === path), 'the notification');
    expect(delivery.headers['x-request-id']).to.equal(`shop-${seller.id}`);
  });

  it('when the webhook fails at first, then the delivery is retried with backoff and delivered; a refusing receiver does not stop the other handler', async () => {
    const seller = await newSeller();
    const flaky = await createHandler(seller, notification(`${base}/flaky/${seller.id}`, 'flaky'));
    const gone = await createHandler(seller, notification(`${base}/gone/${seller.id}`, 'gone'));
    await createOrder(seller);

    // The run completes with its first attempt (503): the retries are the sweep's.
    const flakyJob = await finalJob(seller, await waitFor(() => runJobOf(seller, flaky.id), 'the flaky run'));
    expect(flakyJob.state).to.equal('completed');
    expect(flakyJob.result).to.deep.include({ status: 503, state: 'pending' });
    await waitFor(async () => received.filter((r) => r.path === `/flaky/${seller.id}`).length === 2, 'the retry');

    const goneJob = await finalJob(seller, await waitFor(() => runJobOf(seller, gone.id), 'the gone run'));
    expect(goneJob.state).to.equal('failed');
    expect(goneJob.error).to.match(/HTTP 410/);
    expect(received.filter((r) => r.path === `/gone/${seller.id}`)).to.have.length(1);
  });

  it("when a handler's condition does not hold on the order, then it is not run while the others are", async () => {
    const seller = await newSeller();
    const onlyAuction = await createHandler(
      seller,
      notification(`${base}/ok/cond-a-${seller.id}`, 'a', { condition: [{ field: 'platform', operator: '=', value: 'auction_a' }] }),
    );
    const notAuction = await createHandler(
      seller,
      notification(`${base}/ok/cond-b-${seller.id}`, 'b', { condition: [{ field: 'platform', operator: '!=', value: 'auction_a' }] }),
    );
    await createOrder(seller, { platform: 'market_c' });

    await waitFor(async () => received.find((r) => r.path === `/ok/cond-b-${seller.id}`), 'the matching handler');
    await finalJob(seller, (await runJobOf(seller, notAuction.id))!);
    expect(await runJobOf(seller, onlyAuction.id)).to.equal(undefined);
    expect(received.find((r) => r.path === `/ok/cond-a-${seller.id}`)).to.equal(undefined);
  });

  it("when an order is created, then the mail, order_flag and task actions run on the record; the mail goes out in the seller's name, answered to the seller", async () => {
    const seller = await newSeller();
    const email = `buyer-${seller.id}@example.com`;
    await setAccountAddress(seller.id, { name: 'Berg Handel GmbH', city: 'Berlin', country_iso2: 'DE' });
    const contact = await call('admin/user/', { token: seller.token, body: { user: { settings: { invoice: { email: 'orders@berg-handel.example' } } } } });
    expect(contact.status, contact.text).to.equal(200);
    const mail = await createHandler(seller, {
      type: { id: 'created' },
      section: 'order',
      action: {
        id: 'mail',
        required: { to: '{customer.email}', subject: 'Order {id} received', template: 'Thank you for order {id} over {invoice_amount} {currency_id}.' },
      },
    });
    const flag = await createHandler(seller, {
      type: { id: 'created' },
      section: 'order',
      action: { id: 'order_flag', required: { flag: 'is_parked', value: 'true' } },
    });
    const task = await createHandler(seller, {
      type: { id: 'created' },
      section: 'order',
      action: { id: 'task', required: { title: 'Check order {id}', text: 'Buyer {customer.email}', priority: 'high' } },
    });
    const orderId = await createOrder(seller, { customer: { email } });

    const mailJob = await finalJob(seller, await waitFor(() => runJobOf(seller, mail.id), 'the mail run'));
    expect(mailJob.state, String(mailJob.error)).to.equal('completed');
    const received = mails.find((m) => m.to === email)!;
    expect(received.raw).to.match(new RegExp(`Subject: Order ${orderId} received`));
    expect(received.raw).to.match(new RegExp(`Thank you for order ${orderId} over`));
    // The seller's own mail to its buyer: the buyer sees who writes and a reply reaches the seller, not the no-reply sender.
    expect(received.raw).to.match(/^From: "?Berg Handel GmbH"? <[^>]+>\r?$/m);
    expect(received.raw).to.match(/^Reply-To: orders@berg-handel\.example\r?$/m);

    const flagJob = await finalJob(seller, await waitFor(() => runJobOf(seller, flag.id), 'the flag run'));
    expect(flagJob.state, String(flagJob.error)).to.equal('completed');
    const order = await call(`order/${orderId}/`, { token: seller.token });
    expect((order.body.order as { status: Record<string, unknown> }).status.is_parked).to.equal(true);

    const taskJob = await finalJob(seller, await waitFor(() => runJobOf(seller, task.id), 'the task run'));
    expect(taskJob.state, String(taskJob.error)).to.equal('completed');
    const tasks = await call('task/', { token: seller.token });
    expect(tasks.body.task).to.have.length(1);
    expect((tasks.body.task as Record<string, unknown>[])[0]).to.deep.include({
      title: `Check order ${orderId}`,
      text: `Buyer ${email}`,
      priority: 'high',
      reference: { section: 'order', id: orderId },
    });
  });

  it('when CIA notifies cia.event targets, then only the targeted stock handlers run, with stock_id and the new quantity', async () => {
    const seller = await newSeller();
    const stock = await call('stock/', { token: seller.token, body: { stock: { name: 'cup', sku: `cup-${seller.id}`, quantity: 3 } } });
    expect(stock.status, stock.text).to.equal(201);
    const stockId = Number(stock.body.stock_id);
    const targeted = await createHandler(seller, {
      type: { id: 'cia' },
      section: 'stock',
      action: { id: 'notification', required: { url: `${base}/ok/stock-${seller.id}`, format: 'post', target_name: 'shop-sync' } },
    });
    const other = await createHandler(seller, {
      type: { id: 'cia' },
      section: 'stock',
      action: { id: 'notification', required: { url: `${base}/ok/stock-other-${seller.id}`, format: 'post', target_name: 'other' } },
    });
    const lowStock = await createHandler(seller, {
      type: { id: 'cia' },
      section: 'stock',
      condition: [{ field: 'quantity', operator: '<', value: 5 }],
      action: { id: 'task', required: { title: 'Reorder {stock_id}', text: 'Only {quantity} left', priority: 'normal' } },
    });
    await db().transaction((trx) =>
      addToOutbox(trx, seller.id, 'event.emit', {
        accountId: seller.id,
        section: 'stock',
        type: 'cia',
        recordId: String(stockId),
        data: { target: ['shop-sync', String(lowStock.id)], quantity: [{ portal: 'auction_a', portal_account_id: seller.portalAccountId, quantity: 3 }] },
      }),
    );

    const delivery = await waitFor(async () => received.find((r) => r.path === `/ok/stock-${seller.id}`), 'the stock notification');
    // stock_id as GET stock/{stock_id}/ answers Stock_type id: text.
    expect(JSON.parse(delivery.body)).to.deep.include({ event: { section: 'stock', type: 'cia' }, stock_id: String(stockId), quantity: 3, user_id: seller.id });
    expect((await call(`stock/${stockId}/`, { token: seller.token })).body.stock).to.deep.include({ id: String(stockId) });
    await finalJob(seller, (await runJobOf(seller, targeted.id))!);
    const taskJob = await finalJob(seller, await waitFor(() => runJobOf(seller, lowStock.id), 'the task run'));
    expect(taskJob.state, String(taskJob.error)).to.equal('completed');
    const tasks = await call('task/', { token: seller.token });
    expect((tasks.body.task as Record<string, unknown>[])[0]).to.deep.include({ title: `Reorder ${stockId}`, text: 'Only 3 left' });
    expect(await runJobOf(seller, other.id)).to.equal(undefined);
  });

  it('when event.emit runs twice for the same event, then each handler is queued once', async () => {
    const seller = await newSeller();
    const handler = await createHandler(seller, {
      type: { id: 'created' },
      section: 'customer',
      action: { id: 'notification', required: { url: `${base}/ok/twice-${seller.id}`, format: 'post', target_name: 'crm' } },
    });
    const event = { accountId: seller.id, section: 'customer', type: 'created', recordId: '424242' };
    const eventId = crypto.randomUUID();
    const first = await dispatchEvent(eventId, event, new Date());
    const second = await dispatchEvent(eventId, event, new Date());
    expect(first.runs).to.have.length(1);
    expect(second.runs).to.deep.equal(first.runs);
    const rows = await db()('outbox').where({ account_id: seller.id, job_name: 'event.run' });
    expect(rows).to.have.length(1);
    const delivery = await waitFor(async () => received.find((r) => r.path === `/ok/twice-${seller.id}`), 'the customer notification');
    // A numeric customer number is an integer, as GET admin/customer/ answers it.
    expect(JSON.parse(delivery.body)).to.deep.include({ event: { section: 'customer', type: 'created' }, customer_id: 424242, handler_id: handler.id });
  });

  it('when one relay pass takes several event.emit rows of an account, then one event.emit_many carries them and each row gets its own runs and result', async () => {
    const seller = await newSeller();
    // Orders created before the handler: their own events find no handler.
    const orders = [await createOrder(seller), await createOrder(seller)];
    await waitFor(async () => {
      const pending = await db()('outbox').where({ account_id: seller.id, job_name: 'event.emit' }).whereNull('state');
      return pending.length === 0 ? true : undefined;
    }, 'the orders own events dispatched');
    const path = `/ok/merged-${seller.id}`;
    const handler = await createHandler(seller, notification(`${base}${path}`));
    const jobIds = await db().transaction(async (trx) => {
      const ids: string[] = [];
      for (const recordId of orders)
        ids.push(await addToOutbox(trx, seller.id, 'event.emit', { accountId: seller.id, section: 'order', type: 'created', recordId }));
      return ids;
    });

    const deliveries = await waitFor(async () => {
      const found = received.filter((r) => r.path === path);
      return found.length === 2 ? found : undefined;
    }, 'both notifications');
    expect(deliveries.map((d) => (JSON.parse(d.body) as { order_id: string }).order_id).sort()).to.deep.equal([...orders].sort());
    const rows = (await db()('outbox').whereIn('job_id', jobIds).orderBy('id').select('relayed_as')) as { relayed_as: string | null }[];
    expect(rows.map((r) => r.relayed_as)).to.deep.equal([mergedJobId(jobIds), mergedJobId(jobIds)]);
    for (const jobId of jobIds) {
      const job = await finalJob(seller, jobId);
      expect(job.state).to.equal('completed');
      const runs = (job.result as { runs: { handler_id: number; job_id: string }[] }).runs;
      expect(runs.map((r) => r.handler_id)).to.deep.equal([handler.id]);
      // The row's job id is the event id: a re-run of the part finds its run and queues none.
      expect(
        (await dispatchEvent(jobId, { accountId: seller.id, section: 'order', type: 'created', recordId: orders[jobIds.indexOf(jobId)]! }, new Date())).runs,
      ).to.deep.equal(runs);
    }
    const runRows = await db()('outbox').where({ account_id: seller.id, job_name: 'event.run' });
    expect(runRows).to.have.length(2);
  });

  it("when a customer is created, then the notification names customer_id and user_id with the JSON type and value the API's own GET answers give", async () => {
    const seller = await newSeller();
    const path = `/ok/customer-${seller.id}`;
    await createHandler(seller, {
      type: { id: 'created' },
      section: 'customer',
      action: { id: 'notification', required: { url: `${base}${path}`, format: 'post', target_name: 'crm' } },
    });
    await createOrder(seller, { customer: { email: `numbered-${seller.id}@example.com` } });
    await createOrder(seller, { customer: { id: `C-${seller.id}`, email: `named-${seller.id}@example.com` } });

    const deliveries = await waitFor(async () => {
      const found = received.filter((r) => r.path === path);
      return found.length >= 2 ? found : undefined;
    }, 'both customer notifications');
    const payloads = deliveries.map((d) => JSON.parse(d.body) as { customer_id: unknown; user_id: unknown });
    expect(payloads.map((p) => typeof p.customer_id).sort()).to.deep.equal(['number', 'string']);
    const user = await call('admin/user/', { token: seller.token });
    for (const payload of payloads) {
      const res = await call(`admin/customer/${encodeURIComponent(String(payload.customer_id))}/`, { token: seller.token });
      expect(res.status, res.text).to.equal(200);
      expect(payload.customer_id).to.equal((res.body.customer as { id: unknown }).id);
      expect(payload.user_id).to.equal((user.body.user as { id: unknown }).id);
    }
    const list = await call('admin/customer/', { token: seller.token });
    expect((list.body.customer as { id: unknown }[]).map((c) => c.id)).to.have.deep.members(payloads.map((p) => p.customer_id));
  });

  it('when a handler is deleted before its run, then the run is skipped', async () => {
    const seller = await newSeller();
    const handler = await createHandler(seller, notification(`${base}/ok/deleted-${seller.id}`));
    await call(`admin/event/handler/${handler.id}/`, { token: seller.token, method: 'DELETE' });
    const job = {
      id: crypto.randomUUID(),
      name: 'event.run',
      data: {
        accountId: seller.id,
        handlerId: handler.id,
        section: 'order',
        type: 'created',
        recordId: '1_2026_11',
        eventId: 'e1',
        occurredAt: new Date().toISOString(),
      },
    };
    const result = await eventProcessors['event.run']!(job as unknown as Job);
    expect(result).to.deep.equal({ handler_id: handler.id, skipped: 'handler deleted or inactive' });
    expect(received.find((r) => r.path === `/ok/deleted-${seller.id}`)).to.equal(undefined);
  });

  it('when private webhook hosts are not allowed at delivery, then the run fails for good without a request', async () => {
    const seller = await newSeller();
    const handler = await createHandler(seller, notification(`${base}/ok/private-${seller.id}`));
    const current = config();
    setConfig({ ...current, webhookAllowPrivateHosts: false });
    try {
      const job = {
        id: crypto.randomUUID(),
        name: 'event.run',
        data: {
          accountId: seller.id,
          handlerId: handler.id,
          section: 'order',
          type: 'created',
          recordId: '1_2026_11',
          eventId: 'e2',
          occurredAt: new Date().toISOString(),
        },
      };
      let error: Error | undefined;
      try {
        await eventProcessors['event.run']!(job as unknown as Job);
      } catch (e) {
        error = e as Error;
      }
      expect(error?.name).to.equal('UnrecoverableError');
      expect(error?.message).to.match(/not a public \(global unicast\) address/);
    } finally {
      setConfig(current);
    }
    expect(received.find((r) => r.path === `/ok/private-${seller.id}`)).to.equal(undefined);
  });
});
