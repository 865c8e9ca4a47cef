import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { config } from '../../config';
import { inTransaction, listening, onChange, db } from '../db';
import { DomainError, invalidInput } from '../errors';
import { log } from '../log';
import { accountRepository, decoyHash, isDisabledPasswordHash, verifyPassword } from '../account';
import type { Scope } from '../access';
import type { CredentialReading } from './client-credentials';
import { clientRepository, OAuthClientRow } from './client.repository';
import { GrantFailure, throttledClientGrant } from './client-throttle';
import { throttledLogin } from './login-throttle';
import { oauthError, parseScope } from './scopes-request';
import { newSecret, secretHash } from './secret';
import { clientAccessRepository } from './client-access.repository';
import { CodeBinding, Grant, tokenRepository } from './token.repository';

/** The token.php answer: document 1's fields plus RFC 6749's token_type and expires_in. */
export interface TokenAnswer {
  access_token: string;
  token_type: 'Bearer';
  expires: number;
  expires_in: number;
  scope: string;
  refresh_token?: string;
}

/**
 * An access token, and with a chain id a refresh token of that chain (both revoked with it).
 * accessScope: the access token's scope when the request narrowed it (RFC 6749 6: a new refresh
 * token keeps the scope of the one presented). keptRefreshToken: the refresh token presented, when
 * it is not replaced (document 1, v1.1.10): answered again, none issued.
 */
async function issue(
  grant: Grant,
  chainId: string | null,
  trx?: Knex,
  options: { accessScope?: Scope[]; keptRefreshToken?: string } = {},
): Promise<TokenAnswer> {
  const { accessTokenTtlSeconds, refreshTokenTtlSeconds } = config();
  const accessGrant = { ...grant, scope: options.accessScope ?? grant.scope };
  const accessToken = newSecret('kat', grant.accountId);
  const newRefreshToken = chainId && options.keptRefreshToken === undefined ? newSecret('krt', grant.accountId) : undefined;
  const write = async (t: Knex) => {
    await tokenRepository.insertAccessToken(secretHash(accessToken), accessGrant, accessTokenTtlSeconds, t, chainId);
    if (newRefreshToken && chainId) await tokenRepository.insertRefreshToken(t, secretHash(newRefreshToken), grant, refreshTokenTtlSeconds, chainId);
  };
  await (trx ? write(trx) : db().transaction(write));
  const refreshToken = newRefreshToken ?? options.keptRefreshToken;
  return {
    access_token: accessToken,
    token_type: 'Bearer',
    expires: accessTokenTtlSeconds,
    expires_in: accessTokenTtlSeconds,
    scope: accessGrant.scope.join(' '),
    ...(refreshToken ? { refresh_token: refreshToken } : {}),
  };
}

/**
 * Checks a seller's login and password from a client address, under the login throttle; the same
 * answer and similar time for either mistake. A failure is logged (`via`: where the login was
 * tried) with the login and address, never the password. Several readings of one request's
 * credentials (client-credentials.ts: Basic as sent and form-decoded) are one attempt, counted
 * under every login they name before any password is checked: a percent-encoded spelling of a
 * login is no fresh count for guessing its password (lib/auth README "Login throttle").
 */
export async function authenticateSeller(
  login: string,
  password: string,
  address: string,
  via: 'token.php' | 'authorize.php',
  alternatives: CredentialReading[] = [],
): Promise<SignedIn | undefined> {
  const readings = [{ id: login, secret: password }, ...alternatives];
  // The accounts are looked up first: the throttle counts under the lookup's fold of each login
  // (one per account), and the password is checked against the accounts it counted for.
  const found = await accountRepository.findByLogins(readings.map((r) => r.id));
  return throttledLogin(
    readings.map((r, i) => ({ login: r.id, folded: found[i]!.folded, accountId: found[i]!.account?.id })),
    address,
    async () => {
      for (const [i, reading] of readings.entries()) {
        const account = found[i]!.account;
        // A disabled login (kontor user disable) is checked against the decoy: refused as a wrong password, in the same time.
        // A password changed since the lookup is caught where the token is written (holdLogin's stamp).
        const usable = account && !isDisabledPasswordHash(account.password_hash) ? account.password_hash : undefined;
        const ok = await verifyPassword(reading.secret, usable ?? (await decoyHash()));
        if (ok && usable && account) return { signedIn: { accountId: account.id, stamp: secretHash(usable) }, accountId: account.id };
      }
      return undefined;
    },
    via,
  );
}

/**
 * A login whose password was just checked: its account, and a stamp of the password hash it was
 * checked against (its SHA-256: the consent ticket carries it in Redis, never the hash itself).
 */
export interface SignedIn {
  accountId: number;
  stamp: string;
}

/**
 * Holds the login as it stands until the transaction ends, and answers whether a token or code may
 * be written for it: not when it is disabled, nor, given the stamp of a password check, when its
 * password changed since. A check and its write are apart in time (hashing a password takes a
 * moment, authorize.php's consent the seller's), and `kontor user disable` or `user password` in
 * between would otherwise miss the token written after it revoked the rest. With the row share
 * locked, they either wait and then revoke it, or this read waits for them and refuses.
 * Taken first in its transaction, before any token row, as disable takes the login before them.
 */
async function holdLogin(trx: Knex, accountId: number, stamp?: string): Promise<boolean> {
  const current = await accountRepository.lockPasswordHash(trx, accountId);
  return current !== undefined && !isDisabledPasswordHash(current) && (stamp === undefined || secretHash(current) === stamp);
}

/**
 * Document 1, Authentication 1: a seller's own login with grant_type=client_credentials;
 * alternatives: other readings of the same credentials (client-credentials.ts).
 */
export async function grantClientCredentials(
  login: string,
  password: string,
  scope: string | undefined,
  address: string,
  alternatives: CredentialReading[] = [],
): Promise<TokenAnswer> {
  const signedIn = await authenticateSeller(login, password, address, 'token.php', alternatives);
  if (signedIn === undefined) {
    // RFC 6749 5.2: a client that authenticated but may not use this grant is unauthorized_client.
    if (await clientOf([{ id: login, secret: password }, ...alternatives]))
      throw oauthError(
        'unauthorized_client',
        'grant_type=client_credentials is a seller login; a client uses authorization_code and refresh_token',
        'grant_type',
      );
    throw oauthError('invalid_client', 'login or password is wrong');
  }
  const grant = { accountId: signedIn.accountId, oauthClientId: null, portalAccountId: null, scope: parseScope(scope) };
  return db().transaction(async (trx) => {
    // Disabled or given a new password while the password was being checked: as a wrong password.
    if (!(await holdLogin(trx, signedIn.accountId, signedIn.stamp))) throw oauthError('invalid_client', 'login or password is wrong');
    return issue(grant, null, trx);
  });
}

/** The client whose secret one of the readings carries (client-credentials.ts), compared in constant time. */
async function clientOf(readings: CredentialReading[]): Promise<OAuthClientRow | undefined> {
  for (const { id, secret } of readings.length ? readings : [{ id: '', secret: '' }]) {
    const client = id ? await clientRepository.findByClientId(id) : undefined;
    const given = Buffer.from(secretHash(secret));
    const expected = Buffer.from(client?.secret_hash ?? secretHash(crypto.randomBytes(8).toString('hex')));
    if (client && crypto.timingSafeEqual(given, expected)) return client;
  }
  return undefined;
}

/** The client's secret was wrong, or it was disabled or given a new secret while the request ran. */
const clientRefused = () => oauthError('invalid_client', 'client_id or client_secret is wrong');

/** The client the request's credentials authenticate; invalid_client (logged) otherwise. */
async function authenticateClient(credentials: CredentialReading[] | undefined): Promise<OAuthClientRow> {
  const client = await clientOf(credentials ?? []);
  if (client) return client;
  const clientId = credentials?.[0]?.id ?? null;
  const known = clientId ? Boolean(await clientRepository.findByClientId(clientId)) : false;
  // The client_id as sent is not a secret; the secret never goes to the log.
  log.warn({ login_failed: 'token.php', client_id: clientId, known_client: known }, 'client authentication failed');
  throw clientRefused();
}

/**
 * RFC 7636 4.6: the verifier of a code issued with a challenge must hash to it (S256, the only
 * method accepted); a verifier for a code issued without one is refused too (RFC 9700 2.1.1: a
 * PKCE downgrade).
 */
function checkVerifier(challenge: string | null, verifier: string | undefined): void {
  if (challenge === null) {
    if (verifier !== undefined)
      throw oauthError('invalid_grant', 'code_verifier was sent, but the authorization request had no code_challenge', 'code_verifier');
    return;
  }
  if (verifier === undefined) throw oauthError('invalid_grant', 'code_verifier is required: the authorization request had a code_challenge', 'code_verifier');
  const hashed = Buffer.from(crypto.createHash('sha256').update(verifier, 'ascii').digest('base64url'));
  const expected = Buffer.from(challenge);
  if (hashed.length !== expected.length || !crypto.timingSafeEqual(hashed, expected))
    throw oauthError('invalid_grant', 'code_verifier does not match the code_challenge', 'code_verifier');
}

/** The failures a client grant may end in; the client throttle counts the wrong secret only (client-throttle.ts). */
const grantFailure = (err: unknown): GrantFailure | undefined =>
  err instanceof DomainError && (err.id === 'invalid_client' || err.id === 'invalid_grant') ? err.id : undefined;

/**
 * Document 1, Authentication 2.2: a client exchanges the authorization code for a refresh token;
 * under the client throttle (client-throttle.ts), by the client_id as sent and the client address.
 */
export function grantAuthorizationCode(
  credentials: CredentialReading[] | undefined,
  request: { code?: string; redirectUri?: string; codeVerifier?: string },
  address: string,
): Promise<TokenAnswer> {
  return throttledClientGrant(credentials?.[0]?.id ?? '', address, () => exchangeCode(credentials, request), grantFailure);
}

async function exchangeCode(
  credentials: CredentialReading[] | undefined,
  request: { code?: string; redirectUri?: string; codeVerifier?: string },
): Promise<TokenAnswer> {
  const client = await authenticateClient(credentials);
  const { code, redirectUri, codeVerifier } = request;
  if (!code) throw invalidInput('invalid_request', 'code is required', 'code');
  const hash = secretHash(code);
  // Again after a deadlock: a replay's revocation takes the client's stock cia handlers out of the items (client-access-going.ts).
  const outcome = await inTransaction(async (trx) => {
    const accountId = await tokenRepository.accountOf(trx, 'authorization_code', hash);
    if (accountId === undefined || !(await holdLogin(trx, accountId))) return { kind: 'unknown' as const };
    if (!(await clientRepository.hold(trx, client.id, client.secret_hash))) throw clientRefused();
    const consumed = await tokenRepository.consumeAuthorizationCode(trx, hash, client.id);
    // A replay's revocation commits with this transaction: it must not throw before.
    if (consumed.kind !== 'valid') return consumed;
    const { redirectUri: boundUri, redirectUriSent, codeChallenge, ...granted } = consumed.grant;
    if (redirectUri !== undefined ? redirectUri !== boundUri : redirectUriSent)
      throw oauthError('invalid_grant', 'redirect_uri must be the one of the authorization request', 'redirect_uri');
    checkVerifier(codeChallenge, codeVerifier);
    // The code starts a chain, the client access the seller sees: every refresh token that follows, and their access tokens, belong to it.
    const chainId = crypto.randomUUID();
    await clientAccessRepository.insert(trx, chainId, { ...granted, oauthClientId: client.id });
    await tokenRepository.codeIssued(trx, hash, chainId);
    return { kind: 'issued' as const, answer: await issue(granted, chainId, trx) };
  });
  if (outcome.kind === 'issued') return outcome.answer;
  if (outcome.kind === 'unknown') throw oauthError('invalid_grant', 'the authorization code is unknown, used or expired', 'code');
  forgetCachedTokens(outcome.revokedAccessTokens);
  log.warn({ oauth_client_id: client.id }, 'authorization code presented again: the tokens issued for it are revoked');
  throw oauthError(
    'invalid_grant',
    'the authorization code was already used; as it may have leaked, the tokens issued for it are revoked: authorize the client again',
    'code',
  );
}

/**
 * Document 1, Authentication 2.3: a refresh token buys a new access token. It is replaced by a new
 * refresh token only from one month before it expires (v1.1.10), in the same transaction; until
 * then the answer carries it again. Presenting a replaced one again revokes its chain. Under the
 * client throttle (client-throttle.ts), by the client_id as sent and the client address.
 */
export function grantRefreshToken(
  credentials: CredentialReading[] | undefined,
  refreshToken: string | undefined,
  scope: string | undefined,
  address: string,
): Promise<TokenAnswer> {
  return throttledClientGrant(credentials?.[0]?.id ?? '', address, () => refresh(credentials, refreshToken, scope), grantFailure);
}

async function refresh(credentials: CredentialReading[] | undefined, refreshToken: string | undefined, scope: string | undefined): Promise<TokenAnswer> {
  const client = await authenticateClient(credentials);
  if (!refreshToken) throw invalidInput('invalid_request', 'refresh_token is required', 'refresh_token');
  const hash = secretHash(refreshToken);
  // Again after a deadlock, as exchangeCode.
  const outcome = await inTransaction(async (trx) => {
    const accountId = await tokenRepository.accountOf(trx, 'refresh_token', hash);
    if (accountId === undefined || !(await holdLogin(trx, accountId))) return { kind: 'unknown' as const };
    if (!(await clientRepository.hold(trx, client.id, client.secret_hash))) throw clientRefused();
    const consumed = await tokenRepository.consumeRefreshToken(trx, hash, client.id);
    if (consumed.kind !== 'valid') return consumed;
    await clientAccessRepository.refreshed(trx, consumed.chainId);
    const accessScope = parseScope(scope, consumed.grant.scope);
    const answer = await issue(consumed.grant, consumed.chainId, trx, { accessScope, ...(consumed.replaced ? {} : { keptRefreshToken: refreshToken }) });
    return { kind: 'issued' as const, answer };
  });
  if (outcome.kind === 'issued') return outcome.answer;
  if (outcome.kind === 'unknown') throw oauthError('invalid_grant', 'the refresh token is unknown, replaced or expired', 'refresh_token');
  forgetCachedTokens(outcome.revokedAccessTokens);
  throw oauthError(
    'invalid_grant',
    'the refresh token was already replaced; as it may have leaked, every token of this authorization is revoked: authorize the client again',
    'refresh_token',
  );
}

/**
 * authorize.php: after the seller logged in and confirmed, a one-time code for the client; none
 * (undefined) when the login was disabled or its password changed since the sign-in (`stamp`).
 */
export async function createAuthorizationCode(grant: Grant, binding: CodeBinding, stamp: string): Promise<string | undefined> {
  const code = newSecret('kac', grant.accountId);
  return db().transaction(async (trx) => {
    if (!(await holdLogin(trx, grant.accountId, stamp))) return undefined;
    if (grant.oauthClientId !== null && !(await clientRepository.hold(trx, grant.oauthClientId))) return undefined;
    await tokenRepository.insertAuthorizationCode(trx, secretHash(code), grant, binding, config().authorizationCodeTtlSeconds);
    return code;
  });
}

/*
 * Every resource request resolves its token. Verified tokens are kept in memory by the token
 * itself (no hash per request) for up to a minute, never beyond their expiry, and only while the
 * process hears change notices (lib/db/change-notices.ts): a trigger announces every deletion or
 * change of a still-valid token, whoever makes it, and the entry goes at once in every process.
 * Without notices each request reads the database.
 */
interface CachedGrant {
  grant: Grant;
  hash: string;
  until: number;
}
const grantCache = new Map<string, CachedGrant>();
/** token hash -> token, to forget an entry by the hash a notice names. */
const tokenOfHash = new Map<string, string>();
const grantCacheMs = 60000;
const grantCacheSize = 10000;
/** Counts notices: a grant read while one arrived may be the revoked one, and is not kept. */
let tokenNotices = 0;

onChange('token', (hash) => {
  tokenNotices += 1;
  if (hash === null) {
    grantCache.clear();
    tokenOfHash.clear();
    return;
  }
  dropCached(hash);
});

/**
 * Drops this process's cached grants of tokens just deleted; the deletion's trigger tells every
 * other process at commit, this one is told now, before its answer goes out.
 */
export function forgetCachedTokens(hashes: string[]): void {
  for (const hash of hashes) dropCached(hash);
}

function dropCached(hash: string): void {
  const token = tokenOfHash.get(hash);
  if (token === undefined) return;
  tokenOfHash.delete(hash);
  grantCache.delete(token);
}

/**
 * Revokes the cached grants of these token hashes in every process at once. Deleting or changing
 * the access_token rows does this by itself (a trigger); call this for a revocation that leaves
 * them in place (pass the transaction: the notice goes out at its commit).
 */
export async function forgetTokens(hashes: string[], trx: Knex = db()): Promise<void> {
  for (const hash of hashes) dropCached(hash);
  await tokenRepository.announceRevoked(trx, hashes);
}

/** Resolves a bearer token to its grant; undefined when unknown or expired. */
export async function grantOfAccessToken(token: string): Promise<Grant | undefined> {
  const now = Date.now();
  const cached = grantCache.get(token);
  if (cached && cached.until > now && listening()) return cached.grant;
  const hash = secretHash(token);
  const notices = tokenNotices;
  const found = await tokenRepository.findAccessToken(hash);
  if (!found) return undefined;
  const { expiresAt, ...grant } = found;
  if (!listening() || notices !== tokenNotices) return grant;
  if (grantCache.size >= grantCacheSize) {
    grantCache.clear();
    tokenOfHash.clear();
  }
  grantCache.set(token, { grant, hash, until: Math.min(now + grantCacheMs, expiresAt.getTime()) });
  tokenOfHash.set(hash, token);
  return grant;
}
