import { expect } from 'chai';
import type { PayPalTransaction } from '../../lib/bank/provider/paypal.client';
import { paymentOf, PendingPayment, planSync } from '../../lib/bank/provider/provider-payment';

/** The sync's rule without database or HTTP: what PayPal listed, what was pending, what to do. */
describe('bank: payment provider sync plan', () => {
  const now = new Date('2026-11-26T12:00:00Z');
  const tx = (
    id: string,
    status: string | undefined,
    value = '10.00',
    currency: string | null = 'EUR',
    date = '2026-11-21T09:30:00+01:00',
  ): PayPalTransaction => ({
    transaction_info: {
      transaction_id: id,
      transaction_status: status,
      transaction_initiation_date: date,
      transaction_amount: { ...(currency !== null ? { currency_code: currency } : {}), value },
      invoice_id: 'INV-1',
    },
    payer_info: { payer_name: { given_name: 'Eva', surname: 'Ek' } },
  });
  const pending = (id: string, daysOld: number): PendingPayment => ({
    transactionId: id,
    transactionDate: new Date(now.getTime() - daysOld * 86_400_000),
    amount: '10.00',
    currency: 'EUR',
    sender: 'Eva Ek',
  });

  it('when transactions of every status come, then completed ones are stored, pending ones remembered, denied and reversed ones neither', () => {
    const plan = planSync(
      [tx('S00000000000000001', 'S'), tx('P00000000000000001', 'P'), tx('D00000000000000001', 'D'), tx('V00000000000000001', 'V')],
      [],
      [],
      now,
    );
    expect(plan.store.map((e) => [e.reference, e.amount, e.currency, e.sender, e.subject])).to.deep.equal([
      ['S00000000000000001', '10.00', 'EUR', 'Eva Ek', 'INV-1'],
    ]);
    expect(plan.store[0]!.transferDate.toISOString()).to.equal('2026-11-21T08:30:00.000Z');
    expect(plan.remember.map((p) => p.transactionId)).to.deep.equal(['P00000000000000001']);
    expect(plan.failed).to.deep.equal(['D00000000000000001', 'V00000000000000001']);
    expect(plan.resolved).to.deep.equal([]);
  });

  it('when remembered payments are listed again, then a completed one is stored and forgotten, a denied one forgotten, a still pending one checked', () => {
    const known = [pending('A00000000000000001', 5), pending('B00000000000000001', 5), pending('C00000000000000001', 5)];
    const plan = planSync(
      [tx('A00000000000000001', 'S'), tx('B00000000000000001', 'D'), tx('C00000000000000001', 'P')],
      known,
      known.map((k) => k.transactionId),
      now,
    );
    expect(plan.store.map((e) => e.reference)).to.deep.equal(['A00000000000000001']);
    expect(plan.resolved).to.deep.equal(['A00000000000000001', 'B00000000000000001']);
    expect(plan.stillPending).to.deep.equal(['C00000000000000001']);
    expect(plan.remember).to.deep.equal([]);
  });

  it('when a payment is listed twice, then a denial or reversal wins over completion, and completion over pending', () => {
    const plan = planSync(
      [tx('X00000000000000001', 'S'), tx('X00000000000000001', 'V'), tx('Y00000000000000001', 'P'), tx('Y00000000000000001', 'S')],
      [],
      [],
      now,
    );
    expect(plan.store.map((e) => e.reference)).to.deep.equal(['Y00000000000000001']);
    expect(plan.failed).to.deep.equal(['X00000000000000001']);
  });

  it('when a status is missing or unknown, then the payment counts as pending: neither stored nor dropped', () => {
    const plan = planSync([tx('U00000000000000001', undefined), tx('U00000000000000002', 'Q')], [], [], now);
    expect(plan.store).to.deep.equal([]);
    expect(plan.remember.map((p) => p.transactionId)).to.deep.equal(['U00000000000000001', 'U00000000000000002']);
  });

  it('when a remembered payment is pending beyond 30 days, or a new one already is, then it is given up; one not asked for this time is left as it is', () => {
    const known = [pending('OLD000000000000001', 30.1), pending('NEW000000000000001', 29.9), pending('NOTASKED0000000001', 3)];
    const plan = planSync(
      [tx('OLD000000000000001', 'P'), tx('NEW000000000000001', 'P'), tx('FRESH0000000000001', 'P', '1.00', 'EUR', '2026-10-20T00:00:00Z')],
      known,
      ['OLD000000000000001', 'NEW000000000000001'],
      now,
    );
    expect(plan.givenUp.map((p) => p.transactionId)).to.deep.equal(['FRESH0000000000001', 'OLD000000000000001']);
    expect(plan.stillPending).to.deep.equal(['NEW000000000000001']);
    expect(plan.remember).to.deep.equal([]);
  });

  it('when a payment has no currency, an id, a date or a readable amount, then it is unreadable (not stored, never given EUR); refunds, fees, conversions, top-ups and releases are not payments', () => {
    expect(paymentOf(tx('N00000000000000001', 'S', '5.00', null))).to.deep.equal({
      transactionId: 'N00000000000000001',
      reason: 'no ISO 4217 currency_code',
    });
    expect(paymentOf(tx('N00000000000000002', 'S', '5.00', 'eur'))).to.deep.include({ reason: 'no ISO 4217 currency_code' });
    expect(paymentOf(tx('', 'S'))).to.deep.include({ reason: 'no transaction_id' });
    expect(paymentOf(tx('N00000000000000003', 'S', '5.00', 'EUR', 'yesterday'))).to.deep.include({ reason: 'no valid transaction_initiation_date' });
    expect(paymentOf(tx('N00000000000000004', 'S', '5.001'))).to.deep.include({ transactionId: 'N00000000000000004' });
    expect(paymentOf(tx('R00000000000000001', 'S', '-5.00'))).to.equal(null);
    expect(paymentOf(tx('R00000000000000002', 'S', '0.00'))).to.equal(null);
    // Money credited without a buyer, by its event code: a currency conversion, a bank top-up, a released hold.
    for (const code of ['T0200', 'T0300', 'T1503', 'T2104'])
      expect(
        paymentOf({ ...tx('C00000000000000001', 'S'), transaction_info: { ...tx('C00000000000000001', 'S').transaction_info, transaction_event_code: code } }),
      ).to.equal(null);
    for (const code of ['T0006', 'T0007', 'T0011', undefined])
      expect(
        paymentOf({ ...tx('B00000000000000001', 'S'), transaction_info: { ...tx('B00000000000000001', 'S').transaction_info, transaction_event_code: code } }),
      ).to.have.property('state', 'completed');
    const yen = paymentOf(tx('J00000000000000001', 'S', '1500', 'JPY'));
    expect(yen && 'entry' in yen ? [yen.entry.amount, yen.entry.currency] : yen).to.deep.equal(['1500.00', 'JPY']);
    const plan = planSync([tx('N00000000000000001', 'S', '5.00', null)], [], [], now);
    expect(plan.store).to.deep.equal([]);
    expect(plan.unreadable.map((u) => u.transactionId)).to.deep.equal(['N00000000000000001']);
  });
});
