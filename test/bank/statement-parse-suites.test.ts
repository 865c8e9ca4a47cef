/**
 * Statement shapes found in more public parsers' test suites (zilverline/mt940, webschik/mt940-js,
 * prowide-iso20022), each reproduced in a file written for Kontor with made-up data: the shape of
 * the bank's file, none of its content.
 */
import { expect } from 'chai';
import { parseStatement } from '../../lib/bank/statement/statement.parse';
import { call, newSeller } from '../support/api';
import { fixture } from './fixtures';

const entries = async (name: string) =>
  (await parseStatement(fixture(name))).entries.map((e) => ({ sender: e.sender, subject: e.subject, amount: e.amount, payerReferences: e.payerReferences }));

describe('bank statement parsing: shapes of more public test suites', () => {
  // mt940-js's test file: a statement cut into two pages that both carry the same :28: (the first
  // ends :62M:, the second starts :60M:), positions counted from 1 on each page.
  it('when two pages of a statement carry the same statement number and each an equal payment at the same position, then both are stored', async () => {
    const s = await newSeller();
    const res = await call('bank/statement/', { token: s.token, body: fixture('mt940-pages.sta'), headers: { 'Content-Type': 'application/octet-stream' } });
    expect(res.status, res.text).to.equal(202);
    expect(res.body.statement).to.include({ statements: 2, entries: 2, stored: 2, duplicates: 0 });
    const list = await call('bank/transfer/', { token: s.token });
    expect(list.status, list.text).to.equal(200);
    expect((list.body.bank as { sender: string; subject: string; amount: string }[]).map((b) => [b.sender, b.subject, b.amount])).to.deep.equal([
      ['Jonas Weber', 'Bestellung 120_2026_11', '30.00'],
      ['Mia Koch', 'Bestellung 121_2026_11', '30.00'],
    ]);
    const again = await call('bank/statement/', { token: s.token, body: fixture('mt940-pages.sta'), headers: { 'Content-Type': 'application/octet-stream' } });
    expect(again.status, again.text).to.equal(200);
    expect(again.body.statement).to.include({ stored: 0, duplicates: 2 });
  });

  // zilverline/mt940's Rabobank "dash as start of line": a field 86 text ending in '-' wrapped so
  // that the '-' stands alone on a line, the statement's :62F: after it.
  it('when a line holding only "-" is followed by a field of the same statement, then it is text and the statement is read', async () => {
    expect(await entries('mt940-dash-line.sta')).to.deep.equal([
      { sender: 'T. de Vries', subject: 'Order 122_2026_11 bedankt --', amount: '75.00', payerReferences: ['E2E-77310'] },
    ]);
  });

  // zilverline/mt940's Triodos file cuts its /TAG/ lines at 33 and 32 characters, inside a tag
  // (`/RE` + `MI/`) and inside a number; its ING file cuts the first line at 65 counting `:86:`.
  it('when /TAG/ lines are cut anywhere (inside a tag, a number, or at 65 with the tag), then they are joined as they are and the order number stays whole', async () => {
    expect(await entries('mt940-tag-wrapped.sta')).to.deep.equal([
      { sender: 'Fam. Jansen', subject: 'Bestelling 123_2026_11', amount: '120.00', payerReferences: [] },
      { sender: 'Bakker', subject: 'Order 124_2026_11', amount: '64.90', payerReferences: [] },
    ]);
  });

  // zilverline/mt940's ABN AMRO SEPA files: "NAAM: name" is followed by MACHTIGING, OMSCHRIJVING
  // and KENMERK labels; a name filling its 65-character line runs into the next label.
  it("when an ABN AMRO text names the payer (NAAM:) before the payer's text (OMSCHRIJVING:), then the sender is the name and the subject the text", async () => {
    expect(await entries('mt940-abn-naam.sta')).to.deep.equal([
      { sender: 'S. VAN DIJK', subject: 'BESTELLING 125_2026_11 KENMERK: 2611201234', amount: '42.50', payerReferences: [] },
      { sender: 'HOVENIERSBEDRIJF GROOTS BV', subject: 'FACTUUR RE-126 TUINONDERHOUD', amount: '310.00', payerReferences: [] },
    ]);
  });

  // ABN AMRO's own published MT940 example file (MT940_voorbeeldbestanden, in dovadi/mt940) marks
  // one entry `d` in lower case.
  it('when a :61: mark is written in lower case, then the file is read: the credit stored, the debit counted', async () => {
    const p = await parseStatement(fixture('mt940-lowercase-mark.sta'));
    expect(p).to.include({ statements: 1, debits: 1, returns: 0 });
    expect(p.entries.map((e) => [e.sender, e.subject, e.amount])).to.deep.equal([['E. Visser', 'Order 128_2026_11', '57.90']]);
  });

  // ING's provided IBP example (gingerpayments/python-libmt94x): a refund the holder sent comes
  // back as a credit whose text starts with the SEPA return reason and repeats the refund's text.
  it('when an unstructured ING text starts with a SEPA return reason (AC04), then the credit is a return, not a payment of the order it names', async () => {
    const p = await parseStatement(fixture('mt940-ing-return-reason.sta'));
    expect(p).to.include({ statements: 1, debits: 1, returns: 1 });
    expect(p.entries.map((e) => [e.amount, e.subject])).to.deep.equal([['44.00', 'INGBNL2A R. Mulder Order 130_2026_11']]);
  });

  // prowide-iso20022's camt.053.001.07 message: the business application header and the
  // Document side by side in an envelope, as ISO 20022 messages travel over SWIFT.
  it('when the camt.053 Document comes in an envelope beside its AppHdr, then its entries are read', async () => {
    const p = await parseStatement(fixture('camt053-envelope.xml'));
    expect(p).to.include({ format: 'camt.053', statements: 1, debits: 0 });
    expect(p.entries.map((e) => [e.sender, e.subject, e.amount, e.currency, e.transferDate.toISOString()])).to.deep.equal([
      ['Paul Lehmann', 'Bestellung 127_2026_11', '88.40', 'EUR', '2026-11-20T00:00:00.000Z'],
    ]);
  });

  it('when the AppHdr before the Document carries a signature of some kilobytes, then the statement is still recognised and read', async () => {
    const certificate = 'MIIKontorTestCertificate'.repeat(300);
    const signed = fixture('camt053-envelope.xml')
      .toString('utf8')
      .replace(
        '</AppHdr>',
        `<Sgntr><Signature><KeyInfo><X509Data><X509Certificate>${certificate}</X509Certificate></X509Data></KeyInfo></Signature></Sgntr></AppHdr>`,
      );
    const p = await parseStatement(Buffer.from(signed, 'utf8'));
    expect(p.entries.map((e) => [e.sender, e.amount])).to.deep.equal([['Paul Lehmann', '88.40']]);
  });
});
