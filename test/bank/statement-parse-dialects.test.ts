/**
 * Statement shapes found in public parsers' test suites (jejik-mt940, php-mt940, wolph/mt940,
 * camt_parser), each reproduced here in a file written for Kontor with made-up data: the shape
 * of the bank's file, none of its content.
 */
import { expect } from 'chai';
import { DomainError } from '../../lib/errors';
import { parseStatement } from '../../lib/bank/statement/statement.parse';
import type { ParsedStatement } from '../../lib/bank/statement/statement.type';
import { fixture } from './fixtures';

/** The parse with the entries' dates as days, for a compact comparison. */
async function parsed(name: string): Promise<Omit<ParsedStatement, 'entries'> & { entries: Record<string, unknown>[] }> {
  const p = await parseStatement(fixture(name));
  return { ...p, entries: p.entries.map((e) => ({ ...e, transferDate: e.transferDate.toISOString().slice(0, 10) })) };
}

describe('bank statement parsing: dialects of genuine files', () => {
  describe('MT940 :61: lines', () => {
    it('when the amount and the type code are parted by a space (Deutsche Bank, Commerzbank), then the credit is read and the debit counted', async () => {
      const p = await parsed('mt940-space-before-type.sta');
      expect(p).to.include({ statements: 1, debits: 1, returns: 0, unbooked: 0 });
      expect(p.entries).to.deep.equal([
        {
          reference: 'mt940 DE44500700100123456789|00317|2632411200004711|84.90|2026-11-20',
          legacyReference: 'DE44500700100123456789|00317/1|2632411200004711|1|84.90|2026-11-20',
          transferDate: '2026-11-20',
          sender: 'Lena Vogt',
          subject: 'Bestellung 12_2026_11',
          amount: '84.90',
          currency: 'EUR',
          payerReferences: [],
        },
      ]);
    });

    it('when the booking date is left blank as four spaces (ASN Bank), then the entry is booked on its value date', async () => {
      const p = await parsed('mt940-blank-booking-date.sta');
      expect(p).to.include({ statements: 1, debits: 1, returns: 0 });
      expect(p.entries.map((e) => [e.amount, e.currency, e.transferDate, e.sender, e.subject])).to.deep.equal([
        ['45.00', 'EUR', '2026-11-20', 'M Janssen', 'Order 13_2026_11'],
      ]);
    });

    it('when the booking date is blank and a funds code follows the mark (Citi), then the credit is read and a zero line or a debit is no payment', async () => {
      const p = await parsed('mt940-blank-booking-date-funds.sta');
      expect(p).to.include({ statements: 1, debits: 2, returns: 0 });
      expect(p.entries.map((e) => [e.amount, e.currency, e.transferDate])).to.deep.equal([['310.00', 'USD', '2026-11-20']]);
      expect(p.entries[0]!.subject).to.contain('ORDER 15_2026_11');
    });

    it('when no type code stands between the amount and the bank reference (Zenith Bank), then the credit is read with that reference', async () => {
      const p = await parsed('mt940-no-type-code.sta');
      expect(p).to.include({ statements: 1, debits: 1, returns: 0 });
      expect(p.entries.map((e) => [e.reference, e.legacyReference, e.amount, e.currency, e.transferDate])).to.deep.equal([
        ['mt940 1012345678||26112099001|150000.00|2026-11-20', '1012345678|/1|26112099001|1|150000.00|2026-11-20', '150000.00', 'NGN', '2026-11-20'],
      ]);
    });

    it('when the type code is a letter and three blanks (a Hungarian bank, details in :NS:), then the credit is read and the debit counted', async () => {
      const p = await parsed('mt940-blank-type-code.sta');
      expect(p).to.include({ statements: 1, debits: 1, returns: 0 });
      // The :NS: fields are a bank's own; what they name is not read (sender and subject stay empty).
      expect(p.entries.map((e) => [e.reference, e.legacyReference, e.amount, e.currency, e.transferDate])).to.deep.equal([
        [
          'mt940 1177336600010002|00112|15000.00|2026-11-20|~IxfqU3SHT9SUl3fqhKn2BsQ942mFn5xeUukrgDczqSI',
          '1177336600010002|00112||1|15000.00|2026-11-20',
          '15000.00',
          'HUF',
          '2026-11-20',
        ],
      ]);
    });

    it('when a closing entry is valued 30 February and booked on 1 March (German savings banks, 30/360), then the statement is read and the credit booked on 1 March', async () => {
      const p = await parsed('mt940-february-30.sta');
      expect(p).to.include({ statements: 1, debits: 1, returns: 0 });
      expect(p.entries.map((e) => [e.amount, e.transferDate, e.sender, e.subject])).to.deep.equal([
        ['120.00', '2027-03-01', 'Jonas Becker', 'Rechnung RE-2027-0042'],
        ['1.25', '2027-03-01', '', 'Habenzinsen'],
      ]);
    });

    it('when 30 February has no booking date, then it is the last day of February; booked months away, it is refused naming its line', async () => {
      const text = fixture('mt940-february-30.sta').toString('latin1');
      const unbooked = await parseStatement(Buffer.from(text.replace(':61:2702300301CR1,25', ':61:270230CR1,25'), 'latin1'));
      expect(unbooked.entries[1]!.transferDate).to.deep.equal(new Date('2027-02-28T00:00:00Z'));
      const far = parseStatement(Buffer.from(text.replace(':61:2702300301CR1,25', ':61:2702300601CR1,25'), 'latin1'));
      await far.then(
        () => expect.fail('accepted'),
        (err: { field?: string }) => expect(err.field).to.equal('line 7'),
      );
    });
  });

  describe('MT942', () => {
    it('when an MT942 interim report is posted, then it is refused as unsupported naming its line, so its entries never come in twice beside the MT940', async () => {
      const err = await parseStatement(fixture('mt942-interim.sta')).then(
        () => expect.fail('accepted'),
        (e: DomainError) => e,
      );
      expect(err).to.be.instanceOf(DomainError);
      expect(err.id).to.equal('unsupported_statement');
      expect(err.status).to.equal(400);
      expect(err.field).to.equal('line 1');
    });
  });

  describe('CAMT', () => {
    it('when a Swiss ESR batch marks its payments ?REJECT?0 and ?ERROR?000 (PostFinance), then neither mark reaches a subject', async () => {
      const p = await parsed('camt053-esr-marks.xml');
      expect(p.entries.map((e) => [e.amount, e.currency, e.sender, e.subject])).to.deep.equal([
        ['120.00', 'CHF', 'Anna Keller', 'Bestellung 21_2026_11'],
        ['50.00', 'CHF', 'Marco Rossi', ''],
      ]);
    });

    it('when a notification has neither entry references nor an Id of its own (libeufin GLS camt.054), then two identical payments are the first and second occurrence of one key', async () => {
      const p = await parsed('camt054-no-ids.xml');
      const key = 'camt |19.90|2026-11-25|~VoNUkEPcTGfFcnmkFq91tbpDxrOubPjr0msVlXMXKYA';
      expect(p.entries.map((e) => [e.reference, e.legacyReference, e.amount, e.sender, e.subject])).to.deep.equal([
        [key, '|NTF2026112500000417/1/1|1|19.90|2026-11-25', '19.90', 'Petra Lang', 'Gutschein'],
        [`${key}#2`, '|NTF2026112500000417/1/2|1|19.90|2026-11-25', '19.90', 'Petra Lang', 'Gutschein'],
      ]);
    });
  });
});
