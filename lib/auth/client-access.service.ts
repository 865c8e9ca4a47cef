import { allOrdersOf, Scope } from '../access';
import { inTransaction } from '../db';
import { invalidField, notFound } from '../errors';
import { checkMentionedPortalAccounts } from '../portal-account';
import type { Knex } from 'knex';
import { clientAccessNarrowed } from './client-access-going';
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
  /** The request's id: its transactions are opened with it (a lost COMMIT can be asked after: lib/db transaction). */
  requestId?: string;
}

export async function listClientAccesses(viewer: AccessViewer): Promise<ReturnType<typeof clientAccessToApi>[]> {
  return (await clientAccessRepository.list(viewer.accountId, viewer.oauthClientId)).map(clientAccessToApi);
}

/**
 * Revokes an access: its refresh and access tokens are deleted in one transaction and leave every
 * process's token cache at once. 404 when it is not one the viewer sees. Run again on a deadlock:
 * the client's stock cia handlers leave the items with it (client-access-going.ts), whose locks
 * can meet a stock write's.
 */
export async function revokeClientAccess(viewer: AccessViewer, id: number): Promise<void> {
  const revoked = await inTransaction(async (trx) => {
    const access = await clientAccessRepository.lockedAccess(trx, viewer.accountId, viewer.oauthClientId, id);
    if (!access) throw notFound(`client access ${id}`, 'client_access_id');
    return tokenRepository.deleteChain(trx, access.chainId);
  }, viewer.requestId);
  forgetCachedTokens(revoked);
}

/** What the seller may change of an access: fewer rights, and a cross-account access bound to one portal account. */
export interface ClientAccessRestriction {
  scope?: Scope[];
  portal_account_id?: number;
}

/**
 * Restricts an access (document 1, Authentication 5: the user can "restrict active client
 * accesses"): its client access, refresh and access tokens take the narrower rights and the
 * portal account at once, in one transaction, and so do the event handlers its client made
 * (client-access-going.ts: lib/event removes those whose action needs a right no longer held and
 * binds the rest to the portal account); the access tokens leave every process's cache. Run again
 * on a deadlock: a removed stock cia handler leaves the items, whose locks can meet a stock write's.
 * Widening is the client's to ask, through authorize.php and the seller's consent, never here.
 */
export async function restrictClientAccess(viewer: AccessViewer, id: number, restriction: ClientAccessRestriction): Promise<void> {
  const narrowed = await inTransaction(async (trx) => {
    const access = await clientAccessRepository.lockedAccess(trx, viewer.accountId, viewer.oauthClientId, id);
    if (!access) throw notFound(`client access ${id}`, 'client_access_id');
    const scope = narrowedScope(access.scope, restriction.scope);
    const portalAccountId = await boundPortalAccount(viewer.accountId, access.portalAccountId, restriction.portal_account_id);
    await clientAccessRepository.restrict(trx, access.chainId, scope, portalAccountId);
    await clientAccessNarrowed(trx, { clientAccessId: id, accountId: viewer.accountId, scope, portalAccountId });
    return tokenRepository.restrictChain(trx, access.chainId, scope, portalAccountId);
  }, viewer.requestId);
  forgetCachedTokens(narrowed);
}

/**
 * What a client access holds as it stands, share-locked until the transaction ends (a restriction
 * or revocation waits for it, then finds what was written under it), or undefined when it is gone.
 * For lib/event: a handler is written with the rights its client holds at that moment, not those
 * its access token was read with at the request's start.
 */
export async function clientAccessRights(
  trx: Knex.Transaction,
  clientAccessId: number,
): Promise<{ scope: Scope[]; portalAccountId: number | null } | undefined> {
  return clientAccessRepository.sharedRights(trx, clientAccessId);
}

/** The granted rights that remain, in the order granted; a right not granted is a 400. */
function narrowedScope(granted: Scope[], asked: Scope[] | undefined): Scope[] {
  if (asked === undefined) return granted;
  const wider = asked.filter((s) => !granted.includes(s));
  if (wider.length) throw invalidField('client_access.scope', `client_access.scope can only be narrowed: ${wider.join(', ')} was not granted to this client`);
  return granted.filter((s) => asked.includes(s));
}

/** A cross-account access may be bound to one of the seller's portal accounts; a bound one stays where it is. */
async function boundPortalAccount(accountId: number, bound: number | null, asked: number | undefined): Promise<number | null> {
  if (asked === undefined || asked === bound) return bound;
  if (bound !== null) {
    throw invalidField(
      'client_access.portal_account_id',
      `the access is bound to portal account ${bound}; only a cross-account access can be bound to another`,
    );
  }
  // Binding only narrows (a cross-account access to one portal account), so any of the seller's may be named.
  await checkMentionedPortalAccounts(allOrdersOf(accountId), [{ id: asked, field: 'client_access.portal_account_id' }]);
  return asked;
}
