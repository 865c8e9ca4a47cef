import type { Scope } from './scopes';

/**
 * An account's work, and the API request it is done for when one asked: the jobs the work queues
 * carry that request's id (lib/db `transaction`). The service's own work, a job's, leaves it out.
 */
export interface AccountWork {
  accountId: number;
  requestId?: string;
}

/**
 * The orders a caller may read and write (document 1, Authentication 5: only those of a portal
 * account the authorization covers, unless it permits cross-account requests). Every order query
 * of lib/order takes one, so no access path can forget it; jobs and the seller's own tokens act
 * on 'all'.
 */
export interface OrderScope extends AccountWork {
  /** The one portal account the authorization is bound to, or 'all'. */
  portalAccountGrant: number | 'all';
}

/** Every order of the account: the seller's own tokens and the service's jobs. */
export const allOrdersOf = (accountId: number): OrderScope => ({ accountId, portalAccountGrant: 'all' });

/**
 * Whether a caller's grant reaches a portal account: the one rule for every portal account id a
 * request names, in its body or its query (document 1, Authentication 5). A grant bound to one
 * portal account reaches that one only; 'all' (the seller's own tokens, cross-account clients,
 * jobs) reaches every portal account of the seller. Whether the id is the seller's at all is the
 * portal account's owner's to check (lib/portal-account).
 */
export const grantReaches = (scope: OrderScope, portalAccountId: number): boolean =>
  scope.portalAccountGrant === 'all' || scope.portalAccountGrant === portalAccountId;

/** The one portal account a scope is bound to, or null for all: how a record stored now keeps its caller's grant. */
export const grantOf = (scope: OrderScope): number | null => (scope.portalAccountGrant === 'all' ? null : scope.portalAccountGrant);

/** Who is calling: the account (tenant), the token's scopes and the request's portal account. */
export interface Caller extends OrderScope {
  scopes: ReadonlySet<Scope>;
  oauthClientId: number | null;
  /** The third-party client's own client_id, whose app[] entry of a stock item it owns (lib/stock); null or absent: the seller's own token. */
  clientId?: string | null;
  /** The client access (authorization) the token belongs to; null or absent: the seller's own token. What a client makes that outlives the request goes with it (lib/event handlers). */
  clientAccessId?: number | null;
  /** The portal account of this request: portal_account_id if sent, else the token's, else the default. */
  portalAccountId: number | null;
  /**
   * The request's key in this process (lib/db openRequest): its X-Request-Id (sent or made), with
   * a suffix while another request in flight here has that id; its transactions are opened with
   * it, and the jobs they queue carry the X-Request-Id.
   */
  requestId: string;
}
