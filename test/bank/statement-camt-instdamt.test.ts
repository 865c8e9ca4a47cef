/**
 * A camt.053 batch entry whose payments give their amount only as the instructed amount
 * (TxDtls/AmtDtls/InstdAmt/Amt, ISO 20022 AmountAndCurrencyExchange; no TxDtls/Amt, no
 * AmtDtls/TxAmt), as German banks' camt reports write a payment's amount: read as the payment's
 * amount where it is in the entry's currency; where not, the payment is not read, and the seller
 * gets a task instead of the whole file being refused (lib/bank README, CAMT "Payments"). Posted
 * through POST bank/statement/ and matched by the bank worker: the answer, the transfers, the
 * orders and the tasks afterwards. Files written by hand for these tests.
 */
import { expect } from 'chai';
import { readOrder } from '../order/helpers';
import { call, newSeller, query, Seller } from '../support/api';
import { bankTransfers, bankWorkerForSuite, importStatement, orderPaidBy } from './bank-worker';
import { camtStatement } from './camt-statement';

interface BankView {
  sender: string;
  amount: string;
  currency_id?: string;
  status: string | null;
  order_id?: string;
}

interface TaskView {
  title: string;
  text: string;
  priority: string;
  reference: { section: string };
}

/** A payment of a batch: its amount as InstdAmt only (default), TxAmt, or both. */
function tx(payer: string, text: string, amount: { instructed?: string; booked?: string }): string {
  const instructed = amount.instructed ? `<InstdAmt><Amt Ccy="${amount.instructed.split(' ')[1]}">${amount.instructed.split(' ')[0]}</Amt></InstdAmt>` : '';
  const booked = amount.booked ? `<TxAmt><Amt Ccy="EUR">${amount.booked}</Amt></TxAmt>` : '';
  return `
          <TxDtls>
            <Refs><EndToEndId>NOTPROVIDED</EndToEndId></Refs>
            <AmtDtls>${instructed}${booked}</AmtDtls>
            <RltdPties><Dbtr><Nm>${payer}</Nm></Dbtr></RltdPties>
            <RmtInf><Ustrd>${text}</Ustrd></RmtInf>
          </TxDtls>`;
}

/** A booked entry of the EUR account: a credit, or a reversal (DBIT with RvslInd); `payments` its TxDtls. */
function entry(ref: string, amount: string, side: 'credit' | 'reversal', payments: string[], day = '2026-11-27'): string {
  return `
      <Ntry>
        <Amt Ccy="EUR">${amount}</Amt>${side === 'credit' ? '<CdtDbtInd>CRDT</CdtDbtInd>' : '<CdtDbtInd>DBIT</CdtDbtInd><RvslInd>true</RvslInd>'}
        <Sts>BOOK</Sts><BookgDt><Dt>${day}</Dt></BookgDt><ValDt><Dt>${day}</Dt></ValDt>
        <AcctSvcrRef>${ref}</AcctSvcrRef>
        <BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RCDT</Cd><SubFmlyCd>ESCT</SubFmlyCd></Fmly></Domn></BkTxCd>
        <NtryDtls>${payments.length > 1 ? `<Btch><NbOfTxs>${payments.length}</NbOfTxs></Btch>` : ''}${payments.join('')}
        </NtryDtls>
      </Ntry>`;
}

const camt = (id: string, entries: string[]) => camtStatement(id, entries, '2026-11-28T18:00:00+01:00');

const single = (ref: string, amount: string, payer: string, text: string) => entry(ref, amount, 'credit', [tx(payer, text, {})]);

/** A payment of a batch whose instructed amount carries charges (TxDtls/Chrgs): ISO 20022's InstdAmt is "before deduction of charges". */
function charged(payer: string, text: string, instructed: string, charges: string): string {
  return `
          <TxDtls>
            <Refs><EndToEndId>NOTPROVIDED</EndToEndId></Refs>
            <AmtDtls><InstdAmt><Amt Ccy="EUR">${instructed}</Amt></InstdAmt></AmtDtls>
            <Chrgs><Amt Ccy="EUR">${charges}</Amt></Chrgs>
            <RltdPties><Dbtr><Nm>${payer}</Nm></Dbtr></RltdPties>
            <RmtInf><Ustrd>${text}</Ustrd></RmtInf>
          </TxDtls>`;
}

describe('bank: a camt.053 batch whose payments give only the instructed amount (AmtDtls/InstdAmt)', () => {
  bankWorkerForSuite('bank-camt-instdamt');

  const paid = async (s: Seller, ...orders: string[]) => {
    const amounts: (string | null)[] = [];
    for (const o of orders) amounts.push((await readOrder(s, o)).paid_amount);
    return amounts;
  };
  async function tasks(s: Seller): Promise<TaskView[]> {
    const res = await call(`task/?${query({ pagination: { limit: 100 } })}`, { token: s.token });
    expect(res.status, res.text).to.equal(200);
    return (res.body.task ?? []) as TaskView[];
  }

  it("when a reversal batch (DBIT with RvslInd) gives its payments' amounts in the entry's currency as InstdAmt only, then the file is read: the day's credit pays its order and the two credits it reverses come off theirs", async () => {
    const s = await newSeller();
    const carls = await orderPaidBy(s, '10.00', 'Carl Clausen');
    const doras = await orderPaidBy(s, '20.00', 'Dora Dietz');
    const annas = await orderPaidBy(s, '49.90', 'Anna Meier');
    await importStatement(s, camt('CREDITS', [single('R-1', '10.00', 'Carl Clausen', 'Danke'), single('R-2', '20.00', 'Dora Dietz', 'Danke')]));
    expect(await paid(s, carls, doras)).to.deep.equal(['10.00', '20.00']);
    const file = camt('NEXT-DAY', [
      single('R-3', '49.90', 'Anna Meier', 'Danke'),
      entry(
        'R-4',
        '30.00',
        'reversal',
        [tx('Carl Clausen', 'Danke', { instructed: '10.00 EUR' }), tx('Dora Dietz', 'Danke', { instructed: '20.00 EUR' })],
        '2026-11-28',
      ),
    ]);
    // Answered 202 with its bank.match job (importStatement waits for it), no longer 400.
    expect(await importStatement(s, file)).to.include({ entries: 1, stored: 1, debits: 1 });
    expect(await importStatement(s, file)).to.include({ entries: 1, stored: 0, duplicates: 1 });
    const rows = await bankTransfers<BankView>(s);
    expect(rows.map((r) => [r.sender, r.amount, r.status]).sort()).to.deep.equal([
      ['Anna Meier', '49.90', null],
      ['Carl Clausen', '10.00', 'reversed'],
      ['Dora Dietz', '20.00', 'reversed'],
    ]);
    expect((await readOrder(s, annas)).paid_amount).to.equal('49.90');
    expect((await readOrder(s, carls)).status.is_paid).to.equal(false);
    expect((await readOrder(s, doras)).status.is_paid).to.equal(false);
  });

  it("when a credit batch gives its payments' amounts in the entry's currency as InstdAmt only, then each payment is a transfer of its amount and pays its order", async () => {
    const s = await newSeller();
    const carls = await orderPaidBy(s, '10.00', 'Carl Clausen');
    const doras = await orderPaidBy(s, '20.00', 'Dora Dietz');
    const res = await importStatement(
      s,
      camt('BATCH', [
        entry('R-1', '30.00', 'credit', [tx('Carl Clausen', 'Danke', { instructed: '10.00 EUR' }), tx('Dora Dietz', 'Danke', { instructed: '20.00 EUR' })]),
      ]),
    );
    expect(res).to.include({ entries: 2, stored: 2, debits: 0 });
    const rows = await bankTransfers<BankView>(s);
    expect(rows.map((r) => [r.sender, r.amount, r.order_id]).sort()).to.deep.equal([
      ['Carl Clausen', '10.00', carls],
      ['Dora Dietz', '20.00', doras],
    ]);
    expect(await paid(s, carls, doras)).to.deep.equal(['10.00', '20.00']);
  });

  for (const { what, payments, why } of [
    {
      what: 'whose payments carry charges (TxDtls/Chrgs)',
      payments: [charged('Anna Meier', 'Danke', '50.00', '1.00'), charged('Bernd Brot', 'Danke', '50.00', '1.00')],
      why: 'charges',
    },
    {
      what: 'whose instructed amounts add up to more than the entry booked',
      payments: [tx('Anna Meier', 'Danke', { instructed: '50.00 EUR' }), tx('Bernd Brot', 'Danke', { instructed: '50.00 EUR' })],
      why: '100.00 EUR',
    },
  ]) {
    it(`when a credit batch of 98.00 EUR gives two payments of 50.00 EUR instructed ${what}, then no money the account did not receive is booked: neither is read, the orders stay unpaid, and the seller gets a task`, async () => {
      const s = await newSeller();
      const annas = await orderPaidBy(s, '50.00', 'Anna Meier');
      const bernds = await orderPaidBy(s, '50.00', 'Bernd Brot');
      const carls = await orderPaidBy(s, '49.90', 'Carl Clausen');
      const file = camt('CHARGED', [entry('R-1', '98.00', 'credit', payments), single('R-2', '49.90', 'Carl Clausen', 'Danke')]);
      expect(await importStatement(s, file)).to.include({ entries: 1, stored: 1, debits: 2 });
      const rows = await bankTransfers<BankView>(s);
      expect(rows.map((r) => [r.sender, r.amount])).to.deep.equal([['Carl Clausen', '49.90']]);
      expect(await paid(s, annas, bernds, carls)).to.deep.equal([null, null, '49.90']);
      const given = (await tasks(s)).map((t) => ({ title: t.title, priority: t.priority, text: t.text }));
      expect(given.map((t) => [t.title, t.priority])).to.deep.equal([['Bank batch credit of 98.00 EUR: 2 payments not read', 'high']]);
      expect(given[0]!.text).to.include('Anna Meier (50.00 EUR instructed)').and.to.include(why).and.to.include('POST bank/transfer/');
    });
  }

  it('when a payment of a batch gives only an instructed amount in another currency than the entry, then the rest of the file is read, that payment is not, and the seller gets a task for it once', async () => {
    const s = await newSeller();
    const carls = await orderPaidBy(s, '10.00', 'Carl Clausen');
    const annas = await orderPaidBy(s, '49.90', 'Anna Meier');
    const file = camt('FOREIGN', [
      // Carl's 10.00 EUR booked (TxAmt) beside Zoe's 25.00 CHF instructed, booked in EUR at a rate the file does not give.
      entry('R-1', '33.40', 'credit', [tx('Carl Clausen', 'Danke', { booked: '10.00' }), tx('Zoe Zaugg', 'Rechnung 7', { instructed: '25.00 CHF' })]),
      single('R-2', '49.90', 'Anna Meier', 'Danke'),
      entry('R-3', '40.00', 'reversal', [tx('Urs Ulrich', 'Danke', { instructed: '19.00 CHF' }), tx('Vera Vogt', 'Danke', { instructed: '21.00 CHF' })]),
    ]);
    // Zoe's payment counted with the debits, as the reversal batch is.
    expect(await importStatement(s, file)).to.include({ entries: 2, stored: 2, debits: 2 });
    expect(await importStatement(s, file)).to.include({ entries: 2, stored: 0, debits: 2 });
    const rows = await bankTransfers<BankView>(s);
    expect(rows.map((r) => [r.sender, r.amount]).sort()).to.deep.equal([
      ['Anna Meier', '49.90'],
      ['Carl Clausen', '10.00'],
    ]);
    expect(await paid(s, carls, annas)).to.deep.equal(['10.00', '49.90']);
    const given = (await tasks(s)).map((t) => ({ title: t.title, priority: t.priority, section: t.reference.section, text: t.text }));
    expect(given.map(({ text: _text, ...t }) => t).sort((a, b) => a.title.localeCompare(b.title))).to.deep.equal([
      { title: 'Bank batch credit of 33.40 EUR: 1 payment not read', priority: 'high', section: 'bank' },
      { title: 'Bank batch reversal of 40.00 EUR: 2 payments not read', priority: 'high', section: 'bank' },
    ]);
    const credit = given.find((t) => t.title.startsWith('Bank batch credit'))!.text;
    expect(credit).to.include('2026-11-27').and.to.include('Zoe Zaugg (25.00 CHF instructed)').and.to.include('POST bank/transfer/');
    const reversal = given.find((t) => t.title.startsWith('Bank batch reversal'))!.text;
    expect(reversal).to.include('Urs Ulrich (19.00 CHF instructed)').and.to.include('Vera Vogt (21.00 CHF instructed)').and.to.include('paid_amount');
  });
});
