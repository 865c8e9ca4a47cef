/**
 * bookedByHandOnAnother, the rule by which money booked by hand on another order of a payer holds
 * the payer's record (lib/bank/README.md, "Money booked by hand pays no other order of the
 * payer"), read for many records at once: PayerHandBookings answers as asking each hand booking,
 * and otherHandBookingsHolding, the bound lib/bank reads the hand-booked orders by, leaves out
 * none that holds a record.
 */
import { expect } from 'chai';
import { bookedByHand, bookedByHandOnAnother, otherHandBookingsHolding, PayerHandBookings } from '../../lib/order';
import type { HandBooking, PayerRecordTimes } from '../../lib/order/order-paid-by-hand';

const HOUR = 3_600_000;
const base = Date.parse('2026-11-20T00:00:00Z');

/** A fixed pseudo-random sequence (the same cases on every run). */
function randomOf(seed: number): (n: number) => number {
  let state = seed;
  return (n) => {
    // Park-Miller: the product stays below 2^53, exact in a double.
    state = (state * 48_271) % 2_147_483_647;
    return state % n;
  };
}

type Rec = PayerRecordTimes & { amount: string };
const amounts = ['10.00', '20.00', '20.01', '100.00'];

function cases(seed: number): { hands: HandBooking[]; records: Rec[] } {
  const random = randomOf(seed);
  // Times on a grid of hours around the 20th, amounts from a few values: many ties and edges.
  const at = () => new Date(base + (random(97) - 48) * HOUR + random(2) * 30 * 60_000);
  const hands = Array.from({ length: random(10) }, () => ({
    paid_by_hand_at: random(8) === 0 ? null : at(),
    paid_by_hand_amount: random(5) === 0 ? null : amounts[random(amounts.length)]!,
  }));
  const records = Array.from({ length: 20 }, () => {
    const bookedAt = new Date(Math.floor(at().getTime() / (24 * HOUR)) * 24 * HOUR);
    return { ...(random(3) === 0 ? {} : { storedAt: at() }), ...(random(10) === 0 ? {} : { bookedAt }), amount: amounts[random(amounts.length)]! };
  });
  return { hands, records };
}

describe('order: money booked by hand on another order of the payer', () => {
  it('when a payer’s hand bookings are reduced once (PayerHandBookings), then each record is held exactly when bookedByHandOnAnother holds it by one of them', () => {
    let held = 0;
    let free = 0;
    for (let seed = 1; seed <= 2000; seed++) {
      const { hands, records } = cases(seed);
      const reduced = new PayerHandBookings(hands);
      for (const record of records) {
        const expected = hands.some((h) => bookedByHandOnAnother(h, record));
        expect(reduced.holds(record), JSON.stringify({ seed, hands, record })).to.equal(expected);
        if (expected) held++;
        else free++;
      }
    }
    // Both answers occur often: the comparison says something.
    expect(held).to.be.above(1000);
    expect(free).to.be.above(1000);
  });

  it('when bookedByHandOnAnother holds a record by a hand booking, then otherHandBookingsHolding of the records reads that hand booking', () => {
    for (let seed = 1; seed <= 2000; seed++) {
      const { hands, records } = cases(seed);
      const bound = otherHandBookingsHolding(records);
      for (const hand of hands)
        if (records.some((r) => bookedByHandOnAnother(hand, r))) {
          const at = hand.paid_by_hand_at!.getTime();
          const amount = hand.paid_by_hand_amount;
          const read =
            bound !== null &&
            ((at >= bound.since.getTime() && (amount === null || bound.amounts.includes(amount))) ||
              (bound.storedAfter !== null && at > bound.storedAfter.getTime() && amount !== null && Number(amount) >= Number(bound.least)));
          expect(read, JSON.stringify({ seed, hand, bound })).to.equal(true);
        }
    }
  });

  it('when the money booked by hand on another order is the record’s amount, or the record was stored before it, then it is held; clearly different money booked after the record was stored is not', () => {
    const hand = { paid_by_hand_at: new Date(base + 12 * HOUR), paid_by_hand_amount: '100.00' };
    const booked20DaysBefore = { bookedAt: new Date(base - 20 * 24 * HOUR) };
    // Before: bookedByHand alone held the 20.00 of 20 days before by the 100.00 booked today.
    expect(bookedByHand(hand, { ...booked20DaysBefore, amount: '20.00' })).to.equal(true);
    expect(bookedByHandOnAnother(hand, { ...booked20DaysBefore, amount: '20.00' })).to.equal(false);
    expect(bookedByHandOnAnother(hand, { ...booked20DaysBefore, amount: '100.00' })).to.equal(true);
    expect(bookedByHandOnAnother(hand, { ...booked20DaysBefore, storedAt: new Date(base), amount: '20.00' })).to.equal(true);
    // Never more than bookedByHand holds: more than was booked, or booked on a later day.
    expect(bookedByHandOnAnother(hand, { storedAt: new Date(base), amount: '100.01' })).to.equal(false);
    expect(bookedByHandOnAnother(hand, { bookedAt: new Date(base + 2 * 24 * HOUR), amount: '100.00' })).to.equal(false);
    // An order stamped before paid_by_hand_amount was kept: by time alone, as bookedByHand.
    expect(bookedByHandOnAnother({ ...hand, paid_by_hand_amount: null }, { ...booked20DaysBefore, amount: '20.00' })).to.equal(true);
  });
});
