import type { Knex } from 'knex';

/**
 * The booking day of the reversal that took a transfer back (lib/bank bank-reversal.service.ts):
 * the other statement format's record of that reversal (MT940 RC / camt.053 DBIT RvslInd of one
 * account) is recognised by it and applied no second time. Nullable without default: no table
 * rewrite, no index (read with reversed_by, only on the days a reversal names).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE bank ADD COLUMN reversed_on timestamptz');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE bank DROP COLUMN IF EXISTS reversed_on');
}
