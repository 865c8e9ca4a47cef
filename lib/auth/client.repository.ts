import { db } from '../db';

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

  async findByClientId(clientId: string): Promise<OAuthClientRow | undefined> {
    return db()('oauth_client').where({ client_id: clientId }).first();
  },
};
