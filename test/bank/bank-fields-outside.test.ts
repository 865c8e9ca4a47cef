/**
 * Bank_type and Bank_filter_type of document 2 field by field, as a tester holding only
 * documents 1 and 2 meets them: written values read back with their type in JSON and XML, values
 * past a bound a 400 naming the field with nothing stored, R fields ignored with a warning each,
 * order_id or order_no (only one of the two), and the search period's bounds.
 */
import { expect } from 'chai';
import { call, newSeller, query, Seller } from '../support/api';
import { createOrder } from '../order/helpers';

async function transfers(seller: Seller): Promise<Record<string, unknown>[]> {
  const res = await call('bank/transfer/', { token: seller.token });
  expect(res.status, res.text).to.equal(200);
  return res.body.bank as Record<string, unknown>[];
}

describe('Bank_type against document 2 (fields, tried from outside)', () => {
  it('when a transfer is written, then JSON and XML read its fields with the types of document 2, order_id only when linked and order_no otherwise', async () => {
    const seller = await newSeller();
    const orderId = await createOrder(seller, { line: [{ id: 1, price: '12.30' }] });
    const paid = await call('bank/transfer/', {
      token: seller.token,
      body: { bank: { transfer_date: '2026-11-20T09:15:00+01:00', sender: 'Ada Buyer', subject: `Order ${orderId}`, amount: 12.3 } },
    });
    expect(paid.status, paid.text).to.equal(201);
    expect(paid.body).to.deep.include({ is_order_paid: '1' });
    expect(paid.body.bank_id).to.match(/^\d+_\d{4}_\d{2}$/);
    const other = await call('bank/transfer/', {
      token: seller.token,
      body: { bank: { transfer_date: '2026-11-21 10:00:00', sender: 'Bo', subject: 'no reference', amount: '5' } },
    });
    expect(other.body.is_order_paid).to.equal('0');

    const [linked, unlinked] = await transfers(seller);
    expect(linked).to.deep.include({
      id: paid.body.bank_id,
      type: 'bank',
      transfer_date: '2026-11-20T08:15:00.000Z',
      sender: 'Ada Buyer',
      subject: `Order ${orderId}`,
      order_id: orderId,
      amount: '12.30',
    });
    expect(linked).to.not.have.property('order_no');
    expect(linked!.date).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(unlinked).to.deep.include({ id: other.body.bank_id, amount: '5.00', transfer_date: '2026-11-21T10:00:00.000Z' });
    expect(unlinked).to.not.have.property('order_id');
    expect(unlinked).to.have.property('order_no');

    const inXml = await call('bank/transfer/', { token: seller.token, headers: { Accept: 'application/xml' } });
    for (const [name, value] of [
      ['id', paid.body.bank_id],
      ['type', 'bank'],
      ['transfer_date', '2026-11-20T08:15:00.000Z'],
      ['order_id', orderId],
      ['amount', '12.30'],
      ['amount', '5.00'],
    ]) {
      expect(inXml.text, String(name)).to.include(`<${String(name)}>${String(value)}</${String(name)}>`);
    }
    const selected = await call(`bank/transfer/?${query({ select: { amount: 1 } })}`, { token: seller.token });
    expect(selected.body.bank).to.deep.equal([
      { id: paid.body.bank_id, amount: '12.30' },
      { id: other.body.bank_id, amount: '5.00' },
    ]);
  });

  it('when a value is past its bound, then 400 names every field and nothing is stored; R fields are ignored with a warning each; amounts are rounded on their digits', async () => {
    const seller = await newSeller();
    const bad = await call('bank/transfer/', {
      token: seller.token,
      body: { bank: { transfer_date: '2026-11-31 10:00:00', sender: 's'.repeat(256), subject: 'x', amount: 'ten' } },
    });
    expect(bad.status).to.equal(400);
    expect(bad.body.error!.map((e) => e.field).sort()).to.deep.equal(['bank.amount', 'bank.sender', 'bank.transfer_date']);
    const missing = await call('bank/transfer/', { token: seller.token, body: { bank: { sender: 'only' } } });
    expect(missing.body.error!.map((e) => e.field).sort()).to.deep.equal(['bank.amount', 'bank.transfer_date']);
    expect(await transfers(seller)).to.deep.equal([]);

    const readOnly = await call('bank/transfer/', {
      token: seller.token,
      body: {
        bank: {
          id: '9_2001_01',
          type: 'payment_provider',
          date: '2001-01-01 00:00:00',
          order_id: '1_2001_01',
          order_no: '1_2001_01',
          status: 'completed',
          transfer_date: '2026-11-20 10:00:00',
          sender: 'Cy',
          subject: 'rounding',
          amount: '1.005',
        },
      },
    });
    expect(readOnly.status, readOnly.text).to.equal(201);
    expect(readOnly.body.warning!.map((w) => `${w.warning} ${w.field}`).sort()).to.deep.equal(
      ['bank.date', 'bank.id', 'bank.order_id', 'bank.order_no', 'bank.status', 'bank.type'].map((f) => `read_only_field ${f}`),
    );
    const [stored] = await transfers(seller);
    expect(stored).to.deep.include({ id: readOnly.body.bank_id, type: 'bank', amount: '1.01' });
    expect(stored!.id).to.not.equal('9_2001_01');
    expect(stored!.date).to.not.match(/^2001/);
  });

  it('when Bank_filter_type is past its bounds, then 400 names the field: a period over 3 months, from after to, an id operator other than =', async () => {
    const seller = await newSeller();
    for (const [filter, field] of [
      [{ date: { from: '2026-01-01 00:00:00', to: '2026-04-02 00:00:00' } }, 'filter.date.from'],
      [{ date: { from: '2026-11-20', to: '2026-11-01' } }, 'filter.date.from'],
      [{ date: { from: '2026-11-31' } }, 'filter.date.from'],
      [{ id: { 0: { value: '1_2026_11', operator: '>' } } }, 'filter.id[0].operator'],
    ] as const) {
      const res = await call(`bank/transfer/?${query({ filter })}`, { token: seller.token });
      expect(res.status, JSON.stringify(filter)).to.equal(400);
      expect(res.body.error!.map((e) => e.field)).to.deep.equal([field]);
    }
    const threeMonths = await call(`bank/transfer/?${query({ filter: { date: { from: '2026-01-01 00:00:00', to: '2026-04-01 00:00:00' } } })}`, {
      token: seller.token,
    });
    expect(threeMonths.status, threeMonths.text).to.equal(200);
  });
  it('when currency_id is written in lower case, then it is the upper-case code, as an order takes it', async () => {
    const seller = await newSeller();
    const res = await call('bank/transfer/', {
      token: seller.token,
      body: { bank: { transfer_date: '2026-11-22 10:00:00', sender: 'Cy', subject: 'no reference', amount: '7', currency_id: 'chf' } },
    });
    expect(res.status, res.text).to.equal(201);
    const [transfer] = await transfers(seller);
    expect(transfer).to.deep.include({ id: res.body.bank_id, currency_id: 'CHF' });
    const wrong = await call('bank/transfer/', {
      token: seller.token,
      body: { bank: { transfer_date: '2026-11-22 10:00:00', sender: 'Cy', subject: 'x', amount: '7', currency_id: 'eu' } },
    });
    expect(wrong.status).to.equal(400);
    expect(wrong.body.error![0]!.field).to.equal('bank.currency_id');
  });
});
