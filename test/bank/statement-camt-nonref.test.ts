/**
 * A camt.053 whose entries carry `NONREF` as the bank's reference (AcctSvcrRef, NtryRef or the
 * TxDtls Refs/AcctSvcrRef): the German usage for "no reference", as German banks' camt reports
 * write it. It names no booking (lib/bank README, "Stored once, never merged"): two credits of one
 * amount and day are two payments, each stored once, and a booking stored before under a key
 * that held NONREF is still recognised. Posted through POST bank/statement/ and matched by the
 * bank worker: the answer's counts, the transfers, the orders and the tasks afterwards. Files
 * written by hand for these tests.
 */
import { expect } from 'chai';
import { db } from '../../lib/db/knex';
import { readOrder } from '../order/helpers';
import { call, newSeller, query, Seller } from '../support/api';
import { bankTransfers, bankWorkerForSuite, importStatement, orderPaidBy } from './bank-worker';
import { camtStatement, STATEMENT_IBAN } from './camt-statement';

interface BankView {
  sender: string;
  amount: string;
  status: string | null;
  order_id?: string;
}

const IBAN = STATEMENT_IBAN;

interface Payment {
  payer: string;
  text: string;
  amount?: string;
  day?: string;
  /** Where the bank writes NONREF: the entry's AcctSvcrRef (default), its NtryRef, or the payment's Refs/AcctSvcrRef. */
  at?: 'AcctSvcrRef' | 'NtryRef' | 'TxDtls';
  /** A DBIT entry with RvslInd: the bank takes the credit back. */
  reversal?: boolean;
  /** The bank's own reference instead of NONREF. */
  ref?: string;
}

function entry({ payer, text, amount = '49.90', day = '2026-11-27', at = 'AcctSvcrRef', reversal = false, ref = 'NONREF' }: Payment): string {
  const side = reversal ? '<CdtDbtInd>DBIT</CdtDbtInd><RvslInd>true</RvslInd>' : '<CdtDbtInd>CRDT</CdtDbtInd>';
  return `
      <Ntry>
        ${at === 'NtryRef' ? `<NtryRef>${ref}</NtryRef>` : ''}
        <Amt Ccy="EUR">${amount}</Amt>${side}<Sts>BOOK</Sts>
        <BookgDt><Dt>${day}</Dt></BookgDt><ValDt><Dt>${day}</Dt></ValDt>
        ${at === 'AcctSvcrRef' ? `<AcctSvcrRef>${ref}</AcctSvcrRef>` : ''}
        <BkTxCd><Prtry><Cd>NTRF+166+9249+888</Cd><Issr>DK</Issr></Prtry></BkTxCd>
        <NtryDtls><TxDtls>
          <Refs>${at === 'TxDtls' ? `<AcctSvcrRef>${ref}</AcctSvcrRef>` : ''}<EndToEndId>NOTPROVIDED</EndToEndId></Refs>
          <RltdPties><Dbtr><Nm>${payer}</Nm></Dbtr></RltdPties>
          <RmtInf><Ustrd>${text}</Ustrd></RmtInf>
        </TxDtls></NtryDtls>
      </Ntry>`;
}

const camt = (id: string, payments: Payment[]) => camtStatement(id, payments.map(entry));

const anna = { payer: 'Anna Meier', text: 'Danke' };
const bernd = { payer: 'Bernd Brot', text: 'Gruss Bernd' };

describe('bank: a camt.053 whose bank reference is NONREF', () => {
  bankWorkerForSuite('bank-camt-nonref');

  const senders = async (s: Seller) => (await bankTransfers<BankView>(s)).map((b) => b.sender).sort();
  const paid = async (s: Seller, ...orders: string[]) => {
    const amounts: (string | null)[] = [];
    for (const o of orders) amounts.push((await readOrder(s, o)).paid_amount);
    return amounts;
  };
  async function taskTitles(s: Seller): Promise<string[]> {
    const res = await call(`task/?${query({ pagination: { limit: 100 } })}`, { token: s.token });
    expect(res.status, res.text).to.equal(200);
    return ((res.body.task ?? []) as { title: string }[]).map((t) => t.title).sort();
  }
  const counts = (x: Record<string, unknown>) => ({ entries: x.entries, stored: x.stored, duplicates: x.duplicates });

  for (const at of ['AcctSvcrRef', 'NtryRef', 'TxDtls'] as const) {
    it(`when the day's later export (NONREF as ${at}) brings another payer's credit of the same amount before the one imported at noon, then each is stored once and pays its order`, async () => {
      const s = await newSeller();
      const annas = await orderPaidBy(s, '49.90', 'Anna Meier');
      const bernds = await orderPaidBy(s, '49.90', 'Bernd Brot');
      const noon = await importStatement(s, camt('EXPORT-1', [{ ...anna, at }]));
      const evening = await importStatement(
        s,
        camt('EXPORT-2', [
          { ...bernd, at },
          { ...anna, at },
        ]),
      );
      expect([counts(noon), counts(evening)]).to.deep.equal([
        { entries: 1, stored: 1, duplicates: 0 },
        { entries: 2, stored: 1, duplicates: 1 },
      ]);
      expect(await senders(s)).to.deep.equal(['Anna Meier', 'Bernd Brot']);
      expect(await paid(s, annas, bernds)).to.deep.equal(['49.90', '49.90']);
    });
  }

  it('when a credit was stored before under a key that held NONREF, then the export that brings it again beside another payer stores only the other, and again nothing', async () => {
    const s = await newSeller();
    const annas = await orderPaidBy(s, '49.90', 'Anna Meier');
    const bernds = await orderPaidBy(s, '49.90', 'Bernd Brot');
    await importStatement(s, camt('EXPORT-1', [anna]));
    // As the version before stored it: NONREF as the bank's reference in its key.
    const moved = await db()('bank')
      .where({ account_id: s.id, type: 'bank' })
      .update({ entry_ref: `camt ${IBAN}|NONREF|49.90|2026-11-27` });
    expect(moved).to.equal(1);
    const evening = camt('EXPORT-2', [bernd, anna]);
    expect(counts(await importStatement(s, evening))).to.deep.equal({ entries: 2, stored: 1, duplicates: 1 });
    expect(counts(await importStatement(s, evening))).to.deep.equal({ entries: 2, stored: 0, duplicates: 2 });
    expect(await senders(s)).to.deep.equal(['Anna Meier', 'Bernd Brot']);
    expect(await paid(s, annas, bernds)).to.deep.equal(['49.90', '49.90']);
  });

  it('when credits of two payers were stored before under keys that held NONREF (#2 the second), then each is recognised by its payer and text, in whichever order the file brings them', async () => {
    const s = await newSeller();
    await importStatement(s, camt('EXPORT-1', [anna, bernd]));
    const rows = await db()('bank').where({ account_id: s.id, type: 'bank' }).select('internal_id', 'sender');
    for (const r of rows) {
      const key = `camt ${IBAN}|NONREF|49.90|2026-11-27${r.sender === 'Anna Meier' ? '' : '#2'}`;
      expect(await db()('bank').where({ internal_id: r.internal_id }).update({ entry_ref: key })).to.equal(1);
    }
    const carl = { payer: 'Carl Kurz', text: 'Rechnung' };
    expect(counts(await importStatement(s, camt('EXPORT-2', [bernd, carl, anna])))).to.deep.equal({ entries: 3, stored: 1, duplicates: 2 });
    expect(await senders(s)).to.deep.equal(['Anna Meier', 'Bernd Brot', 'Carl Kurz']);
  });

  it("when a later statement reverses another payer's credit of the same amount and day (both reversals NONREF), then that credit is taken back too, and a reversal applied before under a key that held NONREF is not applied again", async () => {
    const s = await newSeller();
    const annas = await orderPaidBy(s, '49.90', 'Anna Meier');
    const bernds = await orderPaidBy(s, '49.90', 'Bernd Brot');
    await importStatement(
      s,
      camt('CREDITS', [
        { ...anna, ref: 'R-1' },
        { ...bernd, ref: 'R-2' },
      ]),
    );
    expect(await paid(s, annas, bernds)).to.deep.equal(['49.90', '49.90']);
    const annasReversal = camt('REVERSAL-1', [{ ...anna, day: '2026-11-28', reversal: true }]);
    await importStatement(s, annasReversal);
    // As the version before applied it: NONREF as the bank's reference in its key.
    const moved = await db()('bank')
      .where({ account_id: s.id, type: 'bank' })
      .whereNotNull('reversed_by')
      .update({ reversed_by: `reversal camt ${IBAN}|NONREF|49.90|2026-11-28` });
    expect(moved).to.equal(1);
    const tasksBefore = await taskTitles(s);
    await importStatement(s, annasReversal);
    await importStatement(s, camt('REVERSAL-2', [{ ...bernd, day: '2026-11-28', reversal: true }]));
    const rows = await bankTransfers<BankView>(s);
    expect(rows.map((r) => [r.sender, r.status]).sort()).to.deep.equal([
      ['Anna Meier', 'reversed'],
      ['Bernd Brot', 'reversed'],
    ]);
    expect((await readOrder(s, annas)).status.is_paid).to.equal(false);
    expect((await readOrder(s, bernds)).status.is_paid).to.equal(false);
    expect(await taskTitles(s)).to.deep.equal(tasksBefore);
  });
});
