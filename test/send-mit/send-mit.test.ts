import crypto from 'node:crypto';
import type { Worker } from 'bullmq';
import { expect } from 'chai';
import { Config, config, setConfig } from '../../config';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { db } from '../../lib/db/knex';
import { closeMailer } from '../../lib/mail/mailer';
import { sendMitProcessors } from '../../lib/order/send-mit.processor';
import { closeQueues, queues } from '../../lib/queue/queue.registry';
import { OutboxRelay } from '../../lib/queue/relay';
import { startWorker } from '../../lib/queue/worker';
import { call, newSeller, Seller, tokenFor } from '../support/api';
import { CaughtMail, Receiver, startMailCatcher, startReceiver, waitFor } from '../event/servers';

describe('send_mit (POST order/{order_id}/send_mit/)', function () {
  this.timeout(60000);
  let original: Config;
  let worker: Worker;
  let relay: OutboxRelay;
  let portal: Receiver;
  let catcher: { url: string; mails: CaughtMail[]; close(): Promise<void> };
  /** Portal accounts whose shipments the fake portal refuses. */
  const refusing = new Set<string>();
  /** Portal accounts whose first shipment call answers 503. */
  const flaky = new Set<string>();

  before(async () => {
    original = config();
    await closeQueues();
    portal = await startReceiver((r) => {
      const account = String(r.headers['x-portal-account']);
      if (r.path.endsWith('/shipment') && refusing.has(account)) return { status: 422, body: { message: 'order unknown at the portal' } };
      if (r.path.endsWith('/shipment') && flaky.delete(account)) return { status: 503, body: { message: 'busy' } };
      return { status: 200, body: {} };
    });
    catcher = await startMailCatcher();
    setConfig({ ...original, queuePrefix: `test-admin-mit-${crypto.randomBytes(4).toString('hex')}`, jobBackoffMs: 50, jobAttempts: 3, smtpUrl: catcher.url });
    relay = new OutboxRelay({ pollMs: 100, repairEveryMs: 0 });
    await relay.start();
    worker = await startWorker('mail', sendMitProcessors, { skipEvictionCheck: true, registerShutdown: false });
  });

  after(async () => {
    await worker?.close();
    await relay?.stop();
    await closeQueues();
    closeMailer();
    setConfig(original);
    await portal.close();
    await catcher.close();
  });

  /** A seller with an auction_a portal account served by the fake portal, and an order of that platform. */
  async function auctionOrder(email: string, platform = 'auction_a'): Promise<{ seller: Seller; orderId: string; portalAccountId: number }> {
    const seller = await newSeller();
    const account = await createPortalAccount(seller.id, { name: 'auction shop', platform: 'auction_a' });
    await db()('portal_account').where({ account_id: seller.id, id: account.id }).update({ base_url: portal.base });
    const res = await call('order/', {
      token: seller.token,
      body: {
        portal_account_id: account.id,
        order: { platform, customer: { email }, line: [{ id: 1, name: 'cup', quantity: 1, price: '9.90', transaction_id: 'T-1' }] },
      },
    });
    expect(res.status, res.text).to.equal(201);
    return { seller, orderId: res.body.order_id as string, portalAccountId: account.id };
  }

  async function finished(seller: Seller, jobId: string): Promise<Record<string, unknown>> {
    return waitFor(async () => {
      const job = (await call(`job/${jobId}/`, { token: seller.token })).body.job as Record<string, unknown> | undefined;
      // finished_date too: a status read in the instant a job completes can lack its result.
      return job && (job.state === 'completed' || job.state === 'failed') && job.finished_date ? job : undefined;
    }, `job ${jobId}`);
  }

  it('when send_mit is posted for an auction_a order, then the portal is told, the order is shipped, the buyer rated and the in-transit mail sent', async () => {
    const email = `buyer-${crypto.randomBytes(3).toString('hex')}@example.com`;
    const { seller, orderId, portalAccountId } = await auctionOrder(email);
    const res = await call(`order/${orderId}/send_mit/`, {
      token: seller.token,
      body: { send_mit: { deliverer: 'DHL', code: ['00340434161094042557', '00340434161094042558'], date: '2026-11-20', mail_text: 'Thank you!' } },
    });
    expect(res.status, res.text).to.equal(202);
    const job = await finished(seller, res.body.job_id as string);
    expect(job.state, String(job.error)).to.equal('completed');
    expect(job.result).to.deep.include({ order_id: orderId, platform_status: 'ok', is_shipped: true });
    expect(job.result).to.have.nested.property('rating.ok', true);

    const shipments = portal.received.filter(
      (r) => r.path === `/auction_a/orders/${orderId}/shipment` && r.headers['x-portal-account'] === String(portalAccountId),
    );
    expect(shipments.map((s) => JSON.parse(s.body).tracking_code)).to.deep.equal(['00340434161094042557', '00340434161094042558']);
    expect(JSON.parse(shipments[0]!.body)).to.deep.include({ carrier: 'DHL', transaction_id: 'T-1' });
    expect(shipments[0]!.headers['idempotency-key']).to.be.a('string');
    expect(
      portal.received.filter((r) => r.path === `/auction_a/orders/${orderId}/rating` && r.headers['x-portal-account'] === String(portalAccountId)),
    ).to.have.length(1);

    const order = (await call(`order/${orderId}/`, { token: seller.token })).body.order as {
      status: Record<string, unknown>;
      shipping: Record<string, unknown>;
      history: string[];
    };
    expect(order.status.is_shipped).to.equal(true);
    expect(order.status.shipped_date).to.be.a('string');
    expect(order.shipping).to.deep.include({ deliverer: 'DHL', platform_status: 'ok', date: '2026-11-20' });
    expect(order.shipping.link).to.have.length(2);
    expect(order.history.at(-1)).to.match(/^send_mit 2026-11-20: shipped with DHL/);

    const mail = await waitFor(async () => catcher.mails.find((m) => m.to === email), 'the in-transit mail');
    expect(mail.raw).to.match(new RegExp(`Subject: Your order ${orderId} is on its way`));
    expect(mail.raw).to.contain('00340434161094042557');
    expect(mail.raw).to.match(/dhl\.de/);
    expect(mail.raw).to.contain('Thank you!');
  });

  it('when the portal answers an error, then platform_status is error, the order is still shipped, and the mail follows the request', async () => {
    const email = `buyer-${crypto.randomBytes(3).toString('hex')}@example.com`;
    const { seller, orderId, portalAccountId } = await auctionOrder(email);
    refusing.add(String(portalAccountId));
    const res = await call(`order/${orderId}/send_mit/`, { token: seller.token, body: { send_mit: { deliverer: 'UPS', code: '1Z999AA10123456784' } } });
    expect(res.status).to.equal(202);
    const job = await finished(seller, res.body.job_id as string);
    expect(job.state, JSON.stringify(job)).to.equal('completed');
    expect(job.result, JSON.stringify(job)).to.deep.include({ platform_status: 'error', is_shipped: true });
    expect(job.result).to.not.have.nested.property('rating.ok', true);
    const order = (await call(`order/${orderId}/`, { token: seller.token })).body.order as {
      status: Record<string, unknown>;
      shipping: Record<string, unknown>;
    };
    expect(order.shipping.platform_status).to.equal('error');
    expect(order.status.is_shipped).to.equal(true);
    expect(
      portal.received.filter((r) => r.path === `/auction_a/orders/${orderId}/rating` && r.headers['x-portal-account'] === String(portalAccountId)),
    ).to.have.length(0);
    await waitFor(async () => catcher.mails.find((m) => m.to === email), 'the in-transit mail');

    const quietEmail = `quiet-${crypto.randomBytes(3).toString('hex')}@example.com`;
    const quiet = await auctionOrder(quietEmail);
    refusing.add(String(quiet.portalAccountId));
    const noMail = await call(`order/${quiet.orderId}/send_mit/`, { token: quiet.seller.token, body: { send_mit: { is_mail: false } } });
    const quietJob = await finished(quiet.seller, noMail.body.job_id as string);
    expect(quietJob.result).to.deep.include({ platform_status: 'error', mail: { sent: false } });
    expect(catcher.mails.find((m) => m.to === quietEmail)).to.equal(undefined);
  });

  it('when the portal is busy at first, then the job retries and the order gets one history entry and one mail', async () => {
    const email = `buyer-${crypto.randomBytes(3).toString('hex')}@example.com`;
    const { seller, orderId, portalAccountId } = await auctionOrder(email);
    flaky.add(String(portalAccountId));
    const res = await call(`order/${orderId}/send_mit/`, { token: seller.token, body: { send_mit: { deliverer: 'GLS', code: 'GLS123' } } });
    const job = await finished(seller, res.body.job_id as string);
    expect(job.state).to.equal('completed');
    expect(job.result).to.deep.include({ platform_status: 'ok' });
    const shipments = portal.received.filter((r) => r.path.endsWith('/shipment') && r.headers['x-portal-account'] === String(portalAccountId));
    expect(shipments).to.have.length(2);
    expect(shipments[0]!.headers['idempotency-key']).to.equal(shipments[1]!.headers['idempotency-key']);
    const order = (await call(`order/${orderId}/`, { token: seller.token })).body.order as { history: string[] };
    expect(order.history.filter((h) => h.startsWith('send_mit'))).to.have.length(1);
    await waitFor(async () => catcher.mails.find((m) => m.to === email), 'the in-transit mail');
    expect(catcher.mails.filter((m) => m.to === email)).to.have.length(1);
  });

  it('when the order has no portal platform, then it is shipped without a portal report and the mail goes out', async () => {
    const email = `buyer-${crypto.randomBytes(3).toString('hex')}@example.com`;
    const { seller, orderId, portalAccountId } = await auctionOrder(email, 'phone');
    const res = await call(`order/${orderId}/send_mit/`, { token: seller.token, body: {} });
    expect(res.status, res.text).to.equal(202);
    const job = await finished(seller, res.body.job_id as string);
    expect(job.result).to.deep.include({ platform_status: null, is_shipped: true });
    expect(portal.received.filter((r) => r.headers['x-portal-account'] === String(portalAccountId))).to.have.length(0);
    await waitFor(async () => catcher.mails.find((m) => m.to === email), 'the in-transit mail');
  });

  it('when send_mit is bad, foreign or unauthorised, then 400, 404 or 403 and no job', async () => {
    const { seller, orderId } = await auctionOrder('b@example.com');
    const other = await newSeller();
    const bad = await call(`order/${orderId}/send_mit/`, { token: seller.token, body: { send_mit: { date: '20.11.2026' } } });
    expect(bad.status).to.equal(400);
    expect(bad.body.error![0]!.field).to.equal('send_mit.date');
    const badCode = await call(`order/${orderId}/send_mit/`, { token: seller.token, body: { send_mit: { code: ['a b'] } } });
    expect(badCode.body.error![0]!.field).to.equal('send_mit.code[0]');
    expect((await call(`order/${orderId}/send_mit/`, { token: other.token, body: {} })).status).to.equal(404);
    expect((await call('order/999999_2026_11/send_mit/', { token: seller.token, body: {} })).status).to.equal(404);
    const readOnly = await tokenFor(seller.login, seller.password, 'order_r');
    expect((await call(`order/${orderId}/send_mit/`, { token: readOnly, body: {} })).status).to.equal(403);
    const rows = await db()('outbox').where({ account_id: seller.id, job_name: 'order.send_mit' });
    expect(rows).to.have.length(0);
  });

  it('when Redis loses a send_mit job whose steps were done before its final state was kept, then the job added again from its outbox row repeats none of them', async () => {
    const email = `buyer-${crypto.randomBytes(3).toString('hex')}@example.com`;
    const { seller, orderId, portalAccountId } = await auctionOrder(email);
    const res = await call(`order/${orderId}/send_mit/`, { token: seller.token, body: { send_mit: { deliverer: 'DHL', code: '00340434161094042557' } } });
    const jobId = res.body.job_id as string;
    expect((await finished(seller, jobId)).state).to.equal('completed');
    await waitFor(async () => catcher.mails.find((m) => m.to === email), 'the in-transit mail');
    // The fault: Redis dropped the job (a restart without persistence) before its final state reached Postgres.
    await queues().get('mail').remove(jobId);
    await db()('outbox').where({ job_id: jobId }).update({ state: null, result: null, finished_at: null });
    expect(await relay.repair(1000, 0)).to.be.at.least(1);
    const again = await finished(seller, jobId);
    expect(again.result).to.deep.include({ order_id: orderId, platform_status: 'ok', is_shipped: true });
    expect(
      portal.received.filter((r) => r.path === `/auction_a/orders/${orderId}/rating` && r.headers['x-portal-account'] === String(portalAccountId)),
    ).to.have.length(1);
    expect(
      portal.received.filter((r) => r.path === `/auction_a/orders/${orderId}/shipment` && r.headers['x-portal-account'] === String(portalAccountId)),
    ).to.have.length(1);
    expect(catcher.mails.filter((m) => m.to === email)).to.have.length(1);
  });
});
