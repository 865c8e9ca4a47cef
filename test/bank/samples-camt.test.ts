/**
 * The CAMT parser on the 8 genuine camt.053 files of shared/samples/bank/camt/ (SOURCES.md gives
 * per file the bank, the booked credits and what the source projects' own tests expect): per file
 * the statements, the transfers (SOURCES.md's credits minus the returns) with amount, currency,
 * booking date, payer, text and references, and the debits, returns and unbooked entries counted.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { parseStatement } from '../../lib/bank/statement/statement.parse';
import { parseCamtXml } from '../../lib/bank/statement/camt-xml';
import type { ParsedStatement, StatementEntry } from '../../lib/bank/statement/statement.type';

const sample = (name: string) => readFileSync(path.resolve(__dirname, '../../../shared/samples/bank/camt', name));
const day = (text: string) => new Date(`${text}T00:00:00Z`);

interface Expected {
  counts: Omit<ParsedStatement, 'entries' | 'reversals'>;
  entries: StatementEntry[];
  /** The reversals of credits (DBIT with RvslInd), as amount and currency; none when absent. */
  reversals?: string[];
}

/** PostFinance's statement (SPS), the same in camt.053.001.04 and .001.08: only its versions' texts differ. */
const postFinance = (packageIds: [string, string, string]): Expected => {
  const account = 'CH2909000000250094239';
  const booked = day('2020-11-24');
  const batch = (amount: string, ref: string, processed: string, packageId: string): StatementEntry => ({
    reference: `camt ${account}|${ref}|${amount}|2020-11-24`,
    legacyReference: `${account}|${ref}|1|${amount}|2020-11-24`,
    transferDate: booked,
    sender: '',
    // The account the bank names (an IBAN) is left out of the text.
    subject: `SAMMELGUTSCHRIFT FÜR KONTO: VERARBEITUNG VOM ${processed} PAKET ID: ${packageId}`,
    amount,
    currency: 'CHF',
    payerReferences: [],
  });
  return {
    counts: { format: 'camt.053', statements: 1, debits: 1, returns: 0, unbooked: 0 },
    entries: [
      {
        reference: `camt ${account}|0758103031480900|4.50|2020-11-24`,
        legacyReference: `${account}|0758103031480900|1|4.50|2020-11-24`,
        transferDate: booked,
        sender: '',
        subject: 'GUTSCHRIFT CH-DD-BASISLASTSCHRIFT ID-NR. DES ZAHLUNGSEMPFÄNGERS: 41100000000872849 REFERENZ-NR: PmtInfId-CHDD-1',
        amount: '4.50',
        currency: 'CHF',
        payerReferences: [],
      },
      batch('1500.00', '07582000303F0C7U', '23.11.2020', packageIds[0]),
      // Entries 4 and 5 share the bank's reference 07582000303KBMSU: both are kept (their amounts differ).
      batch('1537.00', '07582000303KBMSU', '24.11.2020', packageIds[1]),
      batch('1692.22', '07582000303KBMSU', '24.11.2020', packageIds[2]),
    ],
  };
};

const expected: Record<string, Expected> = {
  'libeufin__postfinance_camt053_v2019.xml': postFinance(['9999999999999999', '9999999999999998', '201124CH000009TB']),
  'libeufin__postfinance_camt053_v2009.xml': postFinance(['9999999999999999', '201124CH000009TC', '201124CH000009TB']),
  // Both credits carry AcctSvcrRef 2024041210041357000; the 1.10 one is an ICDT/RRTN return of the holder's transfer.
  'libeufin__gls_camt053.xml': {
    counts: { format: 'camt.053', statements: 1, debits: 2, returns: 1, unbooked: 0 },
    entries: [
      {
        reference: 'camt |2024041210041357000|3.00|2024-04-12',
        legacyReference: '|2024041210041357000|1|3.00|2024-04-12',
        transferDate: day('2024-04-12'),
        sender: 'John Smith',
        subject: 'Taler FJDQ7W6G7NWX4H9M1MKA12090FRC9K7DA6N0FANDZZFXTR6QHX5G Test.,-',
        amount: '3.00',
        currency: 'EUR',
        payerReferences: [],
      },
    ],
  },
  // Two CRDT entries with RvslInd true: reversals, nothing to import.
  'libeufin__postfinance_platform_camt053.xml': { counts: { format: 'camt.053', statements: 1, debits: 0, returns: 2, unbooked: 0 }, entries: [] },
  // No AcctSvcrRef or NtryRef: what the entry says identifies it (before: the statement's Id and
  // the entry's position).
  'oca__test-camt053.xml': {
    counts: { format: 'camt.053', statements: 1, debits: 2, returns: 0, unbooked: 0 },
    // Its DBIT entry with RvslInd and sub-family UPDD: two collected direct debits reversed.
    reversals: ['564.05 EUR', '100.00 EUR'],
    entries: [
      {
        reference: 'camt NL77ABNA0574908765|1405.31|2014-01-05|~nk34zvA9XnLxpuz8pZ4IeGe6ik5PH97uOFTsqM2fMnA',
        legacyReference: 'NL77ABNA0574908765|1234Test/1/3|1|1405.31|2014-01-05',
        transferDate: day('2014-01-05'),
        sender: '3rd party Media',
        subject: '#RD PARTY MEDIA CUSNO 90782 4210773',
        amount: '1405.31',
        currency: 'EUR',
        payerReferences: ['115'],
      },
    ],
  },
  // A BVR/ESR batch: one entry of 3483.00 with two payments; the account has no Ccy, the amounts do.
  // The payments share the entry's reference; each one's own details tell them apart.
  'oca__test-camt053-txdtls.xml': {
    counts: { format: 'camt.053', statements: 1, debits: 0, returns: 0, unbooked: 0 },
    entries: [
      {
        reference: 'camt CH1111000000123456789|20170323001234567891234567891234|2187.00|2017-03-22|~4-DRZfA0Kz-LuHvJWcQx-lxnNskUmtFk9fl-iAMI7-o',
        legacyReference: 'CH1111000000123456789|20170323001234567891234567891234|1|2187.00|2017-03-22',
        transferDate: day('2017-03-22'),
        sender: 'Banque Cantonale Vaudoise',
        // ?REJECT?0 is an ESR processing mark, and the batch's text describes no payment.
        subject: '',
        amount: '2187.00',
        currency: 'CHF',
        payerReferences: ['302388292000011111111111111'],
      },
      {
        reference: 'camt CH1111000000123456789|20170323001234567891234567891234|1296.00|2017-03-22|~YslSHGCls_mR_Xp8cFA_RGdSGwyn9XO_HBXaGL9Td4Q',
        legacyReference: 'CH1111000000123456789|20170323001234567891234567891234|2|1296.00|2017-03-22',
        transferDate: day('2017-03-22'),
        sender: 'Banque Cantonale Vaudoise',
        subject: '',
        amount: '1296.00',
        currency: 'CHF',
        payerReferences: ['302388292000022222222222222'],
      },
    ],
  },
  // Only the creditor is named: the sender stays empty.
  'genkgo__camt053.v2.multi.statement.xml': {
    counts: { format: 'camt.053', statements: 2, debits: 1, returns: 0, unbooked: 0 },
    entries: [
      {
        reference: 'camt NL26VAYB8060476890|8.85|2014-12-31|~g1XhuWRwtUB-3vpq7ZlKXLyff4mkdTbYALJ2pUB5NRg',
        legacyReference: 'NL26VAYB8060476890|253EURNL26VAYB8060476890/1|1|8.85|2014-12-31',
        transferDate: day('2014-12-31'),
        sender: '',
        subject: 'Transaction Description 1',
        amount: '8.85',
        currency: 'EUR',
        payerReferences: ['000000001'],
      },
    ],
  },
  // BookgDt/DtTm 2014-12-31T13:15:00+01:00 is 31 December; the lone TxDtls says 0 SEK, the entry booked 8.85 EUR.
  'genkgo__camt053.v8.xml': {
    counts: { format: 'camt.053', statements: 1, debits: 0, returns: 0, unbooked: 0 },
    entries: [
      {
        reference: 'camt NL26VAYB8060476890|AAAASESS-FP-CN_98765/01|8.85|2014-12-31',
        legacyReference: 'NL26VAYB8060476890|AAAASESS-FP-CN_98765/01|1|8.85|2014-12-31',
        transferDate: day('2014-12-31'),
        sender: 'NAME NAME',
        subject: '',
        amount: '8.85',
        currency: 'EUR',
        payerReferences: ['4654654654654654', 'MUELL/FINP/RA12345'],
      },
    ],
  },
};

describe('bank statement parsing: the genuine CAMT files', () => {
  for (const [file, want] of Object.entries(expected)) {
    it(`when ${file} is parsed, then its credits come out with amount, currency, booking date, payer and references, the rest counted`, async () => {
      const parsed = await parseStatement(sample(file));
      const { entries, reversals, ...counts } = parsed;
      expect(counts).to.deep.equal(want.counts);
      expect(reversals.map((r) => `${r.amount} ${r.currency}`)).to.deep.equal(want.reversals ?? []);
      expect(entries).to.deep.equal(want.entries);
      expect(new Set(entries.map((e) => e.reference)).size, 'one key per payment').to.equal(entries.length);
    });
  }

  it('when a sample names IBANs and BICs, then none reaches a subject or the payer references', async () => {
    let checked = 0;
    for (const file of Object.keys(expected)) {
      const xml = sample(file).toString();
      const codes = [...xml.matchAll(/<(?:IBAN|BIC|BICFI|BICOrBEI|AnyBIC)>([^<]+)</g)].map((m) => m[1]!);
      checked += codes.length;
      const { entries } = await parseStatement(sample(file));
      for (const e of entries) for (const text of [e.subject, ...e.payerReferences]) for (const code of codes) expect(text, file).to.not.contain(code);
    }
    expect(checked).to.be.above(20);
  });

  it("when a sample is read by the streaming reader, then the tree equals fast-xml-parser's, attributes included", async () => {
    const options = {
      ignoreAttributes: false,
      attributeNamePrefix: '@_',
      parseTagValue: false,
      trimValues: true,
      removeNSPrefix: true,
      ignoreDeclaration: true,
      ignorePiTags: true,
    };
    for (const file of Object.keys(expected)) {
      const xml = sample(file).toString();
      const tree = await parseCamtXml(xml);
      expect(tree, file).to.deep.equal(new XMLParser(options).parse(xml));
      expect(JSON.stringify(tree), file).to.contain('"@_Ccy"');
    }
  });

  it('when a statement is longer than one slice of the reader, with letters beyond one byte and a character reference on the boundaries, then every entry is read whole', async () => {
    const payer = 'Jürgen Müller-Łukasiewicz 𝄞 &amp; Söhne &#8364;';
    const entries = Array.from(
      { length: 600 },
      (_, i) =>
        `<Ntry><Amt Ccy="EUR">${i + 1}.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts><BookgDt><Dt>2026-11-20</Dt></BookgDt>` +
        `<AcctSvcrRef>R${i}</AcctSvcrRef><NtryDtls><TxDtls><RltdPties><Dbtr><Pty><Nm>${payer}</Nm></Pty></Dbtr></RltdPties>` +
        `<RmtInf><Ustrd><![CDATA[Rechnung ${i + 1000}]]></Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>`,
    );
    const xml =
      `<?xml version="1.0" encoding="UTF-8"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt><GrpHdr><MsgId>M</MsgId></GrpHdr>` +
      `<Stmt><Id>S</Id><Acct><Id><IBAN>DE02120300000000202051</IBAN></Id></Acct>${entries.join('')}</Stmt></BkToCstmrStmt></Document>`;
    expect(xml.length).to.be.above(3 * 64 * 1024);
    const parsed = await parseStatement(Buffer.from(xml));
    expect(parsed.entries).to.have.length(600);
    for (const [i, e] of parsed.entries.entries()) {
      expect(e.sender).to.equal('Jürgen Müller-Łukasiewicz 𝄞 & Söhne €');
      expect(e.amount).to.equal(`${i + 1}.00`);
      expect(e.subject).to.equal(`Rechnung ${i + 1000}`);
    }
  });
});
