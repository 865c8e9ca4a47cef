import type { Knex } from 'knex';

/**
 * The booking day (00:00 UTC) of the statement credit that claimed a transfer booked by hand
 * (lib/bank bank-store.service.ts bookedByHand; README "The booking day of a hand booking"). A
 * hand booking keeps the instant its client sent (no zone) or the value day the client dated it
 * by, so once a statement has said which day it is, every later tie (the other format's copy, a
 * client's POST bank/transfer/ of a neighbouring day, a reversal) reads that day instead of the
 * span of days the instant may stand for; before, an equal payment of a neighbouring day took it.
 * Nullable without default: no table rewrite; not indexed (read only beside transfer_date).
 *
 * Hand bookings claimed before: their key names the credit's booking day (`...|<amount>|<day>`,
 * statement/entry-key.ts), read from there where the transfer_date has a time of day (one at
 * 00:00 UTC was claimed by the credit of exactly its day: nothing to tell).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE bank ADD COLUMN claimed_on timestamptz');
  await knex.raw(`
    UPDATE bank SET claimed_on = (substring(entry_ref from '\\|[0-9]+\\.[0-9]{2}\\|([0-9]{4}-[0-9]{2}-[0-9]{2})(?:[|#]|$)') || 'T00:00:00Z')::timestamptz
     WHERE type = 'bank' AND entry_ref ~ '^(mt940|camt) '
       AND transfer_date <> date_trunc('day', transfer_date AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
       AND entry_ref ~ '\\|[0-9]+\\.[0-9]{2}\\|[0-9]{4}-[0-9]{2}-[0-9]{2}(?:[|#]|$)'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE bank DROP COLUMN IF EXISTS claimed_on');
}
