/**
 * A bank record left unassigned, whose money the seller then books on the order by hand
 * (document 1, order rule 1: POST order/{order_id}/ paid_amount): the periodic re-match must not
 * book it a second time, by name and amount nor by the order's id in the text; it stays
 * unassigned with the reason booked_by_hand. A record stored after the hand booking and booked by
 * its bank on a later day pays as before (one of the same day: hand-booked-day.test.ts).
 */
import { expect } from 'chai';
import { rematchAll } from '../../lib/bank/bank-match.service';
import { db } from '../../lib/db/knex';
import { call, query, Seller, newSeller } from '../support/api';
import { readOrder } from '../order/helpers';
import { orderPaidBy } from './bank-worker';

interface BankView {
  id: string;
  order_id?: string;
  match_rule?: string | null;
  unassigned_reason?: string | null;
}

describe('bank: the re-match and money the seller booked by hand', () => {
  const today = () => new Date().toISOString().slice(0, 10);

  async function transfer(s: Seller, bank: Record<string, string>): Promise<{ bank_id: string; is_order_paid: string }> {
    const res = await call('bank/transfer/', { token: s.token, body: { bank: { transfer_date: today(), ...bank } } });
    expect(res.status, res.text).to.equal(201);
    return res.body as { bank_id: string; is_order_paid: string };
  }
  async function record(s: Seller, id: string, filter: Record<string, unknown> = {}): Promise<BankView | undefined> {
    const res = await call(`bank/transfer/?${query({ filter, pagination: { limit: 100 } })}`, { token: s.token });
    expect(res.status, res.text).to.equal(200);
    return (res.body.bank as BankView[]).find((r) => r.id === id);
  }
  async function setPaid(s: Seller, orderId: string, order: Record<string, unknown>) {
    const res = await call(`order/${orderId}/`, { token: s.token, body: { order } });
    expect(res.status, res.text).to.equal(200);
  }

  it('when a transfer of a payer who named no order is left unassigned and the seller books its amount on the order by hand, then the re-match does not pay it again: the record stays unassigned as booked_by_hand', async () => {
    const s = await newSeller();
    const order = await orderPaidBy(s, '20.00', 'Petra Part');
    const t = await transfer(s, { sender: 'Petra Part', subject: 'Anzahlung', amount: '10.00' });
    expect(t.is_order_paid).to.equal('0');
    expect(await record(s, t.bank_id)).to.include({ unassigned_reason: 'no_match' });

    await setPaid(s, order, { paid_amount: '10.00' });
    await rematchAll();

    expect(await readOrder(s, order)).to.include({ paid_amount: '10.00' });
    expect((await readOrder(s, order)).status.is_paid).to.equal(true);
    const after = await record(s, t.bank_id, { unassigned_reason: 'booked_by_hand' });
    expect(after, 'found by filter[unassigned_reason]=booked_by_hand').to.not.equal(undefined);
    expect(after!.order_id ?? null).to.equal(null);
    expect(after!.match_rule ?? null).to.equal(null);
  });

  it('when a transfer naming the order id was refused (order cancelled) and the seller books it by hand after undoing the cancellation, then the re-match does not pay it again either', async () => {
    const s = await newSeller();
    const order = await orderPaidBy(s, '20.00', 'Petra Part');
    await setPaid(s, order, { status: { is_cancelled: true } });
    const t = await transfer(s, { sender: 'P. Part', subject: `Order ${order}`, amount: '10.00' });
    expect(t.is_order_paid).to.equal('0');
    expect(await record(s, t.bank_id)).to.include({ unassigned_reason: 'order_cancelled' });

    await setPaid(s, order, { status: { is_cancelled: false }, paid_amount: '10.00' });
    await rematchAll();

    expect((await readOrder(s, order)).paid_amount).to.equal('10.00');
    expect(await record(s, t.bank_id)).to.include({ unassigned_reason: 'booked_by_hand' });
  });

  it('when a transfer arrives before its order and the seller creates the order with that money as paid_amount (POST order/ or order/list/), then the re-match does not pay it again', async () => {
    const s = await newSeller();
    const first = await transfer(s, { sender: 'Petra Part', subject: 'Anzahlung', amount: '10.00' });
    const second = await transfer(s, { sender: 'Paul Part', subject: 'Anzahlung', amount: '10.00' });
    expect([first.is_order_paid, second.is_order_paid]).to.deep.equal(['0', '0']);
    const buyer = (name: string) => ({
      customer: { email: 'buyer@example.com', address: { name } },
      line: [{ id: 1, price: '20.00', quantity: 1 }],
      paid_amount: '10.00',
    });
    const created = await call('order/', { token: s.token, body: { order: buyer('Petra Part') } });
    expect(created.status, created.text).to.equal(201);
    const listed = await call('order/list/', { token: s.token, body: { order: [buyer('Paul Part')] } });
    expect(listed.status, listed.text).to.be.oneOf([200, 207]);
    const item = (listed.body.response as { code: number; order_id: string }[])[0]!;
    expect(item.code).to.equal(201);

    await rematchAll();

    for (const [orderId, t] of [
      [created.body.order_id as string, first],
      [item.order_id, second],
    ] as const) {
      expect((await readOrder(s, orderId)).paid_amount, orderId).to.equal('10.00');
      expect(await record(s, t.bank_id), orderId).to.include({ unassigned_reason: 'booked_by_hand' });
    }
  });

  it('when a transfer is stored after the seller booked part of the order by hand, on a later day, then it pays the rest as before', async () => {
    const s = await newSeller();
    const order = await orderPaidBy(s, '30.00', 'Petra Part');
    await setPaid(s, order, { paid_amount: '10.00' });
    // Booked by hand yesterday morning (UTC): today's transfer is of a later day on every clock.
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    await db()('sales_order')
      .where({ account_id: s.id, id: order })
      .update({ paid_by_hand_at: new Date(`${yesterday}T08:00:00Z`) });
    const t = await transfer(s, { sender: 'Petra Part', subject: 'Rest', amount: '20.00' });
    expect(t.is_order_paid).to.equal('1');
    expect(await record(s, t.bank_id)).to.include({ order_id: order, match_rule: 'name_amount' });
    expect((await readOrder(s, order)).paid_amount).to.equal('30.00');
  });
});
