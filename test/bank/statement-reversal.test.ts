/**
 * A credit the bank reverses after it paid an order (MT940 mark RC, CAMT DBIT with RvslInd),
 * posted through POST bank/statement/ and matched by the bank worker: the payment comes off the
 * order it paid (and no other), the transfer is marked reversed, the seller gets a task where
 * the goods went already or the reversal names no one transfer, and a re-import takes nothing
 * back twice. Fixtures written for Kontor (test/bank/fixtures/*reversal*).
 */
import { expect } from 'chai';
import { db } from '../../lib/db/knex';
import { backfillBankAcrossFormats } from '../../lib/db/migrations/20261127_2300_bank_across_formats_backfill';
import { backfillBankLegacyKeyIban } from '../../lib/db/migrations/20261127_2320_bank_legacy_key_iban';
import { call, newSeller, query, Seller } from '../support/api';
import { clientToken } from '../support/bound-client';
import { readOrder } from '../order/helpers';
import { bankTransfers, importStatement, orderPaidBy, bankWorkerForSuite } from './bank-worker';
import { fixture } from './fixtures';

interface BankView {
  id: string;
  sender: string;
  amount: string;
  status: string | null;
  order_id?: string;
}

interface TaskView {
  title: string;
  priority: string;
  reference: { section: string; id: string };
}

describe('bank: a credit reversed by the bank after it paid an order', () => {
  bankWorkerForSuite('bank-reversal');

  const transfers = (s: Seller) => bankTransfers<BankView>(s);

  async function tasks(s: Seller): Promise<TaskView[]> {
    const res = await call(`task/?${query({ pagination: { limit: 100 } })}`, { token: s.token });
    expect(res.status, res.text).to.equal(200);
    return (res.body.task ?? []) as TaskView[];
  }

  const reversedLines = (history: string[]) => history.filter((h) => /reversed by the bank/.test(h));

  /** Anna's order of 49.90 and Bernd's of 24.50, the reversal fixtures' ORDER_1 and ORDER_2. */
  async function annaAndBernd(s: Seller) {
    const anna = await orderPaidBy(s, '49.90', 'Anna Schmidt');
    const bernd = await orderPaidBy(s, '24.50', 'Bernd Bauer');
    const paid = async () => [(await readOrder(s, anna)).paid_amount, (await readOrder(s, bernd)).paid_amount];
    return { anna, bernd, names: { ORDER_1: anna, ORDER_2: bernd }, paid };
  }

  /** A reversal fixture as another statement account's (its :25: replaced). */
  const ofAccount = (file: string, names: Record<string, string>, account: string) =>
    Buffer.from(fixture(file, names).toString('latin1').replace(':25:37040044/0532013000', `:25:${account}`), 'latin1');

  it('when an MT940 statement reverses (RC) the credits that paid two orders, one shipped, then both are owed again, the shipped one gives a task, and a reversal of no known credit gives a task and touches nothing', async () => {
    const s = await newSeller();
    const anna = await orderPaidBy(s, '49.90', 'Anna Schmidt');
    const bernd = await orderPaidBy(s, '24.50', 'Bernd Bauer');
    const bystander = await orderPaidBy(s, '10.00', 'Carla Unbekannt');
    const names = { ORDER_1: anna, ORDER_2: bernd };
    await importStatement(s, fixture('mt940-reversal-credits.sta', names));
    expect((await readOrder(s, anna)).paid_amount).to.equal('49.90');
    expect((await readOrder(s, bernd)).paid_amount).to.equal('24.50');
    const shipped = await call(`order/${anna}/`, { token: s.token, body: { order: { status: { is_shipped: true } } } });
    expect(shipped.status, shipped.text).to.equal(200);
    const before = await tasks(s);

    const answer = await importStatement(s, fixture('mt940-reversal.sta', names));
    expect(answer).to.deep.include({ entries: 0, stored: 0, debits: 3, returns: 0 });

    const annaNow = await readOrder(s, anna);
    expect(annaNow.paid_amount).to.equal('0.00');
    expect(annaNow.status).to.include({ is_paid: false, paid_date: null, is_shipped: true });
    const rows = await transfers(s);
    const annaTransfer = rows.find((r) => r.sender === 'Anna Schmidt')!;
    expect(reversedLines(annaNow.history)).to.deep.equal([`payment 49.90 reversed by the bank: bank transfer ${annaTransfer.id} taken back`]);
    const berndNow = await readOrder(s, bernd);
    expect(berndNow.paid_amount).to.equal('0.00');
    expect(berndNow.status.is_paid).to.equal(false);
    expect(reversedLines(berndNow.history)).to.have.length(1);
    // The reversal of 10.00 from a payer the bank never credited here takes nothing off her order.
    const untouched = await readOrder(s, bystander);
    expect(untouched.paid_amount).to.equal(null);
    expect(reversedLines(untouched.history)).to.deep.equal([]);
    // Both transfers stay with the orders they paid, marked reversed.
    expect(rows.map((r) => [r.sender, r.amount, r.order_id, r.status]).sort()).to.deep.equal([
      ['Anna Schmidt', '49.90', anna, 'reversed'],
      ['Bernd Bauer', '24.50', bernd, 'reversed'],
    ]);
    const added = (await tasks(s)).slice(before.length);
    expect(added.map((t) => [t.title, t.priority, t.reference.section, t.reference.id]).sort()).to.deep.equal([
      ['Bank reversal of 10.00 EUR not tied to a transfer', 'high', 'bank', ''],
      [`Payment of shipped order ${anna} reversed by the bank`, 'high', 'order', anna],
    ]);

    // The same file again takes nothing back twice and gives no task again.
    const again = await importStatement(s, fixture('mt940-reversal.sta', names));
    expect(again).to.deep.include({ entries: 0, stored: 0, debits: 3 });
    expect(reversedLines((await readOrder(s, anna)).history)).to.have.length(1);
    expect((await readOrder(s, bernd)).paid_amount).to.equal('0.00');
    expect(await tasks(s)).to.have.length(before.length + 2);
  });

  it('when the statement with the reversals is imported before the one with the credits they reverse, then those credits are stored reversed, pay no order, and a re-import of either changes nothing', async () => {
    const s = await newSeller();
    const anna = await orderPaidBy(s, '49.90', 'Anna Schmidt');
    const bernd = await orderPaidBy(s, '24.50', 'Bernd Bauer');
    const names = { ORDER_1: anna, ORDER_2: bernd };
    const reversals = await importStatement(s, fixture('mt940-reversal.sta', names));
    expect(reversals).to.deep.include({ entries: 0, stored: 0, debits: 3 });
    const waiting = await tasks(s);
    expect(waiting.map((t) => t.title).sort()).to.deep.equal([
      'Bank reversal of 10.00 EUR not tied to a transfer',
      'Bank reversal of 24.50 EUR not tied to a transfer',
      'Bank reversal of 49.90 EUR not tied to a transfer',
    ]);

    const credits = await importStatement(s, fixture('mt940-reversal-credits.sta', names));
    expect(credits).to.deep.include({ entries: 2, stored: 2 });
    for (const id of [anna, bernd]) {
      const order = await readOrder(s, id);
      expect(order.paid_amount, id).to.equal(null);
      expect(order.status.is_paid, id).to.equal(false);
    }
    expect((await transfers(s)).map((r) => [r.sender, r.amount, r.order_id ?? null, r.status]).sort()).to.deep.equal([
      ['Anna Schmidt', '49.90', null, 'reversed'],
      ['Bernd Bauer', '24.50', null, 'reversed'],
    ]);

    await importStatement(s, fixture('mt940-reversal.sta', names));
    await importStatement(s, fixture('mt940-reversal-credits.sta', names));
    expect((await readOrder(s, anna)).paid_amount).to.equal(null);
    expect((await readOrder(s, bernd)).paid_amount).to.equal(null);
    expect(await transfers(s)).to.have.length(2);
    expect(await tasks(s)).to.have.length(3);
  });

  it('when a client books by hand (POST bank/transfer/) the credits of reversals kept from an earlier statement, then each is stored reversed and pays no order, and a transfer of another payer or a later day still pays its order', async () => {
    const s = await newSeller();
    const anna = await orderPaidBy(s, '49.90', 'Anna Schmidt');
    const bernd = await orderPaidBy(s, '24.50', 'Bernd Bauer');
    const other = await orderPaidBy(s, '24.50', 'Olga Andere');
    const names = { ORDER_1: anna, ORDER_2: bernd };
    await importStatement(s, fixture('mt940-reversal.sta', names));
    const post = async (bank: Record<string, string>) => {
      const res = await call('bank/transfer/', { token: s.token, body: { bank } });
      expect(res.status, res.text).to.equal(201);
      return res.body as { bank_id: string; is_order_paid: string };
    };
    // Bernd's reversal names no reference: his transfer as the statement wrote it (payer, text, day) is the one reversed.
    const berndPosted = await post({ transfer_date: '2026-11-20', sender: 'Bernd Bauer', subject: `Bestellung ${bernd}`, amount: '24.50' });
    // Anna's names her end-to-end id, which a transfer booked by hand cannot carry: her payer and text tie it.
    const annaPosted = await post({ transfer_date: '2026-11-20', sender: 'Anna Schmidt', subject: `Bestellung ${anna}`, amount: '49.90' });
    expect([berndPosted.is_order_paid, annaPosted.is_order_paid]).to.deep.equal(['0', '0']);
    // Another payer's transfer of the amount is a payment.
    expect((await post({ transfer_date: '2026-11-21', sender: 'Olga Andere', subject: `Bestellung ${other}`, amount: '24.50' })).is_order_paid).to.equal('1');
    for (const id of [anna, bernd]) expect((await readOrder(s, id)).paid_amount, id).to.equal(null);
    expect((await readOrder(s, other)).paid_amount).to.equal('24.50');
    expect(
      (await transfers(s))
        .map((r) => [r.id, r.status])
        .filter(([, status]) => status === 'reversed')
        .sort(),
    ).to.deep.equal(
      [
        [annaPosted.bank_id, 'reversed'],
        [berndPosted.bank_id, 'reversed'],
      ].sort(),
    );
    // Bernd's reversal is tied once: his payment booked after the reversal's day pays his order.
    const later = await post({ transfer_date: '2026-11-24', sender: 'Bernd Bauer', subject: `Bestellung ${bernd}`, amount: '24.50' });
    expect(later.is_order_paid).to.equal('1');
    expect((await readOrder(s, bernd)).paid_amount).to.equal('24.50');
  });

  it("when a statement reverses a credit by its end-to-end id and the payer's earlier rate of the same amount and text was booked by hand, then the credit with that id is the one taken back, before and after its own statement, and the rate booked by hand still pays", async () => {
    /** Anna pays her order of 99.80 in two rates of 49.90 with one text; the first the client booked by hand. */
    const annaWithRate = async (s: Seller) => {
      const anna = await orderPaidBy(s, '99.80', 'Anna Schmidt');
      const rate = await call('bank/transfer/', {
        token: s.token,
        body: { bank: { transfer_date: '2026-11-10', sender: 'Anna Schmidt', subject: `Bestellung ${anna}`, amount: '49.90' } },
      });
      expect(rate.status, rate.text).to.equal(201);
      expect(rate.body.is_order_paid).to.equal('1');
      return { anna, rate: rate.body.bank_id as string, names: { ORDER_1: anna, ORDER_2: await orderPaidBy(s, '24.50', 'Bernd Bauer') } };
    };
    const reversed = async (s: Seller) => (await transfers(s)).filter((r) => r.status === 'reversed' && r.sender === 'Anna Schmidt').map((r) => r.id);

    // The credit's statement first: its reversal (E2E-ANNA-1) takes that credit back.
    const s = await newSeller();
    const first = await annaWithRate(s);
    await importStatement(s, fixture('mt940-reversal-credits.sta', first.names));
    expect((await readOrder(s, first.anna)).paid_amount).to.equal('99.80');
    await importStatement(s, fixture('mt940-reversal.sta', first.names));
    expect((await readOrder(s, first.anna)).paid_amount).to.equal('49.90');
    const [credit] = (await reversed(s)).filter((id) => id !== first.rate);
    expect(await reversed(s)).to.deep.equal([credit]);

    // The reversal's statement first: it waits for its credit, and the rate booked by hand is left paying.
    const t = await newSeller();
    const second = await annaWithRate(t);
    await importStatement(t, fixture('mt940-reversal.sta', second.names));
    expect((await readOrder(t, second.anna)).paid_amount).to.equal('49.90');
    expect(await reversed(t)).to.deep.equal([]);
    await importStatement(t, fixture('mt940-reversal-credits.sta', second.names));
    expect((await readOrder(t, second.anna)).paid_amount).to.equal('49.90');
    const reversedNow = await reversed(t);
    expect(reversedNow).to.have.length(1);
    expect(reversedNow).to.not.include(second.rate);
  });

  it("when the seller's other bank account reverses credits of the same payers, amounts and texts, then the credits of this account still pay their orders and the reversals wait for their own", async () => {
    const s = await newSeller();
    const { names, paid } = await annaAndBernd(s);
    // The credits booked on the seller's second account (its IBAN in :25:); the reversals are of the first (BLZ 37040044).
    await importStatement(s, ofAccount('mt940-reversal-credits.sta', names, 'DE75512108001245126199'));
    await importStatement(s, fixture('mt940-reversal.sta', names));
    expect(await paid()).to.deep.equal(['49.90', '24.50']);
    expect((await transfers(s)).map((r) => r.status)).to.deep.equal([null, null]);
    // Their own credits, imported later, are the ones reversed.
    await importStatement(s, fixture('mt940-reversal-credits.sta', names));
    expect((await transfers(s)).map((r) => r.status).sort()).to.deep.equal([null, null, 'reversed', 'reversed']);
    expect(await paid()).to.deep.equal(['49.90', '24.50']);
  });

  it("when the seller's other bank account reverses credits of the same payers, amounts and texts that this account's statement stored before the keys named their format (1870e39), then after the migrations those credits still pay their orders", async () => {
    const s = await newSeller();
    const { names, paid } = await annaAndBernd(s);
    await importStatement(s, ofAccount('mt940-reversal-credits.sta', names, 'DE75512108001245126199'));
    // The records as an import before 1870e39 left them: the key of before (account, statement, bank reference, position, amount, day), no IBAN.
    await db().raw(
      `UPDATE bank SET entry_ref = 'DE75512108001245126199|00100/001||' || number || '|' || amount || '|2026-11-20', account_iban = NULL, end_to_end_id = NULL
       WHERE account_id = ?`,
      [s.id],
    );
    await backfillBankAcrossFormats(db());
    await backfillBankLegacyKeyIban(db());
    await importStatement(s, fixture('mt940-reversal.sta', names));
    expect(await paid()).to.deep.equal(['49.90', '24.50']);
    expect((await transfers(s)).map((r) => r.status)).to.deep.equal([null, null]);
    expect(await backfillBankLegacyKeyIban(db())).to.equal(0);
  });

  it("when the seller's other bank account, one whose :25: names no IBAN, reverses or books credits of the same payers, amounts and texts, then the credits of the one account are not taken back by the other's reversals", async () => {
    for (const [credits, reversals] of [
      ['1700.59.308EUR', '37040044/0532013000'],
      ['DE75512108001245126199', '1700.59.308EUR'],
      ['1700.59.308EUR', '3000.91.494EUR'],
    ]) {
      const s = await newSeller();
      const { names, paid } = await annaAndBernd(s);
      await importStatement(s, ofAccount('mt940-reversal-credits.sta', names, credits!));
      await importStatement(s, ofAccount('mt940-reversal.sta', names, reversals!));
      expect(await paid(), `${credits} reversed by ${reversals}`).to.deep.equal(['49.90', '24.50']);
      expect((await transfers(s)).map((r) => r.status)).to.deep.equal([null, null]);
      // The reversals' own credits, imported later, are the ones reversed.
      await importStatement(s, ofAccount('mt940-reversal-credits.sta', names, reversals!));
      expect((await transfers(s)).map((r) => r.status).sort()).to.deep.equal([null, null, 'reversed', 'reversed']);
    }
  });

  it('when a camt.053 reverses (DBIT, RvslInd) one part payment, a credit in the same statement and one of two equal gifts, then only that part comes off, the credit reversed at once pays nothing, and the gift gives a task', async () => {
    const s = await newSeller();
    const clara = await orderPaidBy(s, '60.00', 'Clara Vogel');
    const dieter = await orderPaidBy(s, '30.00', 'Dieter Wolf');
    const names = { ORDER_1: clara, ORDER_2: dieter };
    const first = await importStatement(s, fixture('camt053-reversal-credits.xml', names));
    expect(first).to.deep.include({ entries: 5, stored: 5, debits: 1 });
    const claraPaid = await readOrder(s, clara);
    expect(claraPaid.paid_amount).to.equal('60.00');
    // Dieter's transfer was reversed in the statement that booked it: never his payment.
    const dieterNow = await readOrder(s, dieter);
    expect(dieterNow.paid_amount).to.equal(null);
    expect(dieterNow.status.is_paid).to.equal(false);
    const afterFirst = await transfers(s);
    expect(afterFirst.filter((r) => r.sender === 'Dieter Wolf').map((r) => [r.amount, r.order_id, r.status])).to.deep.equal([['30.00', undefined, 'reversed']]);
    const before = await tasks(s);

    const answer = await importStatement(s, fixture('camt053-reversal.xml', names));
    expect(answer).to.deep.include({ entries: 0, stored: 0, debits: 2 });
    const claraNow = await readOrder(s, clara);
    expect(claraNow.paid_amount).to.equal('20.00');
    expect(claraNow.status.is_paid).to.equal(true);
    expect(claraNow.status.paid_date).to.equal(claraPaid.status.paid_date);
    const rows = await transfers(s);
    const part1 = rows.find((r) => r.sender === 'Clara Vogel' && r.amount === '40.00')!;
    expect(reversedLines(claraNow.history)).to.deep.equal([`payment 40.00 reversed by the bank: bank transfer ${part1.id} taken back`]);
    expect(rows.map((r) => [r.sender, r.amount, r.order_id ?? null, r.status]).sort()).to.deep.equal([
      ['Clara Vogel', '20.00', clara, null],
      ['Clara Vogel', '40.00', clara, 'reversed'],
      ['Dieter Wolf', '30.00', null, 'reversed'],
      ['Eva Engel', '15.00', null, null],
      ['Eva Engel', '15.00', null, null],
    ]);
    const added = (await tasks(s)).slice(before.length);
    expect(added.map((t) => [t.title, t.reference.section])).to.deep.equal([['Bank reversal of 15.00 EUR not tied to a transfer', 'bank']]);

    await importStatement(s, fixture('camt053-reversal.xml', names));
    expect((await readOrder(s, clara)).paid_amount).to.equal('20.00');
    expect(await tasks(s)).to.have.length(before.length + 1);
  });

  it("when a client bound to one portal account books or imports a credit of the amount of a reversal the seller's statement kept because two transfers fit it, one the client does not see, then the client's transfer that paid its order is not taken for the reversed one, and where only the client's transfer fits it is", async () => {
    const bernd = { transfer_date: '2026-11-20', sender: 'Bernd Bauer', subject: 'Bestellung keine', amount: '24.50' };
    const post = async (token: string, bank: Record<string, string>) => {
      const res = await call('bank/transfer/', { token, body: { bank } });
      expect(res.status, res.text).to.equal(201);
      return res.body as { bank_id: string; is_order_paid: string };
    };
    /** A new credit of 24.50 brought by the bound client: booked by hand (Olga's), or a statement of the seller's other bank account (Bernd's there). */
    const ways = {
      post: (s: Seller, bound: string) => post(bound, { ...bernd, transfer_date: '2026-11-22', sender: 'Olga Andere' }),
      import: (s: Seller, bound: string) =>
        importStatement(s, ofAccount('mt940-reversal-credits.sta', { ORDER_1: 'keine', ORDER_2: 'keine' }, 'DE75512108001245126199'), bound),
    };
    for (const [way, bring] of Object.entries(ways)) {
      const s = await newSeller();
      const bound = await clientToken(s, `bank-reversal-kept-${way}`, s.portalAccountId, 'bank_r bank_w order_r');
      // The seller's own transfer of Bernd's, booked before his order: it pays nothing, and the client does not see it.
      expect((await post(s.token, bernd)).is_order_paid).to.equal('0');
      const order = await orderPaidBy(s, '24.50', 'Bernd Bauer');
      // The client's, of the same payer, text and amount a day later: it pays his order (his name, the amount owed).
      const clients = await post(bound, { ...bernd, transfer_date: '2026-11-21' });
      expect(clients.is_order_paid).to.equal('1');
      // Bernd's reversal (no reference: his payer and text) fits both: nothing taken, kept, a task.
      await importStatement(s, fixture('mt940-reversal.sta', { ORDER_1: 'keine', ORDER_2: 'keine' }));
      expect((await readOrder(s, order)).paid_amount).to.equal('24.50');
      const reversalTasks = async () => (await tasks(s)).map((t) => t.title).filter((t) => /reversal/i.test(t));
      const before = await reversalTasks();
      expect(before).to.include('Bank reversal of 24.50 EUR not tied to a transfer');

      await bring(s, bound);
      expect((await readOrder(s, order)).paid_amount, way).to.equal('24.50');
      expect(reversedLines((await readOrder(s, order)).history), way).to.deep.equal([]);
      expect(
        (await transfers(s)).filter((r) => r.status === 'reversed'),
        way,
      ).to.deep.equal([]);
      expect(await reversalTasks(), way).to.deep.equal(before);
    }

    // The control: the seller's reversal fits no transfer yet, then only the one the client books or imports; that one is it.
    for (const [way, credit] of Object.entries({
      post: (s: Seller, bound: string) => post(bound, bernd),
      import: (s: Seller, bound: string) => importStatement(s, fixture('mt940-reversal-credits.sta', { ORDER_1: 'keine', ORDER_2: 'keine' }), bound),
    })) {
      const s = await newSeller();
      const bound = await clientToken(s, `bank-reversal-kept-one-${way}`, s.portalAccountId, 'bank_r bank_w order_r');
      const order = await orderPaidBy(s, '24.50', 'Bernd Bauer');
      await importStatement(s, fixture('mt940-reversal.sta', { ORDER_1: 'keine', ORDER_2: 'keine' }));
      await credit(s, bound);
      expect((await readOrder(s, order)).paid_amount, way).to.equal(null);
      expect(
        (await transfers(s)).map((r) => [r.sender, r.status]),
        way,
      ).to.deep.include(['Bernd Bauer', 'reversed']);
    }
  });
});
