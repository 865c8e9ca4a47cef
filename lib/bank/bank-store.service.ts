/**
 * Stores received payments (statement entries, payment-provider payments) as bank records in the
 * caller's transaction: each once (the bank's or provider's own reference, else document 1's
 * duplicate rule), numbered in one go under the account's bank counter lock, and one bank.match
 * job through the outbox for the records added.
 */
import type { Knex } from 'knex';
import type { OrderScope } from '../access';
import { addToOutbox } from '../queue';
import { bankRepository, duplicateKey, KeyedBooking } from './bank.repository';
import { bankIdOf, BankKind } from './bank.type';
import {
  acrossFormatsOf,
  Booking,
  bookingDayOf,
  DayRule,
  foldedText,
  formatOfKey,
  sameBookingAcrossFormats,
  sameBookingById,
  sameBookingByHand,
  HandDayRule,
  daysAround,
  tiedDayOf,
  VALUE_DAY_WINDOW,
  valueDayRules,
} from './statement/entry-key';
import type { StatementEntry } from './statement/statement.type';

export interface Stored {
  stored: number;
  duplicates: number;
  jobId: string | null;
}

/**
 * An entry known here under a key it had when an earlier version of Kontor read its file's
 * letters otherwise (StatementEntry.earlierKeys) takes that key again, so what follows finds the
 * booking as stored: a credit a duplicate, a reversal applied or kept once. Decision (lib/bank
 * README, character sets): the keys are not rewritten in the table, since only the file tells which
 * reading a stored key came from.
 */
export async function takeKeysAsStoredIn(trx: Knex.Transaction, accountId: number, entries: StatementEntry[]): Promise<void> {
  await takeNonrefKeysAsStored(trx, accountId, entries);
  const earlier = entries.flatMap((e) => e.earlierKeys ?? []);
  if (!earlier.length) return;
  const known = await bankRepository.knownStatementKeys(trx, accountId, earlier);
  for (const e of entries) {
    const key = e.earlierKeys?.find((k) => known.has(k));
    if (key) e.reference = key;
  }
}

/** How many occurrences of a key (`key`, `key#2`, ...) are asked for at a time. */
const OCCURRENCES_ASKED = 32;

/** The n-th occurrence of a key in one file, as entry-key.ts occurrenceOf writes it. */
const occurrence = (key: string, n: number): string => (n === 1 ? key : `${key}#${n}`);

/**
 * What is known under each key of before, in any of its occurrences (`key`, `key#2`, ...: a file
 * numbered every booking of that key), asked for OCCURRENCES_ASKED at a time for as long as the
 * last one asked is known.
 */
async function bookingsUnderOccurrences(trx: Knex.Transaction, accountId: number, keys: string[]): Promise<Map<string, KeyedBooking[]>> {
  const found = new Map<string, KeyedBooking[]>(keys.map((k) => [k, []]));
  let asked = keys.map((key) => ({ key, from: 1 }));
  while (asked.length) {
    const named = new Map(asked.flatMap(({ key, from }) => Array.from({ length: OCCURRENCES_ASKED }, (_, i) => [occurrence(key, from + i), key] as const)));
    const bookings = await bankRepository.bookingsUnderKeys(trx, accountId, [...named.keys()]);
    for (const b of bookings) found.get(named.get(b.key)!)!.push(b);
    const known = new Set(bookings.map((b) => b.key));
    asked = asked
      .filter(({ key, from }) => known.has(occurrence(key, from + OCCURRENCES_ASKED - 1)))
      .map(({ key, from }) => ({ key, from: from + OCCURRENCES_ASKED }));
  }
  return found;
}

/** A queue of bookings (their places in NonrefBookings' list), read from `next` on. */
interface Queue {
  at: number[];
  next: number;
}

/**
 * The bookings known under keys of before, indexed so that an entry finds the first one that is
 * it without being compared with every other: a queue, in the order given, per key of before and
 * folded payer and text, and per key of before and payer's reference. A booking is a statement
 * entry where both give payer's references (a reversal's transfer tied by one) and one of them is
 * shared, else where both have the same payer and the same text as the formats spell them
 * (entry-key.ts foldedText). Each booking's and each entry's payer and text are folded once, and
 * each queue is walked past a taken booking once. Decision (lib/bank README, NONREF): before, each
 * entry compared itself with the bookings of its key one by one, folding both sides each time; a
 * day of 2,000 credits of one amount, newest first, held the web's event loop for 33 s.
 */
class NonrefBookings {
  private readonly list: KeyedBooking[] = [];
  /** By key of before and folded payer and text: every booking. */
  private readonly byText = new Map<string, Queue>();
  /** By key of before and folded payer and text: the bookings without payer's references. */
  private readonly byTextUnreferenced = new Map<string, Queue>();
  /** By key of before and payer's reference: the bookings with payer's references. */
  private readonly byReference = new Map<string, Queue>();
  /** The keys taken (a booking is taken once, by its key). */
  private readonly taken = new Set<string>();

  /** `bookings`: what each key of before (without its `#n`) holds, in its order (bookingsUnderOccurrences). */
  constructor(bookings: Map<string, KeyedBooking[]>) {
    for (const [before, known] of bookings) {
      for (const b of known) {
        const at = this.list.push(b) - 1;
        const text = NonrefBookings.textKey(before, b.sender, b.subject);
        NonrefBookings.add(this.byText, text, at);
        const references = new Set(b.payerRef.split(' ').filter((r) => r !== ''));
        if (!references.size) NonrefBookings.add(this.byTextUnreferenced, text, at);
        for (const r of references) NonrefBookings.add(this.byReference, JSON.stringify([before, r]), at);
      }
    }
  }

  private static textKey(before: string, sender: string, subject: string): string {
    return JSON.stringify([before, foldedText(sender), foldedText(subject)]);
  }

  private static add(index: Map<string, Queue>, key: string, at: number): void {
    const queue = index.get(key);
    if (queue) queue.at.push(at);
    else index.set(key, { at: [at], next: 0 });
  }

  /** The place of a queue's first booking not taken, those taken before it passed for good. */
  private head(queue: Queue | undefined): number | undefined {
    if (!queue) return undefined;
    while (queue.next < queue.at.length && this.taken.has(this.list[queue.at[queue.next]!]!.key)) queue.next++;
    return queue.at[queue.next];
  }

  /**
   * The first booking (in the order given) under the entry's key of before that is the entry and
   * is not taken yet, taken now; undefined when none.
   */
  take(e: StatementEntry, before: string): KeyedBooking | undefined {
    const text = NonrefBookings.textKey(before, e.sender, e.subject);
    const queues = e.payerReferences.length
      ? [this.byTextUnreferenced.get(text), ...e.payerReferences.map((r) => this.byReference.get(JSON.stringify([before, r])))]
      : [this.byText.get(text)];
    let first: number | undefined;
    for (const queue of queues) {
      const at = this.head(queue);
      if (at !== undefined && (first === undefined || at < first)) first = at;
    }
    if (first === undefined) return undefined;
    const booking = this.list[first]!;
    this.taken.add(booking.key);
    return booking;
  }
}

/**
 * CAMT entries stored, applied or kept before under a key that held NONREF as the bank's
 * reference (StatementEntry.nonrefKey) take that key again, so what follows finds them as stored:
 * a credit a duplicate, a reversal applied or kept once. Such a key named the amount and day
 * only (`#2`, `#3` the occurrence in its file), so another payer's payment of that amount and
 * day may have it in another export: in file order, each entry takes the first booking under its
 * key, in any occurrence, that has its payer and text (NonrefBookings), each booking once.
 * Decision (lib/bank README, NONREF): payer and text both, not either as for the positional keys
 * of before (`legacyReference`): a buyer paying two orders of one price on one day is common, and
 * either alone took the second payment for the first (lost). An entry whose own key is known
 * already (imported since) takes nothing.
 */
async function takeNonrefKeysAsStored(trx: Knex.Transaction, accountId: number, entries: StatementEntry[]): Promise<void> {
  const before = entries.filter((e) => e.nonrefKey && e.reference);
  if (!before.length) return;
  const known = await bankRepository.knownStatementKeys(
    trx,
    accountId,
    before.map((e) => e.reference!),
  );
  const open = before.filter((e) => !known.has(e.reference!));
  if (!open.length) return;
  const bookings = await bookingsUnderOccurrences(trx, accountId, [...new Set(open.map((e) => e.nonrefKey!))]);
  const index = new NonrefBookings(bookings);
  for (const e of open) {
    const booking = index.take(e, e.nonrefKey!);
    if (booking) e.reference = booking.key;
  }
}

/**
 * Entries not stored yet, each once even within the batch. A statement entry is stored already
 * when its key is, or the key it had before keys named the booking instead of its position
 * (`legacyReference`, statement/entry-key.ts): a file imported before that change is still
 * recognised when imported again. Only the new key is stored, so a key of before matches only
 * records stored before the change (the two forms never equal: the new one starts with its
 * format's name). A key of before counts only when its record has the entry's payer or text:
 * it held the entry's position, which another payment of the same amount and day may take in a
 * later version of the statement (that payment was lost as a duplicate).
 */
async function newEntries(trx: Knex.Transaction, accountId: number, type: BankKind, entries: StatementEntry[]): Promise<StatementEntry[]> {
  const columns = (e: StatementEntry) => ({ transfer_date: e.transferDate, sender: e.sender, subject: e.subject, amount: e.amount });
  const refs = await bankRepository.storedReferences(
    trx,
    accountId,
    type,
    entries.flatMap((e) => (e.reference ? [e.reference] : [])),
  );
  const legacy = await bankRepository.storedByReference(
    trx,
    accountId,
    type,
    entries.flatMap((e) => (e.reference && e.legacyReference ? [e.legacyReference] : [])),
  );
  // A key of before names a position (with the amount and day): another payer's payment of that
  // amount at that place in a later version of the statement has it too. It is this entry only
  // when the record stored under it has the entry's payer or its text (see sameBooking).
  const storedBefore = (e: StatementEntry) => {
    const record = e.legacyReference ? legacy.get(e.legacyReference) : undefined;
    return !!record && sameBooking(record, e);
  };
  const dups = await bankRepository.storedDuplicates(trx, accountId, type, entries.filter((e) => !e.reference).map(columns));
  const stored = (e: StatementEntry) => (e.reference ? refs.has(e.reference) || storedBefore(e) : dups.has(duplicateKey(columns(e))));
  const seen = new Set<string>();
  return entries.filter((e) => {
    const key = e.reference ? `ref ${e.reference}` : `dup ${duplicateKey(columns(e))}`;
    if (seen.has(key) || stored(e)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * The entries (not stored under their own keys) that are bookings an import of the other
 * statement format stored already, each with the record it is: entry-key.ts's
 * sameBookingAcrossFormats, on records of the same account (IBAN) and booking day stored from
 * the other format (so only on days an import of that format covered) and not yet claimed by an
 * import of this one. In file order, each takes the first such record it equals in the order they
 * were stored (those tied by their end-to-end id first, then the rest), and a record is taken once: the n-th of two genuinely equal payments in this file is
 * the n-th stored, and one more here than there is stored. The entry's key becomes the record's
 * `entry_alias`, so the same file again is recognised by its keys as before, and a record claimed
 * is no candidate for a later import (its booking has a key of both formats).
 */
async function acrossFormats(
  trx: Knex.Transaction,
  accountId: number,
  type: BankKind,
  entries: StatementEntry[],
): Promise<Map<StatementEntry, { internalId: string; alias: string }>> {
  const tied = entries.flatMap((e) => {
    const facts = acrossFormatsOf(e);
    const format = formatOfKey(e.reference);
    return facts && format ? [{ e, facts, format }] : [];
  });
  if (!tied.length) return new Map();
  const days = [...new Set(tied.map((t) => bookingDayOf(t.e.transferDate)))];
  const candidates = await bankRepository.acrossFormatCandidates(trx, accountId, type, [...new Set(tied.map((t) => t.facts.iban))], days);
  type Candidate = (typeof candidates)[number];
  type Tied = (typeof tied)[number];
  // By the end-to-end id first, then by the whole rule (entry-key.ts sameBookingById): a record
  // that holds one entry's id is that entry's, whichever equal payment comes first in the file.
  // Each by the date, then by a client's day (a hand booking a statement claimed keeps its
  // client's time of day: entry-key.ts sameBookingDay). Not its UTC day first: a Berlin client's
  // 00:30 on the 20th (23:30 UTC on the 19th) that the MT940 of the 20th claimed took the
  // camt.053's credit of the 19th (an equal rate), whose MT940 record then stayed beside it and
  // the camt.053's credit of the 20th was stored again.
  const pass =
    (same: (r: Booking, e: Booking) => boolean) =>
    (r: Candidate, { e, facts, format }: Tied) =>
      r.account_iban === facts.iban &&
      formatOfKey(r.entry_ref) !== null &&
      formatOfKey(r.entry_ref) !== format &&
      same(
        // A hand booking a statement claimed is that statement's day (claimed_on), not the span of
        // days its client's instant may stand for: the camt.053's equal rate of the neighbouring
        // day took it when no MT940 of that day had been imported, and the credit it is was stored again.
        { ...r, transferDate: tiedDayOf(r), currency: r.currency_id, endToEndId: r.end_to_end_id ?? '', payerReferences: r.payer_ref.split(' ') },
        { ...e, endToEndId: facts.endToEndId },
      );
  const byId = (days: DayRule) => pass((r, e) => sameBookingById(r, e, days) === true);
  const byAll = (days: DayRule) => pass((r, e) => sameBookingAcrossFormats(r, e, days));
  const found = new Map<StatementEntry, { internalId: string; alias: string }>();
  for (const [t, record] of claimInPasses(tied, candidates, [byId('date'), byId('zone'), byAll('date'), byAll('zone')])) {
    found.set(t.e, { internalId: record.internal_id, alias: t.e.reference! });
  }
  return found;
}

/**
 * Each entry (in file order) with the first candidate (in the order given) it fits, pass after
 * pass, a candidate taken once: the n-th of two genuinely equal payments of a file takes the
 * n-th candidate, and a stronger pass (an end-to-end id, the UTC day) is asked of every entry
 * before a weaker one of any.
 */
function claimInPasses<E, C extends { internal_id: string }>(entries: E[], candidates: C[], passes: ((c: C, e: E) => boolean)[]): Map<E, C> {
  const found = new Map<E, C>();
  const taken = new Set<string>();
  for (const fits of passes) {
    for (const e of entries) {
      if (found.has(e)) continue;
      const record = candidates.find((c) => !taken.has(c.internal_id) && fits(c, e));
      if (!record) continue;
      taken.add(record.internal_id);
      found.set(e, record);
    }
  }
  return found;
}

/**
 * The entries (not stored under their keys, not claimed across formats) that are a transfer a
 * client booked by hand before (POST bank/transfer/, no key), each with that record: entry-key.ts
 * sameBookingByHand. In file order each takes the first such record (in the order booked) not
 * taken yet, so of two genuinely equal payments in the file the first is the one booked by hand
 * and the second is stored. Before, the statement stored the payment again beside the hand
 * booking, and both paid: a part payment twice, or the next order of the payer with the copy.
 */
async function bookedByHand(trx: Knex.Transaction, scope: OrderScope, entries: StatementEntry[]): Promise<Map<StatementEntry, string>> {
  const keyed = entries.filter((e) => e.reference !== null);
  const candidates = await bankRepository.handBookedCandidates(
    trx,
    scope,
    daysAround([...new Set(keyed.map((e) => bookingDayOf(e.transferDate)))], VALUE_DAY_WINDOW),
    [...new Set(keyed.map((e) => e.amount))],
  );
  // The UTC day first, then a client's day (entry-key.ts sameBookingDay): a hand booking of the
  // credit's own UTC day is taken before one that is that day only on a client's clock; then the
  // value day a client may have dated it by, 1 day off before 2 before 3 (VALUE_DAY_WINDOW).
  const byDay = (days: HandDayRule) => (r: (typeof candidates)[number], e: StatementEntry) =>
    sameBookingByHand({ ...r, transferDate: r.transfer_date, currency: r.currency_id }, e, days);
  const found = claimInPasses(keyed, candidates, [byDay('utc'), byDay('zone'), ...valueDayRules().map(byDay)]);
  return new Map([...found].map(([e, r]) => [e, r.internal_id]));
}

/**
 * Whether a record stored under an entry's key of before is that entry: the same payer or the
 * same text, blanks and case aside, either one enough. Not both, and not as written: how Kontor
 * reads a payer and a text out of :86: or RmtInf changed between versions (line joining, labels
 * dropped), so a record stored by an older version may differ in one of them; two payments of
 * different payers with different texts are never one. With neither a payer nor a text on
 * either side there is nothing to tell them apart, and the key decides as before.
 */
function sameBooking(record: { sender: string; subject: string }, e: StatementEntry): boolean {
  const fold = (text: string) => text.replace(/\s+/g, '').toLowerCase();
  const [rs, rt, es, et] = [fold(record.sender), fold(record.subject), fold(e.sender), fold(e.subject)];
  if (!rs && !rt && !es && !et) return true;
  return (rs !== '' && rs === es) || (rt !== '' && rt === et);
}

/**
 * Stores the entries not stored yet. `grant` is the portal account of the caller's authorization
 * (null: all portal accounts): the matching job pays only orders it covers.
 */
export async function storeEntriesIn(
  trx: Knex.Transaction,
  accountId: number,
  type: BankKind,
  entries: StatementEntry[],
  status: string | null = null,
  grant: number | null = null,
): Promise<Stored> {
  const last = await bankRepository.lockCounter(trx, accountId);
  const unseen = await newEntries(trx, accountId, type, entries);
  // A booking stored from the other statement format (MT940 / camt.053 of one account) is not
  // stored again: it is claimed under this format's key (entry-key.ts, sameBookingAcrossFormats).
  const claimed = await acrossFormats(trx, accountId, type, unseen);
  await bankRepository.setEntryAliases(trx, accountId, [...claimed.values()]);
  const rest = unseen.filter((e) => !claimed.has(e));
  // A payment a client booked by hand before is not stored again: the hand booking takes the
  // entry's key and references (entry-key.ts, sameBookingByHand). Bank transfers only.
  // A client bound to a portal account claims only the hand bookings it sees (bankRepository.handBookedCandidates).
  const scope: OrderScope = { accountId, portalAccountGrant: grant ?? 'all' };
  const byHand = type === 'bank' ? await bookedByHand(trx, scope, rest) : new Map<StatementEntry, string>();
  await bankRepository.claimHandBooked(
    trx,
    accountId,
    [...byHand].map(([e, internalId]) => ({
      internalId,
      key: e.reference!,
      iban: acrossFormatsOf(e)?.iban ?? null,
      endToEndId: acrossFormatsOf(e)?.endToEndId || null,
      payerRef: e.payerReferences.join(' '),
      // The credit's booking day: what the hand booking's day is from now on (entry-key.ts tiedDayOf).
      day: e.transferDate,
    })),
  );
  const fresh = rest.filter((e) => !byHand.has(e));
  const now = new Date();
  await bankRepository.insertMany(
    trx,
    accountId,
    fresh.map((e, i) => ({
      number: last + 1 + i,
      id: bankIdOf(last + 1 + i, now),
      type,
      entry_ref: e.reference,
      transfer_date: e.transferDate,
      sender: e.sender,
      subject: e.subject,
      amount: e.amount,
      order_no: null,
      status,
      currency_id: e.currency,
      payer_ref: e.payerReferences.join(' '),
      portal_account_grant: grant,
      account_iban: acrossFormatsOf(e)?.iban ?? null,
      end_to_end_id: acrossFormatsOf(e)?.endToEndId || null,
    })),
  );
  if (!fresh.length) return { stored: 0, duplicates: entries.length, jobId: null };
  await bankRepository.setCounter(trx, accountId, last + fresh.length);
  const jobId = await addToOutbox(trx, accountId, 'bank.match', { accountId, fromNumber: last + 1, toNumber: last + fresh.length, portalAccountGrant: grant });
  return { stored: fresh.length, duplicates: entries.length - fresh.length, jobId };
}
