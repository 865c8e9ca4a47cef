import type { Knex } from 'knex';

/**
 * A bank transfer the bank reversed later (MT940 RC, CAMT DBIT with RvslInd; lib/bank
 * bank-reversal.service.ts): `reversed_by` holds the reversal's key, so a reversal is applied
 * once however often its statement is imported, and a transfer is reversed by one reversal at
 * most. Nullable without default: no table rewrite. The unique index is partial and names only
 * reversed_by, which only a reversal sets: assigning a record (order_id) stays a HOT update.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE bank ADD COLUMN reversed_by text');
  await knex.raw('CREATE UNIQUE INDEX bank_reversed_by ON bank (account_id, reversed_by) WHERE reversed_by IS NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS bank_reversed_by');
  await knex.raw('ALTER TABLE bank DROP COLUMN IF EXISTS reversed_by');
}
