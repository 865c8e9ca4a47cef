/**
 * kontor credentials reseal: after a key rotation (CREDENTIALS_KEY with a new id, the old key in
 * CREDENTIALS_OLD_KEYS), every sealed value of portal accounts and payment provider accounts not
 * sealed with the current key is opened and sealed again with it, each row in its own short
 * update; afterwards the old key can be dropped from CREDENTIALS_OLD_KEYS. Portal accounts'
 * values not yet bound to their row (kc1) are bound (kc2) on the way. Idempotent.
 */
import { config } from '../../config';
import { db } from '../db';
import { CredentialsError, CredentialsPurpose, isBoundToRow, openCredentials, sealCredentials, sealedKeyId } from '../secret';

const tables: CredentialsPurpose[] = ['portal_account', 'payment_provider_account'];
/** Tables whose readers open credentials with the row id: all of them. */
const boundTables = new Set<CredentialsPurpose>(tables);

export async function resealCredentials(): Promise<{ key_id: string; resealed: Record<string, number> }> {
  const key = config().credentialsKey;
  if (!key) throw new CredentialsError('CREDENTIALS_KEY is not set: nothing can be sealed again');
  const current = key.id;
  const resealed: Record<string, number> = {};
  for (const table of tables) {
    const bind = boundTables.has(table);
    const rows = (await db()(table)
      .select('id', 'credentials')
      .whereNotNull('credentials')
      .where((q) => {
        q.whereRaw("split_part(credentials, '.', 2) <> ?", [current]);
        if (bind) q.orWhereRaw("split_part(credentials, '.', 1) <> 'kc2'");
      })) as {
      id: number;
      credentials: string;
    }[];
    resealed[table] = 0;
    for (const row of rows) {
      if (sealedKeyId(row.credentials) === current && (!bind || isBoundToRow(row.credentials))) continue;
      const rowId = bind ? row.id : undefined;
      const sealed = sealCredentials(table, openCredentials(table, row.credentials, rowId), rowId);
      // Only if nobody connected the account again meanwhile.
      resealed[table] += await db()(table).where({ id: row.id, credentials: row.credentials }).update({ credentials: sealed });
    }
  }
  return { key_id: current, resealed };
}
