/**
 * Issue 31, must deliver 4 (findings 4 and 6): one seller's slow webhooks cannot hold the shared
 * events workers, handlers per account are capped, and the mail action is no open relay.
 */
import crypto from 'node:crypto';
import type { Job } from 'bullmq';
import { expect } from 'chai';
import { Config, config, setConfig } from '../../config';
import { db } from '../../lib/db/knex';
import { eventProcessors } from '../../lib/event/event.processor';
import { closeMailer } from '../../lib/mail/mailer';
import { closeQueues } from '../../lib/queue/queue.registry';
import { call, newSeller, Seller } from '../support/api';
import { EventsWorker, startEventsWorker } from '../event/events-worker';
import { Receiver, startMailCatcher, startReceiver, waitFor } from '../event/servers';

const notification = (url: string) => ({
  event_handler: { type: { id: 'created' }, section: 'order', action: { id: 'notification', required: { url, format: 'post', target_name: 'erp' } } },
});
const mailTo = (to: string, section = 'order', type = 'created') => ({
  event_handler: {
    type: { id: type },
    section,
    action: { id: 'mail', required: { to, subject: 'Order {id}', template: '{customer.email} paid {invoice_amount}' } },
  },
});

async function create(seller: Seller, body: object) {
  return call('admin/event/handler/', { token: seller.token, body });
}

async function createOrder(seller: Seller, email = 'buyer@example.com'): Promise<string> {
  const res = await call('order/', { token: seller.token, body: { order: { customer: { email } } } });
  expect(res.status, res.text).to.equal(201);
  return res.body.order_id as string;
}

/** Attempts logged (finished) over the handlers' deliveries. */
async function finishedAttempts(seller: Seller, ids: number[]): Promise<number> {
  let n = 0;
  for (const id of ids) {
    const res = await call(`admin/event/handler/${id}/delivery/`, { token: seller.token });
    for (const d of res.body.delivery as { attempt: unknown[] }[]) n += d.attempt.length;
  }
  return n;
}

describe('fairness between sellers (issue 31)', function () {
  this.timeout(60000);
  let original: Config;
  let events: EventsWorker;
  let slow: Receiver;
  let fast: Receiver;

  before(async () => {
    original = config();
    await closeQueues();
    // A receiver that never answers within the timeout, and one that answers at once.
    slow = await startReceiver(() => ({ status: 200, delayMs: 20000 }));
    fast = await startReceiver(() => ({ status: 204 }));
    setConfig({
      ...original,
      queuePrefix: `test-fair-${crypto.randomBytes(4).toString('hex')}`,
      webhookTimeoutMs: 6000,
      webhookSweepMs: 200,
      webhookRetryBaseMs: 60000,
      workerConcurrency: 4,
      webhookConcurrencyPerAccount: 2,
    });
    events = await startEventsWorker();
  });

  after(async () => {
    await events?.stop();
    await closeQueues();
    closeMailer();
    setConfig(original);
    await slow.close();
    await fast.close();
  });

  it("when one seller's 8 handlers hang, then another seller's webhook is delivered while they still hang, and at most 2 of them are in flight", async () => {
    const busy = await newSeller();
    const slowIds: number[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await create(busy, notification(`${slow.base}/slow/${i}`));
      expect(res.status, res.text).to.equal(201);
      slowIds.push(res.body.event_handler_id as number);
    }
    await createOrder(busy);
    await waitFor(async () => slow.received.length >= 2, 'the slow receiver hanging');

    const other = await newSeller();
    const res = await create(other, notification(`${fast.base}/fast`));
    expect(res.status, res.text).to.equal(201);
    const otherId = res.body.event_handler_id as number;
    await createOrder(other);
    await waitFor(async () => {
      const log = await call(`admin/event/handler/${otherId}/delivery/`, { token: other.token });
      return (log.body.delivery as { state: string }[])[0]?.state === 'delivered';
    }, "the other seller's delivery");

    // Delivered while every slow attempt still hangs: none has finished (timed out) yet.
    expect(await finishedAttempts(busy, slowIds)).to.equal(0);
    expect(slow.received.length).to.be.at.most(2);
    expect(fast.received).to.have.length(1);
  });

  it('when an account has EVENT_HANDLERS_PER_ACCOUNT handlers, then one more is a 400 naming event_handler', async () => {
    setConfig({ ...config(), eventHandlersPerAccount: 3 });
    try {
      const seller = await newSeller();
      for (let i = 0; i < 3; i++) expect((await create(seller, notification(`https://hooks.example.com/${i}`))).status).to.equal(201);
      const fourth = await create(seller, notification('https://hooks.example.com/4'));
      expect(fourth.status).to.equal(400);
      expect(fourth.body.error![0]!.field).to.equal('event_handler');
      expect((await call('admin/event/handler/', { token: seller.token })).body.event_handler).to.have.length(3);
    } finally {
      setConfig({ ...config(), eventHandlersPerAccount: original.eventHandlersPerAccount });
    }
  });
});

describe('the mail action is no open relay (issue 31)', () => {
  let original: Config;
  let smtp: Awaited<ReturnType<typeof startMailCatcher>>;
  before(async () => {
    original = config();
    smtp = await startMailCatcher();
    setConfig({ ...original, smtpUrl: smtp.url });
  });
  after(async () => {
    closeMailer();
    setConfig(original);
    await smtp.close();
  });

  it('when a mail handler names an outside address, or a field that is not the buyer, then 400 names event_handler.action.required.to', async () => {
    const seller = await newSeller();
    for (const body of [mailTo('someone@outside.example'), mailTo('{customer.address.name}'), mailTo('{email}'), mailTo('ops@shop.example', 'stock', 'cia')]) {
      const res = await create(seller, body);
      expect(res.status, res.text).to.equal(400);
      expect(res.body.error![0]!.field).to.equal('event_handler.action.required.to');
    }
    expect((await call('admin/event/handler/', { token: seller.token })).body.event_handler).to.deep.equal([]);
  });

  it("when a mail handler names the record's buyer or the account's own address, then it is created", async () => {
    const seller = await newSeller();
    await db()('account').where({ id: seller.id }).update({ email: 'Owner@Shop.example' });
    expect((await create(seller, mailTo('{customer.email}'))).status).to.equal(201);
    expect((await create(seller, mailTo('{email}', 'customer'))).status).to.equal(201);
    expect((await create(seller, mailTo('owner@shop.example'))).status).to.equal(201);
  });

  it("when the account's address changed after the handler was made, then the run refuses to send and no mail leaves", async () => {
    const seller = await newSeller();
    await db()('account').where({ id: seller.id }).update({ email: 'owner@shop.example' });
    const res = await create(seller, mailTo('owner@shop.example'));
    expect(res.status, res.text).to.equal(201);
    await db()('account').where({ id: seller.id }).update({ email: 'new-owner@shop.example' });
    const orderId = await createOrder(seller);
    const job = {
      id: crypto.randomUUID(),
      name: 'event.run',
      data: {
        accountId: seller.id,
        handlerId: res.body.event_handler_id,
        section: 'order',
        type: 'created',
        recordId: orderId,
        eventId: 'e-relay',
        occurredAt: new Date().toISOString(),
      },
    };
    const error = await eventProcessors['event.run']!(job as unknown as Job).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error?.name).to.equal('UnrecoverableError');
    expect(error?.message).to.contain('nothing was sent');
    expect(smtp.mails.filter((m) => m.to.includes('owner@shop.example'))).to.deep.equal([]);
  });
});
