import { expect } from 'chai';
import { DomainError } from '../../lib/errors';
import { parseStatement } from '../../lib/bank/statement/statement.parse';
import { fixture, withKeyShape } from './fixtures';

async function refusal(bytes: Buffer): Promise<DomainError> {
  try {
    await parseStatement(bytes);
  } catch (err) {
    if (err instanceof DomainError) return err;
    throw err;
  }
  throw new Error('the file was accepted');
}

describe('bank statement parsing', () => {
  for (const version of ['001.02', '001.08']) {
    it(`when a camt.053.${version} file holds two statements with a batch entry, a debit and a pending entry, then the booked credits come out one per payment`, async () => {
      const parsed = await parseStatement(fixture(`camt053.${version}.xml`));
      expect(parsed).to.include({ format: 'camt.053', statements: 2, debits: 1, unbooked: 1 });
      const suffix = version === '001.08' ? 'V08-' : '';
      // The bank's reference (AcctSvcrRef) keys a payment; a batch's payments share it and are told
      // apart by what each says (the digest), no longer by their position in the batch.
      expect(parsed.entries.map(withKeyShape)).to.deep.equal([
        {
          reference: `camt DE02120300000000202051|${suffix}2026112012345001|49.90|2026-11-20`,
          legacyReference: `DE02120300000000202051|${suffix}2026112012345001|1|49.90|2026-11-20`,
          transferDate: new Date('2026-11-20T00:00:00Z'),
          sender: 'Jürgen Müller',
          subject: 'Bestellung 1_2026_11 vielen Dank für die schnelle Lieferung',
          amount: '49.90',
          currency: 'EUR',
          payerReferences: [],
        },
        {
          reference: `camt DE02120300000000202051|${suffix}2026112112345100|24.50|2026-11-21|~digest`,
          legacyReference: `DE02120300000000202051|${suffix}2026112112345100|1|24.50|2026-11-21`,
          transferDate: new Date('2026-11-21T00:00:00Z'),
          sender: 'Zoë Brandstätter',
          // The creditor reference is the payer's reference, not remittance text (issue 29).
          subject: '',
          amount: '24.50',
          currency: 'EUR',
          payerReferences: ['2_2026_11', 'E2E-0001'],
        },
        {
          reference: `camt DE02120300000000202051|${suffix}2026112112345100|5.00|2026-11-21|~digest`,
          legacyReference: `DE02120300000000202051|${suffix}2026112112345100|2|5.00|2026-11-21`,
          transferDate: new Date('2026-11-21T00:00:00Z'),
          sender: 'Anna Ødegård',
          subject: 'Spende & Trinkgeld',
          amount: '5.00',
          currency: 'EUR',
          payerReferences: ['E2E-0002'],
        },
      ]);
    });
  }

  it('when an MT940 file in ISO-8859-1 holds two statements in the German ?-structure, then names keep their umlauts and debits are skipped', async () => {
    const parsed = await parseStatement(fixture('mt940-latin1.sta'));
    expect(parsed).to.include({ format: 'mt940', statements: 2, debits: 1, unbooked: 0 });
    expect(parsed.entries).to.deep.equal([
      {
        reference: 'mt940 12030000/0000202051|00219|2026112000001|49.90|2026-11-20',
        legacyReference: '12030000/0000202051|00219/001|2026112000001|1|49.90|2026-11-20',
        transferDate: new Date('2026-11-20T00:00:00Z'),
        sender: 'Jürgen Müller',
        subject: 'Bestellung 1_2026_11 Danke schön',
        amount: '49.90',
        currency: 'EUR',
        payerReferences: [],
      },
      {
        reference: 'mt940 12030000/0000202051|00220|2026112100001|24.50|2026-11-21',
        legacyReference: '12030000/0000202051|00220/001|2026112100001|1|24.50|2026-11-21',
        transferDate: new Date('2026-11-21T00:00:00Z'),
        sender: 'Zoë Brandstätter',
        subject: '2_2026_11',
        amount: '24.50',
        currency: 'EUR',
        payerReferences: [],
      },
      {
        // No bank reference: the entry is keyed by what the bank writes of it (its :61: and :86:),
        // before by its position in its statement (issue 29).
        reference: 'mt940 12030000/0000202051|00220|5.00|2026-11-21|~EEmlHbW84cKYSMmOSjaD2C731fYPXogsHlpvoV-i6rU',
        legacyReference: '12030000/0000202051|00220/001||2|5.00|2026-11-21',
        transferDate: new Date('2026-11-21T00:00:00Z'),
        sender: '',
        subject: 'Trinkgeld von Björn Ängström',
        amount: '5.00',
        currency: 'EUR',
        payerReferences: [],
      },
    ]);
  });

  it('when an MT940 :86: uses the /TAG/ layout, then NAME is the sender and REMI the subject', async () => {
    const parsed = await parseStatement(fixture('mt940-tags.sta'));
    expect(parsed.entries).to.deep.equal([
      {
        reference: 'mt940 NL91ABNA0417164300|125|ABN0000001|30.00|2026-11-21',
        legacyReference: 'NL91ABNA0417164300|125/1|ABN0000001|1|30.00|2026-11-21',
        transferDate: new Date('2026-11-21T00:00:00Z'),
        sender: 'Sjoerd de Vries',
        subject: 'Order 1_2026_11',
        amount: '30.00',
        currency: 'EUR',
        payerReferences: [],
      },
    ]);
  });

  it('when an MT940 entry is valued on 31 December and booked on 2 January, then its transfer_date is in the next year', async () => {
    const text = [':20:X', ':25:ACC', ':28C:1/1', ':60F:C261231EUR0,00', ':61:2612310102CR8,00NTRFNONREF//Y1', ':86:Neujahr', ':62F:C261231EUR8,00', '-'].join(
      '\n',
    );
    const parsed = await parseStatement(Buffer.from(text));
    expect(parsed.entries[0]!.transferDate).to.deep.equal(new Date('2027-01-02T00:00:00Z'));
  });

  it('when an MT940 :61: line is broken, then the 400 names its line', async () => {
    const text = fixture('mt940-latin1.sta').toString('latin1').replace(':61:2611211121CR24,50', ':61:2611211121XR24,50');
    const err = await refusal(Buffer.from(text, 'latin1'));
    expect(err.status).to.equal(400);
    expect(err.field).to.equal('line 16');
    expect(err.message).to.contain('line 16');
  });

  // Issue 29: genuine (anonymised) files do not add up; the bank's balance is not Kontor's to check.
  it('when an MT940 statement does not add up, then its entries are read all the same', async () => {
    const text = fixture('mt940-latin1.sta').toString('latin1').replace(':62F:C261121EUR1003,80', ':62F:C261121EUR1003,90');
    const parsed = await parseStatement(Buffer.from(text, 'latin1'));
    expect(parsed.entries.map((e) => e.amount)).to.deep.equal(['49.90', '24.50', '5.00']);
  });

  it('when a CAMT amount is not a number, then the 400 names the element', async () => {
    const err = await refusal(fixture('camt053.001.08.xml', { AMOUNT_2: '2x.50' }));
    expect(err.status).to.equal(400);
    expect(err.field).to.equal('Document/BkToCstmrStmt/Stmt[2]/Ntry[1]/NtryDtls/TxDtls[1]/Amt');
  });

  it('when a CAMT entry has no credit/debit indicator or a day that does not exist, then the 400 names the element', async () => {
    const noSide = fixture('camt053.001.02.xml').toString().replace('<CdtDbtInd>DBIT</CdtDbtInd>', '');
    expect((await refusal(Buffer.from(noSide))).field).to.equal('Document/BkToCstmrStmt/Stmt[1]/Ntry[2]/CdtDbtInd');
    const badDay = fixture('camt053.001.02.xml').toString().replace('<BookgDt><Dt>2026-11-21</Dt>', '<BookgDt><Dt>2026-02-30</Dt>');
    expect((await refusal(Buffer.from(badDay))).field).to.equal('Document/BkToCstmrStmt/Stmt[2]/Ntry[1]/BookgDt');
  });

  it('when a CAMT file carries a DOCTYPE or is cut off, then it is refused with a 400', async () => {
    const doctype = `<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa">]>${fixture('camt053.001.02.xml')
      .toString()
      .replace(/^<\?xml[^>]*>/, '')}`;
    expect((await refusal(Buffer.from(doctype))).id).to.equal('xml_doctype_refused');
    const cut = fixture('camt053.001.02.xml').subarray(0, 3000);
    const err = await refusal(cut);
    expect(err.status).to.equal(400);
    expect(err.message).to.match(/malformed/);
  });

  it('when the file is neither CAMT.053 nor MT940, then it is refused as unsupported', async () => {
    expect((await refusal(Buffer.from('<Document><BkToCstmrNtfctn/></Document>'))).id).to.equal('unsupported_statement');
    expect((await refusal(Buffer.from('date;amount\n2026-11-20;10.00\n'))).id).to.equal('unsupported_statement');
  });

  it('when the file is a camt.052 intraday report, then the refusal says so and points to the camt.053', async () => {
    const report = '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.052.001.08"><BkToCstmrAcctRpt><GrpHdr/></BkToCstmrAcctRpt></Document>';
    const err = await refusal(Buffer.from(report));
    expect(err.id).to.equal('unsupported_statement');
    expect(err.message).to.match(/^camt\.052: .*import the camt\.053/);
  });
});

describe('bank statement parsing: camt.054 and the CAMT rules', () => {
  /** The camt.054.001.08 fixture as an older version writes it (element names of the XSDs .001.04 and .001.02). */
  const camt054 = (version: '08' | '04' | '02'): Buffer => {
    let xml = fixture('camt054.001.08.xml').toString();
    if (version === '08') return Buffer.from(xml);
    xml = xml
      .replace('camt.054.001.08', `camt.054.001.${version}`)
      .replace(/<Sts><Cd>(\w+)<\/Cd><\/Sts>/g, '<Sts>$1</Sts>')
      .replace(/<(Dbtr|UltmtDbtr)><Pty>([\s\S]*?)<\/Pty><\/\1>/g, '<$1>$2</$1>');
    if (version === '02')
      xml = xml.replace(/(<TxDtls>[\s\S]*?)<Amt Ccy="(\w+)">([\d.]+)<\/Amt>/g, '$1<AmtDtls><TxAmt><Amt Ccy="$2">$3</Amt></TxAmt></AmtDtls>');
    return Buffer.from(xml);
  };

  for (const version of ['08', '04', '02'] as const) {
    it(`when a camt.054.001.${version} notification holds a QR batch credit, a single credit, a return, a pending credit and a fee, then each payment of the batch is a transfer`, async () => {
      const parsed = await parseStatement(camt054(version));
      expect(parsed).to.include({ format: 'camt.054', statements: 1, debits: 1, returns: 1, unbooked: 1 });
      const account = 'CH5604835012345678009';
      expect(parsed.entries.map(withKeyShape)).to.deep.equal([
        {
          reference: `camt ${account}|261124CH0000QR01|199.95|2026-11-24|~digest`,
          legacyReference: `${account}|261124CH0000QR01|1|199.95|2026-11-24`,
          transferDate: new Date('2026-11-24T00:00:00Z'),
          sender: 'Pia-Maria Rutschmann-Schnyder',
          subject: 'Bestellung vom 15.11.2026',
          amount: '199.95',
          currency: 'CHF',
          payerReferences: ['210000000003139471430009017'],
        },
        {
          reference: `camt ${account}|261124CH0000QR01|50.00|2026-11-24|~digest`,
          legacyReference: `${account}|261124CH0000QR01|2|50.00|2026-11-24`,
          transferDate: new Date('2026-11-24T00:00:00Z'),
          sender: 'Jürg Kälin',
          subject: '',
          amount: '50.00',
          currency: 'CHF',
          payerReferences: ['RF18539007547034'],
        },
        {
          reference: `camt ${account}|261124CH0000QR01|75.10|2026-11-24|~digest`,
          legacyReference: `${account}|261124CH0000QR01|3|75.10|2026-11-24`,
          transferDate: new Date('2026-11-24T00:00:00Z'),
          sender: 'Lucie Favre',
          subject: 'Facture 2_2026_11 merci',
          amount: '75.10',
          currency: 'CHF',
          payerReferences: ['QR-1_2026_11'],
        },
        {
          reference: `camt ${account}|261125CH0000A001|120.00|2026-11-25`,
          legacyReference: `${account}|261125CH0000A001|1|120.00|2026-11-25`,
          // BookgDt/DtTm 2026-11-25T00:30:00+01:00: the day written, not 24 November in UTC.
          transferDate: new Date('2026-11-25T00:00:00Z'),
          sender: 'Zoë Favre',
          subject: 'Commande 3_2026_11',
          amount: '120.00',
          currency: 'CHF',
          payerReferences: ['E2E-4711'],
        },
      ]);
    });
  }

  it('when two payments of a file have the same bank reference, amount and day and say the same, then both are kept with distinct keys', async () => {
    const xml = fixture('camt054.001.08.xml').toString().replace('<AcctSvcrRef>261125CH0000A001</AcctSvcrRef>', '<AcctSvcrRef>261124CH0000QR01</AcctSvcrRef>');
    // A second notification (its own sequence number) of payments with the same keys; an identical
    // copy would be the same notification again, stored once (statement-import-banks.test.ts).
    const other = /<Ntfctn>[\s\S]*<\/Ntfctn>/.exec(xml)![0].replace('<ElctrncSeqNb>77</ElctrncSeqNb>', '<ElctrncSeqNb>78</ElctrncSeqNb>');
    const twice = xml.replace(/(<Ntfctn>[\s\S]*<\/Ntfctn>)/, `$1${other}`);
    const parsed = await parseStatement(Buffer.from(twice));
    expect(parsed.statements).to.equal(2);
    expect(parsed.entries).to.have.length(8);
    expect(parsed.entries.map((e) => withKeyShape(e).reference).slice(4, 8)).to.deep.equal([
      'camt CH5604835012345678009|261124CH0000QR01|199.95|2026-11-24|~digest#2',
      'camt CH5604835012345678009|261124CH0000QR01|50.00|2026-11-24|~digest#2',
      'camt CH5604835012345678009|261124CH0000QR01|75.10|2026-11-24|~digest#2',
      'camt CH5604835012345678009|261124CH0000QR01|120.00|2026-11-25#2',
    ]);
    expect(parsed.entries.map((e) => e.legacyReference).slice(4, 6)).to.deep.equal([
      'CH5604835012345678009|261124CH0000QR01|1|199.95|2026-11-24#2',
      'CH5604835012345678009|261124CH0000QR01|2|50.00|2026-11-24#2',
    ]);
    expect(new Set(parsed.entries.map((e) => e.reference)).size).to.equal(8);
  });

  it('when a payment of a batch has no amount of its own, or no currency is named anywhere, then the 400 names the element', async () => {
    const noAmount = fixture('camt054.001.08.xml').toString().replace('<Amt Ccy="CHF">50.00</Amt>', '');
    const err = await refusal(Buffer.from(noAmount));
    expect(err).to.include({ status: 400, id: 'malformed_statement', field: 'Document/BkToCstmrDbtCdtNtfctn/Ntfctn[1]/Ntry[1]/NtryDtls/TxDtls[2]/Amt' });
    const noCurrency = fixture('camt053.001.08.xml')
      .toString()
      .replace(/ Ccy="EUR"/g, '')
      .replace(/<Ccy>EUR<\/Ccy>/g, '');
    const missing = await refusal(Buffer.from(noCurrency));
    expect(missing).to.include({ status: 400, id: 'malformed_statement', field: 'Document/BkToCstmrStmt/Stmt[1]/Ntry[1]/Amt' });
    expect(missing.message).to.contain('Ccy');
  });

  it('when an amount has no currency but the account has one, then the account currency is taken', async () => {
    const parsed = await parseStatement(
      Buffer.from(
        fixture('camt053.001.08.xml')
          .toString()
          .replace(/ Ccy="EUR"/g, ''),
      ),
    );
    expect(parsed.entries.map((e) => e.currency)).to.deep.equal(['EUR', 'EUR', 'EUR']);
  });

  it('when the remittance text carries the IBAN and BIC the bank appends, then the subject keeps only the payer words', async () => {
    const text = 'Bestellung 5_2026_11 IBAN: DE89370400440532013000 BIC: COBADEFFXXX RECHNUNG DE12345678901234567890';
    const xml = fixture('camt053.001.08.xml').toString().replace('<Ustrd>Spende &amp; Trinkgeld</Ustrd>', `<Ustrd>${text}</Ustrd>`);
    const parsed = await parseStatement(Buffer.from(xml));
    // RECHNUNG has a BIC's shape and DE12... an IBAN's, but neither is one: both stay.
    expect(parsed.entries[2]!.subject).to.equal('Bestellung 5_2026_11 RECHNUNG DE12345678901234567890');
  });

  it('when a CAMT credit is a reversal, carries RtrInf or a return code, then it is counted as a return, never a transfer', async () => {
    const base = fixture('camt053.001.08.xml').toString();
    const cases = [
      base.replace('<Sts><Cd>BOOK</Cd></Sts>', '<RvslInd>true</RvslInd><Sts><Cd>BOOK</Cd></Sts>'),
      base.replace('<SubFmlyCd>ESCT</SubFmlyCd>', '<SubFmlyCd>RRTN</SubFmlyCd>'),
      base.replace('<Prtry><Cd>NTRF+166</Cd>', '<Prtry><Cd>NRTI+159+00931</Cd>'),
      base.replace(
        '<RltdPties>\n              <Dbtr><Pty><Nm>Jürgen',
        '<RtrInf><Rsn><Cd>AC04</Cd></Rsn></RtrInf><RltdPties>\n              <Dbtr><Pty><Nm>Jürgen',
      ),
    ];
    for (const xml of cases) {
      expect(xml).to.not.equal(base);
      const parsed = await parseStatement(Buffer.from(xml));
      expect(parsed).to.include({ returns: 1, debits: 1, unbooked: 1 });
      expect(parsed.entries.map((e) => e.sender)).to.deep.equal(['Zoë Brandstätter', 'Anna Ødegård']);
    }
  });
});
