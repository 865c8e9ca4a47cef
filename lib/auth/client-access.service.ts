import { db } from '../db';
import { notFound } from '../errors';
import { ClientAccessRow, clientAccessRepository } from './client-access.repository';
import { forgetCachedTokens } from './token.service';
import { tokenRepository } from './token.repository';

/**
 * Admin_client_access_type (ours; document 1, Authentication 5: "the user can edit or restrict
 * active client accesses (refresh tokens)"): one authorization of a client, its rights and the
 * portal account it is bound to (null and is_cross_account: all of them).
 */
export function clientAccessToApi(row: ClientAccessRow) {
  return {
    id: row.id,
    client: { id: row.client_id, name: row.client_name },
    scope: row.scope,
    portal_account_id: row.portal_account_id,
    portal_account_name: row.portal_account_name,
    is_cross_account: row.portal_account_id === null,
    created: row.created_at.toISOString(),
    refreshed: row.refreshed_at ? row.refreshed_at.toISOString() : null,
    expires: row.expires_at.toISOString(),
  };
}

/** Who asks: a seller's own token sees every access of the account, a client's token only its own. */
export interface AccessViewer {
  accountId: number;
  oauthClientId: number | null;
}

export async function listClientAccesses(viewer: AccessViewer): Promise<ReturnType<typeof clientAccessToApi>[]> {
  return (await clientAccessRepository.list(viewer.accountId, viewer.oauthClientId)).map(clientAccessToApi);
}

/**
 * Revokes an access: its refresh and access tokens are deleted in one transaction and leave every
 * process's token cache at once. 404 when it is not one the viewer sees.
 */
export async function revokeClientAccess(viewer: AccessViewer, id: number): Promise<void> {
  const revoked = await db().transaction(async (trx) => {
    const chainId = await clientAccessRepository.chainForUpdate(trx, viewer.accountId, viewer.oauthClientId, id);
    if (!chainId) throw notFound(`client access ${id}`, 'client_access_id');
    return tokenRepository.deleteChain(trx, chainId);
  });
  forgetCachedTokens(revoked);
}
