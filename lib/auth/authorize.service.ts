import { getPortalAccount } from '../portal-account/portal-account.service';
import { clientRepository, OAuthClientRow } from './client.repository';
import { parseScope } from './scopes-request';
import { authenticateSeller, createAuthorizationCode } from './token.service';

export class AuthorizeError extends Error {}

export async function findClient(clientId: unknown): Promise<OAuthClientRow> {
  const client = typeof clientId === 'string' ? await clientRepository.findByClientId(clientId) : undefined;
  if (!client) throw new AuthorizeError('unknown client_id');
  return client;
}

/**
 * Document 1, Authentication 2.1: the seller logs in, chooses the rights and possibly the
 * portal account, and confirms; the client gets a one-time code at its redirect_uri.
 */
export async function authorizeClient(
  input: { client_id?: unknown; login?: unknown; password?: unknown; scope?: unknown; state?: unknown; portal_account_id?: unknown },
  address: string,
): Promise<string> {
  const client = await findClient(input.client_id);
  if (typeof input.login !== 'string' || typeof input.password !== 'string') throw new AuthorizeError('login and password are required');
  const accountId = await authenticateSeller(input.login, input.password, address);
  if (accountId === undefined) throw new AuthorizeError('login or password is wrong');
  let scope;
  try {
    scope = parseScope(typeof input.scope === 'string' ? input.scope : undefined);
  } catch {
    throw new AuthorizeError('unknown scope requested');
  }
  const portalAccount = input.portal_account_id
    ? await getPortalAccount(accountId, Number(input.portal_account_id)).catch(() => {
        throw new AuthorizeError('unknown portal account');
      })
    : undefined;
  const code = await createAuthorizationCode(client, { accountId, oauthClientId: client.id, portalAccountId: portalAccount?.id ?? null, scope });
  const target = new URL(client.redirect_uri);
  target.searchParams.set('code', code);
  if (typeof input.state === 'string') target.searchParams.set('state', input.state);
  return target.toString();
}
