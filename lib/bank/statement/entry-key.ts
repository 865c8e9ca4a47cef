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
