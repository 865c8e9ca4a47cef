import type { Knex } from 'knex';
import { isBoundToRow, openCredentials, sealCredentials } from '../../secret/credentials';

/**
 * Issue 31: credentials bound to their row. Portal accounts' credentials sealed as kc1 (the table
 * as additional authenticated data) are sealed again as kc2 (table and row id), so a value copied
 * into another seller's row no longer opens. Row by row (few rows: accounts), with the key
 * configured when it runs. Payment provider accounts keep kc1 until lib/bank seals and opens
 * them with their row id; both formats are read (lib/secret).
 */
export async function up(knex: Knex): Promise<void> {
  const rows = (await knex('portal_account').select('id', 'credentials').whereNotNull('credentials')) as { id: number; credentials: string }[];
  for (const row of rows) {
    if (isBoundToRow(row.credentials)) continue;
    const sealed = sealCredentials('portal_account', openCredentials('portal_account', row.credentials), row.id);
    await knex('portal_account').where({ id: row.id, credentials: row.credentials }).update({ credentials: sealed });
  }
}

/** Back to kc1, which the code before this migration reads. */
export async function down(knex: Knex): Promise<void> {
  const rows = (await knex('portal_account').select('id', 'credentials').whereNotNull('credentials')) as { id: number; credentials: string }[];
  for (const row of rows) {
    if (!row.credentials.startsWith('kc2.')) continue;
    const sealed = sealCredentials('portal_account', openCredentials('portal_account', row.credentials, row.id));
    await knex('portal_account').where({ id: row.id }).update({ credentials: sealed });
  }
}
