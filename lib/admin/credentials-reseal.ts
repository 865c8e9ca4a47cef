/**
 * kontor credentials reseal: after a key rotation (CREDENTIALS_KEY with a new id, the old key in
 * CREDENTIALS_OLD_KEYS), every sealed value of portal accounts, payment provider accounts and
 * webhook signing secrets (event_handler) not
 * sealed with the current key is opened and sealed again with it, each row in its own short
 * update; afterwards the old key can be dropped from CREDENTIALS_OLD_KEYS. Values not yet bound
 * to their row (kc1) are bound (kc2) on the way. Idempotent.
 *
 * The rule is here, the tables are not: each table's owner (scripts/check-tables.ts) gives its
 * rows and its guarded write as a SealedCredentialsTable, and bin/credentials-reseal.ts composes
 * the command from both. It is composed there, not here, because lib/bank (payment provider
 * accounts) sits above lib/admin in the layering (scripts/check-cycles.ts): admin cannot import
 * it, and a contract provided at startup would be one more thing each process must remember to
 * call for a command only the CLI runs.
 */
import { config } from '../../config';
import { CredentialsError, CredentialsPurpose, isBoundToRow, openCredentials, sealCredentials, sealedKeyId } from '../secret';

/** What the owner of a table of sealed credentials gives the reseal (a function of its repository each). */
export interface SealedCredentialsTable {
  /** The rows sealed with another key than `keyId`, or not bound to their row (kc1); none without credentials. */
  toReseal(keyId: string): Promise<{ id: number; credentials: string }[]>;
  /** Writes `sealed` only if the row still holds `read` (nobody connected the account again meanwhile); 1 if written, else 0. */
  replaceSealed(id: number, read: string, sealed: string | null): Promise<number>;
  /** A value its table still holds unsealed (event_handler's secrets in clear), as opened; undefined for a sealed one. */
  openLegacy?(stored: string): Record<string, unknown> | undefined;
}

/** The tables of sealed credentials, in the order they are resealed (and reported). */
const purposes: CredentialsPurpose[] = ['portal_account', 'payment_provider_account', 'event_handler'];

/**
 * Seals again every value of the tables given; answers the current key's id and
 * how many rows of each table were sealed again. Every table's values are bound to their row.
 */
export async function resealTables(tables: Record<CredentialsPurpose, SealedCredentialsTable>): Promise<{ key_id: string; resealed: Record<string, number> }> {
  const key = config().credentialsKey;
  if (!key) throw new CredentialsError('CREDENTIALS_KEY is not set: nothing can be sealed again');
  const current = key.id;
  const resealed: Record<string, number> = {};
  for (const purpose of purposes) {
    const table = tables[purpose];
    const rows = await table.toReseal(current);
    resealed[purpose] = 0;
    for (const row of rows) {
      if (sealedKeyId(row.credentials) === current && isBoundToRow(row.credentials)) continue;
      const opened = table.openLegacy?.(row.credentials) ?? openCredentials(purpose, row.credentials, row.id);
      const sealed = sealCredentials(purpose, opened, row.id);
      resealed[purpose] += await table.replaceSealed(row.id, row.credentials, sealed);
    }
  }
  return { key_id: current, resealed };
}
