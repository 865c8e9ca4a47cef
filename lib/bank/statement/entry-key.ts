/**
 * The key that identifies a booked payment across imports (bank.entry_ref, unique per account and
 * type): what the bank says of the booking, never where it stands in a file.
 *
 * - Where the bank gives a reference of its own (MT940 the :61: bank reference after `//`; CAMT
 *   the entry's AcctSvcrRef, else NtryRef, else the TxDtls Refs/AcctSvcrRef), the key is that
 *   reference with the amount and the booking day.
 * - Otherwise it is a digest of the whole booking as the bank writes it (booking and value date,
 *   amount and sign, counterparty, reference text: MT940 the :61: fields and the :86: text, CAMT
 *   the Ntry and its TxDtls), see contentDigest.
 * - A key given again in the same file (two identical bookings of one day, or payments sharing a
 *   bank reference, amount and day) gets `#2`, `#3` in file order: the occurrence among identical
 *   bookings, so two genuinely identical payments stay two, and a booking inserted before them
 *   renumbers only bookings identical to it.
 *
 * Before, the key held the entry's position in its statement (MT940) or the statement's entry
 * number (CAMT without a bank reference): a booking inserted into a statement already imported
 * (an intraday download, then the day's full file) gave every later entry a new key, and they
 * were stored and paid again; CAMT pages in separate files numbered their entries from 1 each,
 * and equal payments collided. Those keys are still computed (`legacyReference`) so that a file
 * imported before the change is recognised when imported again (bank-store.service.ts).
 */
import { createHash } from 'node:crypto';
import { isIban } from './camt-remittance';
import type { StatementEntry } from './statement.type';
import { foldedWords } from '../text-fold';

/**
 * The new keys start with their format's name: no key stored before (which starts with the
 * account) can equal one.
 */
export type KeyFormat = 'mt940' | 'camt';

/** `<format> <part>|<part>|...`. */
export const keyOf = (format: KeyFormat, parts: string[]): string => `${format} ${parts.join('|')}`;

/**
 * A digest of what the bank writes of a booking (any JSON value): SHA-256, base64url, after `~`.
 * Whitespace runs in its texts count as one blank, so a line wrapped elsewhere is the same text.
 * A digest, not the text: a remittance text of 1,000 characters in a unique index would pass
 * PostgreSQL's limit for a btree entry.
 */
export function contentDigest(content: unknown): string {
  const text = JSON.stringify(content, (_key, value: unknown) => (typeof value === 'string' ? value.replace(/\s+/g, ' ').trim() : value));
  return `~${createHash('sha256').update(text).digest('base64url')}`;
}

/** The key with its occurrence in the file: the first as it is, the nth as `key#n`. */
export function occurrenceOf(key: string, seen: Map<string, number>): string {
  const count = (seen.get(key) ?? 0) + 1;
  seen.set(key, count);
  return count === 1 ? key : `${key}#${count}`;
}

/**
 * Adds to each entry the key the same booking had in another reading of its file's characters
 * (statement.parse.ts codePagesBefore), where it differs. The readings differ only in letters
 * above 0x7F, so they find the same bookings in the same order: paired by place, amount and
 * booking day, and nothing is added when they do not pair so.
 */
export function addEarlierKeys(entries: StatementEntry[], before: StatementEntry[]): void {
  const paired =
    entries.length === before.length &&
    entries.every((e, i) => e.amount === before[i]!.amount && e.transferDate.getTime() === before[i]!.transferDate.getTime());
  if (!paired) return;
  entries.forEach((e, i) => {
    const key = before[i]!.reference;
    if (key && key !== e.reference && !e.earlierKeys?.includes(key)) (e.earlierKeys ??= []).push(key);
  });
}

/** The calendar day of a date as Kontor stores a statement's booking day (00:00 UTC). */
export const bookingDayOf = (date: Date): string => date.toISOString().slice(0, 10);

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** The clocks a client may keep: UTC−12 (behind) to UTC+14 (ahead), the zones in use. */
const BEHIND = 12 * HOUR;
const AHEAD = 14 * HOUR;

/**
 * The booking days a stored transfer_date may stand for (decision, README "A payment booked by
 * hand and brought by a statement"): a date at 00:00 UTC (a statement's booking day, a hand
 * booking sent as a date or as a time of the UTC day's start) is that day; a time of day is the
 * day it has on a clock of any zone from UTC−12 to UTC+14, its UTC day first. A statement's day
 * is its bank's calendar day, while a client sends the instant it keeps: a Berlin client's
 * `2026-11-20T00:30:00+01:00`, or its midnight of the 20th as JavaScript's toISOString writes
 * it (`2026-11-19T23:00:00.000Z`), is the 19th in UTC, and read in UTC alone it was never the
 * statement's credit of the 20th: both were stored and paid.
 */
export function bookingDaysOf(date: Date): string[] {
  const utc = bookingDayOf(date);
  const at = date.getTime();
  if (at % DAY === 0) return [utc];
  return [...new Set([utc, bookingDayOf(new Date(at - BEHIND)), bookingDayOf(new Date(at + AHEAD))])];
}

/**
 * How two records' days are compared: `date` both a date of that day (00:00 UTC: a statement's
 * booking day with another's), `utc` their UTC days, `zone` any day each may stand for
 * (bookingDaysOf). Callers tie by `date` or `utc` first and by `zone` only what is left, so a
 * payment of the hand booking's own UTC day is taken before an equal one of a neighbouring day,
 * and a statement's credit of the day before a hand booking whose time is only in UTC that day.
 */
export type DayRule = 'date' | 'utc' | 'zone';

export function sameBookingDay(a: Date, b: Date, rule: DayRule): boolean {
  if (rule === 'date') return a.getTime() === b.getTime() && a.getTime() % DAY === 0;
  if (bookingDayOf(a) === bookingDayOf(b)) return true;
  if (rule === 'utc') return false;
  const days = bookingDaysOf(a);
  return bookingDaysOf(b).some((d) => days.includes(d));
}

/**
 * The span of transfer_dates that may stand for one of the days (bookingDaysOf): from the first
 * day's start less UTC+14's lead to the last day's end plus UTC−12's lag. For SQL; the caller
 * compares the days (sameBookingDay).
 */
export function instantsOfDays(days: string[]): { from: Date; to: Date } {
  const times = days.map((d) => new Date(`${d}T00:00:00Z`).getTime());
  return { from: new Date(Math.min(...times) - AHEAD), to: new Date(Math.max(...times) + DAY + BEHIND) };
}

/** The format whose key a stored entry_ref is (null: a key of before, a reversal's, none). */
export function formatOfKey(key: string | null): KeyFormat | null {
  if (key?.startsWith('mt940 ')) return 'mt940';
  if (key?.startsWith('camt ')) return 'camt';
  return null;
}

/**
 * The IBAN of a statement's account, or null where it cannot be told: CAMT Acct/Id/IBAN (or
 * Othr/Id), MT940 :25:. Blanks and a currency code after the account (`...EUR`, `... EUR`, as
 * Commerzbank and Rabobank write :25:) aside, a valid IBAN (ISO 13616, mod 97) is itself; a German
 * `BLZ/Kontonummer` (8-digit bank code, up to 10 digits) is `DE`, the check digits and the BLZ and
 * the account number padded to 10 digits (the German IBAN, ISO 13616 check digits: 98 - the
 * number with `DE00` moved to its end, mod 97). Anything else (a BIC before the account, an
 * account of more than 10 digits with a sub-account, a bare number) ties nothing.
 */
export function ibanOfAccount(account: string): string | null {
  const compact = account.replace(/\s+/g, '').toUpperCase();
  for (const candidate of [compact, compact.replace(/[A-Z]{3}$/, '')]) if (isIban(candidate)) return candidate;
  const german = /^(\d{8})\/(\d{1,10})(?:[A-Z]{3})?$/.exec(compact);
  if (!german) return null;
  const bban = `${german[1]}${german[2]!.padStart(10, '0')}`;
  // D = 13, E = 14 (ISO 13616: letters as 10 + their place in the alphabet).
  const check = 98n - (BigInt(`${bban}131400`) % 97n);
  return `DE${String(check).padStart(2, '0')}${bban}`;
}

/**
 * The IBAN of the account a key names (`<format> <account>|...`, a reversal's `reversal <format>
 * <account>|...` too: the account as the reader gave it to ibanOfAccount); null for a key of
 * before or an account that ties nothing. For what is kept by its key alone (a kept reversal).
 */
export function ibanOfKey(key: string): string | null {
  const account = accountOfKey(key)?.account;
  return account === undefined ? null : ibanOfAccount(account);
}

/**
 * The format and the statement's account as a key names them (`<format> <account>|...`, a
 * reversal's `reversal <format> <account>|...`), the account as the reader gave it; null for a
 * key of before (no format) or none.
 */
export function accountOfKey(key: string | null): { format: KeyFormat; account: string } | null {
  const found = /^(?:reversal )?(mt940|camt) ([^|]*)\|/.exec(key ?? '');
  return found ? { format: found[1] as KeyFormat, account: found[2]! } : null;
}

/** What a stored record or a new entry says of a booking, for sameBookingAcrossFormats. */
export interface Booking {
  transferDate: Date;
  amount: string;
  currency: string;
  /** '' when none. */
  endToEndId: string;
  sender: string;
  subject: string;
  /**
   * A stored record's payer references (payer_ref), read only when it has no end-to-end id: a
   * record stored before end_to_end_id existed (migration 20261127_2100) holds it only there.
   */
  payerReferences?: string[];
}

/**
 * A payer's name or text compared across formats: lower case, umlauts spelled out (German
 * banks' MT940 writes `Mueller` where the camt.053 has `Müller`), accents, blanks and punctuation
 * dropped (MT940 joins its 27-character lines, CAMT its Ustrd lines, each its own way), composed
 * or not (a `ü` written as `u` and a combining diaeresis, as macOS and some online banking pages
 * copy it). Letters of every script are kept (../text-fold.ts): before, only `a-z0-9` were, so a
 * Cyrillic or Greek payer and text folded to nothing, and any two such payers of one amount and
 * day were one payment (a credit of one claimed the other's hand booking, a reversal of one took
 * the other's transfer back).
 */
export function foldedText(text: string): string {
  return foldedWords(text).replace(/ /g, '');
}

/**
 * Whether a booking of an MT940 and one of a camt.053 of the same account (ibanOfAccount) are
 * the same booking. Decision (no reference says how; SWIFT's MT-to-ISO 20022 migration has German
 * sellers import both formats of one account, the switch-over download overlapping the last
 * MT940 days): the bank's own references differ between the formats (the :61: reference and the
 * AcctSvcrRef are numbered apart, and either may be missing), and so do the keys, so they are not
 * compared. The same booking day, amount and currency (both are credits), and either the same
 * end-to-end id where both give one (EREF+ and EndToEndId, NOTPROVIDED is none; a differing one
 * is another payment), or else the same payer and the same remittance text (foldedText). Two
 * genuinely equal payments (same payer, text, amount and day) are both kept: the caller takes the
 * n-th of one file for the n-th of the other (../bank-store.service.ts). Applied only where a
 * record of the other format is stored for that account and day, that is on the days an import of
 * the other format covered; within one format the keys decide as before.
 */
export function sameBookingAcrossFormats(stored: Booking, entry: Booking, days: DayRule = 'utc'): boolean {
  const byId = sameBookingById(stored, entry, days);
  if (byId !== null) return byId;
  return foldedText(stored.sender) === foldedText(entry.sender) && foldedText(stored.subject) === foldedText(entry.subject);
}

/**
 * sameBookingAcrossFormats as far as the end-to-end id decides it: true or false, or null when
 * payer and text must (no id on one side, or one the stored record's references do not hold).
 * The caller ties by id first (../bank-store.service.ts): a record without an id of its own
 * (stored before 20261127_2100) that holds one payment's id among its payer references was
 * otherwise claimed by payer and text by the other format's equal payment of another id listed
 * before it, and the payment it is was stored again in its place.
 */
export function sameBookingById(stored: Booking, entry: Booking, days: DayRule = 'utc'): boolean | null {
  // The booking day: a statement's is 00:00 UTC, a transfer booked by hand that a statement
  // claimed (sameBookingByHand) keeps the time of day its client gave (its day: sameBookingDay).
  if (!sameBookingDay(stored.transferDate, entry.transferDate, days)) return false;
  if (Number(stored.amount) !== Number(entry.amount) || stored.currency !== entry.currency) return false;
  if (stored.endToEndId && entry.endToEndId) return stored.endToEndId === entry.endToEndId;
  // A record without an end-to-end id of its own (stored before the column, or its format gave
  // the id as another reference) that holds the entry's among its payer references: the same
  // payment, where the payer's name may differ (MT940 cuts it at 2 x 27 characters).
  if (entry.endToEndId && stored.payerReferences?.includes(entry.endToEndId)) return true;
  return null;
}

/** What ties a statement entry to its account and payer across formats (tiedAcrossFormats). */
export interface AcrossFormats {
  /** The account's IBAN (ibanOfAccount). */
  iban: string;
  /** The payer's end-to-end id (MT940 EREF+ or /EREF/, CAMT Refs/EndToEndId), '' when none or NOTPROVIDED. */
  endToEndId: string;
}

/**
 * Kept beside the entry rather than among its fields: only storing a statement's credits reads
 * it (../bank-store.service.ts), while the entry is what every reader of a statement (the
 * reversals, the payment provider, the parsers' tests) hands on and compares field by field.
 */
const acrossFormats = new WeakMap<StatementEntry, AcrossFormats>();

/** The entry, with its account's IBAN and its end-to-end id kept for the rule above; nothing when the account is not tied. */
export function tiedAcrossFormats(entry: StatementEntry, iban: string | null, endToEndId: string): StatementEntry {
  if (iban) acrossFormats.set(entry, { iban, endToEndId });
  return entry;
}

/** What tiedAcrossFormats kept of an entry; undefined for an entry of an untied account (or no statement's). */
export const acrossFormatsOf = (entry: StatementEntry): AcrossFormats | undefined => acrossFormats.get(entry);

/** What a transfer booked by hand (POST bank/transfer/) and a statement credit both say of a payment. */
export interface HandBooking {
  transferDate: Date;
  amount: string;
  currency: string;
  sender: string;
  subject: string;
}

/**
 * How far a hand booking's day may lie from a statement credit's booking day, in calendar days
 * either way, and still be that credit (decision, README "The value day of a hand booking"): a
 * client dates the payment by the value day its online banking shows, while the statement books
 * it a day or two apart (a credit received on a Friday or before a holiday, booked on the next
 * business day; a forward value). 3 covers a weekend between the two (value day Friday, booking
 * day Monday) and no more: an equal payment of the payer a few days off is another payment more
 * likely than a booking that late. Days 2 or 3 apart tie only with a weekend between them, no
 * working day (withinDays). Asked only after the same day and a client's day found nothing,
 * nearest first (1, then 2, then 3 days).
 */
export const VALUE_DAY_WINDOW = 3;

/** The days given, each with the `within` calendar days before and after it (for SQL spans). */
export function daysAround(days: string[], within: number): string[] {
  const around = days.flatMap((d) => {
    const at = new Date(`${d}T00:00:00Z`).getTime();
    return Array.from({ length: 2 * within + 1 }, (_, i) => bookingDayOf(new Date(at + (i - within) * DAY)));
  });
  return [...new Set(around)];
}

/**
 * Whether some day each date may stand for (bookingDaysOf) lies at most `within` calendar days
 * from one of the other's, with no working day between the two: every day strictly between them
 * a Saturday, a Sunday or, for a euro payment, a TARGET closing day (targetClosed). A value day
 * and its booking day lie apart by a weekend (value Friday, booked Monday; value Saturday, booked
 * Monday) or by one day, never by working days: the bank books a credit on the business day it
 * receives it or the next. Decision, found by a reviewer of 16d6c37: a plain span of 3 days tied a
 * buyer's two equal payments of Monday and Thursday (two orders of one price, one text): the
 * Monday credit answered the Thursday payment booked by hand 302 (not stored, its order left
 * unpaid), or the Thursday credit claimed the Monday hand booking. National and regional holidays
 * are not known (they differ by country and region): such a payment is not tied, and stored twice
 * (the known limit of a day further off); nor a TARGET closing day that makes the span longer than
 * `within` (value Thursday before Easter, booked the Tuesday after).
 */
export function withinDays(a: Date, b: Date, within: number, currency?: string): boolean {
  const others = bookingDaysOf(b).map((d) => new Date(`${d}T00:00:00Z`).getTime());
  const closed = (t: number) => isWeekend(t) || (currency === 'EUR' && targetClosed(new Date(t)));
  return bookingDaysOf(a).some((d) => {
    const at = new Date(`${d}T00:00:00Z`).getTime();
    return others.some((o) => Math.abs(at - o) <= within * DAY && closedBetween(Math.min(at, o), Math.max(at, o), closed));
  });
}

const isWeekend = (t: number) => [0, 6].includes(new Date(t).getUTCDay());

/** Whether every calendar day strictly between two days (00:00 UTC, in ms) is a day banks book nothing on. */
function closedBetween(from: number, to: number, closed: (t: number) => boolean): boolean {
  for (let t = from + DAY; t < to; t += DAY) if (!closed(t)) return false;
  return true;
}

/**
 * TARGET's closing days besides weekends, on which euro credit transfers are not settled (the ECB's
 * published calendar for T2: New Year's Day, Good Friday, Easter Monday, 1 May, 25 and 26
 * December), so a euro payment valued before one is booked after it. Easter Sunday by the
 * Gregorian computus (Anonymous Gregorian algorithm).
 */
export function targetClosed(day: Date): boolean {
  const month = day.getUTCMonth() + 1;
  const date = day.getUTCDate();
  if ((month === 1 && date === 1) || (month === 5 && date === 1) || (month === 12 && (date === 25 || date === 26))) return true;
  const easter = easterSunday(day.getUTCFullYear());
  const offset = Math.round((day.getTime() - easter) / DAY);
  return offset === -2 || offset === 1;
}

/** Easter Sunday of a year, 00:00 UTC in ms (Anonymous Gregorian algorithm). */
function easterSunday(year: number): number {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const h = (19 * a + b - Math.floor(b / 4) - Math.floor((8 * b + 13) / 25) + 15) % 30;
  const l = (32 + 2 * (b % 4) + 2 * Math.floor(c / 4) - h - (c % 4)) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const date = ((h + l - 7 * m + 114) % 31) + 1;
  return Date.UTC(year, month - 1, date);
}

/**
 * The day a hand booking is tied by: `utc`, `zone` and `date` as for every record
 * (sameBookingDay), or a number, the calendar days its day may lie from the credit's
 * (VALUE_DAY_WINDOW).
 */
export type HandDayRule = DayRule | number;

/**
 * Whether a transfer booked by hand (POST bank/transfer/) and a statement credit are one payment,
 * in either order (decision; document 1's duplicate rule for POST bank/transfer/ is "same account,
 * type, transfer_date, sender, subject and amount", and says nothing of statements): the booking
 * day (the hand booking's transfer_date on a client's clock, bookingDaysOf, against the statement's;
 * a rule of n days: up to n days apart, the value day a client dated it by), amount and currency
 * equal, and the payer and the text equal as the formats spell them
 * (foldedText: case, blanks, punctuation and accents aside, `ü` = `ue`), because a client types
 * or copies them from its online banking, not from the file. Not the end-to-end id, the payer's
 * references or the IBAN: the hand booking has no field for them. Two genuinely equal payments
 * of one payer, text and day are tied by occurrence (the caller: the n-th credit of a file is the
 * n-th hand booking), and document 1's rule answers a second equal hand booking of the same transfer_date 302.
 * The day: `utc` the UTC day, `zone` the day of the hand booking's time of day in a client's time
 * zone (sameBookingDay), a number the value-day window; the callers ask `zone` only for what
 * `utc` left, and the window only for what both left, 1 day before 2 before 3.
 * Known limit: a hand booking more than VALUE_DAY_WINDOW days off, or with another text, is not
 * tied, and that payment is stored twice.
 */
export function sameBookingByHand(hand: HandBooking, entry: HandBooking, days: HandDayRule = 'utc'): boolean {
  return (
    (typeof days === 'number'
      ? withinDays(hand.transferDate, entry.transferDate, days, hand.currency)
      : sameBookingDay(hand.transferDate, entry.transferDate, days)) &&
    Number(hand.amount) === Number(entry.amount) &&
    hand.currency === entry.currency &&
    foldedText(hand.sender) === foldedText(entry.sender) &&
    foldedText(hand.subject) === foldedText(entry.subject)
  );
}

/** The value-day window's rules, nearest first: 1, 2, ... VALUE_DAY_WINDOW days. */
export const valueDayRules = (): number[] => Array.from({ length: VALUE_DAY_WINDOW }, (_, i) => i + 1);

/**
 * The day a stored record stands for in every tie: a hand booking a statement claimed is the
 * claiming credit's booking day (claimed_on, 00:00 UTC, so `date` and `utc` read it exactly),
 * any other record its transfer_date.
 */
export const tiedDayOf = (r: { transfer_date: Date; claimed_on?: Date | null }): Date => r.claimed_on ?? r.transfer_date;
