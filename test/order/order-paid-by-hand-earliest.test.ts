/**
 * earliestHandBookingHolding narrows the orders lib/bank asks bookedByHand about (a payer's
 * hand-booked orders whatever they owe): it must never leave out a hand booking the rule holds a
 * record by, and it is the rule's own bound, not a looser guess.
 */
import { expect } from 'chai';
import { bookedByHand, earliestHandBookingHolding } from '../../lib/order';

const HOUR = 3_600_000;
const base = Date.parse('2026-11-20T00:00:00Z');

describe('order: the earliest hand booking that may hold a payer record', () => {
  it('when bookedByHand holds a record by a hand booking, then that hand booking is at or after the earliest one, and the earliest one holds a record booked that day', () => {
    const booked = [0, 1, 23, 24, 47].map((h) => new Date(base + h * HOUR));
    const stored = [undefined, ...[-30, 5, 30].map((h) => new Date(base + h * HOUR))];
    for (const bookedAt of booked) {
      for (const storedAt of stored) {
        const times = { bookedAt, ...(storedAt ? { storedAt } : {}) };
        const earliest = earliestHandBookingHolding(times)!.getTime();
        for (let h = -60; h <= 60; h++) {
          const hand = { paid_by_hand_at: new Date(base + h * HOUR + 17 * 60_000), paid_by_hand_amount: null };
          if (bookedByHand(hand, { ...times, amount: '1.00' }))
            expect(hand.paid_by_hand_at.getTime(), `${bookedAt.toISOString()} ${h}`).to.be.at.least(earliest);
        }
        const atEarliest = { paid_by_hand_at: new Date(earliest), paid_by_hand_amount: null };
        expect(bookedByHand(atEarliest, { bookedAt, amount: '1.00' }) || (storedAt !== undefined && storedAt.getTime() <= earliest)).to.equal(true);
      }
    }
  });

  it('when neither time of the record is known, then no hand booking holds it', () => {
    expect(earliestHandBookingHolding({})).to.equal(null);
  });
});
