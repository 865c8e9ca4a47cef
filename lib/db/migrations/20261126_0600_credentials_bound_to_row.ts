import type { Knex } from 'knex';
import { CredentialsPurpose, isBoundToRow, openCredentials, sealCredentials } from '../../secret';

/**
 * Issue 31: credentials bound to their row. Portal accounts' and payment provider accounts'
 * credentials sealed as kc1 (the table as additional authenticated data) are sealed again as kc2
 * (table and row id), so a value copied into another seller's row no longer opens. Row by row
 * (few rows: accounts), with the key configured when it runs; both formats are read (lib/secret).
 */
const tables: CredentialsPurpose[] = ['portal_account', 'payment_provider_account'];

async function rows(knex: Knex, table: CredentialsPurpose): Promise<{ id: number; credentials: string }[]> {
  return (await knex(table).select('id', 'credentials').whereNotNull('credentials')) as { id: number; credentials: string }[];
}

export async function up(knex: Knex): Promise<void> {
  for (const table of tables) {
    for (const row of await rows(knex, table)) {
      if (isBoundToRow(row.credentials)) continue;
      const sealed = sealCredentials(table, openCredentials(table, row.credentials), row.id);
      await knex(table).where({ id: row.id, credentials: row.credentials }).update({ credentials: sealed });
    }
  }
}

/** Back to kc1, which the code before this migration reads. */
export async function down(knex: Knex): Promise<void> {
  for (const table of tables) {
    for (const row of await rows(knex, table)) {
      if (!row.credentials.startsWith('kc2.')) continue;
      const sealed = sealCredentials(table, openCredentials(table, row.credentials, row.id));
      await knex(table).where({ id: row.id }).update({ credentials: sealed });
    }
  }
}
