/**
 * kontor credentials reseal: after a key rotation (CREDENTIALS_KEY with a new id, the old key in
 * CREDENTIALS_OLD_KEYS), every sealed value of portal accounts and payment provider accounts not
 * sealed with the current key is opened and sealed again with it, each row in its own short
 * update; afterwards the old key can be dropped from CREDENTIALS_OLD_KEYS. Idempotent.
 */
import { config } from '../../config';
import { db } from '../db/knex';
import { CredentialsPurpose, openCredentials, sealCredentials, sealedKeyId } from '../secret/credentials';

const tables: CredentialsPurpose[] = ['portal_account', 'payment_provider_account'];

export async function resealCredentials(): Promise<{ key_id: string; resealed: Record<string, number> }> {
  const current = config().credentialsKey.id;
  const resealed: Record<string, number> = {};
  for (const table of tables) {
    const rows = (await db()(table).select('id', 'credentials').whereNotNull('credentials').whereRaw("split_part(credentials, '.', 2) <> ?", [current])) as {
      id: number;
      credentials: string;
    }[];
    resealed[table] = 0;
    for (const row of rows) {
      if (sealedKeyId(row.credentials) === current) continue;
      const sealed = sealCredentials(table, openCredentials(table, row.credentials));
      // Only if nobody connected the account again meanwhile.
      resealed[table] += await db()(table).where({ id: row.id, credentials: row.credentials }).update({ credentials: sealed });
    }
  }
  return { key_id: current, resealed };
}
