/**
 * The 17 genuine MT940 files of shared/samples/bank/mt940 (see its SOURCES.md: bank, encoding,
 * booked credits, what the source project's tests expect), parsed as they come.
 */
import { expect } from 'chai';
import { parseStatement } from '../../lib/bank/statement/statement.parse';
import type { ParsedStatement, StatementEntry } from '../../lib/bank/statement/statement.type';
import { expected, sample } from './samples-mt940';

/** An IBAN of the countries whose accounts these files name. */
const ibanLike = /\b(DE|NL|CH|PL|DK|HU|BE|GB|AT|FR)\d{2}[A-Z0-9]{11,30}\b/;

function view(entry: StatementEntry): Partial<StatementEntry> & { date: string } {
  return { ...entry, date: entry.transferDate.toISOString().slice(0, 10) };
}

describe('bank statement parsing: the genuine MT940 files', () => {
  it('when the sample folder is read, then it holds the 17 files this test knows', () => {
    expect(Object.keys(expected)).to.have.length(17);
    for (const name of Object.keys(expected)) expect(sample(name).length, name).to.be.greaterThan(0);
  });

  for (const [name, want] of Object.entries(expected)) {
    describe(name, () => {
      let parsed: ParsedStatement;
      before(async () => {
        parsed = await parseStatement(sample(name));
      });

      it('then the statements, debits and returns are counted and every booked credit that is no return is an entry, with its currency', () => {
        expect(parsed).to.include({ format: 'mt940', statements: want.statements, debits: want.debits, returns: want.returns, unbooked: 0 });
        expect(parsed.entries.map((e) => `${e.amount} ${e.currency}`)).to.deep.equal(want.amounts);
      });

      it('then the named entries carry their booking date, payer, subject and references', () => {
        for (const [index, fields] of Object.entries(want.some)) {
          const entry = parsed.entries[Number(index)];
          expect(entry, `entry ${index}`).to.not.equal(undefined);
          expect(view(entry!), `entry ${index}`).to.include(Object.fromEntries(Object.entries(fields).filter(([k]) => k !== 'payerReferences')));
          if (fields.payerReferences) expect(entry!.payerReferences, `entry ${index}`).to.deep.equal(fields.payerReferences);
        }
      });

      it('then every entry is dated at midnight UTC, has a reference of its own, and no IBAN in its subject or references', async () => {
        for (const e of parsed.entries) {
          expect(e.transferDate.toISOString()).to.match(/T00:00:00\.000Z$/);
          expect(e.subject, e.subject).to.not.match(ibanLike);
          expect(e.subject).to.not.match(/\b(IBAN|BIC)\b/);
          for (const r of e.payerReferences) expect(r).to.not.match(ibanLike);
        }
        const references = parsed.entries.map((e) => e.reference);
        expect(new Set(references).size).to.equal(references.length);
        expect(references.every((r) => typeof r === 'string' && r.length > 0)).to.equal(true);
        // Stable: the same file gives the same keys again.
        expect((await parseStatement(sample(name))).entries.map((e) => e.reference)).to.deep.equal(references);
      });
    });
  }

  it('when the Volksbank file ends each purpose in "IBAN: ... BIC: ...", then no digits of those IBANs reach a subject', async () => {
    const parsed = await parseStatement(sample('jejik__volksbankenraiffeisenbanken.txt'));
    const text = sample('jejik__volksbankenraiffeisenbanken.txt').toString('latin1');
    const ibans = [...text.matchAll(/\?31(DE\d{20})/g)].map((m) => m[1]!);
    expect(ibans).to.have.length(12);
    for (const e of parsed.entries) {
      for (const iban of ibans) expect(e.subject).to.not.contain(iban.slice(4, 12));
      expect(e.subject).to.not.match(/BIC|IBAN|EREF/);
    }
  });

  it('when a file has GV 159 "RETOURE" credits, then they are counted as returns and are no entry', async () => {
    const text = sample('betterplace__sepa_mt9401.txt').toString('latin1');
    const retoure = text.match(/:86:159\?00RETOURE/g) ?? [];
    expect(retoure).to.have.length(17);
    const parsed = await parseStatement(sample('betterplace__sepa_mt9401.txt'));
    expect(parsed.returns).to.equal(17);
    expect(parsed.entries.some((e) => /RETOURE|Reject/i.test(e.subject))).to.equal(false);
  });

  it('when a balance of a file does not add up (anonymised), then the file is read all the same', async () => {
    // Oldenburgische Landesbank: :60F: 0 and :62F: 0 around a credit of 104.50.
    const text = sample('jejik__oldenburgischelandesbank.txt').toString('latin1');
    expect(text).to.contain(':60F:C180713EUR0,').and.to.contain(':62F:C180716EUR0,');
    expect((await parseStatement(sample('jejik__oldenburgischelandesbank.txt'))).entries).to.have.length(1);
  });
});
