/**
 * What keeps a booking from being stored twice when a statement comes again in another shape: an
 * MT940 statement downloaded during the day and again at its end with a booking inserted before
 * the last ones (or sorted otherwise), a CAMT statement split over two files (MsgPgntn) whose
 * entries carry no bank reference, and files imported before the keys changed
 * (lib/bank/statement/entry-key.ts). Posted through POST bank/statement/ and matched by the bank
 * worker: the answer's counts, the transfers stored and the orders' paid_amount afterwards.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { db } from '../../lib/db/knex';
import { parseStatement } from '../../lib/bank/statement/statement.parse';
import { newSeller, Seller } from '../support/api';
import { readOrder } from '../order/helpers';
import { bankTransfers, importStatement, orderPaidBy, bankWorkerForSuite } from './bank-worker';

interface BankView {
  sender: string;
  amount: string;
  order_id?: string;
}

const sample = (dir: string, name: string) => readFileSync(path.resolve(__dirname, '../../../shared/samples/bank', dir, name));

describe('bank: a booking is stored once however its statement comes again', () => {
  bankWorkerForSuite('bank-keys');

  const transfers = async (s: Seller) => (await bankTransfers<BankView>(s)).map((r) => [r.sender, r.amount, r.order_id]);

  /** The orders' paid_amount, read one after another (one call of an account at a time). */
  async function paid(s: Seller, ...orders: string[]): Promise<(string | null)[]> {
    const amounts: (string | null)[] = [];
    for (const o of orders) amounts.push((await readOrder(s, o)).paid_amount);
    return amounts;
  }

  const counts = (entries: number, stored: number) => ({
    entries,
    stored,
    duplicates: entries - stored,
    debits: 0,
    returns: 0,
    unbooked: 0,
  });

  it('when an MT940 statement is imported during the day and again at its end with a booking inserted before the last ones, then only the new bookings are stored and no order is paid twice', async () => {
    const s = await newSeller();
    const full = await orderPaidBy(s, '24.50', 'Erika Muster');
    const part = await orderPaidBy(s, '100.00', 'Juergen Mueller');
    const later = await orderPaidBy(s, '30.00', 'Paul Klee');
    const lines = {
      // With the bank's reference after //.
      a: [':61:2611201120C24,50NTRFNONREF//2611200001', `:86:166?00GUTSCHR. UEBERWEISUNG?20Bestellung ${full}?32Erika Muster`],
      b: [':61:2611201120C40,00NTRFNONREF', `:86:166?00GUTSCHR. UEBERWEISUNG?20Anzahlung Bestellung ${part}?32Juergen Mueller`],
      inserted: [':61:2611201120C30,00NTRFNONREF', `:86:166?00GUTSCHR. UEBERWEISUNG?20Bestellung ${later}?32Paul Klee`],
      // Two genuinely identical payments of one payer and day: two transfers.
      tip: [':61:2611201120C5,00NTRFNONREF', ':86:166?00GUTSCHR. UEBERWEISUNG?20Trinkgeld?32Anna Ode'],
    };
    const statement = (closing: string, ...entries: string[][]) =>
      Buffer.from([':20:STARTUMSE', ':25:37040044/0532013000', ':28C:00321/001', ':60F:C261119EUR100,00', ...entries.flat(), closing, '-'].join('\r\n'));

    const intraday = await importStatement(s, statement(':62M:C261120EUR169,50', lines.a, lines.b, lines.tip));
    expect(intraday).to.deep.equal({ format: 'mt940', statements: 1, ...counts(3, 3) });
    expect(await paid(s, full, part, later)).to.deep.equal(['24.50', '40.00', null]);

    // The day's file: the bank booked a payment between the ones already downloaded, and the
    // payer's second tip after them.
    const endOfDay = statement(':62F:C261120EUR204,50', lines.a, lines.inserted, lines.b, lines.tip, lines.tip);
    const answer = await importStatement(s, endOfDay);
    expect(answer).to.deep.equal({ format: 'mt940', statements: 1, ...counts(5, 2) });
    expect(await transfers(s)).to.deep.equal([
      ['Erika Muster', '24.50', full],
      ['Juergen Mueller', '40.00', part],
      ['Anna Ode', '5.00', undefined],
      ['Paul Klee', '30.00', later],
      ['Anna Ode', '5.00', undefined],
    ]);
    expect(await paid(s, full, part, later)).to.deep.equal(['24.50', '40.00', '30.00']);

    // The same day from a bank that sorts by value date (another order of the same bookings), and the
    // day's file again: nothing new.
    expect(await importStatement(s, statement(':62F:C261120EUR204,50', lines.tip, lines.b, lines.tip, lines.inserted, lines.a))).to.deep.equal({
      format: 'mt940',
      statements: 1,
      ...counts(5, 0),
    });
    expect(await importStatement(s, endOfDay)).to.deep.equal({ format: 'mt940', statements: 1, ...counts(5, 0) });
    expect(await transfers(s)).to.have.length(5);
    expect(await paid(s, full, part, later)).to.deep.equal(['24.50', '40.00', '30.00']);
  });

  it('when a CAMT statement is split over two files (MsgPgntn) whose entries have no bank reference, then equal payments of both pages are all stored, and each page again stores nothing', async () => {
    const s = await newSeller();
    const [o1, o2, o3, o4] = [
      await orderPaidBy(s, '24.50', 'Erika Muster'),
      await orderPaidBy(s, '40.00', 'Juergen Mueller'),
      await orderPaidBy(s, '24.50', 'Paul Klee'),
      await orderPaidBy(s, '40.00', 'Zoë Brandstätter'),
    ];
    const entry = (amount: string, name: string, orderId: string) => `
      <Ntry><Amt Ccy="EUR">${amount}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts>
        <BookgDt><Dt>2026-11-21</Dt></BookgDt><ValDt><Dt>2026-11-21</Dt></ValDt>
        <BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RCDT</Cd><SubFmlyCd>ESCT</SubFmlyCd></Fmly></Domn></BkTxCd>
        <NtryDtls><TxDtls><RltdPties><Dbtr><Pty><Nm>${name}</Nm></Pty></Dbtr></RltdPties>
        <RmtInf><Ustrd>Bestellung ${orderId}</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>`;
    const page = (n: number, last: boolean, ...entries: string[]) =>
      Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt>
  <GrpHdr><MsgId>MSG-20261121-${n}</MsgId><CreDtTm>2026-11-22T06:00:00</CreDtTm>
    <MsgPgntn><PgNb>${n}</PgNb><LastPgInd>${last}</LastPgInd></MsgPgntn></GrpHdr>
  <Stmt><Id>STMT-2026-325</Id><StmtPgntn><PgNb>${n}</PgNb><LastPgInd>${last}</LastPgInd></StmtPgntn><ElctrncSeqNb>325</ElctrncSeqNb>
    <CreDtTm>2026-11-22T06:00:00</CreDtTm>
    <Acct><Id><IBAN>DE89370400440532013000</IBAN></Id><Ccy>EUR</Ccy></Acct>${entries.join('')}
  </Stmt></BkToCstmrStmt></Document>`);
    const first = page(1, false, entry('24.50', 'Erika Muster', o1), entry('40.00', 'Juergen Mueller', o2));
    const second = page(2, true, entry('24.50', 'Paul Klee', o3), entry('40.00', 'Zoë Brandstätter', o4));

    expect(await importStatement(s, first)).to.deep.equal({ format: 'camt.053', statements: 1, ...counts(2, 2) });
    expect(await importStatement(s, second)).to.deep.equal({ format: 'camt.053', statements: 1, ...counts(2, 2) });
    expect(await transfers(s)).to.deep.equal([
      ['Erika Muster', '24.50', o1],
      ['Juergen Mueller', '40.00', o2],
      ['Paul Klee', '24.50', o3],
      ['Zoë Brandstätter', '40.00', o4],
    ]);
    expect(await paid(s, o1, o2, o3, o4)).to.deep.equal(['24.50', '40.00', '24.50', '40.00']);

    expect(await importStatement(s, second)).to.deep.equal({ format: 'camt.053', statements: 1, ...counts(2, 0) });
    expect(await importStatement(s, first)).to.deep.equal({ format: 'camt.053', statements: 1, ...counts(2, 0) });
    expect(await transfers(s)).to.have.length(4);
    expect(await paid(s, o1, o2, o3, o4)).to.deep.equal(['24.50', '40.00', '24.50', '40.00']);
  });

  it("when an MT940 statement imported before the keys changed comes again at the end of the day with another payer's payment of the same amount at the place of one stored, then that payment is stored and pays its order", async () => {
    const s = await newSeller();
    const part = await orderPaidBy(s, '100.00', 'Juergen Mueller');
    const other = await orderPaidBy(s, '40.00', 'Paul Klee');
    const b = [':61:2611201120C40,00NTRFNONREF', `:86:166?00GUTSCHR. UEBERWEISUNG?20Anzahlung Bestellung ${part}?32Juergen Mueller`];
    const inserted = [':61:2611201120C40,00NTRFNONREF', `:86:166?00GUTSCHR. UEBERWEISUNG?20Bestellung ${other}?32Paul Klee`];
    const statement = (closing: string, ...entries: string[][]) =>
      Buffer.from([':20:STARTUMSE', ':25:37040044/0532013000', ':28C:00322/001', ':60F:C261119EUR100,00', ...entries.flat(), closing, '-'].join('\r\n'));
    const intraday = statement(':62M:C261120EUR140,00', b);
    expect(await importStatement(s, intraday)).to.deep.equal({ format: 'mt940', statements: 1, ...counts(1, 1) });
    // Stored as an import before the change stored it: under the key of its position.
    const [entry] = (await parseStatement(intraday)).entries;
    expect(await db()('bank').where({ account_id: s.id, type: 'bank', entry_ref: entry!.reference }).update({ entry_ref: entry!.legacyReference })).to.equal(1);

    // Paul's 40.00 now stands first, where Juergen's stood: the key of before is the same.
    await importStatement(s, statement(':62F:C261120EUR180,00', inserted, b));
    expect((await transfers(s)).filter((r) => r[0] === 'Paul Klee')).to.deep.equal([['Paul Klee', '40.00', other]]);
    expect(await paid(s, other)).to.deep.equal(['40.00']);
  });

  // A file imported before the keys named the booking is stored under the key of before (its
  // position): set here as that import stored it (statement-parse.test.ts and samples-camt.test.ts
  // pin those keys to what it computed).
  for (const [dir, name, format] of [
    ['mt940', 'betterplace__sepa_mt9401.txt', 'mt940'],
    ['mt940', 'phpmt940__Rabo_sample.sta', 'mt940'],
    ['camt', 'oca__test-camt053-txdtls.xml', 'camt.053'],
    ['camt', 'libeufin__postfinance_camt053_v2019.xml', 'camt.053'],
  ] as const) {
    it(`when ${name}, imported before the keys changed, is imported again, then every booking is recognised and nothing is stored`, async () => {
      const s = await newSeller();
      const bytes = sample(dir, name);
      const { entries } = await parseStatement(bytes);
      const first = await importStatement(s, bytes);
      expect(first).to.include({ format, entries: entries.length, stored: entries.length, duplicates: 0 });
      const before = await transfers(s);
      for (const e of entries) {
        expect(e.legacyReference, e.reference!).to.be.a('string');
        const moved = await db()('bank').where({ account_id: s.id, type: 'bank', entry_ref: e.reference }).update({ entry_ref: e.legacyReference });
        expect(moved, e.reference!).to.equal(1);
      }

      const again = await importStatement(s, bytes);
      expect(again).to.include({ entries: entries.length, stored: 0, duplicates: entries.length });
      expect(await transfers(s)).to.deep.equal(before);
    });
  }
});
