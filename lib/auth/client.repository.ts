import type { Knex } from 'knex';
import { db } from '../db';

/**
 * A disabled client's secret_hash (`kontor client disable`): no secret hashes to it (a SHA-256 hex
 * digest), and findByClientId does not find it. Enabling it again gives it a new secret.
 */
const disabledMark = 'disabled:';
export const clientDisabledHash = (at: Date): string => `${disabledMark}${at.toISOString()}`;

export interface OAuthClientRow {
  id: number;
  client_id: string;
  secret_hash: string;
  name: string;
  redirect_uri: string;
}

/** Third-party software registered by support (document 1, Authentication 2). */
export const clientRepository = {
  async insert(fields: Omit<OAuthClientRow, 'id'>): Promise<number> {
    const [row] = await db()('oauth_client').insert(fields).returning('id');
    return (row as { id: number }).id;
  },

  /** An enabled client: a disabled one (its secret hash the disabled mark) is unknown to token.php and authorize.php. */
  async findByClientId(clientId: string): Promise<OAuthClientRow | undefined> {
    return db()('oauth_client').where({ client_id: clientId }).whereNot('secret_hash', 'like', `${disabledMark}%`).first();
  },

  /** Any client by its client_id, disabled or not (the operator's commands). */
  async findAnyByClientId(trx: Knex, clientId: string): Promise<OAuthClientRow | undefined> {
    return trx('oauth_client').where({ client_id: clientId }).forUpdate().first();
  },

  /**
   * Whether the client is enabled, and with `secretHash` still has that secret; its row share-locked
   * until the caller's transaction ends, as token.service's holdLogin does for a login: `client
   * disable` and `client enable` update the row before they revoke, so either they wait for the
   * token written here and revoke it, or this read waits for them and refuses.
   */
  async hold(trx: Knex, id: number, secretHash?: string): Promise<boolean> {
    const row = (await trx('oauth_client').where({ id }).forShare().first('secret_hash')) as { secret_hash: string } | undefined;
    return row !== undefined && !row.secret_hash.startsWith(disabledMark) && (secretHash === undefined || row.secret_hash === secretHash);
  },

  /** A new secret hash, or the disabled mark (clientDisabledHash). */
  async setSecretHash(trx: Knex, id: number, secretHash: string): Promise<void> {
    await trx('oauth_client').where({ id }).update({ secret_hash: secretHash });
  },
};
