import type { Knex } from 'knex';

/**
 * The transaction id of a request whose COMMIT answer was lost (lib/db commit-outcome.ts) beside
 * its Idempotency-Key: a resend with the key asks txid_status() whether that transaction
 * committed, and runs only if it rolled back (lib/http README, Idempotency-Key). Nullable without
 * default: no table rewrite.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE idempotency_key ADD COLUMN commit_xid bigint');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE idempotency_key DROP COLUMN IF EXISTS commit_xid');
}
