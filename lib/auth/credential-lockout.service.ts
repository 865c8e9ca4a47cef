/**
 * The operator's tools for a leaked credential (the CLI in bin/credential-lockout.cli.ts):
 * disabling a client or a seller's login, enabling a client again with a new secret, and setting a
 * seller's password. Each change and its revocations are one transaction; the access_token
 * trigger tells every process at commit, so a revoked token is refused at once everywhere
 * (token.service.ts). Each writes one audit line (`audit`: what was done, to whom, how many
 * tokens went), never a secret or a password.
 */
import crypto from 'node:crypto';
import { accountRepository, disabledPasswordHash, hashPassword } from '../account';
import { db, inTransaction } from '../db';
import { log } from '../log';
import { clientDisabledHash, clientRepository } from './client.repository';
import { secretHash } from './secret';
import { tokenRepository } from './token.repository';
import { forgetCachedTokens } from './token.service';

/** A client or login the command cannot act on: one line for the operator. */
export class LockoutError extends Error {}

async function accountIdOf(login: string): Promise<number> {
  const account = await accountRepository.findByLogin(login);
  if (!account) throw new LockoutError(`--login: no seller account ${login}`);
  return account.id;
}

/**
 * Disables a client: its secret no longer authenticates (token.php answers invalid_client, so no
 * new token and no refresh), authorize.php does not know it, and every access token, refresh
 * token, authorization code and client access it holds, of every seller, is deleted.
 */
export async function disableClient(
  clientId: string,
): Promise<{ client_id: string; disabled: true; revoked_access_tokens: number; revoked_client_accesses: number }> {
  // Again after a deadlock: the client's stock cia handlers leave the items with its accesses (client-access-going.ts).
  const revoked = await inTransaction(async (trx) => {
    const client = await clientRepository.findAnyByClientId(trx, clientId);
    if (!client) throw new LockoutError(`--client-id: no client ${clientId}`);
    await clientRepository.setSecretHash(trx, client.id, clientDisabledHash(new Date()));
    return tokenRepository.deleteAllOf(trx, { oauthClientId: client.id });
  });
  forgetCachedTokens(revoked.accessTokens);
  const answer = {
    client_id: clientId,
    disabled: true as const,
    revoked_access_tokens: revoked.accessTokens.length,
    revoked_client_accesses: revoked.clientAccesses,
  };
  log.warn({ audit: 'client_disabled', ...answer }, 'client disabled: its tokens are revoked and its secret refused');
  return answer;
}

/**
 * Enables a client again with a new secret, shown once: the old one may be the leaked one. Its
 * sellers authorize it again (their client accesses went when it was disabled). Also rotates the
 * secret of a client that was never disabled; its tokens stay.
 */
export async function enableClient(clientId: string): Promise<{ client_id: string; client_secret: string }> {
  const clientSecret = crypto.randomBytes(32).toString('base64url');
  await db().transaction(async (trx) => {
    const client = await clientRepository.findAnyByClientId(trx, clientId);
    if (!client) throw new LockoutError(`--client-id: no client ${clientId}`);
    await clientRepository.setSecretHash(trx, client.id, secretHash(clientSecret));
  });
  log.warn({ audit: 'client_secret_renewed', client_id: clientId }, 'client given a new secret (enabled)');
  return { client_id: clientId, client_secret: clientSecret };
}

/**
 * Disables a seller's login: no password opens it (token.php and authorize.php answer as to a wrong
 * password), and every token of the account is deleted: its own and its clients' (client accesses,
 * refresh tokens, codes), since whoever held the password could have authorized a client of their
 * own. Setting a password (setPassword) enables it again.
 */
export async function disableLogin(login: string): Promise<{ login: string; disabled: true; revoked_access_tokens: number; revoked_client_accesses: number }> {
  const accountId = await accountIdOf(login);
  // Again after a deadlock, as disableClient.
  const revoked = await inTransaction(async (trx) => {
    await accountRepository.setPasswordHash(trx, accountId, disabledPasswordHash(new Date()));
    return tokenRepository.deleteAllOf(trx, { accountId, seller: false });
  });
  forgetCachedTokens(revoked.accessTokens);
  const answer = { login, disabled: true as const, revoked_access_tokens: revoked.accessTokens.length, revoked_client_accesses: revoked.clientAccesses };
  log.warn({ audit: 'login_disabled', account_id: accountId, ...answer }, 'login disabled: every token of the account is revoked');
  return answer;
}

/**
 * Sets a seller's password (and so enables a disabled login). The seller's own access tokens
 * (client_credentials, got with the old password) are deleted: a password is changed because it
 * leaked, and a token it bought would stay good for up to an hour. Client accesses stay: each is a
 * consent of its own, listed by `kontor client-access list` and revoked one by one, and revoking
 * every integration of a seller at each password change would stop their ERP and shop with it
 * (`kontor user disable` revokes them all).
 */
export async function setPassword(login: string, password: string): Promise<{ login: string; revoked_access_tokens: number }> {
  const accountId = await accountIdOf(login);
  const hash = await hashPassword(password);
  const revoked = await db().transaction(async (trx) => {
    await accountRepository.setPasswordHash(trx, accountId, hash);
    return tokenRepository.deleteAllOf(trx, { accountId, seller: true });
  });
  forgetCachedTokens(revoked.accessTokens);
  const answer = { login, revoked_access_tokens: revoked.accessTokens.length };
  log.warn({ audit: 'password_set', account_id: accountId, ...answer }, "password set: the seller's own tokens are revoked");
  return answer;
}
