import type { Knex } from 'knex';

/**
 * One bank account imported as MT940 and as camt.053 (lib/bank bank-store.service.ts and
 * statement/entry-key.ts, sameBookingAcrossFormats): a statement credit keeps the IBAN of its
 * account (`account_iban`, null where the statement's account cannot be tied) and the payer's
 * end-to-end id (`end_to_end_id`, null when none), so that an import of the other format finds it;
 * `entry_alias` is the other format's key of the same booking, set when an import of that format
 * found the booking stored, so that a re-import of that file is recognised by its key as before.
 * Nullable without default: no table rewrite. The indexes are partial and name none of the
 * columns an assignment writes (order_id ...): assigning a record stays a HOT update.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE bank ADD COLUMN account_iban text, ADD COLUMN end_to_end_id text, ADD COLUMN entry_alias text');
  await knex.raw('CREATE UNIQUE INDEX bank_entry_alias ON bank (account_id, type, entry_alias) WHERE entry_alias IS NOT NULL');
  await knex.raw('CREATE INDEX bank_account_iban_day ON bank (account_id, account_iban, transfer_date) WHERE account_iban IS NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS bank_account_iban_day');
  await knex.raw('DROP INDEX IF EXISTS bank_entry_alias');
  await knex.raw('ALTER TABLE bank DROP COLUMN IF EXISTS entry_alias, DROP COLUMN IF EXISTS end_to_end_id, DROP COLUMN IF EXISTS account_iban');
}
