import { expect } from 'chai';
import { allOrdersOf } from '../../lib/access/caller';
import { counterRepository } from '../../lib/account/counter.repository';
import { db } from '../../lib/db/knex';
import { planOrderCreate } from '../../lib/order/order.service';
import { StockBatch } from '../../lib/order/order-stock.service';
import { OrderWrites } from '../../lib/order/order-writes';
import { call, newSeller, Seller, withConcurrentCalls } from '../support/api';
import { untilOneWaitsForALock } from '../support/lock-wait';
import { createOrder, orderBody, readOrder } from './helpers';

/** What a seller's concurrent sales wait for (lib/order/README.md, lock order). */
describe('order: locks of concurrent creates', () => {
  let seller: Seller;
  beforeEach(async () => {
    seller = await newSeller();
  });

  const customers = (s: Seller) => db()('customer').where({ account_id: s.id }).select('number', 'username', 'phone_1', 'shop_username');
  const numberOf = (orderId: string) => Number(orderId.split('_')[0]);

  it('when orders of one buyer under different user names are created at once, then each gets its own number and the customer keeps every user name', async () => {
    const first = await createOrder(seller, { customer: { email: 'buyer@example.com', username: 'u0' } });
    const results = await withConcurrentCalls(8, () =>
      Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          call('order/', { token: seller.token, body: { order: orderBody({ customer: { email: 'buyer@example.com', username: `u${i + 1}` } }) } }),
        ),
      ),
    );
    expect(results.map((r) => r.status)).to.deep.equal(Array(8).fill(201));
    expect(results.map((r) => numberOf(String(r.body.order_id))).sort((a, b) => a - b)).to.deep.equal([2, 3, 4, 5, 6, 7, 8, 9]);
    const [customer, ...others] = await customers(seller);
    expect(others).to.deep.equal([]);
    expect((customer!.shop_username as string[]).slice().sort()).to.deep.equal(['u0', 'u1', 'u2', 'u3', 'u4', 'u5', 'u6', 'u7', 'u8']);
    expect((await readOrder(seller, first)).customer.id).to.equal(customer!.number);
  });

  it('when a sale has read its buyer but not written yet, then another sale of the buyer is answered meanwhile and the later commit wins the contact data', async () => {
    await createOrder(seller, { customer: { email: 'buyer@example.com', username: 'first', phone_1: '111' } });
    const input = { customer: { email: 'buyer@example.com', username: 'slow', phone_1: '333' } };
    const caller = { ...allOrdersOf(seller.id), portalAccountId: null };
    let meanwhile = '';
    const slow = await db().transaction(async (trx) => {
      const writes = new OrderWrites(caller, new StockBatch());
      await writes.startRun(trx, [input]);
      // Before, the buyer's row was locked here until this transaction ended: this call waited for it.
      const other = await call('order/', {
        token: seller.token,
        body: { order: orderBody({ customer: { email: 'buyer@example.com', username: 'fast', phone_1: '222' } }) },
      });
      expect(other.status, other.text).to.equal(201);
      meanwhile = String(other.body.order_id);
      await planOrderCreate(trx, caller, { input, path: 'order' }, writes);
      const [written] = await writes.flush(trx);
      return written!.id;
    });
    expect([numberOf(meanwhile), numberOf(slow)]).to.deep.equal([2, 3]);
    expect(await customers(seller)).to.deep.equal([
      { number: (await readOrder(seller, slow)).customer.id, username: 'slow', phone_1: '333', shop_username: ['first', 'fast', 'slow'] },
    ]);
  });

  it('when a sale finds its new buyer created meanwhile by another sale, then it leaves the buyer unlocked until it writes its order and a third sale of the buyer is answered meanwhile', async () => {
    const input = { customer: { email: 'new@example.com', username: 'slow' } };
    const caller = { ...allOrdersOf(seller.id), portalAccountId: null };
    const sale = (username: string) =>
      call('order/', { token: seller.token, body: { order: orderBody({ customer: { email: 'new@example.com', username } }) } });
    const [firstId, thirdId, slowId] = await db().transaction(async (trx) => {
      const writes = new OrderWrites(caller, new StockBatch());
      await writes.startRun(trx, [input]);
      const first = await sale('first');
      expect(first.status, first.text).to.equal(201);
      await planOrderCreate(trx, caller, { input, path: 'order' }, writes);
      // The slow sale found the first's customer after its book was read: before, it locked the row here.
      const third = await sale('third');
      expect(third.status, third.text).to.equal(201);
      const [written] = await writes.flush(trx);
      return [String(first.body.order_id), String(third.body.order_id), written!.id];
    });
    expect([firstId, thirdId, slowId].map(numberOf)).to.deep.equal([1, 2, 3]);
    const [customer, ...others] = await customers(seller);
    expect(others).to.deep.equal([]);
    expect(customer).to.deep.include({ username: 'slow', shop_username: ['first', 'third', 'slow'] });
  });

  /** An order of 10.00, and `payment` sent while another transaction holds the invoice counter; `meanwhile` runs once it waits. */
  async function whileInvoiceCounterHeld<T>(payment: (orderId: string) => Promise<T>, meanwhile: (orderId: string) => Promise<void>) {
    const orderId = await createOrder(seller, { line: [{ id: 1, name: 'Tasse', quantity: 1, price: '10.00' }] });
    const holder = await db().transaction();
    let paying: Promise<T> | undefined;
    try {
      await counterRepository.take(holder, seller.id, 'invoice', 0);
      paying = payment(orderId);
      await untilOneWaitsForALock();
      await meanwhile(orderId);
    } finally {
      await holder.rollback();
    }
    return { orderId, answer: await paying };
  }
  /** The payment waits for the invoice counter holding no lock on the order's row (it held it while waiting, before). */
  const rowIsFree = async (orderId: string) => {
    const row = await db().raw('SELECT id FROM sales_order WHERE account_id = ? AND id = ? FOR UPDATE NOWAIT', [seller.id, orderId]);
    expect(row.rows).to.have.length(1);
  };
  const transferFor = (orderId: string) =>
    call('bank/transfer/', { token: seller.token, body: { bank: { transfer_date: '2026-11-20', subject: `Order ${orderId}`, amount: '10.00' } } });

  it('when an update may make its order paid, then it takes the invoice counter before the order row, as order/list/ does, so the two never wait for each other in a circle', async () => {
    const { orderId, answer } = await whileInvoiceCounterHeld(
      (id) => call(`order/${id}/`, { token: seller.token, body: { order: { paid_amount: '10.00' } } }),
      rowIsFree,
    );
    expect(answer.status).to.equal(200);
    expect((await readOrder(seller, orderId)).status).to.include({ is_paid: true });
  });

  it('when a bank transfer pays an order, then it takes the invoice counter before the order row, as a paying update does, so a match and an update never wait for each other in a circle', async () => {
    const { orderId, answer } = await whileInvoiceCounterHeld(transferFor, rowIsFree);
    expect(answer.status).to.equal(201);
    expect(answer.body).to.deep.include({ is_order_paid: '1' });
    expect((await readOrder(seller, orderId)).status).to.include({ is_paid: true });
  });

  it('when an order is cancelled while a bank transfer that names it waits for the invoice counter, then the transfer stays unassigned with the reason order_cancelled', async () => {
    const { orderId, answer } = await whileInvoiceCounterHeld(transferFor, async (id) => {
      const cancelled = await withConcurrentCalls(2, () => call(`order/${id}/`, { token: seller.token, body: { order: { status: { is_cancelled: true } } } }));
      expect(cancelled.status, cancelled.text).to.equal(200);
    });
    expect(answer.status).to.equal(201);
    expect(answer.body).to.deep.include({ is_order_paid: '0' });
    const listed = (await call('bank/transfer/', { token: seller.token })).body.bank as Record<string, unknown>[];
    expect(listed).to.have.length(1);
    expect(listed[0]).to.include({ id: answer.body.bank_id, order_no: orderId, unassigned_reason: 'order_cancelled' });
    expect((await readOrder(seller, orderId)).status).to.include({ is_paid: false, is_cancelled: true });
  });
});
