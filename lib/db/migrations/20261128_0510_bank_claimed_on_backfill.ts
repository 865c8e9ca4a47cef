import type { Knex } from 'knex';

/**
 * claimed_on (20261128_0500) for the transfers booked by hand that a statement claimed before the
 * column: their key names the claiming credit's booking day (`<format> ...|<amount>|<day>`, then
 * `|~<digest>` or `#<n>` or nothing: lib/bank statement/entry-key.ts, mt940.ts, camt-entry.ts).
 * Which records, by kind:
 * - a statement's credit: its transfer_date is its booking day at 00:00 UTC, the key's day (the
 *   readers write both from one date): left null, its transfer_date is its day;
 * - a hand booking claimed at a time of day: the key's day;
 * - a hand booking sent as a date (00:00 UTC): before 16d6c37 only the credit of exactly that day
 *   could claim it (a date stands for its own day alone, bookingDaysOf), so it is the key's day
 *   already: left null;
 * - a hand booking no statement claimed (no key), a PayPal record (type payment_provider), a key
 *   of before 1870e39 (no format; claims came after it, a05be67): left null.
 * So the rule is: a key of a format with a day, and a transfer_date other than that day's 00:00
 * UTC. Only null columns are written: running it again changes nothing, and a database where
 * 20261128_0500 ran with this backfill inside it is left as it is.
 *
 * A migration of its own, not inside 0500 (found by a reviewer of 16d6c37): each migration is one
 * transaction, and in 0500 this scan of every bank record held the ALTER's ACCESS EXCLUSIVE lock
 * until it ended. Here it takes only the row locks of the records it writes (a few: hand bookings
 * claimed with a time of day) while reading the table: imports, searches and matching go on.
 * One UPDATE, not batches: it writes few rows, and a batch loop would scan the table once a batch.
 */
const keyDay = String.raw`^(?:mt940|camt) .*\|[0-9]+\.[0-9]{2}\|([0-9]{4}-[0-9]{2}-[0-9]{2})(?:\|~[A-Za-z0-9_-]*)?(?:#[0-9]+)?$`;

/** Fills claimed_on where a key tells it and the column is empty; answers the records written. */
export async function backfillBankClaimedOn(knex: Knex | Knex.Transaction): Promise<number> {
  const result = (await knex.raw(
    `UPDATE bank SET claimed_on = day
       FROM (SELECT internal_id, (substring(entry_ref from ?) || 'T00:00:00Z')::timestamptz AS day
               FROM bank WHERE type = 'bank' AND claimed_on IS NULL AND entry_ref ~ ?) AS keyed
      WHERE bank.internal_id = keyed.internal_id AND bank.transfer_date <> keyed.day`,
    [keyDay, keyDay],
  )) as { rowCount: number };
  return result.rowCount;
}

export async function up(knex: Knex): Promise<void> {
  await backfillBankClaimedOn(knex);
}

/** Nothing: 20261128_0500's down drops the column. */
export async function down(): Promise<void> {}
