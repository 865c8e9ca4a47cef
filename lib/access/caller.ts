import type { Scope } from './scopes';

/** Who is calling: the account (tenant), the token's scopes and the request's portal account. */
export interface Caller {
  accountId: number;
  scopes: ReadonlySet<Scope>;
  oauthClientId: number | null;
  /** The portal account of this request: portal_account_id if sent, else the token's, else the default. */
  portalAccountId: number | null;
}
