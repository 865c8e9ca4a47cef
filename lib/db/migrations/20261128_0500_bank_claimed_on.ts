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
 * The hand bookings claimed before get their day in 20261128_0510_bank_claimed_on_backfill, a
 * migration of its own (found by a reviewer of 16d6c37): each migration runs in one transaction,
 * and the backfill's scan of every bank record held this ALTER's ACCESS EXCLUSIVE lock until it
 * ended, stopping every import, search and matching of every seller for the scan of the table.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE bank ADD COLUMN claimed_on timestamptz');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE bank DROP COLUMN IF EXISTS claimed_on');
}
