/**
 * Money the seller booked by hand on one order of a buyer (document 1, order rule 1: "To mark an
 * existing order as paid, set paid_amount") is not booked again on the buyer's other order of
 * the same amount, by name and amount or after a bare number naming the hand-booked order; and
 * when the bank reverses a credit held so (booked_by_hand), the seller is told which order's hand
 * booking it may be (lib/bank/README.md, "A payment booked by hand on the order").
 */
import { expect } from 'chai';
import { rematchAll } from '../../lib/bank/bank-match.service';
import { call, newSeller, query, Seller } from '../support/api';
import { createOrder, readOrder } from '../order/helpers';
import { bankTransfers, bankWorkerForSuite, importStatement, orderPaidBy } from './bank-worker';
import { fixture } from './fixtures';

interface BankView {
  id: string;
  sender: string;
  amount: string;
  status: string | null;
  order_id?: string;
  order_no?: string | null;
  match_rule?: string | null;
  unassigned_reason?: string | null;
}

interface TaskView {
  title: string;
  text: string;
  priority: string;
  reference: { section: string; id: string };
}

describe('bank: money booked by hand on one order of a buyer, and the buyer’s other orders', () => {
  bankWorkerForSuite('bank-hand-other');

  const today = () => new Date().toISOString().slice(0, 10);
  const transfers = (s: Seller) => bankTransfers<BankView>(s);
  const outcome = (r: BankView | undefined) => [r?.order_id ?? null, r?.match_rule ?? null, r?.unassigned_reason ?? null];

  async function transfer(s: Seller, bank: Record<string, string>): Promise<{ bank_id: string; is_order_paid: string }> {
    const res = await call('bank/transfer/', { token: s.token, body: { bank: { transfer_date: today(), ...bank } } });
    expect(res.status, res.text).to.equal(201);
    return res.body as { bank_id: string; is_order_paid: string };
  }
  async function setPaid(s: Seller, orderId: string, paidAmount: string) {
    const res = await call(`order/${orderId}/`, { token: s.token, body: { order: { paid_amount: paidAmount } } });
    expect(res.status, res.text).to.equal(200);
  }
  async function tasks(s: Seller): Promise<TaskView[]> {
    const res = await call(`task/?${query({ pagination: { limit: 100 } })}`, { token: s.token });
    expect(res.status, res.text).to.equal(200);
    return (res.body.task ?? []) as TaskView[];
  }

  it('when a transfer two orders of the payer fit is ambiguous and the seller books it by hand on one, then the re-match does not pay the other with it: the record stays unassigned as booked_by_hand', async () => {
    const s = await newSeller();
    const a = await orderPaidBy(s, '20.00', 'Petra Part');
    const b = await orderPaidBy(s, '20.00', 'Petra Part');
    const t = await transfer(s, { sender: 'Petra Part', subject: 'Danke', amount: '20.00' });
    expect(t.is_order_paid).to.equal('0');
    expect(outcome((await transfers(s)).find((r) => r.id === t.bank_id))).to.deep.equal([null, null, 'ambiguous']);

    await setPaid(s, a, '20.00');
    await rematchAll();

    expect((await readOrder(s, a)).paid_amount).to.equal('20.00');
    expect((await readOrder(s, b)).paid_amount).to.equal(null);
    expect(outcome((await transfers(s)).find((r) => r.id === t.bank_id))).to.deep.equal([null, null, 'booked_by_hand']);
  });

  it('when the seller books one order of the payer by hand and the client then posts that transfer (POST bank/transfer/), then it pays not the payer’s other order of the amount: is_order_paid 0, booked_by_hand', async () => {
    const s = await newSeller();
    const a = await orderPaidBy(s, '20.00', 'Petra Part');
    const b = await orderPaidBy(s, '20.00', 'Petra Part');
    await setPaid(s, a, '20.00');

    const t = await transfer(s, { sender: 'Petra Part', subject: 'Danke', amount: '20.00' });

    expect(t.is_order_paid).to.equal('0');
    expect(outcome((await transfers(s)).find((r) => r.id === t.bank_id))).to.deep.equal([null, null, 'booked_by_hand']);
    expect((await readOrder(s, a)).paid_amount).to.equal('20.00');
    expect((await readOrder(s, b)).paid_amount).to.equal(null);
  });

  it('when a transfer names by a bare number an order booked by hand with its money, then name and amount do not pay the payer’s other order with it', async () => {
    const s = await newSeller();
    // Order 1 stays open, so order 2's number is not the invoice number the hand booking may give it.
    await orderPaidBy(s, '5.00', 'Ida Jahn');
    const husband = await orderPaidBy(s, '20.00', 'Hans Part');
    const own = await orderPaidBy(s, '20.00', 'Petra Part');
    await setPaid(s, husband, '20.00');

    // "Rechnung 2" names order 2 by its number only (no invoice 2): weak evidence.
    const t = await transfer(s, { sender: 'Petra Part', subject: `Rechnung ${husband.split('_')[0]}`, amount: '20.00' });

    expect(t.is_order_paid).to.equal('0');
    expect(outcome((await transfers(s)).find((r) => r.id === t.bank_id))).to.deep.equal([null, null, 'booked_by_hand']);
    expect((await readOrder(s, own)).paid_amount).to.equal(null);
    expect((await readOrder(s, husband)).paid_amount).to.equal('20.00');
  });

  const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);

  it('when the seller creates another order of the payer today with clearly different money as paid_amount, then the payer’s transfer of an earlier day pays her open order by name and amount', async () => {
    const s = await newSeller();
    const open = await orderPaidBy(s, '20.00', 'Petra Part');
    const cash = await createOrder(s, {
      customer: { email: 'buyer@example.com', address: { name: 'Petra Part' } },
      line: [{ id: 1, price: '100.00', quantity: 1 }],
      paid_amount: '100.00',
    });

    const t = await transfer(s, { sender: 'Petra Part', subject: 'Danke', amount: '20.00', transfer_date: daysAgo(20) });

    expect(t.is_order_paid).to.equal('1');
    expect(outcome((await transfers(s)).find((r) => r.id === t.bank_id))).to.deep.equal([open, 'name_amount', null]);
    expect((await readOrder(s, open)).paid_amount).to.equal('20.00');
    expect((await readOrder(s, cash)).paid_amount).to.equal('100.00');
  });

  it('when the seller books clearly different money by hand on another order of the payer today, then the payer’s transfer of an earlier day pays her open order by name and amount', async () => {
    const s = await newSeller();
    const open = await orderPaidBy(s, '20.00', 'Petra Part');
    const cash = await orderPaidBy(s, '100.00', 'Petra Part');
    await setPaid(s, cash, '100.00');

    const t = await transfer(s, { sender: 'Petra Part', subject: 'Danke', amount: '20.00', transfer_date: daysAgo(20) });

    expect(t.is_order_paid).to.equal('1');
    expect(outcome((await transfers(s)).find((r) => r.id === t.bank_id))).to.deep.equal([open, 'name_amount', null]);
    expect((await readOrder(s, open)).paid_amount).to.equal('20.00');
  });

  it('when a transfer the seller had unassigned in view is not more than what they then book by hand on another order of the payer, then the re-match holds it as booked_by_hand rather than paying the payer’s open order (decision), whatever the script of the name', async () => {
    // Names folded to ASCII (an umlaut spelled out too), of another script, and without a word to search by.
    for (const name of ['Petra Part', 'Jürgen Müller', 'Γιώργος Παπαδόπουλος', '王小明']) {
      const s = await newSeller();
      // Stored before any order of the payer: no_match.
      const t = await transfer(s, { sender: name, subject: 'Anzahlung', amount: '20.00' });
      expect(t.is_order_paid, name).to.equal('0');
      const deposit = await orderPaidBy(s, '100.00', name);
      // 20.00 by that transfer and 80.00 in cash, booked as one sum.
      await setPaid(s, deposit, '100.00');
      const open = await orderPaidBy(s, '20.00', name);

      await rematchAll();

      expect(outcome((await transfers(s)).find((r) => r.id === t.bank_id)), name).to.deep.equal([null, null, 'booked_by_hand']);
      expect((await readOrder(s, open)).paid_amount, name).to.equal(null);
    }
  });

  it('when the bank reverses a credit held as booked by hand (naming the order), then the order keeps what the seller booked and the seller gets a high-priority task naming that order and telling to lower its paid_amount', async () => {
    const s = await newSeller();
    const anna = await orderPaidBy(s, '49.90', 'Anna Schmidt');
    const bernd = await orderPaidBy(s, '24.50', 'Bernd Bauer');
    const names = { ORDER_1: anna, ORDER_2: bernd };
    await setPaid(s, anna, '49.90');
    await importStatement(s, fixture('mt940-reversal-credits.sta', names));
    const held = (await transfers(s)).find((r) => r.sender === 'Anna Schmidt')!;
    expect(outcome(held)).to.deep.equal([null, null, 'booked_by_hand']);
    const before = await tasks(s);

    await importStatement(s, fixture('mt940-reversal.sta', names));

    expect((await transfers(s)).find((r) => r.id === held.id)).to.include({ status: 'reversed' });
    // Kontor does not lower it: the seller booked that money, Kontor cannot know it was this transfer.
    expect((await readOrder(s, anna)).paid_amount).to.equal('49.90');
    expect((await readOrder(s, bernd)).paid_amount).to.equal('0.00');
    const added = (await tasks(s)).slice(before.length);
    const own = added.filter((t) => t.reference.section === 'order');
    expect(own.map((t) => [t.priority, t.reference.id])).to.deep.equal([['high', anna]]);
    expect(own[0]!.text).to.include(`transfer ${held.id}`).and.to.include(`order ${anna}`).and.to.include('paid_amount');
    expect(added.map((t) => t.title).filter((title) => !title.includes(anna))).to.deep.equal(['Bank reversal of 10.00 EUR not tied to a transfer']);
  });

  it('when the bank reverses a credit held as booked by hand by the payer’s name (naming no order), then the task names the order the seller booked by hand, not the payer’s other order', async () => {
    const s = await newSeller();
    const booked = await orderPaidBy(s, '24.50', 'Bernd Bauer');
    const other = await orderPaidBy(s, '24.50', 'Bernd Bauer');
    const anna = await orderPaidBy(s, '49.90', 'Anna Schmidt');
    // Bernd's credit writes "Bestellung Danke": no order named.
    const names = { ORDER_1: anna, ORDER_2: 'Danke' };
    await setPaid(s, booked, '24.50');
    await importStatement(s, fixture('mt940-reversal-credits.sta', names));
    const held = (await transfers(s)).find((r) => r.sender === 'Bernd Bauer')!;
    expect(outcome(held)).to.deep.equal([null, null, 'booked_by_hand']);
    const before = await tasks(s);

    await importStatement(s, fixture('mt940-reversal.sta', names));

    expect((await readOrder(s, booked)).paid_amount).to.equal('24.50');
    expect((await readOrder(s, other)).paid_amount).to.equal(null);
    const own = (await tasks(s)).slice(before.length).filter((t) => t.reference.section === 'order' && t.text.includes(held.id));
    expect(own.map((t) => [t.priority, t.reference.id])).to.deep.equal([['high', booked]]);
    // Bank ids are shaped like order ids: the order as the text names it.
    expect(own[0]!.text).to.include(`order ${booked}`).and.not.to.include(`order ${other}`);
  });
});
