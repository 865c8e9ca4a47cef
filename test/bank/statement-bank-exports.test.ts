/**
 * Shapes of banks' own exports that public parsers' test suites read and Kontor refused whole,
 * each reproduced in a file written for Kontor with made-up data: OCA bank-statement-import's
 * ING and SNS files, jejik/mt940's Oldenburgische Landesbank export, libeufin's PostFinance
 * platform camt.054. Their sources' tests expect the payments read; a refused file left every
 * payment in it unpaid.
 */
import { expect } from 'chai';
import { db } from '../../lib/db/knex';
import { call, newSeller, Seller } from '../support/api';
import { fixture } from './fixtures';

const postFile = (who: Seller, body: Buffer, contentType = 'application/octet-stream') =>
  call('bank/statement/', { token: who.token, body, headers: { 'Content-Type': contentType } });

const transfers = async (who: Seller) => {
  const list = await call('bank/transfer/', { token: who.token });
  expect(list.status, list.text).to.equal(200);
  return (list.body.bank as { sender: string; subject: string; amount: string; transfer_date: string }[]).map((b) => [b.sender, b.subject, b.amount]);
};

describe('bank statement import: banks exports that public parsers read', () => {
  // OCA's test-ing.940: ING wraps field 86 at any character, so `/MARF/MND-EV01` leaves a '-'
  // alone on its line with more text after it, before the next :61:.
  it('when a line holding only "-" is followed by more text of the field and then a :61:, then it is text and every payment of the statement is stored', async () => {
    const s = await newSeller();
    const res = await postFile(s, fixture('mt940-ing-dash-wrapped.sta'));
    expect(res.status, res.text).to.equal(202);
    expect(res.body.statement).to.include({ statements: 1, entries: 2, stored: 2, duplicates: 0 });
    expect(await transfers(s)).to.deep.equal([
      ['L. de Boer', 'Bestelling 131_2026_11', '41.50'],
      ['P. Smit', 'Order 132_2026_11', '18.00'],
    ]);
    const again = await postFile(s, fixture('mt940-ing-dash-wrapped.sta'));
    expect(again.status, again.text).to.equal(200);
    expect(again.body.statement).to.include({ stored: 0, duplicates: 2 });
  });

  // OCA's test-sns.940: three SWIFT messages, the last ends `-}` without :62F:.
  it('when a statement closed by -} has no closing balance, then its payments are stored with the other statements', async () => {
    const s = await newSeller();
    const res = await postFile(s, fixture('mt940-sns-no-closing.sta'));
    expect(res.status, res.text).to.equal(202);
    expect(res.body.statement).to.include({ statements: 2, entries: 2, stored: 2 });
    expect(await transfers(s)).to.deep.equal([
      ['K. Meijer', 'Bestelling 133_2026_11', '25.00'],
      ['E. Mulder', 'Bestelling 134_2026_11', '36.00'],
    ]);
  });

  // jejik/mt940's K4262927 (Oldenburgische Landesbank): no :62F:, the forward available balance
  // :65F: last; the source's test expects the credit with its payer and SVWZ text.
  it('when a statement has no closing balance but ends with its forward available balance (:65F:), then its payment is stored', async () => {
    const s = await newSeller();
    const res = await postFile(s, fixture('mt940-olb-forward-balance.sta'));
    expect(res.status, res.text).to.equal(202);
    expect(res.body.statement).to.include({ statements: 1, entries: 1, stored: 1 });
    expect(await transfers(s)).to.deep.equal([['Hanna Wolf', 'Auftrag 135_2026_11 Danke', '58.40']]);
  });

  it('when the file stops inside a statement that has no closing balance, then the 400 names the statement and nothing is stored', async () => {
    const s = await newSeller();
    const res = await postFile(s, fixture('mt940-cut-inside.sta'));
    expect(res.status, res.text).to.equal(400);
    expect(res.body.error![0]).to.include({ error: 'malformed_statement', field: 'line 1' });
    expect(res.body.error![0]!.description).to.contain(':62F:');
    expect(await db()('bank').where({ account_id: s.id })).to.have.length(0);
  });

  // Two files run together, the first cut: the next statement's :20: (or SWIFT's next {4:) follows
  // the cut text. Read, the cut entry would be keyed apart from the whole one of the next download.
  it('when a statement without closing balance is cut and the next statement follows it, then the 400 names the cut statement and nothing is stored', async () => {
    const s = await newSeller();
    for (const next of ['mt940-olb-forward-balance.sta', 'mt940-ing-dash-wrapped.sta']) {
      const res = await postFile(s, Buffer.concat([fixture('mt940-cut-inside.sta'), fixture(next)]));
      expect(res.status, `${next}: ${res.text}`).to.equal(400);
      expect(res.body.error![0]).to.include({ error: 'malformed_statement', field: 'line 1' });
      expect(res.body.error![0]!.description).to.contain(':62F:');
    }
    expect(await db()('bank').where({ account_id: s.id })).to.have.length(0);
  });

  // libeufin's nexus/sample/platform/postfinance_camt054.xml: a batch credit's Ntry without Amt
  // and CdtDbtInd, each TxDtls with its own; libeufin's test expects both payments.
  it('when a camt.054 entry has no amount but each of its payments has one, then each payment is stored with its own amount and payer', async () => {
    const s = await newSeller();
    const res = await postFile(s, fixture('camt054-batch-without-amt.xml', { AMOUNT_1: '10.00', AMOUNT_2: '2.53' }), 'application/xml');
    expect(res.status, res.text).to.equal(202);
    expect(res.body.statement).to.include({ statements: 1, entries: 2, stored: 2 });
    expect(await transfers(s)).to.deep.equal([
      ['Lea Meier', 'Bestellung 1_2026_11', '10.00'],
      ['Nico Brunner', 'Bestellung 2_2026_11', '2.53'],
    ]);
  });

  it('when a camt.054 entry has no amount and one of its payments has none either, then the 400 names the entry amount and nothing is stored', async () => {
    const s = await newSeller();
    const body = fixture('camt054-batch-without-amt.xml').toString().replace('<Amt Ccy="CHF">24.50</Amt>', '');
    const res = await postFile(s, Buffer.from(body), 'application/xml');
    expect(res.status, res.text).to.equal(400);
    expect(res.body.error![0]).to.include({ error: 'malformed_statement', field: 'Document/BkToCstmrDbtCdtNtfctn/Ntfctn[1]/Ntry[1]/Amt' });
    expect(await db()('bank').where({ account_id: s.id })).to.have.length(0);
  });
});
