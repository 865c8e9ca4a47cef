/**
 * The 8 genuine camt.053 files of shared/samples/bank/camt/ (SOURCES.md) posted to POST
 * bank/statement/ as a seller does: per file the counts answered, the transfers stored (amount,
 * currency, booking date, payer, text; the payer's references and the key in the row), and the
 * same file posted again storing nothing.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { db } from '../../lib/db/knex';
import { call, newSeller, query, Seller } from '../support/api';
import { fixture } from './fixtures';

const sample = (name: string) => readFileSync(path.resolve(__dirname, '../../../shared/samples/bank/camt', name));

const postFile = (who: Seller, body: Buffer) => call('bank/statement/', { token: who.token, body, headers: { 'Content-Type': 'application/xml' } });

/** What a client reads back: sender, subject, amount, currency, booking date, in the order stored. */
async function transfers(who: Seller): Promise<string[][]> {
  const res = await call(`bank/transfer/?${query({ pagination: { limit: 100 } })}`, { token: who.token });
  expect(res.status, res.text).to.equal(200);
  return (res.body.bank as Record<string, string>[]).map((r) => [r.sender!, r.subject!, r.amount!, r.currency_id!, r.transfer_date!]);
}

/** The payer's references of the stored rows, in the order stored. */
const payerRefs = async (who: Seller) => (await db()('bank').where({ account_id: who.id }).orderBy('number')).map((r: { payer_ref: string }) => r.payer_ref);

interface Case {
  counts: { statements: number; entries: number; debits: number; returns: number; unbooked: number };
  rows: string[][];
  payerRefs: string[];
}

const postFinanceRows = (packageIds: string[]) => [
  [
    '',
    'GUTSCHRIFT CH-DD-BASISLASTSCHRIFT ID-NR. DES ZAHLUNGSEMPFÄNGERS: 41100000000872849 REFERENZ-NR: PmtInfId-CHDD-1',
    '4.50',
    'CHF',
    '2020-11-24T00:00:00.000Z',
  ],
  ['', `SAMMELGUTSCHRIFT FÜR KONTO: VERARBEITUNG VOM 23.11.2020 PAKET ID: ${packageIds[0]}`, '1500.00', 'CHF', '2020-11-24T00:00:00.000Z'],
  ['', `SAMMELGUTSCHRIFT FÜR KONTO: VERARBEITUNG VOM 24.11.2020 PAKET ID: ${packageIds[1]}`, '1537.00', 'CHF', '2020-11-24T00:00:00.000Z'],
  ['', `SAMMELGUTSCHRIFT FÜR KONTO: VERARBEITUNG VOM 24.11.2020 PAKET ID: ${packageIds[2]}`, '1692.22', 'CHF', '2020-11-24T00:00:00.000Z'],
];

const cases: Record<string, Case> = {
  'libeufin__postfinance_camt053_v2019.xml': {
    counts: { statements: 1, entries: 4, debits: 1, returns: 0, unbooked: 0 },
    rows: postFinanceRows(['9999999999999999', '9999999999999998', '201124CH000009TB']),
    payerRefs: ['', '', '', ''],
  },
  'libeufin__postfinance_camt053_v2009.xml': {
    counts: { statements: 1, entries: 4, debits: 1, returns: 0, unbooked: 0 },
    rows: postFinanceRows(['9999999999999999', '201124CH000009TC', '201124CH000009TB']),
    payerRefs: ['', '', '', ''],
  },
  'libeufin__gls_camt053.xml': {
    counts: { statements: 1, entries: 1, debits: 2, returns: 1, unbooked: 0 },
    rows: [['John Smith', 'Taler FJDQ7W6G7NWX4H9M1MKA12090FRC9K7DA6N0FANDZZFXTR6QHX5G Test.,-', '3.00', 'EUR', '2024-04-12T00:00:00.000Z']],
    payerRefs: [''],
  },
  'libeufin__postfinance_platform_camt053.xml': { counts: { statements: 1, entries: 0, debits: 0, returns: 2, unbooked: 0 }, rows: [], payerRefs: [] },
  'oca__test-camt053.xml': {
    counts: { statements: 1, entries: 1, debits: 2, returns: 0, unbooked: 0 },
    rows: [['3rd party Media', '#RD PARTY MEDIA CUSNO 90782 4210773', '1405.31', 'EUR', '2014-01-05T00:00:00.000Z']],
    payerRefs: ['115'],
  },
  'oca__test-camt053-txdtls.xml': {
    counts: { statements: 1, entries: 2, debits: 0, returns: 0, unbooked: 0 },
    rows: [
      ['Banque Cantonale Vaudoise', '', '2187.00', 'CHF', '2017-03-22T00:00:00.000Z'],
      ['Banque Cantonale Vaudoise', '', '1296.00', 'CHF', '2017-03-22T00:00:00.000Z'],
    ],
    payerRefs: ['302388292000011111111111111', '302388292000022222222222222'],
  },
  'genkgo__camt053.v2.multi.statement.xml': {
    counts: { statements: 2, entries: 1, debits: 1, returns: 0, unbooked: 0 },
    rows: [['', 'Transaction Description 1', '8.85', 'EUR', '2014-12-31T00:00:00.000Z']],
    payerRefs: ['000000001'],
  },
  'genkgo__camt053.v8.xml': {
    counts: { statements: 1, entries: 1, debits: 0, returns: 0, unbooked: 0 },
    rows: [['NAME NAME', '', '8.85', 'EUR', '2014-12-31T00:00:00.000Z']],
    payerRefs: ['4654654654654654 MUELL/FINP/RA12345'],
  },
};

describe('bank: the genuine CAMT files through POST bank/statement/', () => {
  for (const [file, want] of Object.entries(cases)) {
    it(`when ${file} is posted, then its transfers are stored once with their currency; posted again, it stores nothing`, async () => {
      const s = await newSeller();
      const first = await postFile(s, sample(file));
      expect(first.status, first.text).to.equal(want.counts.entries ? 202 : 200);
      expect(first.body.statement).to.deep.equal({ format: 'camt.053', ...want.counts, stored: want.counts.entries, duplicates: 0 });
      expect(await transfers(s)).to.deep.equal(want.rows);
      expect(await payerRefs(s)).to.deep.equal(want.payerRefs);
      const again = await postFile(s, sample(file));
      expect(again.status, again.text).to.equal(200);
      expect(again.body.statement).to.include({ entries: want.counts.entries, stored: 0, duplicates: want.counts.entries });
      expect(await transfers(s)).to.have.length(want.rows.length);
    });
  }

  it('when PostFinance delivers the same statement as camt.053.001.04 and as .001.08, then the second stores nothing', async () => {
    const s = await newSeller();
    expect((await postFile(s, sample('libeufin__postfinance_camt053_v2009.xml'))).body.statement).to.include({ stored: 4 });
    const other = await postFile(s, sample('libeufin__postfinance_camt053_v2019.xml'));
    expect(other.status, other.text).to.equal(200);
    expect(other.body.statement).to.include({ entries: 4, stored: 0, duplicates: 4 });
  });

  it('when the camt.054 QR batch notification is posted, then each payment is a CHF transfer with its reference, and a re-post stores nothing', async () => {
    const s = await newSeller();
    const res = await postFile(s, fixture('camt054.001.08.xml'));
    expect(res.status, res.text).to.equal(202);
    expect(res.body.statement).to.deep.equal({ format: 'camt.054', statements: 1, entries: 4, stored: 4, duplicates: 0, debits: 1, returns: 1, unbooked: 1 });
    expect(await transfers(s)).to.deep.equal([
      ['Pia-Maria Rutschmann-Schnyder', 'Bestellung vom 15.11.2026', '199.95', 'CHF', '2026-11-24T00:00:00.000Z'],
      ['Jürg Kälin', '', '50.00', 'CHF', '2026-11-24T00:00:00.000Z'],
      ['Lucie Favre', 'Facture 2_2026_11 merci', '75.10', 'CHF', '2026-11-24T00:00:00.000Z'],
      ['Zoë Favre', 'Commande 3_2026_11', '120.00', 'CHF', '2026-11-25T00:00:00.000Z'],
    ]);
    expect(await payerRefs(s)).to.deep.equal(['210000000003139471430009017', 'RF18539007547034', 'QR-1_2026_11', 'E2E-4711']);
    expect((await postFile(s, fixture('camt054.001.08.xml'))).body.statement).to.include({ stored: 0, duplicates: 4 });
  });

  it('when a CAMT file names no currency for an amount, then 400 names the element and nothing is stored', async () => {
    const s = await newSeller();
    const xml = sample('libeufin__gls_camt053.xml')
      .toString()
      .replace('<Amt Ccy="EUR">3.00</Amt>\n                <CdtDbtInd>CRDT', '<Amt>3.00</Amt>\n                <CdtDbtInd>CRDT');
    const res = await postFile(s, Buffer.from(xml));
    expect(res.status, res.text).to.equal(400);
    expect(res.body.error![0]).to.include({ error: 'malformed_statement', field: 'Document/BkToCstmrStmt/Stmt[1]/Ntry[3]/Amt' });
    expect(await db()('bank').where({ account_id: s.id })).to.have.length(0);
  });
});
