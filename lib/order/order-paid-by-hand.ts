/**
 * Whether a payer's record (a bank transfer, a statement's credit, a payment-provider payment) is
 * money the seller already booked on the order by hand (paid_by_hand_at: document 1, order rule
 * 1, "To mark an existing order as paid, set paid_amount"), so that no payment books it again.
 * One rule for lib/bank's decision (bank.match.ts) and for payOrdersIn under the order's row lock
 * (lib/bank/README.md, "A payment booked by hand on the order").
 */
import { toCents } from './order-money';

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
  const handAt = new Date(hand.paid_by_hand_at).getTime();
  if (record.storedAt !== undefined && handAt > new Date(record.storedAt).getTime()) return true;
  if (record.bookedAt === undefined) return false;
  const lastHandDay = Math.floor((handAt + AHEAD) / DAY);
  return Math.floor(new Date(record.bookedAt).getTime() / DAY) <= lastHandDay;
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
