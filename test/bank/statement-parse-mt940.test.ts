/**
 * MT940 dialects and character sets on statements written here: each follows SWIFT's MT940
 * (Category 9, Customer Statement Message: fields 20, 25, 28C, 60a, 61, 86, 62a) with field 86 in
 * the layout named by its test (DK "DFÜ-Abkommen" Anlage 3 ?-structure, the Dutch banks'
 * /TAG/ structure, free text), and the framing the named bank uses.
 */
import { expect } from 'chai';
import iconv from 'iconv-lite';
import { DomainError } from '../../lib/errors';
import { decodeStatement, parseStatement } from '../../lib/bank/statement/statement.parse';
import type { StatementEntry } from '../../lib/bank/statement/statement.type';

/** One statement of account DE89370400440532013000 on 20 November 2026 with the given :61:/:86: lines. */
function statement(lines: string[], number = '00042/001'): string {
  return [':20:STARTUMS', ':25:37040044/0532013000', `:28C:${number}`, ':60F:C261119EUR1000,00', ...lines, ':62F:C261120EUR1000,00', '-'].join('\r\n');
}

const credit = [':61:2611201120CR49,90NTRFNONREF//B1', ':86:166?00GUTSCHR. UEBERWEISUNG?20SVWZ+Bestellung 7_2026_11?32Anna Schmidt'];

async function entries(text: string | Buffer): Promise<StatementEntry[]> {
  return (await parseStatement(typeof text === 'string' ? Buffer.from(text, 'latin1') : text)).entries;
}

async function refusal(text: string): Promise<DomainError> {
  try {
    await parseStatement(Buffer.from(text, 'latin1'));
  } catch (err) {
    if (err instanceof DomainError) return err;
    throw err;
  }
  throw new Error('the file was accepted');
}

describe('bank statement parsing: MT940 framing, fields and character sets', () => {
  describe('framing', () => {
    const body = statement(credit);
    const framings: Record<string, string> = {
      'SWIFT FIN blocks with SOH/ETX (PostFinance)': `\x01{1:F01POFICHBEAXXX0000000000}{2:I940XXXXXXXXXXXXN}{3:{108:X}}{4:\r\n${body.replace(/-$/, '-}')}{5:{MAC:0}{CHK:0}}\x03`,
      'blocks on lines of their own (ING before 2014), ending in ^Z': `{1:F01INGBNL2AXXXX00001}\r\n{2:I940INGBNL2AXXXN}\r\n{4:\r\n${body.replace(/-$/, '-}')}\r\n\x1a`,
      "ABN AMRO's 3-line header": `ABNANL2A\r\n940\r\nABNANL2A\r\n${body}\r\n`,
      "Rabobank's :940: first line and blank lines": `:940:\n\n${body.replace(/\r\n/g, '\n\n')}`,
      'a prose preamble (Danske Bank)': `This is an example file\r\n\r\nThe example starts after the dashes.\r\n------------------\r\n${body}`,
      'LF, no terminator, no trailing newline': body.replace(/\r\n/g, '\n').replace(/\n-$/, ''),
      'CR alone, after a preamble': `Statement of account\r${body.replace(/\r\n/g, '\r')}`,
    };
    for (const [name, text] of Object.entries(framings)) {
      it(`when the statement comes in ${name}, then its credit is read`, async () => {
        const found = await entries(text);
        expect(found.map((e) => [e.amount, e.sender, e.subject])).to.deep.equal([['49.90', 'Anna Schmidt', 'Bestellung 7_2026_11']]);
      });
    }
  });

  describe(':61: statement lines', () => {
    it('when type codes carry a space (ING NOV, Triodos NIT), amounts a dot (Rabobank) or no decimals (Knab), or a :NS: field stands before :86:, then each is read', async () => {
      const text = statement([
        ':61:261120C12,5NOV NONREF',
        ':86:a',
        ':61:261120C000000000300.00NIT NONREF',
        ':NS:22x',
        ':86:b',
        ':61:2611201120C500NTRFNONREF//K1',
        ':86:c',
      ]);
      expect((await entries(text)).map((e) => [e.amount, e.subject])).to.deep.equal([
        ['12.50', 'a'],
        ['300.00', 'b'],
        ['500.00', 'c'],
      ]);
    });

    it('when a credit is RD, GV 159 or 109, or of type RTI, then it is a return; RC is a debit; EC is unbooked', async () => {
      const text = statement([
        ':61:2611201120RD10,00NTRFNONREF',
        ':86:166?20Rueckbuchung',
        ':61:2611201120CR20,00NTRFNONREF',
        ':86:159?00RETOURE?20EREF+X?34914',
        ':61:2611201120C30,00NTRFNONREF',
        ':86:109?00RUECKBELASTUNG',
        ':61:2611201120C40,00NRTINONREF',
        ':86:returned item',
        ':61:2611201120RC50,00NTRFNONREF',
        ':86:166?20Storno',
        ':61:2611201120EC60,00NTRFNONREF',
        ':61:2611201120C70,00NTRFNONREF',
        ':86:166?20Bestellung 9_2026_11',
      ]);
      const parsed = await parseStatement(Buffer.from(text));
      expect(parsed).to.include({ returns: 4, debits: 1, unbooked: 1 });
      expect(parsed.entries.map((e) => e.amount)).to.deep.equal(['70.00']);
    });

    it('when two equal payments without a bank reference stand in one statement, then both are entries with references of their own, the same on a second read', async () => {
      const text = statement([':61:2611201120C5,00NTRFNONREF', ':86:Trinkgeld', ':61:2611201120C5,00NTRFNONREF', ':86:Trinkgeld']);
      const found = await entries(text);
      // Identical bookings of one statement: the second is the second occurrence of the same key.
      const key = found[0]!.reference!;
      expect(key).to.match(/^mt940 37040044\/0532013000\|00042\|5\.00\|2026-11-20\|~[\w-]{43}$/);
      expect(found.map((e) => e.reference)).to.deep.equal([key, `${key}#2`]);
      expect(found.map((e) => e.legacyReference)).to.deep.equal([
        '37040044/0532013000|00042/001||1|5.00|2026-11-20',
        '37040044/0532013000|00042/001||2|5.00|2026-11-20',
      ]);
      expect((await entries(text)).map((e) => e.reference)).to.deep.equal(found.map((e) => e.reference));
    });

    it('when the booking date has no year, then it takes the year that puts it within half a year of the value date', async () => {
      const text = statement([
        ':61:2612310102C8,00NTRFNONREF',
        ':86:Neujahr',
        ':61:2601020102C9,00NTRFNONREF',
        ':86:Neujahr',
        ':61:2701021231C7,00NTRFNONREF',
        ':86:Silvester',
      ]);
      expect((await entries(text)).map((e) => e.transferDate.toISOString())).to.deep.equal([
        '2027-01-02T00:00:00.000Z',
        '2026-01-02T00:00:00.000Z',
        '2026-12-31T00:00:00.000Z',
      ]);
    });

    it('when the currency of :60F: is not EUR, then every entry of that statement carries it', async () => {
      const text = statement(credit).replace('EUR1000,00', 'CHF1000,00').replace(':62F:C261120EUR', ':62F:C261120CHF');
      expect((await entries(text)).map((e) => e.currency)).to.deep.equal(['CHF']);
    });
  });

  describe('field 86', () => {
    it('when a German :86: has only ?30-?32 (no purpose lines), then ?32 is still the sender', async () => {
      const text = statement([':61:2611201120C50,00NTRFNONREF', ':86:166?30SPKRDE33XXX?31DE59320500000001908722?32CHRISTIAN BENDT']);
      expect((await entries(text)).map((e) => [e.sender, e.subject])).to.deep.equal([['CHRISTIAN BENDT', '']]);
    });

    it('when remittance lines fill their 27 characters, then the next continues the word; a shorter one is followed by a space', async () => {
      const text = statement([
        ':61:2611201120C50,00NTRFNONREF',
        ':86:166?00GUTSCHRIFT?20Rechnung 4711 und Warenlief?21erung 12 vom 3.11.?22Vielen Dank?32Bauer & Tochter Gartenbau G?33mbH',
      ]);
      expect((await entries(text)).map((e) => [e.sender, e.subject])).to.deep.equal([
        ['Bauer & Tochter Gartenbau GmbH', 'Rechnung 4711 und Warenlieferung 12 vom 3.11. Vielen Dank'],
      ]);
    });

    it('when SEPA subfields stand in the remittance lines, then SVWZ+ is the subject, EREF+ a payer reference, and KREF+, MREF+, CRED+ and the bank-appended IBAN/BIC are dropped', async () => {
      const text = statement([
        ':61:2611201120C50,00NTRFNONREF',
        ':86:166?00SEPA-GUTSCHRIFT?20EREF+E2E-2026-0042?21KREF+K123?22MREF+M-77?23CRED+DE98ZZZ09999999999?24SVWZ+Bestellung 11_2026_11 ?25IBAN: DE89370400440532013000?26 BIC: COBADEFFXXX?32Jana Novak',
        ':61:2611201120C60,00NTRFNONREF',
        ':86:166?20EREF+NOTPROVIDED?21SVWZ+RF18539007547034?32Ole Berg',
      ]);
      expect((await entries(text)).map((e) => [e.sender, e.subject, e.payerReferences])).to.deep.equal([
        ['Jana Novak', 'Bestellung 11_2026_11', ['E2E-2026-0042']],
        ['Ole Berg', 'RF18539007547034', ['RF18539007547034']],
      ]);
    });

    it('when :86: uses the /TAG/ layout with ORDP, CNTP or EREF, then the payer is named and EREF is a payer reference', async () => {
      const text = statement([
        ':61:2611201120C10,00N541NONREF',
        ':86:/EREF/INV-88/ORDP//NAME/Bakkerij de Vries/ADDR/Dorpsstraat 1/REMI/Factuur 88/ISDT/2026-11-20',
        ':61:2611201120C20,00N541NONREF',
        ':86:/TRTP/SEPA OVERBOEKING/CNTP/NL91ABNA0417164300/ABNANL2A/J DE BOER/AMSTERDAM/REMI/Order 12_2026_11',
      ]);
      expect((await entries(text)).map((e) => [e.sender, e.subject, e.payerReferences])).to.deep.equal([
        ['Bakkerij de Vries', 'Factuur 88', ['INV-88']],
        ['J DE BOER', 'Order 12_2026_11', []],
      ]);
    });

    it("when ING's or Rabobank's /TAG/ layout closes values with '/', writes REMI as USTD// or STRD/CUR/, or names a /RTRN/ reason, then each is read", async () => {
      const text = statement([
        ':61:2611201120C10,00NTRFEREF//19281343127574',
        ':86:/EREF/E-4711//CNTP/NL70RABO0115600000/RABONL2U/Tuinhuis B.V.///REMI/USTD//Order 14_2026_11/',
        ':61:2611201120C20,00NTRFNONREF',
        ':86:/CNTP/NL32INGB0000012345/INGBNL2A/P JANSEN///REMI/STRD/CUR/1234567890123456/',
        ':61:2611201120C30,00NTRFNONREF',
        ':86:/RTRN/MS03//EREF/E-4712//CNTP/NL32INGB0000012345/INGBNL2A/P JANSEN///REMI/USTD//Order 15_2026_11/',
      ]);
      const parsed = await parseStatement(Buffer.from(text));
      expect(parsed.returns).to.equal(1);
      expect(parsed.entries.map((e) => [e.sender, e.subject, e.payerReferences])).to.deep.equal([
        ['Tuinhuis B.V.', 'Order 14_2026_11', ['E-4711']],
        ['P JANSEN', '', ['1234567890123456']],
      ]);
    });

    it('when :86: is free text with NAAM: (Knab) or AUFTRAGGEBER: (PostFinance), then the payer is named; other free text is the subject less its IBANs', async () => {
      const text = statement([
        ':61:2611201120C10,00NTRFNONREF',
        ':86:ORDER 5_2026_11',
        'REK: NL91ABNA0417164300/NAAM: MMS ONLINE B.V.',
        ':61:2611201120C20,00NTRFNONREF',
        ':86:GIRO AUS ONLINE-SIC 80532 AUFTRAGGEBER: JANE DOE BAHNHOFSTRASSE 1 8000 ZUERICH 261120CH98765432 MITTEILUNGEN: RECHNUNG 4711',
        ':61:2611201120C30,00NTRFNONREF',
        ':86:Bestellung 6_2026_11 von NL91ABNA0417164300',
      ]);
      expect((await entries(text)).map((e) => [e.sender, e.subject])).to.deep.equal([
        ['MMS ONLINE B.V.', 'ORDER 5_2026_11'],
        ['JANE DOE BAHNHOFSTRASSE 1 8000 ZUERICH', 'RECHNUNG 4711'],
        ['', 'Bestellung 6_2026_11 von'],
      ]);
    });

    it('when a physical :86: line fills its 65 characters, then the next continues it without a space', async () => {
      const first = 'ORDER 8_2026_11 FOR GARDEN CHAIRS AND TABLES, DELIVERY TO THE STR'; // 65 characters
      expect(first).to.have.length(65);
      const text = statement([':61:2611201120C10,00NTRFNONREF', `:86:${first}`, 'ASSE 5', 'THANK YOU']);
      expect((await entries(text))[0]!.subject).to.equal('ORDER 8_2026_11 FOR GARDEN CHAIRS AND TABLES, DELIVERY TO THE STRASSE 5 THANK YOU');
    });
  });

  describe('malformed files', () => {
    it('when a statement lacks its account, then the 400 names the line of its :20:', async () => {
      const err = await refusal(statement(credit).replace(':25:37040044/0532013000\r\n', ''));
      expect(err.status).to.equal(400);
      expect(err.id).to.equal('malformed_statement');
      expect(err.field).to.equal('line 1');
      expect(err.message).to.contain(':25:');
    });

    it('when a :61: stands before any :20:, then the 400 names its line', async () => {
      const err = await refusal(`:61:2611201120C5,00NTRFNONREF\r\n${statement(credit)}`);
      expect(err.field).to.equal('line 1');
      expect(err.message).to.match(/outside a statement/);
    });

    it('when a value date does not exist, an amount is beyond 12 digits or the closing balance is in another currency, then the 400 names the line', async () => {
      expect((await refusal(statement([':61:2602301120C5,00NTRFNONREF']))).field).to.equal('line 5');
      expect((await refusal(statement([':61:2611201120C1234567890123,00NTRFNONREF']))).message).to.match(/line 5: .*larger/);
      const other = await refusal(statement(credit).replace(':62F:C261120EUR', ':62F:C261120USD'));
      expect(other.field).to.equal('line 7');
      expect(other.message).to.match(/USD/);
    });
  });

  describe('character sets', () => {
    const words = 'Müller Überweisung Straße Größe';
    const text = (name: string) => statement([':61:2611201120C5,00NTRFNONREF', `:86:166?20Bestellung 3_2026_11?32${name}`]);

    for (const codePage of ['cp850', 'cp437', 'windows-1252', 'iso-8859-15', 'utf-8']) {
      it(`when the file is written in ${codePage}, then names read as written`, async () => {
        const bytes = iconv.encode(text(words), codePage);
        expect((await entries(bytes))[0]!.sender).to.equal(words);
      });
    }

    it('when a Windows-1252 file holds € and typographic quotes beside umlauts, then it is read as Windows-1252, not as a DOS code page', async () => {
      const words1252 = '„Jörg“ – 5 € für Bücher';
      const bytes = iconv.encode(text(words1252), 'windows-1252');
      expect(bytes.some((b) => b >= 0x80 && b <= 0x9f)).to.equal(true);
      expect((await entries(bytes))[0]!.sender).to.equal(words1252);
    });

    it('when a DOS file holds only umlauts in 0x80-0x9F (Ü as 0x9A), then it is not read as Windows-1252 (š)', async () => {
      const bytes = iconv.encode(text('ÜBERWEISUNG MÜLLER'), 'cp850');
      expect([...bytes]).to.include(0x9a);
      expect((await entries(bytes))[0]!.sender).to.equal('ÜBERWEISUNG MÜLLER');
    });

    it('when a DOS file of a Polish account (PLN) holds Polish letters, then it is read as CP852', async () => {
      const polish = 'Łódź Zażółć gęślą jaźń';
      const bytes = iconv.encode(text(polish).replace(/EUR/g, 'PLN'), 'cp852');
      expect(bytes.some((b) => b >= 0x80 && b <= 0x9f)).to.equal(true);
      const found = await entries(bytes);
      expect([found[0]!.sender, found[0]!.currency]).to.deep.equal([polish, 'PLN']);
    });

    it('when a PLN file without bytes in 0x80-0x9F holds Windows-1250 ą/Ą and no ISO-8859-2 ą Ą ś Ź, then it is Windows-1250; with any of those, or in CZK, ISO-8859-2', async () => {
      const read = async (name: string, codePage: string, currency: string) =>
        (await entries(iconv.encode(text(name).replace(/EUR/g, currency), codePage)))[0]!.sender;
      expect(await read('MĄCZKA Wąchock Łukasz', 'windows-1250', 'PLN')).to.equal('MĄCZKA Wąchock Łukasz');
      // ISO-8859-2: š (0xB9) beside ś (0xB6) or ą (0xB1) is š; a Czech š without them too.
      expect(await read('Šimon Świątek', 'iso-8859-2', 'PLN')).to.equal('Šimon Świątek');
      expect(await read('Kašpar Wąs', 'iso-8859-2', 'PLN')).to.equal('Kašpar Wąs');
      expect(await read('Ľubomír Štěpánek', 'iso-8859-2', 'CZK')).to.equal('Ľubomír Štěpánek');
    });

    it('when a file starts with a UTF-8 byte-order mark, then it is UTF-8', async () => {
      const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text('Zoë Ødegård'))]);
      expect((await entries(bytes))[0]!.sender).to.equal('Zoë Ødegård');
    });

    it('when an XML file declares its encoding, then it is decoded by it; without one it is UTF-8', () => {
      const latin = iconv.encode('<?xml version="1.0" encoding="ISO-8859-1"?><Document><Nm>Jürgen Müller</Nm></Document>', 'latin1');
      expect(decodeStatement(latin)).to.contain('Jürgen Müller');
      const plain = Buffer.from('<Document><Nm>Jürgen Müller</Nm></Document>', 'utf8');
      expect(decodeStatement(plain)).to.contain('Jürgen Müller');
      const utf16 = Buffer.concat([
        Buffer.from([0xff, 0xfe]),
        iconv.encode('<?xml version="1.0" encoding="UTF-16"?><Document><Nm>Zoë</Nm></Document>', 'utf-16le'),
      ]);
      expect(decodeStatement(utf16)).to.contain('<Nm>Zoë</Nm>');
    });
  });
});
