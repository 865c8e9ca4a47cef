import { expect } from 'chai';
import { db } from '../../lib/db/knex';
import { call, newSeller, query, Seller } from '../support/api';
import { createOrder, orderEvents, readOrder } from '../order/helpers';

interface BankView {
  id: string;
  type: string;
  date: string;
  transfer_date: string;
  sender: string;
  subject: string;
  amount: string;
  order_id?: string;
  order_no?: string | null;
  status: string | null;
}

describe('bank: transfers and payment-provider payments', () => {
  let seller: Seller;
  before(async () => {
    seller = await newSeller();
  });

  const transfer = (fields: Record<string, unknown> = {}) => ({
    transfer_date: '2026-11-20T10:00:00Z',
    sender: 'Anna Berg',
    subject: 'thanks',
    amount: '10.00',
    ...fields,
  });
  const post = (who: Seller, fields: Record<string, unknown> = {}) => call('bank/transfer/', { token: who.token, body: { bank: transfer(fields) } });
  const list = async (who: Seller, params: Record<string, unknown> = {}, path = 'bank/transfer/') => {
    const res = await call(`${path}?${query(params)}`, { token: who.token });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.ack).to.equal('success');
    return res.body.bank as BankView[];
  };
  const one = async (who: Seller, id: string) => (await list(who, { filter: { id } }))[0]!;

  it('when a transfer is posted, then it is created (201, bank_id like an order id) and can be read back', async () => {
    const res = await post(seller, { subject: 'no reference here', amount: '12.5' });
    expect(res.status, res.text).to.equal(201);
    expect(res.body.ack).to.equal('success');
    expect(res.body.bank_id).to.match(/^\d+_\d{4}_\d{2}$/);
    expect(res.body.is_order_paid).to.equal('0');
    const bank = await one(seller, res.body.bank_id as string);
    expect(bank).to.include({
      id: res.body.bank_id,
      type: 'bank',
      sender: 'Anna Berg',
      subject: 'no reference here',
      amount: '12.50',
      order_no: null,
      status: null,
    });
    expect(bank.transfer_date).to.equal('2026-11-20T10:00:00.000Z');
    expect(bank).to.not.have.key('order_id');
  });

  it('when the same transfer is posted again, then it answers 302 with the existing bank_id and stores nothing new', async () => {
    const first = await post(seller, { subject: 'dup', amount: '3.00' });
    expect(first.status).to.equal(201);
    const again = await post(seller, { subject: 'dup', amount: 3 });
    expect(again.status, again.text).to.equal(302);
    // No Location: a client following redirects (fetch, as here) would get a GET's answer instead.
    expect(again.headers.get('location')).to.equal(null);
    expect(again.body.bank_id).to.equal(first.body.bank_id);
    expect(again.body.is_order_paid).to.equal('0');
    const rows = await db()('bank').where({ account_id: seller.id, subject: 'dup' });
    expect(rows).to.have.length(1);
    const other = await post(seller, { subject: 'dup', amount: '3.01' });
    expect(other.status).to.equal(201);
  });

  it('when the subject names an order id of the account, then the transfer is assigned and the order becomes paid', async () => {
    const s = await newSeller();
    const orderId = await createOrder(s, { line: [{ id: 1, price: '30.00' }] });
    const res = await post(s, { subject: `Order ${orderId} part 1`, amount: '10.00' });
    expect(res.status, res.text).to.equal(201);
    expect(res.body.is_order_paid).to.equal('1');
    let order = await readOrder(s, orderId);
    expect(order.paid_amount).to.equal('10.00');
    expect(order.status.is_paid).to.equal(true);
    expect(order.invoice_number).to.not.equal(null);
    const bank = await one(s, res.body.bank_id as string);
    expect(bank.order_id).to.equal(orderId);
    expect(bank).to.not.have.key('order_no');

    const rest = await post(s, { subject: `rest ${orderId}`, amount: '20.00' });
    expect(rest.body.is_order_paid).to.equal('1');
    order = await readOrder(s, orderId);
    expect(order.paid_amount).to.equal('30.00');
    expect(order.invoice_amount).to.equal('30.00');
    expect((await orderEvents(s)).filter((e) => e === `paid:${orderId}`)).to.have.length(1);
  });

  it('when the subject names only the order number, then that order is assigned', async () => {
    const s = await newSeller();
    const orderId = await createOrder(s, { line: [{ id: 1, price: '5.00' }] });
    const number = orderId.split('_')[0];
    const decimal = await post(s, { subject: `paid 2.${number}0 on 21.11.2026`, amount: '5.00' });
    expect(decimal.body.is_order_paid).to.equal('0');
    const res = await post(s, { subject: `Invoice ${number}.`, amount: '5.00' });
    expect(res.body.is_order_paid).to.equal('1');
    const order = await readOrder(s, orderId);
    expect(order.paid_amount).to.equal('5.00');
    expect(order.status.is_paid).to.equal(true);
  });

  it('when the subject names no order (or a cancelled one), then order_no holds the reference and no order changes', async () => {
    const s = await newSeller();
    const cancelled = await createOrder(s, { status: { is_cancelled: true }, line: [{ id: 1, price: '5.00' }] });
    const res = await post(s, { subject: `for ${cancelled}`, amount: '5.00' });
    expect(res.body.is_order_paid).to.equal('0');
    const bank = await one(s, res.body.bank_id as string);
    expect(bank.order_no).to.equal(cancelled);
    expect(bank).to.not.have.key('order_id');
    const order = await readOrder(s, cancelled);
    expect(order.paid_amount).to.equal(null);
    expect(order.status.is_paid).to.equal(false);

    const unknown = await post(s, { subject: 'order 999_2026_11', amount: '1.00' });
    expect((await one(s, unknown.body.bank_id as string)).order_no).to.equal('999_2026_11');
    const empty = await post(s, { subject: 'hello', amount: '1.00' });
    expect((await one(s, empty.body.bank_id as string)).order_no).to.equal(null);
  });

  it("when the subject names another account's order, then it is never matched", async () => {
    const owner = await newSeller();
    const s = await newSeller();
    const foreign = await createOrder(owner, { line: [{ id: 1, price: '5.00' }] });
    const res = await post(s, { subject: `pay ${foreign}`, amount: '5.00' });
    expect(res.status).to.equal(201);
    expect(res.body.is_order_paid).to.equal('0');
    expect((await readOrder(owner, foreign)).paid_amount).to.equal(null);
    // Nor is it visible to the other account.
    expect(await list(owner)).to.deep.equal([]);
  });

  it('when the body lacks amount or has unknown fields, then 400 names the field; read-only fields get a warning', async () => {
    const missing = await call('bank/transfer/', { token: seller.token, body: { bank: { transfer_date: '2026-11-20' } } });
    expect(missing.status).to.equal(400);
    expect(missing.body.error!.map((e) => e.field)).to.include('bank.amount');
    const ro = await post(seller, { id: '1_2026_11', subject: 'ro', amount: '1.00' });
    expect(ro.status, ro.text).to.equal(201);
    expect(ro.body.warning!.map((w) => w.field)).to.include('bank.id');
  });

  it('when a transfer booked by hand is of 0.00 or less (a debit), then 400 names bank.amount and nothing is stored, not even a bank number', async () => {
    const s = await newSeller();
    const orderId = await createOrder(s, { line: [{ id: 1, price: '50.00' }] });
    for (const amount of ['-50.00', '0.00', '0', -1]) {
      const res = await post(s, { subject: `Order ${orderId}`, amount });
      expect(res.status, `${amount}: ${res.text}`).to.equal(400);
      expect(res.body.error).to.deep.equal([
        {
          error: 'invalid_field',
          code: 400,
          field: 'bank.amount',
          description: 'bank.amount must be above 0.00: a transfer booked by hand is money received (a refund or a debit is no bank transfer here)',
        },
      ]);
    }
    expect(await list(s)).to.deep.equal([]);
    expect(await db()('bank').where({ account_id: s.id })).to.deep.equal([]);
    expect((await readOrder(s, orderId)).paid_amount).to.equal(null);
    const first = await post(s, { subject: 'after the refusals', amount: '0.01' });
    expect(first.status, first.text).to.equal(201);
    expect(first.body.bank_id).to.match(/^1_\d{4}_\d{2}$/);
  });

  describe('search', () => {
    let s: Seller;
    const ids: string[] = [];
    let old: string;
    let provider: string;
    before(async () => {
      s = await newSeller();
      for (let i = 0; i < 5; i++) {
        const res = await post(s, { subject: `s${i}`, amount: `${i + 1}.00` });
        ids.push(res.body.bank_id as string);
      }
      // Read in two months ago, and a payment-provider payment (no POST exists for those).
      old = '900_2026_09';
      provider = '901_2026_11';
      await db()('bank').insert([
        {
          account_id: s.id,
          number: 900,
          id: old,
          type: 'bank',
          created_at: new Date(Date.now() - 62 * 86400000),
          transfer_date: new Date(),
          sender: 'x',
          subject: 'old',
          amount: '1.00',
        },
        {
          account_id: s.id,
          number: 901,
          id: provider,
          type: 'payment_provider',
          transfer_date: new Date(),
          sender: 'pp',
          subject: 'pp',
          amount: '2.00',
          status: 'completed',
        },
      ]);
    });

    it("when transfers are searched without a filter, then the last month of the account's transfers comes, in id order", async () => {
      expect((await list(s)).map((b) => b.id)).to.deep.equal(ids);
    });

    it('when payment_provider is searched, then only payment-provider payments come', async () => {
      const found = await list(s, {}, 'bank/payment_provider/');
      expect(found.map((b) => b.id)).to.deep.equal([provider]);
      expect(found[0]).to.include({ type: 'payment_provider', status: 'completed' });
    });

    it('when id is filtered, then those records come (also outside the default period); id only in the first filter object', async () => {
      expect((await list(s, { filter: { id: [ids[1], ids[3]] } })).map((b) => b.id)).to.deep.equal([ids[1], ids[3]]);
      expect((await list(s, { filter: { id: old } })).map((b) => b.id)).to.deep.equal([old]);
      const second = await call(`bank/transfer/?${query({ filter: [{ date: { to: new Date().toISOString() } }, { id: ids[0] }] })}`, { token: s.token });
      expect(second.status).to.equal(400);
      expect(second.body.error![0]!.field).to.equal('filter[1]');
      const op = await call(`bank/transfer/?${query({ filter: { id: { operator: '!=', value: [ids[0]] } } })}`, { token: s.token });
      expect(op.status).to.equal(400);
    });

    it('when the first filter object holds only the id list, then exactly the listed records come; the date singleton restricts them too', async () => {
      expect((await list(s, { filter: [{ id: [ids[0], old] }] })).map((b) => b.id)).to.deep.equal([ids[0], old]);
      const to = new Date(Date.now() - 40 * 86400000).toISOString();
      expect((await list(s, { filter: [{ id: [ids[0], old], date: { to } }] })).map((b) => b.id)).to.deep.equal([old]);
      expect((await list(s, { filter: [{ id: [provider] }] })).map((b) => b.id)).to.deep.equal([]);
    });

    it('when a later filter object sends id or date (Bank_filter_type has no other field), then 400 names that object and the field', async () => {
      const week = new Date(Date.now() - 7 * 86400000).toISOString();
      for (const [later, name] of [
        [{ id: [ids[1]] }, 'id'],
        [{ date: { from: week } }, 'date.from'],
      ] as const) {
        const res = await call(`bank/transfer/?${query({ filter: [{ id: [ids[0]] }, later] })}`, { token: s.token });
        expect(res.status, res.text).to.equal(400);
        expect(res.body.error![0]!).to.include({ error: 'singleton_filter', field: 'filter[1]' });
        expect(res.text).to.include(`${name} is a singleton filter`);
      }
    });

    it('when date.from is sent, then the period starts there; more than 3 months is a 400 naming filter.date.from', async () => {
      const from = new Date(Date.now() - 70 * 86400000).toISOString();
      expect((await list(s, { filter: { date: { from } } })).map((b) => b.id)).to.deep.equal([...ids, old]);
      const to = new Date(Date.now() - 40 * 86400000).toISOString();
      expect((await list(s, { filter: { date: { to } } })).map((b) => b.id)).to.deep.equal([old]);
      const wide = await call(`bank/transfer/?${query({ filter: { date: { from: '2026-01-01', to: '2026-05-01' } } })}`, { token: s.token });
      expect(wide.status, wide.text).to.equal(400);
      expect(wide.body.error![0]!.field).to.equal('filter.date.from');
      const ok = await call(`bank/transfer/?${query({ filter: { date: { from: '2026-01-01', to: '2026-04-01' } } })}`, { token: s.token });
      expect(ok.status, ok.text).to.equal(200);
      const tooOld = await call(`bank/transfer/?${query({ filter: { date: { from: '2020-01-01' } } })}`, { token: s.token });
      expect(tooOld.status).to.equal(400);
    });

    it('when date.to is a date without a time, then the records read in on that day come (from and to on one day: that day), and a period of 3 months by dates stays allowed', async () => {
      // An ERP asking for today's transfers sends the day; its midnight would leave out every one of them.
      const today = new Date().toISOString().slice(0, 10);
      expect((await list(s, { filter: { date: { to: today } } })).map((b) => b.id)).to.deep.equal(ids);
      expect((await list(s, { filter: { date: { from: today, to: today } } })).map((b) => b.id)).to.deep.equal(ids);
      const yesterday = new Date(Date.now() - 86400000).toISOString().slice(0, 10);
      expect((await list(s, { filter: { date: { from: yesterday, to: yesterday } } })).map((b) => b.id)).to.deep.equal([]);
      // A time given is honoured as sent: the period ends there.
      expect((await list(s, { filter: { date: { to: `${today} 00:00:00` } } })).map((b) => b.id)).to.deep.equal([]);
      const ok = await call(`bank/transfer/?${query({ filter: { date: { from: '2026-01-01', to: '2026-04-01' } } })}`, { token: s.token });
      expect(ok.status, ok.text).to.equal(200);
    });

    it('when paginated, then pages and min_id/next_min_id walk the records', async () => {
      expect((await list(s, { pagination: { limit: 2, page: 2 } })).map((b) => b.id)).to.deep.equal([ids[2], ids[3]]);
      const res = await call(`bank/transfer/?${query({ pagination: { limit: 2, min_id: ids[1] } })}`, { token: s.token });
      expect((res.body.bank as BankView[]).map((b) => b.id)).to.deep.equal([ids[1], ids[2]]);
      expect(res.body.next_min_id).to.equal(ids[3]);
      const bad = await call(`bank/transfer/?${query({ pagination: { min_id: 'abc' } })}`, { token: s.token });
      expect(bad.status).to.equal(400);
    });

    it('when select names fields, then only those and id come', async () => {
      const found = await list(s, { select: { amount: 1 }, filter: { id: ids[0] } });
      expect(found[0]).to.deep.equal({ id: ids[0], amount: '1.00' });
    });
  });

  it('when another path or method is used, then 404 or 405', async () => {
    expect((await call('bank/unknown/', { token: seller.token })).status).to.equal(404);
    const del = await call('bank/transfer/', { token: seller.token, method: 'DELETE' });
    expect(del.status).to.equal(405);
    const postPp = await call('bank/payment_provider/', { token: seller.token, body: { bank: transfer() } });
    expect(postPp.status).to.equal(405);
  });

  it('when the token lacks bank_r or bank_w, then 403; without a token 401', async () => {
    const reader = await newSeller('bank_r');
    expect((await call('bank/transfer/', { token: reader.token })).status).to.equal(200);
    expect((await post(reader)).status).to.equal(403);
    const writer = await newSeller('bank_w');
    expect((await post(writer)).status).to.equal(201);
    expect((await call('bank/transfer/', { token: writer.token })).status).to.equal(403);
    expect((await call('bank/payment_provider/', { token: writer.token })).status).to.equal(403);
    expect((await call('bank/transfer/')).status).to.equal(401);
  });
});
