import type { Caller } from '../../access';

/**
 * Who holds an Idempotency-Key: the seller account and, within it, the client that sent it. A key
 * is a client's own (the draft leaves the scope to the server; Stripe scopes keys per API key):
 * the seller's own tokens are one client (`seller`); an OAuth client is another, once per
 * portal-account grant, so a client bound to one portal account never gets the answer to a
 * request another client (or the same software with another grant) made with the same key.
 */
export interface KeyHolder {
  accountId: number;
  client: string;
}

export function keyHolderOf(caller: Pick<Caller, 'accountId' | 'oauthClientId' | 'portalAccountGrant'>): KeyHolder {
  const client = caller.oauthClientId === null ? 'seller' : `client:${caller.oauthClientId}:${caller.portalAccountGrant}`;
  return { accountId: caller.accountId, client };
}
