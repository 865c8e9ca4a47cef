import crypto from 'node:crypto';
import { expect } from 'chai';
import { config } from '../../config';
import { createPortalAccount } from '../../lib/admin/portal-account-admin.service';
import { setAccountAddress } from '../../lib/account';
import { db } from '../../lib/db/knex';
import { inTransitMail } from '../../lib/order/send-mit.mail';
import { queues } from '../../lib/queue/queue.registry';
import { call, newSeller, Seller, tokenFor } from '../support/api';
import { CaughtMail, startMailCatcher, waitFor } from '../event/servers';
import { Sandbox, startSandbox } from '../fleet/support';
import { MailWorker, startMailWorker } from '../support/mail-worker';

/** The text of a caught mail: its body after the header, quoted-printable decoded (nodemailer's encoding of non-ASCII text). */
function mailText(raw: string): string {
  const body = raw.slice(raw.search(/\r?\n\r?\n/)).replace(/^\r?\n\r?\n/, '');
  if (!/^Content-Transfer-Encoding: quoted-printable\r?$/im.test(raw)) return body.replace(/\r\n/g, '\n');
  const bytes = body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8').replace(/\r\n/g, '\n');
}

describe('send_mit (POST order/{order_id}/send_mit/)', function () {
  this.timeout(60000);
  let mail: MailWorker;
  let portal: Sandbox;
  let catcher: { url: string; mails: CaughtMail[]; close(): Promise<void> };
  /** The sandbox eBay refuses this portal account's calls (eBay's 4xx). */
  const refuse = (portalAccountId: number) =>
    portal.state.faults.push({
      portal: 'auction_a',
      portalAccount: String(portalAccountId),
      status: 422,
      remaining: 100,
      message: 'order unknown at the portal',
    });
  /** The eBay calls of a portal account, by method and path. */
  const ebayCalls = (portalAccountId: number, method: string, path: string) =>
    portal.state.requests.filter((r) => r.portal === 'auction_a' && r.portalAccount === String(portalAccountId) && r.method === method && r.path === path);

  before(async () => {
    catcher = await startMailCatcher();
    mail = await startMailWorker(catcher.url);
    portal = await startSandbox();
  });

  after(async () => {
    await mail?.stop();
    await portal.close();
    await catcher.close();
  });

  // Every eBay call of send_mit kept eBay's published contracts (sandbox/ebay-contract.sandbox.ts).
  afterEach(async () => {
    expect(await (await fetch(`${portal.url}/_sandbox/violations?vendor=ebay`)).json()).to.deep.equal([]);
  });

  /**
   * A seller with an auction_a portal account served by the sandbox eBay, a sale there, and the
   * Kontor order of it (external_order_id: eBay's orderId, transaction_id: eBay's lineItemId).
   */
  async function auctionOrder(
    email: string,
    platform: string | null = 'auction_a',
    quantity = 1,
  ): Promise<{ seller: Seller; orderId: string; portalAccountId: number; ebayOrderId: string; lineItemId: string }> {
    const seller = await newSeller();
    const account = await createPortalAccount(seller.id, { name: 'auction shop', platform: 'auction_a' });
    await db()('portal_account').where({ account_id: seller.id, id: account.id }).update({ base_url: portal.url });
    const sale = await fetch(`${portal.url}/_sandbox/sell`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ portal: 'auction_a', portal_account: account.id, sku: 'CUP-1', quantity, price: '9.90', buyer: { username: 'cupfan', email } }),
    });
    const ebayOrderId = ((await sale.json()) as { order_id: string }).order_id;
    const lineItemId = portal.state.ebay.orders.get(ebayOrderId)!.order.lineItems![0]!.lineItemId!;
    const res = await call('order/', {
      token: seller.token,
      body: {
        portal_account_id: account.id,
        order: {
          ...(platform === null ? {} : { platform }),
          external_order_id: ebayOrderId,
          customer: { email },
          line: [{ id: 1, name: 'cup', quantity, price: '9.90', transaction_id: lineItemId }],
        },
      },
    });
    expect(res.status, res.text).to.equal(201);
    return { seller, orderId: res.body.order_id as string, portalAccountId: account.id, ebayOrderId, lineItemId };
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
    // Two cups in two parcels: each package carries one (eBay fulfils a line at most its quantity).
    const { seller, orderId, portalAccountId, ebayOrderId, lineItemId } = await auctionOrder(email, 'auction_a', 2);
    const res = await call(`order/${orderId}/send_mit/`, {
      token: seller.token,
      body: { send_mit: { deliverer: 'DHL', code: ['00340434161094042557', '00340434161094042558'], date: '2026-11-20', mail_text: 'Thank you!' } },
    });
    expect(res.status, res.text).to.equal(202);
    const job = await finished(seller, res.body.job_id as string);
    expect(job.state, String(job.error)).to.equal('completed');
    expect(job.result).to.deep.include({ order_id: orderId, platform_status: 'ok', is_shipped: true });
    expect(job.result).to.have.nested.property('rating.ok', true);

    // Fulfillment API createShippingFulfillment, one per tracking number, each with its share of the line item.
    const shipments = ebayCalls(portalAccountId, 'POST', `/sell/fulfillment/v1/order/${ebayOrderId}/shipping_fulfillment`);
    expect(shipments.map((s) => (s.body as { trackingNumber: string }).trackingNumber)).to.deep.equal(['00340434161094042557', '00340434161094042558']);
    const shipment = shipments[0]!.body as Record<string, unknown>;
    expect(shipment).to.deep.include({ shippingCarrierCode: 'DHL', lineItems: [{ lineItemId, quantity: 1 }] });
    expect((shipments[1]!.body as Record<string, unknown>).lineItems).to.deep.equal([{ lineItemId, quantity: 1 }]);
    // issue 30: the ship date was "now"; it is send_mit's date (eBay's UTC timestamp format).
    expect(shipment.shippedDate).to.equal('2026-11-20T00:00:00.000Z');
    expect(portal.state.ebay.orders.get(ebayOrderId)!.order.orderFulfillmentStatus).to.equal('FULFILLED');
    // Feedback API: the transaction awaiting feedback (getItemsAwaitingFeedback), then leaveFeedback, positive, for it.
    const feedback = ebayCalls(portalAccountId, 'POST', '/commerce/feedback/v1/feedback');
    expect(feedback.map((f) => f.status)).to.deep.equal([200]);
    const listingId = portal.state.ebay.orders.get(ebayOrderId)!.order.lineItems![0]!.legacyItemId!;
    const { transactionId } = feedback[0]!.body as { transactionId: string };
    expect(feedback[0]!.body).to.deep.include({ listingId, orderLineItemId: `${listingId}-${transactionId}`, commentType: 'POSITIVE' });
    expect(transactionId).to.not.equal(lineItemId);

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
    // A seller who set no locale: its invoices' de-DE, so the mail is German, as they are.
    expect(mail.raw).to.match(new RegExp(`^Subject: Ihre Bestellung ${orderId} ist unterwegs\r?$`, 'm'));
    const text = mailText(mail.raw);
    expect(text).to.contain(`Ihre Bestellung ${orderId} wurde am 20. November 2026 mit DHL versandt.`);
    expect(text).to.contain('Sendungsnummern: 00340434161094042557, 00340434161094042558');
    expect(text).to.match(/dhl\.de/);
    expect(text).to.contain('Thank you!');
    // A seller without an address name: signed without one, sent as MAIL_FROM names the sender.
    expect(text).to.match(/Viele Grüße\n$/);
    expect(mail.raw).to.match(new RegExp(`^From: ${config().mailFrom.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\r?$`, 'm'));
    // A seller who gave no e-mail: no Reply-To; the buyer's reply goes to the sender, as before.
    expect(mail.raw).not.to.match(/^Reply-To:/im);
  });

  it("when the seller's locale is English and its address names the company, then the mail is English, signed and sent in the company's name from the service's address", async () => {
    const email = `buyer-${crypto.randomBytes(3).toString('hex')}@example.com`;
    const { seller, orderId } = await auctionOrder(email, null);
    await setAccountAddress(seller.id, { name: 'Berg Handel GmbH', city: 'Berlin', country_iso2: 'DE' });
    const locale = await call('admin/user/', { token: seller.token, body: { user: { settings: { invoice: { locale: 'en-GB' } } } } });
    expect(locale.status, locale.text).to.equal(200);
    const res = await call(`order/${orderId}/send_mit/`, {
      token: seller.token,
      body: { send_mit: { deliverer: 'DHL', code: ['00340434161094042557'], date: '2026-11-20' } },
    });
    expect(res.status, res.text).to.equal(202);
    expect((await finished(seller, res.body.job_id as string)).state).to.equal('completed');
    const mail = await waitFor(async () => catcher.mails.find((m) => m.to === email), 'the in-transit mail');
    expect(mail.raw).to.match(new RegExp(`^Subject: Your order ${orderId} is on its way\r?$`, 'm'));
    const text = mailText(mail.raw);
    expect(text).to.contain(`your order ${orderId} was shipped on 20 November 2026 with DHL.`);
    expect(text).to.contain('Tracking code: 00340434161094042557');
    expect(text).to.match(/Kind regards\nBerg Handel GmbH\n$/);
    const address = /<([^>]+)>/.exec(config().mailFrom)?.[1] ?? config().mailFrom;
    expect(mail.raw).to.match(new RegExp(`^From: "?Berg Handel GmbH"? <${address.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}>\r?$`, 'm'));
  });

  it('when send_mit is posted for a multi-line auction_a order, then one fulfilment names every line with eBay’s carrier code, and every line is rated', async () => {
    const email = `buyer-${crypto.randomBytes(3).toString('hex')}@example.com`;
    const seller = await newSeller();
    const account = await createPortalAccount(seller.id, { name: 'auction shop', platform: 'auction_a' });
    await db()('portal_account').where({ account_id: seller.id, id: account.id }).update({ base_url: portal.url });
    const sale = await fetch(`${portal.url}/_sandbox/ebay/orders`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        portal_account: account.id,
        lines: [
          { sku: 'CUP-1', quantity: 2, price: '9.90' },
          { sku: 'POT-1', quantity: 1, price: '19.90' },
        ],
        buyer: { email },
      }),
    });
    const ebayOrderId = ((await sale.json()) as { order_id: string }).order_id;
    const [cup, pot] = portal.state.ebay.orders.get(ebayOrderId)!.order.lineItems!.map((l) => l.lineItemId!);
    const created = await call('order/', {
      token: seller.token,
      body: {
        portal_account_id: account.id,
        order: {
          platform: 'auction_a',
          external_order_id: ebayOrderId,
          customer: { email },
          line: [
            { id: 1, name: 'cup', quantity: 2, price: '9.90', transaction_id: cup },
            { id: 2, name: 'pot', quantity: 1, price: '19.90', transaction_id: pot },
          ],
        },
      },
    });
    expect(created.status, created.text).to.equal(201);
    const orderId = created.body.order_id as string;
    const res = await call(`order/${orderId}/send_mit/`, {
      token: seller.token,
      body: { send_mit: { deliverer: 'Hermes', code: ['H0012-3456'], date: '2026-11-21' } },
    });
    expect(res.status, res.text).to.equal(202);
    const job = await finished(seller, res.body.job_id as string);
    expect(job.result).to.deep.include({ platform_status: 'ok', is_shipped: true });
    const shipments = ebayCalls(account.id, 'POST', `/sell/fulfillment/v1/order/${ebayOrderId}/shipping_fulfillment`);
    expect(shipments.map((s) => s.body)).to.deep.equal([
      {
        lineItems: [
          { lineItemId: cup, quantity: 2 },
          { lineItemId: pot, quantity: 1 },
        ],
        shippedDate: '2026-11-21T00:00:00.000Z',
        shippingCarrierCode: 'Hermes',
        trackingNumber: 'H00123456',
      },
    ]);
    expect(portal.state.ebay.orders.get(ebayOrderId)!.order.orderFulfillmentStatus).to.equal('FULFILLED');
    // One feedback per line item, each for its own listing's transaction.
    const feedback = ebayCalls(account.id, 'POST', '/commerce/feedback/v1/feedback');
    const listingOf = (lineItemId: string) =>
      portal.state.ebay.orders.get(ebayOrderId)!.order.lineItems!.find((l) => l.lineItemId === lineItemId)!.legacyItemId;
    expect(feedback.map((f) => [f.status, (f.body as { listingId: string }).listingId])).to.deep.equal([
      [200, listingOf(cup!)],
      [200, listingOf(pot!)],
    ]);
  });

  it('when the portal answers an error, then platform_status is error, the order is still shipped, and the mail follows the request', async () => {
    const email = `buyer-${crypto.randomBytes(3).toString('hex')}@example.com`;
    const { seller, orderId, portalAccountId } = await auctionOrder(email);
    refuse(portalAccountId);
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
    // The history says why, for a seller reading the order after the job is gone.
    const history = (await call(`order/${orderId}/history/`, { token: seller.token })).body.history as string[];
    expect(history.find((h) => h.startsWith('send_mit'))).to.match(/; portal report: error \(.*order unknown at the portal.*\)$/);
    expect(ebayCalls(portalAccountId, 'POST', '/commerce/feedback/v1/feedback')).to.have.length(0);
    await waitFor(async () => catcher.mails.find((m) => m.to === email), 'the in-transit mail');

    const quietEmail = `quiet-${crypto.randomBytes(3).toString('hex')}@example.com`;
    const quiet = await auctionOrder(quietEmail);
    refuse(quiet.portalAccountId);
    const noMail = await call(`order/${quiet.orderId}/send_mit/`, { token: quiet.seller.token, body: { send_mit: { is_mail: false } } });
    const quietJob = await finished(quiet.seller, noMail.body.job_id as string);
    expect(quietJob.result).to.deep.include({ platform_status: 'error', mail: { sent: false } });
    expect(catcher.mails.find((m) => m.to === quietEmail)).to.equal(undefined);
  });

  it('when the portal is busy at first, then the job retries and the order gets one history entry and one mail', async () => {
    const email = `buyer-${crypto.randomBytes(3).toString('hex')}@example.com`;
    const { seller, orderId, portalAccountId, ebayOrderId } = await auctionOrder(email);
    portal.state.faults.push({ portal: 'auction_a', portalAccount: String(portalAccountId), status: 503, remaining: 1, message: 'busy' });
    const res = await call(`order/${orderId}/send_mit/`, { token: seller.token, body: { send_mit: { deliverer: 'GLS', code: 'GLS123' } } });
    const job = await finished(seller, res.body.job_id as string);
    expect(job.state).to.equal('completed');
    expect(job.result).to.deep.include({ platform_status: 'ok' });
    // getOrder answered 503 first; the retry read it (and the rating read it again).
    expect(ebayCalls(portalAccountId, 'GET', `/sell/fulfillment/v1/order/${ebayOrderId}`).map((r) => r.status)).to.deep.equal([503, 200, 200]);
    expect(portal.state.ebay.orders.get(ebayOrderId)!.fulfillments.map((f) => f.shipmentTrackingNumber)).to.deep.equal(['GLS123']);
    const order = (await call(`order/${orderId}/`, { token: seller.token })).body.order as { history: string[] };
    expect(order.history.filter((h) => h.startsWith('send_mit'))).to.have.length(1);
    await waitFor(async () => catcher.mails.find((m) => m.to === email), 'the in-transit mail');
    expect(catcher.mails.filter((m) => m.to === email)).to.have.length(1);
  });

  it('when the order has no portal platform, then it is shipped without a portal report and the mail goes out, answered to the seller', async () => {
    const email = `buyer-${crypto.randomBytes(3).toString('hex')}@example.com`;
    const { seller, orderId, portalAccountId } = await auctionOrder(email, null); // an order of no portal (entered by phone) names none
    // The contact invoices state (settings.invoice.email): the buyer's reply reaches the seller, not the no-reply sender.
    const contact = await call('admin/user/', { token: seller.token, body: { user: { settings: { invoice: { email: 'orders@cup-shop.example' } } } } });
    expect(contact.status, contact.text).to.equal(200);
    const res = await call(`order/${orderId}/send_mit/`, { token: seller.token, body: {} });
    expect(res.status, res.text).to.equal(202);
    const job = await finished(seller, res.body.job_id as string);
    expect(job.result).to.deep.include({ platform_status: null, is_shipped: true });
    expect(portal.state.requests.filter((r) => r.portalAccount === String(portalAccountId))).to.have.length(0);
    const mail = await waitFor(async () => catcher.mails.find((m) => m.to === email), 'the in-transit mail');
    expect(mail.raw).to.match(/^Reply-To: orders@cup-shop\.example\r?$/im);
  });

  it('when send_mit is bad, foreign or unauthorised, then 400, 404 or 403 and no job', async () => {
    const { seller, orderId } = await auctionOrder('b@example.com');
    const other = await newSeller();
    const bad = await call(`order/${orderId}/send_mit/`, { token: seller.token, body: { send_mit: { date: '20.11.2026' } } });
    expect(bad.status).to.equal(400);
    expect(bad.body.error![0]!.field).to.equal('send_mit.date');
    // A day that does not exist would have been written into shipping.date, which Order_type refuses.
    for (const date of ['2026-02-30', '']) {
      const none = await call(`order/${orderId}/send_mit/`, { token: seller.token, body: { send_mit: { date } } });
      expect(none.status, date).to.equal(400);
      expect(none.body.error![0]!.field).to.equal('send_mit.date');
    }
    const badCode = await call(`order/${orderId}/send_mit/`, { token: seller.token, body: { send_mit: { code: ['a b'] } } });
    expect(badCode.body.error![0]!.field).to.equal('send_mit.code[0]');
    expect((await call(`order/${orderId}/send_mit/`, { token: other.token, body: {} })).status).to.equal(404);
    expect((await call('order/999999_2026_11/send_mit/', { token: seller.token, body: {} })).status).to.equal(404);
    const readOnly = await tokenFor(seller.login, seller.password, 'order_r');
    expect((await call(`order/${orderId}/send_mit/`, { token: readOnly, body: {} })).status).to.equal(403);
    const rows = await db()('outbox').where({ account_id: seller.id, job_name: 'order.send_mit' });
    expect(rows).to.have.length(0);
  });

  it('when the order is cancelled, then send_mit is a 400 status_conflict naming order_id and no job; cancelled after the request, the job fails for good before the portal hears of a shipment', async () => {
    const { seller, orderId, portalAccountId, ebayOrderId } = await auctionOrder('c@example.com');
    const cancel = async (is_cancelled: boolean) =>
      expect((await call(`order/${orderId}/`, { token: seller.token, body: { order: { status: { is_cancelled } } } })).status).to.equal(200);
    await cancel(true);
    const refused = await call(`order/${orderId}/send_mit/`, { token: seller.token, body: {} });
    expect(refused.status, refused.text).to.equal(400);
    expect(refused.body.error![0]).to.deep.include({ error: 'status_conflict', field: 'order_id' });
    expect(await db()('outbox').where({ account_id: seller.id, job_name: 'order.send_mit' })).to.have.length(0);

    // Taken while the order was open, run after the seller cancelled it.
    await cancel(false);
    await mail.worker.pause();
    const res = await call(`order/${orderId}/send_mit/`, { token: seller.token, body: { send_mit: { code: ['00340434161094042557'] } } });
    expect(res.status, res.text).to.equal(202);
    await cancel(true);
    mail.worker.resume();
    const job = await finished(seller, res.body.job_id as string);
    expect(job.state).to.equal('failed');
    expect(String(job.error)).to.match(/a cancelled order cannot be shipped/);
    expect(ebayCalls(portalAccountId, 'POST', `/sell/fulfillment/v1/order/${ebayOrderId}/shipping_fulfillment`)).to.have.length(0);
    const order = (await call(`order/${orderId}/`, { token: seller.token })).body.order as { status: Record<string, unknown> };
    expect(order.status).to.deep.include({ is_cancelled: true, is_shipped: false });
  });

  it('when Redis loses a send_mit job whose steps were done before its final state was kept, then the job added again from its outbox row repeats none of them', async () => {
    const email = `buyer-${crypto.randomBytes(3).toString('hex')}@example.com`;
    const { seller, orderId, portalAccountId, ebayOrderId } = await auctionOrder(email);
    const res = await call(`order/${orderId}/send_mit/`, { token: seller.token, body: { send_mit: { deliverer: 'DHL', code: '00340434161094042557' } } });
    const jobId = res.body.job_id as string;
    expect((await finished(seller, jobId)).state).to.equal('completed');
    await waitFor(async () => catcher.mails.find((m) => m.to === email), 'the in-transit mail');
    // The fault: Redis dropped the job (a restart without persistence) before its final state reached Postgres.
    await queues().get('mail').remove(jobId);
    await db()('outbox').where({ job_id: jobId }).update({ state: null, result: null, finished_at: null });
    expect(await mail.relay.repair(1000, 0)).to.be.at.least(1);
    const again = await finished(seller, jobId);
    expect(again.result).to.deep.include({ order_id: orderId, platform_status: 'ok', is_shipped: true });
    expect(ebayCalls(portalAccountId, 'POST', '/commerce/feedback/v1/feedback')).to.have.length(1);
    expect(ebayCalls(portalAccountId, 'POST', `/sell/fulfillment/v1/order/${ebayOrderId}/shipping_fulfillment`)).to.have.length(1);
    expect(catcher.mails.filter((m) => m.to === email)).to.have.length(1);
  });
});

describe('the in-transit mail text', () => {
  it("when the seller's locale is neither German nor English, or no locale at all, then the mail is English with the date as English writes it", () => {
    for (const locale of ['fr-FR', 'not a locale']) {
      const mail = inTransitMail({ id: '1_2026_11' }, 'DHL', ['1'], '2026-11-20', '', { locale, name: '' });
      expect(mail.subject, locale).to.equal('Your order 1_2026_11 is on its way');
      expect(mail.text, locale).to.contain('your order 1_2026_11 was shipped on 20 November 2026 with DHL.');
      expect(mail.text, locale).to.match(/Kind regards\n$/);
    }
  });
});
