/**
 * SWIFT MT940 customer statements, read by Kontor's own parser. mt940js (tried on the 17 genuine
 * files of shared/samples/bank/mt940) read 5 of them as they come and 7 after a normalising pass;
 * it refuses what the format and the banks allow: its balance check cannot be turned off (and
 * anonymised test files do not add up), `:61:` type codes with a space (ING `NOV `, Triodos
 * `NIT `), dot-decimal amounts (Rabobank's old format), any tag it does not know, and it cuts
 * field 86 at 390 characters. So the framing is ./mt940-lines, the fields ./mt940-fields and
 * field 86 ./mt940-details.
 *
 * What a statement needs: :20:, :25: (account), :28C: or :28: (statement number), :60F:/:60M:
 * (its currency) and :62F:/:62M: (with the same currency). Missing ones, an unreadable :61: or
 * balance are a 400 `malformed_statement` naming the line. A statement without a closing balance
 * is read when its end is marked (`-}`, `-`; not the next statement's start, which follows a cut
 * statement in two files run together) or fields that follow the
 * closing balance in the format stand last (:64:, :65:): the Oldenburgische Landesbank's export
 * (jejik/mt940's K4262927 file, its test expects the 230.00 credit) and the SNS file of OCA's
 * mt940 tests (three statements, the last without :62F:) come so, and every entry is there. A
 * statement the file stops inside without either is refused: its last text may be cut, and a
 * cut text would key the entry apart from the whole one of the next download (./entry-key.ts),
 * storing the payment twice. The balances are not added up: the
 * entries are what Kontor stores, the bank's balance is not ours to check, and real test files
 * (anonymised, cut) carry balances that do not add up while every entry is right.
 *
 * Entries are the booked credits. `D` and `RC` (reversal of a credit, also read into `reversals`
 * for ../bank-reversal.service.ts) are debits, and so is an
 * amount of 0.00 (no money received); `EC`/`ED` (expected, MT942) are unbooked; `RD` (reversal
 * of a debit) and credits whose German business code, SWIFT type code or /RTRN/ marks a return
 * are returns (see ./return-codes), never customer payments.
 *
 * The entry's reference, its dedupe key (./entry-key.ts): `mt940 account|statement number|bank
 * reference|amount|booking date` where the :61: gives a bank reference (after `//`, not NONREF),
 * else `mt940 account|statement number|amount|booking date|~digest` of the booking as the bank
 * writes it: value and booking date, mark, amount, type, the reference before `//`, the
 * supplementary details and the :86: text (payer, account, remittance). The statement number is
 * the :28C: number without its page (sequence) number, so pages of one statement share it. A key
 * given again in the file gets `#2`, `#3` in file order: the occurrence among identical bookings
 * of that statement (two equal payments of one payer and day stay two; mt940-js's test file, two
 * pages both `:28:1/1`, keeps its equal payments apart). The key says nothing of where the entry
 * stands: an intraday download of a statement, then the day's full file with a booking inserted
 * before the last ones (or a bank that sorts by value date) gives every booking already stored its
 * key again. Before, the key held the position of the :61: in its statement
 * (`account|:28C:|bank reference|position|amount|booking date`, `legacyReference`), and every entry
 * after an inserted one was stored and paid again. A bank that numbers every statement 0 (the
 * Volksbank file) leaves the booking date and the content apart. A statement that stands in the
 * file twice with the same fields (but :20:) is one statement: the repeat's entries get the
 * first's keys, so they are stored once (see identityOf).
 */
import { invalidInput } from '../../errors';
import { Details, detailsOf } from './mt940-details';
import { Mt940FieldError, parseBalance, parseStatementLine, StatementLine } from './mt940-fields';
import { Mt940Block, Mt940Field, Mt940FramingError, statementBlocks } from './mt940-lines';
import { germanReturnCodes, swiftReturnTypes } from './return-codes';
import { acrossFormatsOf, contentDigest, ibanOfAccount, keyOf, occurrenceOf, tiedAcrossFormats } from './entry-key';
import { clip, ParsedStatement, StatementEntry } from './statement.type';

/**
 * Returns and reversals among credits: the German business codes (GVC) and SWIFT types of
 * ./return-codes (the CAMT reader reads the same codes in BkTxCd/Prtry), and in the /TAG/ layout
 * a /RTRN/ reason (ING, ABN AMRO, Rabobank).
 */

export const isMt940 = (text: string): boolean => /(^|[\r\n]|\{4:)[ \t]*:20:/.test(text.slice(0, 64 * 1024));

/** Parses an MT940 file; a malformed one is a 400 naming the line. */
export function parseMt940(text: string): ParsedStatement {
  const blocks = framed(text);
  if (!blocks.length) refuse(undefined, 'no statement (:20:) found');
  // MT942 (interim transaction report: floor limit :34F:, no opening balance) lists entries the
  // day's MT940 books again under another statement number: never imported, so never twice.
  const interim = blocks.find((b) => b.fields.some((f) => f.tag === '34F') && !b.fields.some((f) => f.tag === '60F' || f.tag === '60M'));
  if (interim) {
    throw invalidInput(
      'unsupported_statement',
      `mt942: line ${interim.line}: an MT942 interim report (:34F:, no :60F:) is not read; import the MT940 statement`,
      `line ${interim.line}`,
    );
  }
  const result: ParsedStatement = { format: 'mt940', statements: blocks.length, entries: [], debits: 0, returns: 0, unbooked: 0, reversals: [] };
  const seen = new Map<string, number>();
  const seenLegacy = new Map<string, number>();
  const seenReversal = new Map<string, number>();
  const firstOf = new Map<string, { entries: StatementEntry[]; reversals: StatementEntry[] }>();
  for (const block of blocks) {
    const from = result.entries.length;
    const fromReversal = result.reversals.length;
    readStatement(block, result);
    const added = result.entries.slice(from);
    const reversals = result.reversals.slice(fromReversal);
    const first = firstOf.get(identityOf(block));
    if (first) {
      // The same statement again: its entries are the first's, and storing takes them as duplicates.
      added.forEach((entry, i) => {
        entry.reference = first.entries[i]!.reference;
        entry.legacyReference = first.entries[i]!.legacyReference;
      });
      reversals.forEach((reversal, i) => (reversal.reference = first.reversals[i]!.reference));
      continue;
    }
    firstOf.set(identityOf(block), { entries: added, reversals });
    for (const entry of added) {
      entry.reference = occurrenceOf(entry.reference!, seen);
      entry.legacyReference = occurrenceOf(entry.legacyReference!, seenLegacy);
    }
    for (const reversal of reversals) reversal.reference = occurrenceOf(reversal.reference!, seenReversal);
  }
  return result;
}

/**
 * What a statement says, but for its :20: (a transmission reference a bank may give anew on every
 * sending): a statement whose fields all equal an earlier one's in the file is that statement
 * again, a SWIFT possible duplicate emission (PDE) beside its original or overlapping downloads
 * joined into one file, never new payments; two pages of one statement under one :28: differ
 * (their balances and entries) and keep the `#2` keys above.
 */
function identityOf(block: Mt940Block): string {
  return block.fields
    .filter((f) => f.tag !== '20')
    .map((f) => `:${f.tag}:${f.lines.map((l) => l.trim()).join('\n')}`)
    .join('\n');
}

function framed(text: string): Mt940Block[] {
  try {
    return statementBlocks(text);
  } catch (err) {
    if (err instanceof Mt940FramingError) refuse(err.line, err.message);
    throw err;
  }
}

function refuse(line: number | undefined, message: string): never {
  const where = line ? `line ${line}` : 'the file';
  // Without a line the whole file is at fault: `body`, as the other refusals of a file that is no statement (lib/http README).
  throw invalidInput('malformed_statement', `mt940: ${where}: ${message}`, line ? `line ${line}` : 'body');
}

/** Runs a field reader; its error is a 400 naming the field's line. */
function at<T>(field: Mt940Field, read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof Mt940FieldError) refuse(field.line, err.message);
    throw err;
  }
}

function optional(block: Mt940Block, tags: string[]): Mt940Field | undefined {
  return block.fields.find((f) => tags.includes(f.tag));
}

function required(block: Mt940Block, tags: string[], what: string): Mt940Field {
  return optional(block, tags) ?? refuse(block.line, `the statement has no ${what} (:${tags[0]}:)`);
}

function readStatement(block: Mt940Block, result: ParsedStatement): void {
  const account = required(block, ['25'], 'account').lines[0]!.trim();
  const number = required(block, ['28C', '28'], 'statement number').lines[0]!.trim();
  const opening = required(block, ['60F', '60M'], 'opening balance');
  const currency = at(opening, () => parseBalance(opening.lines[0]!)).currency;
  const closing =
    block.ended || ['64', '65'].includes(block.fields.at(-1)!.tag.slice(0, 2))
      ? optional(block, ['62F', '62M'])
      : required(block, ['62F', '62M'], 'closing balance');
  const closingCurrency = closing && at(closing, () => parseBalance(closing.lines[0]!)).currency;
  if (closing && closingCurrency !== currency) refuse(closing.line, `the closing balance is in ${closingCurrency}, the opening balance in ${currency}`);
  const iban = ibanOfAccount(account);
  let position = 0;
  block.fields.forEach((field, i) => {
    if (field.tag !== '61') return;
    position++;
    const line = at(field, () => parseStatementLine(field.lines[0]!));
    const kind = kindOf(line);
    if (kind === 'debit') {
      result.debits++;
      // A reversal of a credit takes back money booked before: read like a credit, keyed apart.
      if (line.mark === 'RC' && Number(line.amount) !== 0) {
        const lines86 = detailsLines(block.fields, i + 1);
        const reversal = entryOf({ account, iban, number, position, currency }, line, { field, lines86 }, detailsOf(lines86, supplementaryOf(field)));
        const facts = acrossFormatsOf(reversal);
        // The account's IBAN kept on the reversal too: the other format's record of a reversal applied already is recognised (bank-reversal.service.ts).
        result.reversals.push(
          tiedAcrossFormats({ ...reversal, reference: `reversal ${reversal.reference!}`, legacyReference: null }, facts?.iban ?? null, facts?.endToEndId ?? ''),
        );
      }
    } else if (kind === 'unbooked') result.unbooked++;
    else {
      const lines86 = detailsLines(block.fields, i + 1);
      const details = detailsOf(lines86, supplementaryOf(field));
      if (kind === 'return' || details.returned || germanReturnCodes.has(details.businessCode)) result.returns++;
      else result.entries.push(entryOf({ account, iban, number, position, currency }, line, { field, lines86 }, details));
    }
  });
}

/**
 * The :86: fields after a :61: (Rabobank's old format writes several), as one list of lines;
 * non-SWIFT :NS: fields between them are passed over.
 */
function detailsLines(fields: Mt940Field[], from: number): string[] {
  const lines: string[] = [];
  for (let i = from; fields[i]?.tag === '86' || fields[i]?.tag === 'NS'; i++) if (fields[i]!.tag === '86') lines.push(...fields[i]!.lines);
  return lines;
}

/** The :61: supplementary details: the field's lines after the statement line (SWIFT 34x). */
const supplementaryOf = (field: Mt940Field): string => field.lines.slice(1).join(' ');

/** A credit until its details say it is a return (its business code). */
function kindOf(line: StatementLine): 'debit' | 'unbooked' | 'return' | 'credit' {
  if (line.mark === 'D' || line.mark === 'RC' || Number(line.amount) === 0) return 'debit';
  if (line.mark === 'EC' || line.mark === 'ED') return 'unbooked';
  return line.mark === 'RD' || swiftReturnTypes.has(line.typeCode) ? 'return' : 'credit';
}

interface Place {
  account: string;
  /** The account's IBAN where :25: tells it (./entry-key.ts ibanOfAccount), else null. */
  iban: string | null;
  number: string;
  position: number;
  currency: string;
}

/** The :61: field of an entry and the lines of its :86: fields, as written. */
interface Written {
  field: Mt940Field;
  lines86: string[];
}

function entryOf(place: Place, line: StatementLine, written: Written, { sender, subject, payerReferences, endToEndId }: Details): StatementEntry {
  const bankReference = line.bankReference.toUpperCase() === 'NONREF' ? '' : line.bankReference;
  const day = line.bookingDate.toISOString().slice(0, 10);
  // The statement, not its page: `00321/002` is page 2 of statement 00321.
  const statement = place.number.split('/')[0]!.trim();
  const reference = bankReference
    ? keyOf('mt940', [place.account, statement, bankReference, line.amount, day])
    : keyOf('mt940', [place.account, statement, line.amount, day, contentDigest(contentOf(line, written))]);
  const entry: StatementEntry = {
    reference,
    legacyReference: [place.account, place.number, bankReference, place.position, line.amount, day].join('|'),
    transferDate: line.bookingDate,
    sender: clip(sender || line.counterparty, 255),
    subject: clip(subject, 1000),
    amount: line.amount,
    currency: place.currency,
    payerReferences,
  };
  return tiedAcrossFormats(entry, place.iban, endToEndId ?? '');
}

/**
 * The booking as the bank writes it, for its key: the :61: fields but the bank reference (value
 * and booking date, mark, amount, type, the reference before `//`, the supplementary details on
 * its second line) and the :86: lines as written, blanks aside (payer, account, remittance text;
 * read as the bank wrote them, not as ./mt940-details reads them, so that a change of that
 * reading changes no key).
 */
function contentOf(line: StatementLine, { field, lines86 }: Written): unknown[] {
  return [
    line.valueDate.toISOString().slice(0, 10),
    line.bookingDate.toISOString().slice(0, 10),
    line.mark,
    line.amount,
    line.typeCode,
    line.ownerReference,
    // Without any blank: a bank may cut its lines elsewhere, and drop a blank at a cut, next time.
    field.lines.slice(1).join('').replace(/\s+/g, ''),
    lines86.join('').replace(/\s+/g, ''),
  ];
}
