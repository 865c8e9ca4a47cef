/**
 * Shapes of other banks' statements (not in ../shared/samples/bank), each in a file written for
 * Kontor with made-up data, posted through POST bank/statement/ and matched by the bank worker:
 * what the seller sees in the answer, the transfers and the orders afterwards.
 */
import { expect } from 'chai';
import { call, newSeller, Seller } from '../support/api';
import { readOrder } from '../order/helpers';
import { bankTransfers, importStatement, orderPaidBy, bankWorkerForSuite } from './bank-worker';
import { fixture } from './fixtures';

interface BankView {
  sender: string;
  subject: string;
  amount: string;
  currency_id: string;
  order_id?: string;
}

describe('bank: statement shapes of other banks, imported and matched', () => {
  bankWorkerForSuite('bank-dialects');

  const transfers = (s: Seller) => bankTransfers<BankView>(s);

  it('when a German camt.053 credits back a direct debit (DK code NRTI+181 or NDDT+109, no ISO domain) whose text names an order, then it is a return as in MT940 and pays no order', async () => {
    const s = await newSeller();
    const refundNamed = await orderPaidBy(s, '49.90', 'Papier Lange GmbH');
    const paid = await orderPaidBy(s, '24.50');
    const statement = await importStatement(s, fixture('camt053-dk-codes.xml', { ORDER_1: refundNamed, ORDER_2: paid }));
    expect(statement).to.deep.equal({ format: 'camt.053', statements: 1, entries: 1, stored: 1, duplicates: 0, debits: 0, returns: 2, unbooked: 0 });
    const rows = await transfers(s);
    expect(rows.map((r) => [r.sender, r.amount, r.currency_id, r.order_id])).to.deep.equal([['Jürgen Müller', '24.50', 'EUR', paid]]);
    const untouched = await readOrder(s, refundNamed);
    expect(untouched.paid_amount).to.equal(null);
    expect(untouched.status.is_paid).to.equal(false);
    expect((await readOrder(s, paid)).paid_amount).to.equal('24.50');
    // The same bookings as the bank writes them in MT940 are returns there too.
    const mt940 = [
      ':20:STARTUMSE',
      ':25:37040044/0532013000',
      ':28C:00321/001',
      ':60F:C261119EUR100,00',
      ':61:2611201120C49,90N181NONREF',
      `:86:181?00WIEDERGUTSCHRIFT?20Erstattung Lastschrift?21Bestellung ${refundNamed}?32Papier Lange GmbH`,
      ':61:2611201120C49,90NRTINONREF',
      `:86:166?20Rueckgabe MD06?21Bestellung ${refundNamed}?32Papier Lange GmbH`,
      ':62F:C261120EUR199,80',
      '-',
    ].join('\r\n');
    const res = await call('bank/statement/', { token: s.token, body: Buffer.from(mt940), headers: { 'Content-Type': 'application/octet-stream' } });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.statement).to.include({ entries: 0, stored: 0, returns: 2 });
  });

  it('when a camt.053 books a credit of 0.00 naming an order, or a batch payment of 0.00, then it is no transfer and the order is left as it was', async () => {
    const s = await newSeller();
    const named = await orderPaidBy(s, '49.90');
    const paid = await orderPaidBy(s, '24.50', 'Zoë Brandstätter');
    const statement = await importStatement(s, fixture('camt053-zero-credit.xml', { ORDER_1: named, ORDER_2: paid }));
    expect(statement).to.deep.equal({ format: 'camt.053', statements: 1, entries: 1, stored: 1, duplicates: 0, debits: 3, returns: 0, unbooked: 0 });
    const rows = await transfers(s);
    expect(rows.map((r) => [r.sender, r.subject, r.amount, r.order_id])).to.deep.equal([['Zoë Brandstätter', `Bestellung ${paid}`, '24.50', paid]]);
    const untouched = await readOrder(s, named);
    expect(untouched.paid_amount).to.equal(null);
    expect(untouched.history.filter((h) => /payment/.test(h))).to.deep.equal([]);
    expect((await readOrder(s, paid)).paid_amount).to.equal('24.50');
  });
  // SWIFT FIN delivers a message it may have sent before again with the trailer {5:{PDE:}} (possible
  // duplicate emission); a file of a day's messages, or overlapping downloads joined into one file,
  // then holds the same statement twice. Two pages under one :28: (mt940-js) differ and stay apart
  // (statement-parse-suites.test.ts).
  it('when a file holds the same statement twice (the original and its PDE copy, or a duplicate CAMT copy), then each payment is stored and paid once', async () => {
    const s = await newSeller();
    const part = await orderPaidBy(s, '49.90');
    const statement = (trailer: string) =>
      [
        '{1:F01COBADEFFAXXX0000000000}{2:O9401200261120COBADEFFAXXX00000000002611201200N}{4:',
        ':20:261120-0001',
        ':25:37040044/0532013000',
        ':28C:00321/001',
        ':60F:C261119EUR100,00',
        ':61:2611201120C20,00NTRFNONREF',
        `:86:166?00GUTSCHR. UEBERWEISUNG?20SVWZ+Anzahlung Bestellung?21${part}?32Juergen Mueller`,
        ':62F:C261120EUR120,00',
        `-}{5:{CHK:0123456789AB}${trailer}}`,
      ].join('\r\n');
    const mt940 = await importStatement(s, Buffer.from(`${statement('')}\r\n${statement('{PDE:}')}\r\n`));
    expect(mt940).to.deep.equal({ format: 'mt940', statements: 2, entries: 2, stored: 1, duplicates: 1, debits: 0, returns: 0, unbooked: 0 });
    expect((await transfers(s)).map((r) => [r.amount, r.order_id])).to.deep.equal([['20.00', part]]);
    expect((await readOrder(s, part)).paid_amount).to.equal('20.00');

    const camtStatement = (copy: string) => `<Stmt><Id>STMT-2026-321</Id><ElctrncSeqNb>321</ElctrncSeqNb>${copy}
      <Acct><Id><IBAN>DE89370400440532013000</IBAN></Id><Ccy>EUR</Ccy></Acct>
      <Ntry><Amt Ccy="EUR">10.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts><BookgDt><Dt>2026-11-21</Dt></BookgDt>
        <NtryDtls><TxDtls><RltdPties><Dbtr><Pty><Nm>Jürgen Müller</Nm></Pty></Dbtr></RltdPties>
        <RmtInf><Ustrd>Rest Bestellung ${part}</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry></Stmt>`;
    const camt = `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt><GrpHdr><MsgId>M-321</MsgId><CreDtTm>2026-11-22T06:00:00</CreDtTm></GrpHdr>
${camtStatement('<CreDtTm>2026-11-21T06:00:00</CreDtTm>')}
${camtStatement('<CreDtTm>2026-11-22T06:00:00</CreDtTm><CpyDplctInd>DUPL</CpyDplctInd>')}
</BkToCstmrStmt></Document>`;
    const copy = await importStatement(s, Buffer.from(camt));
    expect(copy).to.deep.equal({ format: 'camt.053', statements: 2, entries: 2, stored: 1, duplicates: 1, debits: 0, returns: 0, unbooked: 0 });
    expect((await transfers(s)).map((r) => [r.amount, r.order_id])).to.deep.equal([
      ['20.00', part],
      ['10.00', part],
    ]);
    expect((await readOrder(s, part)).paid_amount).to.equal('30.00');
  });
});
