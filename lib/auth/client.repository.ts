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

  /** A new secret hash, or the disabled mark (clientDisabledHash). */
  async setSecretHash(trx: Knex, id: number, secretHash: string): Promise<void> {
    await trx('oauth_client').where({ id }).update({ secret_hash: secretHash });
  },
};
