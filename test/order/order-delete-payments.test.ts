import { expect } from 'chai';
import { db } from '../../lib/db/knex';
import { matchRange } from '../../lib/bank/bank-match.service';
import { call, newSeller, query, Seller } from '../support/api';
import { createOrder, readOrder } from './helpers';

/**
 * DELETE order/{order_id}/ of an order a bank transfer or a payment-provider payment paid
 * (lib/order/README.md, "Deleting a paid order"): the money goes back to the unassigned records,
 * where the re-match and the seller find it, and the answer says how much.
 */
interface BankView {
  id: string;
  sender: string;
  subject: string;
  amount: string;
  order_id?: string;
  order_no?: string | null;
  match_rule: string | null;
  unassigned_reason: string | null;
}

describe('order: deleting an order its payments paid', () => {
  let seller: Seller;
  beforeEach(async () => {
    seller = await newSeller();
  });

  const remove = (orderId: string) => call(`order/${orderId}/`, { token: seller.token, method: 'DELETE' });
  const records = async (filter: Record<string, unknown>, path = 'bank/transfer/') => {
    const res = await call(`${path}?${query({ filter })}`, { token: seller.token });
    expect(res.status, res.text).to.equal(200);
    return res.body.bank as BankView[];
  };

  it('when a paid order is deleted, then its bank transfer is unassigned again (order_deleted, the payer’s words kept), the answer warns of the amount, and the invoice number stays used', async () => {
    const orderId = await createOrder(seller, { line: [{ id: 1, price: '40.00', quantity: 1 }] });
    const paid = await call('bank/transfer/', {
      token: seller.token,
      body: { bank: { transfer_date: '2026-11-20T10:00:00Z', sender: 'Anna Berg', subject: `Order ${orderId}`, amount: '40.00' } },
    });
    expect(paid.status, paid.text).to.equal(201);
    expect(paid.body.is_order_paid).to.equal('1');
    const bankId = paid.body.bank_id as string;
    expect((await readOrder(seller, orderId)).invoice_number).to.equal(1);

    const res = await remove(orderId);
    expect(res.status, res.text).to.equal(200);
    expect(res.body.ack).to.equal('warning');
    const warnings = res.body.warning as { warning: string; description: string; code: number }[];
    expect(warnings.map((w) => [w.warning, w.code])).to.deep.equal([['payment_unassigned', 200]]);
    expect(warnings[0]!.description).to.contain('40.00 EUR').and.to.contain(bankId).and.to.contain('order_deleted').and.to.contain('invoice number 1');
    expect((await call(`order/${orderId}/`, { token: seller.token })).status).to.equal(404);

    const [record] = await records({ id: bankId });
    expect(record).to.include({
      sender: 'Anna Berg',
      subject: `Order ${orderId}`,
      amount: '40.00',
      order_no: orderId,
      match_rule: null,
      unassigned_reason: 'order_deleted',
    });
    expect(record).to.not.have.key('order_id');
    expect((await records({ unassigned_reason: 'order_deleted' })).map((r) => r.id)).to.deep.equal([bankId]);
    expect((await records({ is_assigned: 0 })).map((r) => r.id)).to.deep.equal([bankId]);

    // The re-match offers the money again: a new order of the payer's name and amount takes it.
    const next = await createOrder(seller, {
      customer: { email: 'anna@example.com', address: { name: 'Anna Berg' } },
      line: [{ id: 1, price: '40.00', quantity: 1 }],
    });
    await matchRange(seller.id, 1, Number.MAX_SAFE_INTEGER);
    expect((await records({ id: bankId }))[0]).to.include({ order_id: next, match_rule: 'name_amount', unassigned_reason: null });
    // The deleted order's invoice number is a gap: never given again.
    expect((await readOrder(seller, next)).invoice_number).to.equal(2);
  });

  it('when an order paid by a payment-provider payment and a part transfer is deleted, then both are unassigned again and the warning names their sum', async () => {
    const orderId = await createOrder(seller, { payment_provider_transaction_id: 'PAYID-DEL-1', line: [{ id: 1, price: '30.00', quantity: 1 }] });
    const part = await call('bank/transfer/', {
      token: seller.token,
      body: { bank: { transfer_date: '2026-11-20T10:00:00Z', sender: 'Ben Ott', subject: `Anzahlung ${orderId}`, amount: '10.00' } },
    });
    expect(part.body.is_order_paid).to.equal('1');
    // A PayPal payment as the sync stores it (bank-store.service.ts), matched by its transaction id.
    await db()('bank').insert({
      account_id: seller.id,
      number: 900,
      id: '900_2026_11',
      type: 'payment_provider',
      transfer_date: new Date('2026-11-21T09:00:00Z'),
      sender: 'Ben Ott',
      subject: '',
      amount: '20.00',
      currency_id: 'EUR',
      status: 'completed',
      entry_ref: 'PAYID-DEL-1',
    });
    await matchRange(seller.id, 900, 900);
    expect((await records({ id: '900_2026_11' }, 'bank/payment_provider/'))[0]).to.include({ order_id: orderId, match_rule: 'provider_id' });
    expect((await readOrder(seller, orderId)).paid_amount).to.equal('30.00');

    const res = await remove(orderId);
    expect(res.status, res.text).to.equal(200);
    const warnings = res.body.warning as { warning: string; description: string }[];
    expect(warnings.map((w) => w.warning)).to.deep.equal(['payment_unassigned']);
    expect(warnings[0]!.description)
      .to.contain('30.00 EUR')
      .and.to.contain(part.body.bank_id as string)
      .and.to.contain('900_2026_11');
    const provider = (await records({ id: '900_2026_11' }, 'bank/payment_provider/'))[0]!;
    expect(provider).to.include({ unassigned_reason: 'order_deleted', match_rule: null });
    expect(provider).to.not.have.key('order_id');
    expect((await records({ id: part.body.bank_id }))[0]).to.include({ unassigned_reason: 'order_deleted', order_no: orderId });
  });

  it('when an order no payment paid is deleted, then the answer has no warning and no bank record changes', async () => {
    const orderId = await createOrder(seller, { line: [{ id: 1, price: '12.00', quantity: 1 }] });
    const other = await call('bank/transfer/', {
      token: seller.token,
      body: { bank: { transfer_date: '2026-11-20T10:00:00Z', sender: 'X', subject: 'nothing', amount: '12.00' } },
    });
    expect(other.status).to.equal(201);
    const before = await records({ id: other.body.bank_id });
    const res = await remove(orderId);
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.deep.equal({ ack: 'success' });
    expect(await records({ id: other.body.bank_id })).to.deep.equal(before);
  });
});
