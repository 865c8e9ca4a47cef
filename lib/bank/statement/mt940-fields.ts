/**
 * The MT940 fields Kontor reads (SWIFT MT940 Customer Statement Message, field specifications of
 * :60a:/:62a: balances and :61: statement lines), with the dialects banks write:
 * - amounts with a decimal comma (`1234,5`, `500,`), Rabobank's old format with a dot
 *   (`000000000300.00`), Knab without a separator (`C500NTRF`);
 * - the D/C mark `C`, `D`, `RC` (reversal of a credit: a debit), `RD` (reversal of a debit: a
 *   credit), `EC`/`ED` (expected, MT942), followed by an optional funds code (the 3rd letter of the
 *   currency: `CR3000,` is a credit in euro, `DK2214,00` a debit in kroner); also in lower case
 *   (`1205120514d1,01N946`: ABN AMRO's own published MT940 example file), which SWIFT does not
 *   allow but says nothing else than the upper case would: refusing it lost the whole file;
 * - the transaction type as a letter and three characters, where ING before 2014 and Triodos
 *   write two and a space (`NOV `, `NIT `); Deutsche Bank and Commerzbank put a space between the
 *   amount and the type (`C50,00 NTRF`); Zenith Bank (NG) writes no type before the bank's
 *   reference (`CN220000,00//19239782213`), read as type '' (nothing else follows the amount
 *   there, so no other field is taken for it); Sberbank Hungary writes the letter and three
 *   blanks (`DF2402,00S   X`);
 * - the booking date left blank as four spaces (ASN Bank, Citi: `200101    D65,00NOVB`): the entry
 *   is booked on its value date, as when the booking date is left out;
 * - the customer reference (16x), then `//` and the bank's reference; Rabobank's old format puts
 *   the counter account there, padded to 16 characters, and the counterparty's name after it;
 * - the booking date as MMDD after the value date: its year is the one that puts it within half a
 *   year of the value date (a booking on 2 January of a payment valued 31 December is next year's);
 * - a value date of 30 February (or 29 in a common year): German savings banks value their closing
 *   entries (interest, fees) at the end of February counted 30/360 (`1602300301DR6,00N024` in
 *   wolph/mt940's Sparkasse file). Kontor's choice, no standard says it: it is the last day of
 *   February when the entry is booked within 31 days of that day (or has no booking date);
 *   booked further away, the value date is broken and refused like any day that does not exist.
 */

export class Mt940FieldError extends Error {}

export interface Balance {
  currency: string;
}

export type Mark = 'C' | 'D' | 'RC' | 'RD' | 'EC' | 'ED';

export interface StatementLine {
  mark: Mark;
  /** '123.45' */
  amount: string;
  /** The booking date (entry date, else the value date) at 00:00 UTC. */
  bookingDate: Date;
  /** The value date at 00:00 UTC. */
  valueDate: Date;
  /** The SWIFT transaction type code without its first letter (`TRF`, `MSC`, `RTI`, `OV `). */
  typeCode: string;
  /** The bank's reference after `//`, '' when there is none. */
  bankReference: string;
  /** What stands before `//` (the reference for the account owner, 16x), trimmed; '' when nothing. */
  ownerReference: string;
  /** Rabobank's old format: the counterparty named after the 16 characters of the counter account. */
  counterparty: string;
}

const balancePattern = /^([CD])(\d{6})([A-Z]{3})(\d[\d,.]*)?/;

export function parseBalance(data: string): Balance {
  const m = balancePattern.exec(data.trim());
  if (!m) throw new Mt940FieldError(`a balance must read C/D, YYMMDD, the currency and the amount (${data.trim()})`);
  return { currency: m[3]! };
}

/**
 * Value date, booking date (or blanks), mark, funds code, amount, an optional space, then the type
 * code, or none where the bank's reference (`//`) or the line's end follows the amount at once.
 */
const linePattern = /^(\d{6})(\d{4})? *([RE]?[CD]|[re]?[cd])([A-Z])?(\d+(?:[,.]\d*)?) ?(?:([A-Z][A-Z0-9 ]{3})|(?=\/\/|\s*$))(.*)$/;

export function parseStatementLine(data: string): StatementLine {
  const m = linePattern.exec(data);
  if (!m) {
    throw new Mt940FieldError(`a :61: line must read value date YYMMDD, [booking date MMDD], C/D/RC/RD, amount, type code (${data.trim()})`);
  }
  const { date: valueDate, endOfFebruary } = dateOf(m[1]!);
  const bookingDate = m[2] ? bookingDateOf(valueDate, m[2]) : valueDate;
  if (endOfFebruary && Math.abs(bookingDate.getTime() - valueDate.getTime()) > 31 * day) {
    throw new Mt940FieldError(
      `the value date ${m[1]} is not a date (30 February is read as the end of February only for an entry booked within 31 days of it)`,
    );
  }
  const rest = m[7]!;
  const bank = rest.indexOf('//');
  return {
    mark: m[3]!.toUpperCase() as Mark,
    amount: amountOf(m[5]!),
    bookingDate,
    valueDate,
    typeCode: m[6]?.slice(1) ?? '',
    bankReference: bank >= 0 ? rest.slice(bank + 2).trim() : '',
    ownerReference: (bank >= 0 ? rest.slice(0, bank) : rest).trim(),
    // Rabobank's old format pads the counter account to 16 characters, then names the party.
    counterparty: bank < 0 && rest.length > 16 && rest[15] === ' ' ? rest.slice(16).trim() : '',
  };
}

/**
 * '000000000300.00' -> '300.00', '1560395.' -> '1560395.00'. More than two decimals, or more than
 * 12 digits before them (a bank record's amount is numeric(14,2)), is refused.
 */
export function amountOf(text: string): string {
  const [whole, fraction = ''] = text.split(/[,.]/);
  if (/[1-9]/.test(fraction.slice(2))) throw new Mt940FieldError(`the amount ${text} has more than two decimals`);
  const units = BigInt(whole!).toString();
  if (units.length > 12) throw new Mt940FieldError(`the amount ${text} is larger than Kontor stores (12 digits before the decimals)`);
  return `${units}.${fraction.slice(0, 2).padEnd(2, '0')}`;
}

const day = 86_400_000;

/**
 * YYMMDD; years 80-99 are 19YY (SWIFT dates carry no century). 29 or 30 February that does not
 * exist is the last day of February, `endOfFebruary` (see the top of this file).
 */
function dateOf(text: string): { date: Date; endOfFebruary: boolean } {
  const yy = Number(text.slice(0, 2));
  const [year, month, dd] = [yy >= 80 ? 1900 + yy : 2000 + yy, Number(text.slice(2, 4)), Number(text.slice(4, 6))];
  const date = utcDate(year, month, dd);
  if (date) return { date, endOfFebruary: false };
  if (month === 2 && (dd === 29 || dd === 30)) return { date: new Date(Date.UTC(year, 2, 0)), endOfFebruary: true };
  throw new Mt940FieldError(`the value date ${text} is not a date`);
}

const halfYear = 183 * day;

function bookingDateOf(valueDate: Date, mmdd: string): Date {
  const year = valueDate.getUTCFullYear();
  const candidates = [year - 1, year, year + 1].map((y) => utcDate(y, Number(mmdd.slice(0, 2)), Number(mmdd.slice(2, 4))));
  const near = candidates.find((d) => d && Math.abs(d.getTime() - valueDate.getTime()) <= halfYear);
  if (!near) throw new Mt940FieldError(`the booking date ${mmdd} is not a date within half a year of the value date`);
  return near;
}

function utcDate(year: number, month: number, day: number): Date | null {
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day ? date : null;
}
