import { expect } from 'chai';
import { allOrdersOf } from '../../lib/access/caller';
import { db } from '../../lib/db/knex';
import { payOrdersIn } from '../../lib/order/order-payment.service';
import { waitFor } from '../event/servers';
import { fixture } from '../bank/fixtures';
import { startBankWorker } from '../bank/bank-worker';
import { call, newSeller, plainGet, query, Seller, withConcurrentCalls } from '../support/api';
import { untilOneWaitsForALock } from '../support/lock-wait';
import { createOrder, OrderView, readOrder } from './helpers';

/**
 * Conditional updates (lib/order/README.md): a client's write of an order is based on what it read;
 * with the read's ETag as If-Match it applies only while the order still holds that state, so a
 * payment the bank booked meanwhile is never replaced by the paid_amount the client read.
 */
describe('order: conditional updates (If-Match) against payments booked meanwhile', () => {
  let seller: Seller;
  beforeEach(async () => {
    seller = await newSeller();
  });

  const order = (price: string) =>
    createOrder(seller, { customer: { email: 'buyer@example.com', address: { name: 'Zoë Brandstätter' } }, line: [{ id: 1, price, quantity: 1 }] });

  /** The order and the ETag of its read. */
  async function read(orderId: string, params = ''): Promise<{ order: OrderView; tag: string }> {
    const res = await call(`order/${orderId}/${params}`, { token: seller.token });
    expect(res.status, res.text).to.equal(200);
    const tag = res.headers.get('etag');
    expect(tag).to.match(/^"[0-9a-f]{32}\.[A-Za-z0-9_-]{16}"$/);
    return { order: res.body.order as OrderView, tag: tag! };
  }

  const update = (orderId: string, order: Record<string, unknown>, ifMatch?: string) =>
    call(`order/${orderId}/`, { token: seller.token, body: { order }, headers: ifMatch === undefined ? {} : { 'If-Match': ifMatch } });

  const transfer = (orderId: string, amount: string, sender: string) =>
    call('bank/transfer/', { token: seller.token, body: { bank: { transfer_date: '2026-11-20', sender, subject: `Order ${orderId}`, amount } } });

  const refused = (res: { status: number; body: { error?: { error: string }[] } }) => {
    expect(res.status).to.equal(412);
    expect(res.body.error?.map((e) => e.error)).to.deep.equal(['record_changed']);
  };

  describe('with the bank worker', () => {
    let bankWorker: { stop(): Promise<void> } | undefined;
    before(async () => {
      bankWorker = await startBankWorker('order-conditional');
    });
    after(async () => {
      await bankWorker?.stop();
    });

    async function importStatement(body: Buffer): Promise<void> {
      const res = await call('bank/statement/', { token: seller.token, body, headers: { 'Content-Type': 'application/octet-stream' } });
      expect(res.status, res.text).to.equal(202);
      const jobId = res.body.job_id as string;
      await waitFor(async () => {
        const job = (await call(`job/${jobId}/`, { token: seller.token })).body.job as Record<string, unknown> | undefined;
        return job && job.state === 'completed' && job.finished_date ? job : undefined;
      }, `job ${jobId}`);
    }

    it('when a seller packs an order by posting back what it read before a bank statement paid the rest, with the read ETag as If-Match, then it is refused 412 and the payment stays; read again, it goes through', async () => {
      const other = await order('49.90');
      const orderId = await order('30.00');
      // The buyer paid 5.50 in cash; the rest comes by bank.
      expect((await update(orderId, { paid_amount: '5.50' })).status).to.equal(200);
      const before = await read(orderId);
      expect(before.order).to.include({ paid_amount: '5.50' });
      // The statement pays 24.50 (the fixture's second transfer): 30.00, paid in full.
      await importStatement(fixture('camt053.001.08.xml', { ORDER_1: other, ORDER_2: orderId }));
      const packed = (o: OrderView) => ({ ...o, status: { ...o.status, is_packed: true } });
      refused(await update(orderId, packed(before.order), before.tag));
      const after = await read(orderId);
      expect(after.order.paid_amount).to.equal('30.00');
      expect(after.order.status).to.include({ is_paid: true, is_packed: false });
      expect(after.tag).to.not.equal(before.tag);
      const again = await update(orderId, packed(after.order), after.tag);
      expect(again.status, again.text).to.equal(200);
      const done = await readOrder(seller, orderId);
      expect(done.paid_amount).to.equal('30.00');
      expect(done.status).to.include({ is_paid: true, is_packed: true });
    });
  });

  it('when a conditional update waits while a payment is booked on the order, then it is refused once the payment commits, nothing of it written', async () => {
    const orderId = await order('30.00');
    const { order: seen, tag } = await read(orderId);
    const booking = await db().transaction();
    let posting: ReturnType<typeof update> | undefined;
    try {
      // The bank match's own booking (payOrdersIn): the invoice counter, then the order's row, held.
      const misfits = await payOrdersIn(booking, allOrdersOf(seller.id), [
        { key: 'b1', orderId, amount: '20.00', currency: 'EUR', history: 'payment 20.00 received: bank transfer b1' },
      ]);
      expect([...misfits]).to.deep.equal([]);
      posting = update(orderId, { paid_amount: '10.00', infos: 'paid 10.00 in cash' }, tag);
      await untilOneWaitsForALock();
      await booking.commit();
    } catch (err) {
      await booking.rollback();
      throw err;
    }
    refused(await posting);
    const after = await readOrder(seller, orderId);
    expect(after.paid_amount).to.equal('20.00');
    expect(after.infos).to.equal(null);
    expect(seen.paid_amount).to.equal(null);
  });

  it('when conditional updates and bank transfers of one order run at once, then each transfer is kept: an update either came first or is refused', async () => {
    let refusedUpdates = 0;
    // The update leaves later each round, so that some rounds find the transfer booked first.
    for (const [round, delay] of [0, 5, 10, 20, 40, 80, 160, 320].entries()) {
      const orderId = await order('30.00');
      const { tag } = await read(orderId);
      const later = async () => {
        await new Promise((resolve) => setTimeout(resolve, delay));
        return update(orderId, { paid_amount: '10.00' }, tag);
      };
      const [booked, posted] = await withConcurrentCalls(2, () => Promise.all([transfer(orderId, '20.00', `round ${round}`), later()]));
      expect(booked.status, booked.text).to.equal(201);
      expect([200, 412], posted.text).to.include(posted.status);
      const paid = (await readOrder(seller, orderId)).paid_amount;
      if (posted.status === 412) refusedUpdates++;
      // The update first: 10.00, then the transfer's 20.00 on top. The transfer first: the update is refused.
      expect(paid).to.equal(posted.status === 200 ? '30.00' : '20.00');
    }
    // Without If-Match honoured, a round whose transfer came first ends at 10.00: the bank's 20.00 replaced.
    expect(refusedUpdates).to.be.greaterThan(0);
  });

  it('when If-Match names the state of a read with another select or in XML, then the update applies; a weak, foreign, malformed or stale tag is refused and * applies', async () => {
    const orderId = await order('30.00');
    const other = await order('12.00');
    const full = await read(orderId);
    const narrow = await read(orderId, `?${query({ select: { paid_amount: 1 } })}`);
    const xml = await call(`order/${orderId}/`, { token: seller.token, headers: { Accept: 'application/xml' } });
    const xmlTag = xml.headers.get('etag')!;
    // One state, three representations: the version is the same, the tags are not.
    expect(new Set([full.tag, narrow.tag, xmlTag]).size).to.equal(3);
    expect(new Set([full.tag, narrow.tag, xmlTag].map((t) => t.split('.')[0])).size).to.equal(1);
    const { tag: otherTag } = await read(other);
    for (const ifMatch of [`W/${full.tag}`, otherTag, 'not a tag', '""', `"${full.tag}"`]) {
      refused(await update(orderId, { infos: ifMatch }, ifMatch));
    }
    expect((await readOrder(seller, orderId)).infos).to.equal(null);
    const byXmlRead = await update(orderId, { infos: 'first' }, `${otherTag}, ${xmlTag}`);
    expect(byXmlRead.status, byXmlRead.text).to.equal(200);
    // The first write changed the order: the narrow read's tag is stale now.
    refused(await update(orderId, { infos: 'second' }, narrow.tag));
    const any = await update(orderId, { infos: 'third' }, '*');
    expect(any.status, any.text).to.equal(200);
    expect((await readOrder(seller, orderId)).infos).to.equal('third');
    // Without If-Match an update applies as before.
    expect((await update(orderId, { infos: 'fourth' })).status).to.equal(200);
  });

  it("when a client deletes an order it read unpaid with that read's ETag as If-Match and a bank transfer paid it meanwhile, then the delete is refused 412 and the order and its payment stay; with the new ETag it is deleted", async () => {
    const orderId = await order('30.00');
    const { tag } = await read(orderId);
    expect((await transfer(orderId, '20.00', 'Zoë')).status).to.equal(201);
    const remove = (ifMatch: string) => call(`order/${orderId}/`, { token: seller.token, method: 'DELETE', headers: { 'If-Match': ifMatch } });
    refused(await remove(tag));
    refused(await remove(`W/${tag}`));
    const kept = await readOrder(seller, orderId);
    expect(kept.paid_amount).to.equal('20.00');
    const fresh = await read(orderId);
    const deleted = await remove(fresh.tag);
    expect(deleted.status, deleted.text).to.equal(200);
    expect((await call(`order/${orderId}/`, { token: seller.token })).status).to.equal(404);
    // * on an order that no longer exists: nothing to delete (404).
    expect((await remove('*')).status).to.equal(404);
  });

  /** A GET by node:http: fetch adds Cache-Control: no-cache to a conditional request, which makes any answer stale. */
  const readIfNoneMatch = (path: string, tag: string) => plainGet(seller.token, path, { 'If-None-Match': tag });

  it('when a read sends its ETag as If-None-Match, then an unchanged order is 304, and another select of it or the order after a payment is read in full', async () => {
    const orderId = await order('30.00');
    const { tag } = await read(orderId);
    const same = await readIfNoneMatch(`order/${orderId}/`, tag);
    expect(same).to.deep.equal({ status: 304, body: '' });
    const narrow = await readIfNoneMatch(`order/${orderId}/?${query({ select: { paid_amount: 1 } })}`, tag);
    expect(narrow.status, narrow.body).to.equal(200);
    expect(JSON.parse(narrow.body).order).to.deep.equal({ id: orderId, paid_amount: null });
    expect((await transfer(orderId, '20.00', 'Zoë')).status).to.equal(201);
    const paid = await readIfNoneMatch(`order/${orderId}/`, tag);
    expect(paid.status).to.equal(200);
    expect((JSON.parse(paid.body).order as OrderView).paid_amount).to.equal('20.00');
  });
});
