/**
 * SWIFT MT940 customer statements through mt940js (several statements per file, multi-line :86:,
 * balance check per statement). Field 86 follows the German banks' structure (DK "DFÜ-Abkommen",
 * Anlage 3 "Spezifikation der Datenformate", MT940: ?00 booking text, ?20-?29 and ?60-?63
 * remittance lines of 27 characters, ?32/?33 the payer's name) or the SWIFT /TAG/ layout
 * (/REMI/ remittance, /NAME/ or /ORDP/ the payer, as ABN AMRO and ING send it); any other
 * :86: is taken whole as the subject.
 */
import { Mt940Transaction, Parser } from 'mt940js';
import { invalidInput } from '../../errors';
import { clip, ParsedStatement, StatementEntry } from './statement.type';

export const isMt940 = (text: string): boolean => /(^|\n)\s*:20:/.test(text.slice(0, 4000));

/** Parses an MT940 file; a malformed one is a 400 naming the line. */
export function parseMt940(text: string): ParsedStatement {
  const lines = text.split(/\r?\n/);
  const first = lines.findIndex((l) => l.trim() !== '');
  if (first >= 0 && !/^(:|\{|-)/.test(lines[first]!)) refuse(lines, first, 'a statement must start with a tag such as :20:');
  let statements;
  try {
    statements = new Parser().parse(text);
  } catch (err) {
    const message = (err as Error).message;
    refuse(lines, locate(lines, message), message);
  }
  const result: ParsedStatement = { format: 'mt940', statements: statements.length, entries: [], debits: 0, returns: 0, unbooked: 0 };
  for (const statement of statements) {
    for (const t of statement.transactions) {
      // amount carries the sign: C positive, D negative, a reversal flips it (RC is a debit).
      if (t.amount <= 0) {
        result.debits++;
        continue;
      }
      result.entries.push(entryOf(t, statement.accountIdentification, statement.currency));
    }
  }
  return result;
}

function refuse(lines: string[], index: number, message: string): never {
  const line = index >= 0 ? index + 1 : undefined;
  const where = line ? `line ${line}` : 'the file';
  throw invalidInput('malformed_statement', `mt940: ${where}: ${message}`, line ? `line ${line}` : undefined);
}

/** The line an mt940js error is about: its statement (group N), its tag data, or its quoted value. */
function locate(lines: string[], message: string): number {
  const group = /in group (\d+)/.exec(message);
  if (group) {
    let seen = 0;
    return lines.findIndex((l) => l.startsWith(':20:') && ++seen === Number(group[1]));
  }
  const tag = /^Cannot parse tag (\w+): ([^\n]*)/.exec(message);
  if (tag) return lines.findIndex((l) => new RegExp(`^:${tag[1]}[A-Z]?:`).test(l) && l.includes(tag[2]!));
  const unknown = /^Unknown tag (\w+)/.exec(message);
  if (unknown) return lines.findIndex((l) => l.startsWith(`:${unknown[1]}:`));
  const value = /: (\S+)$/.exec(message);
  return value ? lines.findIndex((l) => l.startsWith(':61:') && l.includes(value[1]!)) : -1;
}

function entryOf(t: Mt940Transaction, account: string, currency: string): StatementEntry {
  const { sender, subject } = details(t);
  const ref = t.bankReference && t.bankReference.toUpperCase() !== 'NONREF' ? t.bankReference : '';
  return {
    reference: ref ? `${account}|${ref}` : null,
    transferDate: t.entryDate ? bookingDate(t.date, t.entryDate) : t.date,
    sender: clip(sender, 255),
    subject: clip(subject, 1000),
    amount: t.amount.toFixed(2),
    currency,
    payerReferences: [],
  };
}

/**
 * :61: carries the booking date as MMDD only; mt940js gives it the value date's year. A booking
 * on 2 January of a payment valued 31 December belongs to the next year (and the reverse).
 */
function bookingDate(valueDate: Date, entryDate: Date): Date {
  const halfYear = 183 * 86_400_000;
  const shifted = new Date(entryDate.getTime());
  if (entryDate.getTime() < valueDate.getTime() - halfYear) shifted.setUTCFullYear(shifted.getUTCFullYear() + 1);
  if (entryDate.getTime() > valueDate.getTime() + halfYear) shifted.setUTCFullYear(shifted.getUTCFullYear() - 1);
  return shifted;
}

const remittanceKeys = ['20', '21', '22', '23', '24', '25', '26', '27', '28', '29', '60', '61', '62', '63'];

function details(t: Mt940Transaction): { sender: string; subject: string } {
  const s = t.structuredDetails;
  if (s && remittanceKeys.some((k) => s[k] !== undefined)) {
    // The lines are cut at 27 characters wherever a word is: joined without a space.
    const subject = remittanceKeys.map((k) => s[k] ?? '').join('');
    // SEPA subfields in the lines (EREF+, SVWZ+ ...): SVWZ+ is the payer's remittance text.
    const svwz = /SVWZ\+(.*?)(?=(?:EREF|KREF|MREF|CRED|DEBT|ABWA|ABWE|IBAN|BIC)\+|$)/.exec(subject);
    return { sender: `${s['32'] ?? ''}${s['33'] ?? ''}`, subject: svwz ? svwz[1]! : subject };
  }
  if (s && (s.REMI !== undefined || s.NAME !== undefined || s.ORDP !== undefined)) {
    return { sender: s.NAME ?? s.ORDP ?? '', subject: s.REMI ?? '' };
  }
  return { sender: '', subject: t.details.replace(/\n/g, ' ') };
}
