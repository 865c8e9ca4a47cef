/**
 * A statement file as received (bytes): decoded, its format recognised, parsed.
 *
 * Character set (no charset travels with a statement file):
 * - A byte-order mark decides (UTF-8, UTF-16LE/BE).
 * - XML (its first character `<`): the encoding of its XML declaration, UTF-8 when it names none
 *   (XML 1.0, 4.3.3); a file declared UTF-8 that is not valid UTF-8 is read as below.
 * - Otherwise, valid UTF-8 is UTF-8 (a single-byte text with letters above 0x7F is almost never
 *   valid UTF-8).
 * - Otherwise it is a single-byte code page, told apart by bytes 0x80-0x9F: in ISO-8859 they are
 *   C1 control characters, which no text holds; in Windows-1252 punctuation (€ ‚ „ … – ” ...) and
 *   a few rare letters (š œ ž Ÿ); in the DOS code pages CP850/CP437/CP852 the common letters
 *   (ü é ä Ä Ö Ü ...), so a German DOS text with any umlaut has them. No byte 0x80-0x9F: ISO-8859-15
 *   (German banks' MT940; € at 0xA4). Some: each of Windows-1252, CP850 and CP437 decodes the
 *   file, and the one whose bytes above 0x7F read most plausibly wins (see plausibility); a tie
 *   goes to CP850, then CP437 (they agree on every letter of German, Dutch, French, Spanish:
 *   CP437 differs in box-drawing and Greek), then Windows-1252.
 * - CP852 (the DOS code page of Central Europe) agrees with CP850 on ä ö ü Ä Ö Ü é á í ó ú ß and
 *   differs in letters only (ł ő ű ...), so no count of letters against controls tells them
 *   apart: a DOS-encoded file whose first balance is in PLN, CZK, HUF, HRK or RON is read as
 *   CP852 instead of CP850.
 * - Such a file with no byte in 0x80-0x9F is ISO-8859-2, not ISO-8859-15: mBank writes its MT940
 *   so (ksdev-pl/mbank-mt940-parser's MT940_IPH.txt, whose test expects `SPÓŁKA`, `WIELUŃ`), and
 *   read as ISO-8859-15 every Ł was £, Ś Š, Ą ¡, Ż ¯, Ń Ñ: a payer `ZAK£AD` never paid the order of
 *   `Zakład` by name and amount. The two agree on ASCII, ó, ä, ö, ü, é, á, í, ú, ß, Ä, Ö, Ü, Ó, É;
 *   a Western statement in PLN with other accented letters would be misread (none seen).
 * - A PLN file among those with Windows-1250's ą/Ą (0xB9/0xA5) and none of ISO-8859-2's ą Ą ś Ś ź Ź
 *   is Windows-1250 (a Windows-1250 file without ś ź Ś Ź has no byte in 0x80-0x9F; read as
 *   ISO-8859-2 its ą was š and Ą Ľ, and a payer SKLEP WĽCHOCK never paid by name): windows1250Polish.
 */
import iconv from 'iconv-lite';
import { DomainError, invalidInput } from '../../errors';
import { isCamt, isCamtReport, parseCamt } from './camt';
import { addEarlierKeys } from './entry-key';
import { archiveFiles, isZipArchive } from './statement-archive';
import { isMt940, parseMt940 } from './mt940';
import type { ParsedStatement } from './statement.type';

const utf8 = new TextDecoder('utf-8', { fatal: true });

function asUtf8(bytes: Buffer): string | null {
  try {
    return utf8.decode(bytes);
  } catch {
    return null;
  }
}

/** The file as text, by the rule above. */
export function decodeStatement(bytes: Buffer): string {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return iconv.decode(bytes.subarray(3), 'utf-8');
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return iconv.decode(bytes.subarray(2), 'utf-16le');
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return iconv.decode(bytes.subarray(2), 'utf-16be');
  const declared = xmlEncoding(bytes);
  if (declared && !/^utf-?8$/i.test(declared)) {
    if (!iconv.encodingExists(declared))
      throw invalidInput('unsupported_statement', `the XML declares the encoding ${declared}, which Kontor cannot read`, 'body');
    return iconv.decode(bytes, declared);
  }
  return asUtf8(bytes) ?? iconv.decode(bytes, singleByteCodePage(bytes));
}

/** The encoding named by an XML declaration at the start, '' for XML without one, null for no XML. */
function xmlEncoding(bytes: Buffer): string | null {
  const head = bytes.subarray(0, 200).toString('latin1').trimStart();
  if (!head.startsWith('<')) return null;
  return /^<\?xml[^>]*\bencoding\s*=\s*["']([A-Za-z0-9._-]+)["']/.exec(head)?.[1] ?? '';
}

const centralEurope = /:60[FM]:[CD]\d{6}(PLN|CZK|HUF|HRK|RON)/;

const hasByteOrderMark = (bytes: Buffer) =>
  (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) || (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff);

/**
 * The code pages earlier versions of Kontor read this file in, where the rule above now reads it
 * otherwise: a Central European file without a byte in 0x80-0x9F was ISO-8859-15 before 1732b4e,
 * and a Polish Windows-1250 one (windows1250Polish) ISO-8859-2 before bb3ac39. An entry without
 * a bank reference of its own is keyed by its text (entry-key.ts contentDigest), so such a file
 * imported then and again now gave its entries new keys, and they were stored and paid twice.
 */
export function codePagesBefore(bytes: Buffer): string[] {
  if (hasByteOrderMark(bytes) || xmlEncoding(bytes) !== null || asUtf8(bytes) !== null) return [];
  if (bytes.some((b) => b >= 0x80 && b <= 0x9f) || !centralEurope.test(bytes.toString('latin1'))) return [];
  return windows1250Polish(bytes) ? ['iso-8859-2', 'iso-8859-15'] : ['iso-8859-15'];
}

function singleByteCodePage(bytes: Buffer): string {
  const central = centralEurope.test(bytes.toString('latin1'));
  if (!bytes.some((b) => b >= 0x80 && b <= 0x9f)) return central ? (windows1250Polish(bytes) ? 'windows-1250' : 'iso-8859-2') : 'iso-8859-15';
  const dos = central ? ['cp852'] : ['cp850', 'cp437'];
  const candidates = [...dos, 'windows-1252'];
  const scores = candidates.map((cp) => plausibility(bytes, iconv.decode(bytes, cp)));
  return candidates[scores.indexOf(Math.max(...scores))]!;
}

/**
 * A PLN file without a byte in 0x80-0x9F in Windows-1250 rather than ISO-8859-2 (decision, the two
 * differ there in Polish letters only by these bytes): it holds Windows-1250's ą or Ą (0xB9, 0xA5;
 * ISO-8859-2's š, Ľ, rare in Polish text) and none of ISO-8859-2's ą Ą ś Ś ź Ź (0xB1 0xA1 0xB6 0xA6
 * 0xBC 0xAC; Windows-1250's ± ˇ ¶ ¦ ľ ¬, none of them in a Polish name or title). Any of the latter
 * keeps ISO-8859-2, so a Czech or Polish ISO-8859-2 text with an š beside its ś or ą reads as before.
 * Only for PLN: a CZK/HUF/RON ISO-8859-2 file with š and no ą is common.
 */
function windows1250Polish(bytes: Buffer): boolean {
  if (!/:60[FM]:[CD]\d{6}PLN/.test(bytes.toString('latin1'))) return false;
  const has = (set: number[]) => bytes.some((b) => set.includes(b));
  return has([0xb9, 0xa5]) && !has([0xb1, 0xa1, 0xb6, 0xa6, 0xbc, 0xac]);
}

const letter = /\p{L}/u;
const apostrophe = /[’‘`']/;
const box = /[\u2500-\u25ff]/;
const control = /[\p{Cc}\p{Cn}\p{Co}\ufffd]/u;

/**
 * How plausibly a decoding reads, counted over the bytes above 0x7F (each one character in a
 * single-byte code page): a letter inside a word (next to another letter) +1, a letter standing
 * alone 0; punctuation or a symbol +1 beside a space or at a word's edge, -1 inside a word
 * (`M³ller`), except an apostrophe; a control character, an unassigned code or box drawing -1.
 */
function plausibility(bytes: Buffer, text: string): number {
  let score = 0;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i]! < 0x80) continue;
    const c = text[i]!;
    const around = [text[i - 1] ?? ' ', text[i + 1] ?? ' '].filter((n) => letter.test(n)).length;
    if (control.test(c) || box.test(c)) score--;
    else if (letter.test(c)) score += around > 0 ? 1 : 0;
    else score += around === 2 && !apostrophe.test(c) ? -1 : 1;
  }
  return score;
}

export async function parseStatement(bytes: Buffer): Promise<ParsedStatement> {
  if (!isZipArchive(bytes)) return parseStatementFile(bytes);
  const parsed: ParsedStatement[] = [];
  for (const file of archiveFiles(bytes)) {
    if (isZipArchive(file.bytes)) throw invalidInput('malformed_statement', `${file.name}: an archive inside the archive is not read`, 'body');
    try {
      parsed.push(await parseStatementFile(file.bytes));
    } catch (err) {
      // Which file of the archive: the bank's own name for it (account and day).
      if (err instanceof DomainError) throw new DomainError(err.id, `${file.name}: ${err.message}`, { field: err.field, as: err.kind });
      throw err;
    }
  }
  return mergedStatements(parsed);
}

/** The files of one archive as one import: their statements, entries and counts together; the format of the first. */
function mergedStatements(parsed: ParsedStatement[]): ParsedStatement {
  const unread = parsed.flatMap((p) => p.unread ?? []);
  return {
    format: parsed[0]!.format,
    statements: parsed.reduce((n, p) => n + p.statements, 0),
    entries: parsed.flatMap((p) => p.entries),
    debits: parsed.reduce((n, p) => n + p.debits, 0),
    reversals: parsed.flatMap((p) => p.reversals),
    returns: parsed.reduce((n, p) => n + p.returns, 0),
    unbooked: parsed.reduce((n, p) => n + p.unbooked, 0),
    ...(unread.length ? { unread } : {}),
  };
}

async function parseStatementFile(bytes: Buffer): Promise<ParsedStatement> {
  const text = decodeStatement(bytes).replace(/^\uFEFF/, '');
  if (text.includes('\u0000')) throw invalidInput('malformed_statement', 'the statement file holds NUL characters: not a CAMT.053 or MT940 text file', 'body');
  if (!text.trim()) throw invalidInput('malformed_statement', 'the statement file is empty', 'body');
  if (text.trimStart().startsWith('<')) {
    // camt.052 (intraday account report) lists entries the day's camt.053 books again, as MT942 does.
    if (!isCamt(text) && isCamtReport(text))
      throw invalidInput(
        'unsupported_statement',
        'camt.052: an intraday account report (BkToCstmrAcctRpt) is not read; import the camt.053 statement',
        'Document',
      );
    if (!isCamt(text))
      throw invalidInput(
        'unsupported_statement',
        'the XML is neither a camt.053 statement (Document/BkToCstmrStmt) nor a camt.054 notification (Document/BkToCstmrDbtCdtNtfctn)',
        'Document',
      );
    return parseCamt(text);
  }
  if (isMt940(text)) return withEarlierKeys(parseMt940(text), bytes);
  throw invalidInput('unsupported_statement', 'the file is neither a CAMT.053/.054 statement (XML) nor an MT940 statement (:20: ...)', 'body');
}

/**
 * The statement with each entry's keys of the earlier readings of its characters (codePagesBefore,
 * StatementEntry.earlierKeys). A reading that refused the file stored nothing then: it adds none.
 */
function withEarlierKeys(parsed: ParsedStatement, bytes: Buffer): ParsedStatement {
  for (const codePage of codePagesBefore(bytes)) {
    let before: ParsedStatement;
    try {
      before = parseMt940(iconv.decode(bytes, codePage));
    } catch (err) {
      if (err instanceof DomainError) continue;
      throw err;
    }
    addEarlierKeys(parsed.entries, before.entries);
    addEarlierKeys(parsed.reversals, before.reversals);
  }
  return parsed;
}
