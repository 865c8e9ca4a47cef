/**
 * authorize.php (document 1, Authentication 2.1; RFC 6749 4.1, RFC 7636, RFC 9700): the seller
 * logs in and ticks the rights among those the client asked for, then picks the portal account
 * (or all of them), and confirms; the client gets a one-time code at its registered redirect_uri.
 */
import { config } from '../../config';
import type { Scope } from '../access';
import { isScope } from '../access';
import { portalAccountRepository, PortalAccountRow } from '../portal-account';
import { clientRepository, OAuthClientRow } from './client.repository';
import { dropConsent, loadConsent, saveConsent } from './consent.store';
import { parseScope } from './scopes-request';
import { secretHash } from './secret';
import { authenticateSeller, createAuthorizationCode } from './token.service';

/** A request that cannot be sent back to the client (unknown client, unregistered redirect_uri): an error page, no redirect. */
export class AuthorizePageError extends Error {}

/** A mistake of the seller on the form (wrong password, no portal account picked): the form again with the message. */
export class AuthorizeFormError extends Error {}

/** The authorization request's parameters, carried through the form as the client sent them. */
const requestFields = ['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'code_challenge', 'code_challenge_method'] as const;

export interface AuthorizationRequest {
  client: OAuthClientRow;
  redirectUri: string;
  redirectUriSent: boolean;
  state: string | undefined;
  /** The scopes the client asked for (all when it named none). */
  requested: Scope[];
  codeChallenge: string | null;
  /** The parameters as sent, for the form's hidden fields. */
  params: Record<string, string>;
}

/** What a form sent leads to: back to the client, or the next step. */
export type AuthorizeOutcome = { kind: 'redirect'; url: string } | { kind: 'choose'; consent: ConsentStep };

export interface ConsentStep {
  ticket: string;
  login: string;
  request: AuthorizationRequest;
  scope: Scope[];
  portalAccounts: PortalAccountRow[];
}

/** RFC 6749 4.1.2.1: an error answered at the client's redirect_uri, with state. */
class RedirectError extends Error {
  constructor(
    readonly error: 'invalid_request' | 'unsupported_response_type' | 'invalid_scope' | 'access_denied',
    description: string,
  ) {
    super(description);
  }
}

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/**
 * The issuer identifier (RFC 9207 2): the service's public URL. Kontor publishes no metadata
 * document (RFC 8414), so there is nothing to advertise `authorization_response_iss_parameter_supported`
 * in; a client compares `iss` with the URL it sent the seller to.
 */
export const issuer = (): string => config().publicUrl.replace(/\/+$/, '');

/**
 * The client's redirect_uri with these parameters, state and iss added: every authorization
 * response, success or error, names its issuer (RFC 9207 2), against mix-up attacks.
 */
function redirectUrl(request: AuthorizationRequest, params: Record<string, string>): string {
  const target = new URL(request.redirectUri);
  for (const [name, value] of Object.entries(params)) target.searchParams.set(name, value);
  if (request.state !== undefined) target.searchParams.set('state', request.state);
  target.searchParams.set('iss', issuer());
  return target.toString();
}

/** C0 controls and DEL: never in a parameter of the request (a NUL would reach PostgreSQL as a 500). */
function hasControlCharacter(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

const errorRedirect = (request: AuthorizationRequest, err: RedirectError): AuthorizeOutcome => ({
  kind: 'redirect',
  url: redirectUrl(request, { error: err.error, error_description: err.message }),
});

/** RFC 7636 4.3: S256 only; a challenge without method means plain, which is refused (4.4.1 invalid_request). */
function codeChallengeOf(params: Record<string, string>): string | null {
  const challenge = params.code_challenge;
  const method = params.code_challenge_method;
  if (challenge === undefined) {
    if (method !== undefined) throw new RedirectError('invalid_request', 'code_challenge_method without code_challenge');
    return null;
  }
  if (method !== 'S256') throw new RedirectError('invalid_request', 'code_challenge_method must be S256 (plain is not accepted)');
  if (!/^[A-Za-z0-9_-]{43}$/.test(challenge))
    throw new RedirectError('invalid_request', 'code_challenge must be BASE64URL(SHA256(code_verifier)), 43 characters');
  return challenge;
}

/**
 * Reads an authorization request (the page's query, or the form's hidden fields). Until client_id
 * and redirect_uri are known good, errors are pages; after that, errors go back to the client.
 */
export async function readAuthorizationRequest(input: Record<string, unknown>): Promise<{ request: AuthorizationRequest; error?: AuthorizeOutcome }> {
  const clientId = text(input.client_id);
  if (clientId !== undefined && (clientId.length > 200 || hasControlCharacter(clientId))) throw new AuthorizePageError("The request's client_id is not valid.");
  const client = clientId ? await clientRepository.findByClientId(clientId) : undefined;
  if (!client) throw new AuthorizePageError('The application is not known to Kontor (unknown client_id).');
  // RFC 9700 2.1: redirect URIs are compared as exact strings, never by prefix or pattern.
  if (input.redirect_uri !== undefined && input.redirect_uri !== client.redirect_uri)
    throw new AuthorizePageError('The address this request wants to send you back to is not registered for this application (redirect_uri).');
  const params: Record<string, string> = {};
  for (const name of requestFields) {
    const value = input[name];
    if (value === undefined || value === '') continue;
    if (typeof value !== 'string' || value.length > 2000 || hasControlCharacter(value)) throw new AuthorizePageError(`The request's ${name} is not valid.`);
    params[name] = value;
  }
  const request: AuthorizationRequest = {
    client,
    redirectUri: client.redirect_uri,
    redirectUriSent: params.redirect_uri !== undefined,
    state: params.state,
    requested: [],
    codeChallenge: null,
    params,
  };
  try {
    // RFC 6749 4.1.2.1: a missing parameter is invalid_request; another response type unsupported_response_type.
    if (params.response_type === undefined) throw new RedirectError('invalid_request', 'response_type is required (code)');
    if (params.response_type !== 'code') throw new RedirectError('unsupported_response_type', 'response_type must be code');
    try {
      request.requested = parseScope(params.scope);
    } catch {
      throw new RedirectError('invalid_scope', 'the scope names an unknown scope (see GET system/scope/)');
    }
    request.codeChallenge = codeChallengeOf(params);
  } catch (err) {
    if (err instanceof RedirectError) return { request, error: errorRedirect(request, err) };
    throw err;
  }
  return { request };
}

/** The boxes the seller ticked, among those the client asked for (anything else is ignored). */
export function tickedScopes(request: AuthorizationRequest, ticked: unknown): Scope[] {
  const names = new Set(Array.isArray(ticked) ? ticked : ticked === undefined ? [] : [ticked]);
  return request.requested.filter((s) => names.has(s) && isScope(s));
}

export const denied = (request: AuthorizationRequest): AuthorizeOutcome =>
  errorRedirect(request, new RedirectError('access_denied', 'the seller did not grant access'));

/**
 * Step 1 sent: Deny, or nothing ticked, goes back to the client with access_denied; otherwise the
 * login is checked (under the login throttle) and the seller picks the portal account next.
 */
export async function signIn(
  request: AuthorizationRequest,
  form: { login?: unknown; password?: unknown; scope: Scope[]; deny: boolean },
  address: string,
  csrf: string,
): Promise<AuthorizeOutcome> {
  if (form.deny || form.scope.length === 0) return denied(request);
  const login = text(form.login)?.trim();
  const password = text(form.password);
  if (!login || !password) throw new AuthorizeFormError('Enter your login and password.');
  const signedIn = await authenticateSeller(login, password, address, 'authorize.php');
  if (signedIn === undefined) throw new AuthorizeFormError('The login or password is wrong.');
  const { accountId, stamp } = signedIn;
  const ticket = await saveConsent({ accountId, login, request: request.params, scope: form.scope, csrfHash: secretHash(csrf), loginStamp: stamp });
  return { kind: 'choose', consent: { ticket, login, request, scope: form.scope, portalAccounts: await portalAccountRepository.list(accountId) } };
}

/** The step-2 page of a ticket again (after a mistake), or a page error when it expired. */
export async function consentStep(ticket: string, csrf: string): Promise<ConsentStep> {
  const consent = await loadConsent(ticket, csrf);
  if (!consent) throw new AuthorizePageError('This sign-in has expired. Go back to the application and start again.');
  const { request } = await readAuthorizationRequest(consent.request);
  return { ticket, login: consent.login, request, scope: consent.scope, portalAccounts: await portalAccountRepository.list(consent.accountId) };
}

/**
 * Step 2 sent: Deny goes back with access_denied; Allow records the grant (the portal account
 * picked, or all of them: 'all') in a one-time code for the client.
 */
export async function confirm(ticket: string, csrf: string, choice: { portalAccount: unknown; deny: boolean }): Promise<AuthorizeOutcome> {
  const consent = await loadConsent(ticket, csrf);
  if (!consent) throw new AuthorizePageError('This sign-in has expired. Go back to the application and start again.');
  const { request } = await readAuthorizationRequest(consent.request);
  if (choice.deny) {
    await dropConsent(ticket);
    return denied(request);
  }
  let portalAccountId: number | null = null;
  if (choice.portalAccount !== 'all') {
    const id = Number(choice.portalAccount);
    const row = Number.isSafeInteger(id) && id > 0 ? await portalAccountRepository.get(consent.accountId, id) : undefined;
    if (!row) throw new AuthorizeFormError('Choose one of your portal accounts, or all of them.');
    portalAccountId = row.id;
  }
  await dropConsent(ticket);
  const code = await createAuthorizationCode(
    { accountId: consent.accountId, oauthClientId: request.client.id, portalAccountId, scope: consent.scope },
    { redirectUri: request.redirectUri, redirectUriSent: request.redirectUriSent, codeChallenge: request.codeChallenge },
    consent.loginStamp,
  );
  // Support disabled the login, or set a new password, after this sign-in: it no longer counts.
  if (code === undefined) throw new AuthorizePageError('This sign-in is no longer valid. Go back to the application and start again.');
  return { kind: 'redirect', url: redirectUrl(request, { code }) };
}
