import type { Knex } from 'knex';
import { db } from '../db';
import { portalAccountRefRepository } from '../portal-account';
import type { Scope } from '../access';
import type { Grant } from './token.repository';

/** A client access as the seller sees it: the authorization and its current refresh token's expiry. */
export interface ClientAccessRow {
  id: number;
  client_id: string;
  client_name: string;
  portal_account_id: number | null;
  portal_account_name: string | null;
  scope: string[];
  created_at: Date;
  refreshed_at: Date | null;
  expires_at: Date;
}

/**
 * Client accesses (document 1, Authentication 5): one per refresh-token chain, made when a code is
 * exchanged, gone when revoked or replayed (tokenRepository.deleteChain). Scoped by account.
 */
export const clientAccessRepository = {
  async insert(trx: Knex, chainId: string, grant: Grant & { oauthClientId: number }): Promise<void> {
    await trx('client_access').insert({
      chain_id: chainId,
      account_id: grant.accountId,
      oauth_client_id: grant.oauthClientId,
      portal_account_id: grant.portalAccountId,
      scope: grant.scope,
    });
  },

  async refreshed(trx: Knex, chainId: string): Promise<void> {
    await trx('client_access').where({ chain_id: chainId }).update({ refreshed_at: trx.fn.now() });
  },

  /** The account's live accesses (a refresh token not replaced and not expired), of one client when given. */
  async list(accountId: number, oauthClientId: number | null, id?: number): Promise<ClientAccessRow[]> {
    const query = db()('client_access as a')
      .join('oauth_client as c', 'c.id', 'a.oauth_client_id')
      // The names are lib/portal-account's: its subquery of the account's portal accounts.
      .leftJoin(portalAccountRefRepository.namesQuery(db(), accountId).as('p'), 'p.id', 'a.portal_account_id')
      .join('refresh_token as r', (j) => j.on('r.chain_id', 'a.chain_id').andOnNull('r.replaced_at'))
      .where('a.account_id', accountId)
      .andWhere('r.expires_at', '>', db().fn.now())
      .select(
        'a.id',
        'c.client_id',
        'c.name as client_name',
        'a.portal_account_id',
        'p.name as portal_account_name',
        'a.scope',
        'a.created_at',
        'a.refreshed_at',
        'r.expires_at',
      )
      .orderBy('a.id');
    if (oauthClientId !== null) query.where('a.oauth_client_id', oauthClientId);
    if (id !== undefined) query.where('a.id', id);
    return query;
  },

  /** The account's access, locked, or undefined (absent, foreign, another client's). */
  async lockedAccess(trx: Knex, accountId: number, oauthClientId: number | null, id: number): Promise<LockedAccess | undefined> {
    const query = trx('client_access').where({ account_id: accountId, id }).forUpdate().first('chain_id', 'scope', 'portal_account_id');
    if (oauthClientId !== null) query.where({ oauth_client_id: oauthClientId });
    const row = (await query) as { chain_id: string; scope: Scope[]; portal_account_id: number | null } | undefined;
    return row && { chainId: row.chain_id, scope: row.scope, portalAccountId: row.portal_account_id };
  },

  /** An access's rights by its id, share-locked (the restriction's and deletion's FOR UPDATE wait for the transaction), or undefined when it is gone. */
  async sharedRights(trx: Knex, id: number): Promise<{ scope: Scope[]; portalAccountId: number | null } | undefined> {
    const row = (await trx('client_access').where({ id }).forShare().first('scope', 'portal_account_id')) as
      { scope: Scope[]; portal_account_id: number | null } | undefined;
    return row && { scope: row.scope, portalAccountId: row.portal_account_id };
  },

  async restrict(trx: Knex, chainId: string, scope: Scope[], portalAccountId: number | null): Promise<void> {
    await trx('client_access').where({ chain_id: chainId }).update({ scope, portal_account_id: portalAccountId });
  },
};

export interface LockedAccess {
  chainId: string;
  scope: Scope[];
  portalAccountId: number | null;
}
