/**
 * Whether a payer's record (a bank transfer, a statement's credit, a payment-provider payment) is
 * money the seller already booked on the order by hand (paid_by_hand_at: document 1, order rule
 * 1, "To mark an existing order as paid, set paid_amount"), so that no payment books it again.
 * One rule for lib/bank's decision (bank.match.ts) and for payOrdersIn under the order's row lock
 * (lib/bank/README.md, "A payment booked by hand on the order").
 */
import { fromCents, toCents } from './order-money';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** The clock furthest ahead of UTC in use (UTC+14), as lib/bank reads an instant of an unknown zone. */
const AHEAD = 14 * HOUR;

/** The order's hand booking: when the seller last set paid_amount by hand, and how much money they booked so. */
export interface HandBooking {
  paid_by_hand_at: Date | null;
  /** The rises of paid_amount the seller wrote; null: stamped before it was kept (amount not checked). */
  paid_by_hand_amount: string | null;
}

/** When the payer's record was stored and when its bank booked it. */
export interface PayerRecordTimes {
  /** Absent: stored by this very call, after any hand booking. */
  storedAt?: Date;
  /** Its transfer_date: a statement's booking day (00:00 UTC), a provider's or a client's instant (absent: not asked). */
  bookedAt?: Date;
}

/**
 * Booked by hand when the record was stored before the hand booking (the seller had it in view,
 * unassigned) or its bank booked it on or before the hand booking's day: a statement imported,
 * or a provider payment fetched, after the hand booking is stored later, yet the seller saw that
 * money in online banking and booked it (found by a reviewer: 10.00 of a 20.00 order booked by
 * hand, then the day's camt.053 with that 10.00 naming the order read paid in full).
 * The day (decision): the record's day is its transfer_date's UTC day (a statement's booking day
 * is stored at 00:00 UTC of its bank's calendar day); the hand booking's is the latest day its
 * instant has on any clock up to UTC+14, the zones lib/bank already allows for an instant of an
 * unknown zone (statement/entry-key.ts bookingDaysOf). Neither the seller's nor the bank's zone
 * is stored, and the seller sees a credit of the bank's day D only once D has begun on the
 * bank's clock: a Berlin seller's booking at 00:30 on the 21st (23:30 UTC on the 20th) may be of
 * the credit booked on the 21st. The cost: a second instalment its bank books the day after a
 * hand booking made after 10:00 UTC, or the same day, stays unassigned as booked_by_hand (the
 * seller is told and books it) rather than paying an order a second time.
 * The amount (decision, found by a reviewer): a record larger than the money booked by hand
 * (paid_by_hand_amount) cannot be that money and pays as before: 5.50 taken in cash and booked by
 * hand on a 30.00 order, the statement's 24.50 of the buyer booked the day before pays the rest.
 * An order stamped before paid_by_hand_amount was kept (null) is read by time alone, as before.
 */
export function bookedByHand(hand: HandBooking, record: PayerRecordTimes & { amount: string }): boolean {
  if (hand.paid_by_hand_at === null) return false;
  if (hand.paid_by_hand_amount !== null && toCents(record.amount) > toCents(hand.paid_by_hand_amount)) return false;
  return byTime(new Date(hand.paid_by_hand_at).getTime(), timesIn(record));
}

/** A record's times in milliseconds, read once however many hand bookings it is held against. */
interface TimesMs {
  stored: number | undefined;
  booked: number | undefined;
}
const timesIn = (record: PayerRecordTimes): TimesMs => ({
  stored: record.storedAt === undefined ? undefined : new Date(record.storedAt).getTime(),
  booked: record.bookedAt === undefined ? undefined : new Date(record.bookedAt).getTime(),
});

/** Stored before the hand booking at `handAt`: the seller had the record in view, unassigned. */
const storedBefore = (handAt: number, t: TimesMs): boolean => t.stored !== undefined && handAt > t.stored;

/**
 * bookedByHand's time: stored before the hand booking, or booked by its bank on or before the hand
 * booking's last day (UTC+14). It holds for every later hand booking once it holds for one.
 */
function byTime(handAt: number, t: TimesMs): boolean {
  if (storedBefore(handAt, t)) return true;
  if (t.booked === undefined) return false;
  return Math.floor(t.booked / DAY) <= Math.floor((handAt + AHEAD) / DAY);
}

/**
 * Whether the record may be money the seller booked by hand on **another** order of its payer
 * (one it would not pay: lib/bank's name and amount then pays none of the payer's orders with
 * it). Decision (lib/bank/README.md, "When a hand booking on another order may be the record"):
 * bookedByHand, and besides either the money booked by hand there is this money (the record's
 * amount is paid_by_hand_amount) or the seller had the record in view, unassigned, when booking
 * (stored before). Before, bookedByHand alone: a 100.00 order of Petra Part created today with
 * paid_amount 100.00 (or booked 100.00 by hand) held her 20.00 transfer of 20 days ago, and her
 * open 20.00 order stayed unpaid (found by a reviewer). An order stamped before
 * paid_by_hand_amount was kept (null) is read by time alone, as bookedByHand reads it.
 */
export function bookedByHandOnAnother(hand: HandBooking, record: PayerRecordTimes & { amount: string }): boolean {
  if (!bookedByHand(hand, record)) return false;
  if (hand.paid_by_hand_amount === null || toCents(record.amount) === toCents(hand.paid_by_hand_amount)) return true;
  return storedBefore(new Date(hand.paid_by_hand_at!).getTime(), timesIn(record));
}

/**
 * A payer's hand-booked orders reduced once for many records: `holds(record)` answers whether
 * bookedByHandOnAnother holds the record by any of them, in O(log n) a record instead of asking
 * each order (lib/bank matched records x a payer's hand-booked orders: 5,000 orders of one
 * buyer booked by hand and 1,000 records took seconds, found by a reviewer). Exact, by the
 * rule's parts above: byTime holds for every later hand booking once it holds for one, so per
 * amount booked (and for the orders of unknown amount) the latest hand booking decides; a record
 * stored before a hand booking of at least its amount is held, so of the hand bookings after it
 * was stored the largest amount decides (test/order/order-paid-by-hand-another.test.ts compares
 * it with bookedByHandOnAnother of each).
 */
export class PayerHandBookings {
  /** The latest hand booking of an order stamped before paid_by_hand_amount was kept. */
  private latestUnknown: number | undefined;
  /** The latest hand booking per amount booked by hand, in cents. */
  private readonly latestByAmount = new Map<bigint, number>();
  /** The hand bookings of known amount by time, ascending, and the largest amount from each on. */
  private readonly at: number[] = [];
  private readonly largestFrom: bigint[] = [];

  constructor(hands: Iterable<HandBooking>) {
    const known: { at: number; cents: bigint }[] = [];
    for (const hand of hands) {
      if (hand.paid_by_hand_at === null) continue;
      const at = new Date(hand.paid_by_hand_at).getTime();
      if (hand.paid_by_hand_amount === null) {
        this.latestUnknown = Math.max(at, this.latestUnknown ?? at);
        continue;
      }
      const cents = toCents(hand.paid_by_hand_amount);
      this.latestByAmount.set(cents, Math.max(at, this.latestByAmount.get(cents) ?? at));
      known.push({ at, cents });
    }
    known.sort((a, b) => a.at - b.at);
    for (const k of known) this.at.push(k.at);
    this.largestFrom.length = known.length;
    for (let i = known.length - 1; i >= 0; i--) {
      const next = this.largestFrom[i + 1];
      this.largestFrom[i] = next !== undefined && next > known[i]!.cents ? next : known[i]!.cents;
    }
  }

  /** bookedByHandOnAnother of any of the hand bookings. */
  holds(record: PayerRecordTimes & { amount: string }): boolean {
    const t = timesIn(record);
    if (this.latestUnknown !== undefined && byTime(this.latestUnknown, t)) return true;
    const cents = toCents(record.amount);
    const sameAmount = this.latestByAmount.get(cents);
    if (sameAmount !== undefined && byTime(sameAmount, t)) return true;
    if (t.stored === undefined) return false;
    // The first hand booking after the record was stored (binary search).
    let lo = 0;
    let hi = this.at.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.at[mid]! > t.stored) hi = mid;
      else lo = mid + 1;
    }
    return lo < this.at.length && this.largestFrom[lo]! >= cents;
  }
}

/**
 * The earliest hand booking (paid_by_hand_at) by which bookedByHand may hold the record: one
 * made after it was stored, or whose last day (on a clock up to UTC+14) is not before its bank's
 * day; null when neither time is known (no hand booking holds it). A reader narrows the orders it
 * asks bookedByHand about by it (lib/bank reads a payer's hand-booked orders whatever they owe),
 * so it stands beside the rule and changes with it; bookedByHand still decides.
 */
export function earliestHandBookingHolding(record: PayerRecordTimes): Date | null {
  const instants: number[] = [];
  if (record.storedAt !== undefined) instants.push(new Date(record.storedAt).getTime());
  // floor(booked / DAY) <= floor((hand + AHEAD) / DAY) holds exactly when hand >= the booked day's start - AHEAD.
  if (record.bookedAt !== undefined) instants.push(Math.floor(new Date(record.bookedAt).getTime() / DAY) * DAY - AHEAD);
  return instants.length ? new Date(Math.min(...instants)) : null;
}

/**
 * The hand bookings on other orders of the payers by which bookedByHandOnAnother may hold one of
 * the records, as a reader narrows the orders it reads (lib/bank reads the payers' hand-booked
 * orders whatever they owe): made at or after `since` (earliestHandBookingHolding) of one of
 * `amounts` or of an unknown amount, or made after `storedAfter` (the earliest record stored) of
 * at least `least`. Beside the rule, so it changes with it; the rule still decides. Null: no
 * hand booking holds any of them. Before, every hand booking since `since` was read: a seller
 * whose shop creates every order with paid_amount read them all at each match (found by a
 * reviewer of a969e8e).
 */
export interface OtherHandBookingsHolding {
  since: Date;
  amounts: string[];
  /** Null: no record was stored before this call. */
  storedAfter: Date | null;
  least: string;
}

export function otherHandBookingsHolding(records: (PayerRecordTimes & { amount: string })[]): OtherHandBookingsHolding | null {
  let since: number | undefined;
  let storedAfter: number | undefined;
  let least: bigint | undefined;
  const amounts = new Map<bigint, string>();
  for (const record of records) {
    const earliest = earliestHandBookingHolding(record);
    if (earliest === null) continue;
    since = Math.min(since ?? Infinity, earliest.getTime());
    const cents = toCents(record.amount);
    amounts.set(cents, fromCents(cents));
    if (record.storedAt === undefined) continue;
    storedAfter = Math.min(storedAfter ?? Infinity, new Date(record.storedAt).getTime());
    if (least === undefined || cents < least) least = cents;
  }
  if (since === undefined) return null;
  return {
    since: new Date(since),
    amounts: [...amounts.values()],
    storedAfter: storedAfter === undefined ? null : new Date(storedAfter),
    least: fromCents(least ?? 0n),
  };
}
