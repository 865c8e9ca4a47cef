import type { Knex } from 'knex';
import { changedChannel, db, inTransaction } from '../db';
import type { Scope } from '../access';
import { clientAccessesGoing } from './client-access-going';

export interface Grant {
  accountId: number;
  oauthClientId: number | null;
  portalAccountId: number | null;
  scope: Scope[];
  /** The client's own client_id (lib/stock keys a client's app[] entry by it); null for the seller's tokens. Read with an access token. */
  clientId?: string | null;
  /** The client access of the token's chain (a client's authorization); null for the seller's tokens. Read with an access token. */
  clientAccessId?: number | null;
}

interface GrantRow {
  account_id: number;
  oauth_client_id: number | null;
  portal_account_id: number | null;
  scope: Scope[];
}

const toGrant = (row: GrantRow): Grant => ({
  accountId: row.account_id,
  oauthClientId: row.oauth_client_id,
  portalAccountId: row.portal_account_id,
  scope: row.scope,
});

const grantColumns = (grant: Grant) => ({
  account_id: grant.accountId,
  oauth_client_id: grant.oauthClientId,
  portal_account_id: grant.portalAccountId,
  scope: grant.scope,
});

const expiresIn = (seconds: number) => new Date(Date.now() + seconds * 1000);

/** What an authorization code was issued for (RFC 6749 4.1.3, RFC 7636 4.6). */
export interface CodeBinding {
  redirectUri: string;
  /** The authorization request named redirect_uri: the token request must name it again. */
  redirectUriSent: boolean;
  /** BASE64URL(SHA256(code_verifier)) when the client used PKCE (S256 only). */
  codeChallenge: string | null;
}

/** What a refresh token presented at token.php turned out to be. */
export type ConsumedRefreshToken =
  /** replaced: in its last month, so a new refresh token follows it (document 1, v1.1.10). */
  | { kind: 'valid'; grant: Grant; chainId: string; replaced: boolean }
  /** Already replaced: its chain is revoked; the hashes of the access tokens deleted with it. */
  | { kind: 'reused'; revokedAccessTokens: string[] }
  | { kind: 'unknown' };

/** What an authorization code presented at token.php turned out to be. */
export type ConsumedCode =
  | { kind: 'valid'; grant: Grant & CodeBinding }
  /** Used before: the tokens issued for it are revoked; the hashes of the access tokens deleted. */
  | { kind: 'reused'; revokedAccessTokens: string[] }
  | { kind: 'unknown' };

/** Document 1, v1.1.10: a refresh token is replaced by a new one only this close to its expiry. */
const rotationWindow = '1 month';

/** How long a used authorization code is remembered, to recognise its replay. */
const usedCodeKept = '1 day';

/**
 * The one delete of client accesses (those `which` selects): locked first, in id order (two
 * deletes of overlapping sets wait, never deadlock; a handler's insert naming one waits, then its
 * foreign key finds it gone), then what lib/event made with them goes (client-access-going.ts: a
 * stock cia handler's names leave the items), then the rows. Answers how many went.
 */
async function deleteClientAccesses(trx: Knex.Transaction, which: (q: Knex.QueryBuilder) => Knex.QueryBuilder): Promise<number> {
  const ids = (await which(trx('client_access')).orderBy('id').forUpdate().pluck('id')) as number[];
  if (ids.length === 0) return 0;
  await clientAccessesGoing(trx, ids);
  return trx('client_access').whereIn('id', ids).delete();
}

/** Access tokens, refresh tokens and authorization codes, by the hash of their secret only. */
export const tokenRepository = {
  /** chainId: the refresh-token chain the access token was issued with, if any (revoked with it). */
  async insertAccessToken(hash: string, grant: Grant, ttlSeconds: number, trx: Knex = db(), chainId: string | null = null): Promise<void> {
    await trx('access_token').insert({ token_hash: hash, ...grantColumns(grant), expires_at: expiresIn(ttlSeconds), chain_id: chainId });
  },

  async findAccessToken(hash: string): Promise<(Grant & { expiresAt: Date }) | undefined> {
    const row = await db()('access_token AS t')
      .leftJoin('oauth_client AS c', 'c.id', 't.oauth_client_id')
      .leftJoin('client_access AS a', 'a.chain_id', 't.chain_id')
      .select('t.*', 'c.client_id', 'a.id AS client_access_id')
      .where({ 't.token_hash': hash })
      .andWhere('t.expires_at', '>', db().fn.now())
      .first<(GrantRow & { client_id: string | null; client_access_id: number | null; expires_at: Date }) | undefined>();
    return row ? { ...toGrant(row), clientId: row.client_id, clientAccessId: row.client_access_id, expiresAt: row.expires_at } : undefined;
  },

  async insertRefreshToken(trx: Knex, hash: string, grant: Grant, ttlSeconds: number, chainId: string): Promise<void> {
    await trx('refresh_token').insert({ token_hash: hash, ...grantColumns(grant), expires_at: expiresIn(ttlSeconds), chain_id: chainId });
  },

  /**
   * Returns a refresh token's grant, and marks it replaced when it is in its last month
   * (rotationWindow): document 1, v1.1.10, "replaced only from 1 month before expiry"; before
   * that it stays good and is answered again. A token already replaced is a replay (RFC 9700
   * 4.14.2): the chain's refresh and access tokens are deleted. The row lock makes a concurrent
   * second exchange of one token wait and see the replay (or, before the last month, the same
   * token, still good).
   */
  /** The account a refresh token or an authorization code was issued to (unlocked: to lock its login first). */
  async accountOf(trx: Knex, table: 'refresh_token' | 'authorization_code', hash: string): Promise<number | undefined> {
    const row = (await trx(table)
      .where(table === 'refresh_token' ? { token_hash: hash } : { code_hash: hash })
      .first('account_id')) as { account_id: number } | undefined;
    return row?.account_id;
  },

  async consumeRefreshToken(trx: Knex.Transaction, hash: string, oauthClientId: number): Promise<ConsumedRefreshToken> {
    const mine = { token_hash: hash, oauth_client_id: oauthClientId };
    const [row] = await trx('refresh_token')
      .where(mine)
      .whereNull('replaced_at')
      .andWhere('expires_at', '>', trx.fn.now())
      .update({ replaced_at: trx.raw(`CASE WHEN expires_at <= now() + interval '${rotationWindow}' THEN now() END`) })
      .returning(['account_id', 'oauth_client_id', 'portal_account_id', 'scope', 'chain_id', 'replaced_at']);
    if (row) return { kind: 'valid', grant: toGrant(row), chainId: row.chain_id, replaced: row.replaced_at !== null };
    const replaced = (await trx('refresh_token').select('chain_id').where(mine).whereNotNull('replaced_at').first()) as { chain_id: string } | undefined;
    if (!replaced) return { kind: 'unknown' };
    return { kind: 'reused', revokedAccessTokens: await tokenRepository.deleteChain(trx, replaced.chain_id) };
  },

  /**
   * Narrows a chain's tokens to the scope and binds them to the portal account: the refresh tokens
   * take both; an access token keeps the part of its scope (narrowed at a refresh) that remains.
   * Answers the access tokens' hashes (their cached grants are stale).
   */
  async restrictChain(trx: Knex, chainId: string, scope: Scope[], portalAccountId: number | null): Promise<string[]> {
    await trx('refresh_token').where({ chain_id: chainId }).update({ scope, portal_account_id: portalAccountId });
    const narrowed = (await trx('access_token')
      .where({ chain_id: chainId })
      .update({
        scope: trx.raw('ARRAY(SELECT s FROM unnest(scope) WITH ORDINALITY AS t(s, n) WHERE s = ANY(?::text[]) ORDER BY n)', [scope]),
        portal_account_id: portalAccountId,
      })
      .returning('token_hash')) as { token_hash: string }[];
    return narrowed.map((r) => r.token_hash);
  },

  /** Deletes a chain's client access, refresh and access tokens; answers the access tokens' hashes. */
  async deleteChain(trx: Knex.Transaction, chainId: string): Promise<string[]> {
    await deleteClientAccesses(trx, (q) => q.where({ chain_id: chainId }));
    await trx('refresh_token').where({ chain_id: chainId }).delete();
    const revoked = (await trx('access_token').where({ chain_id: chainId }).delete().returning('token_hash')) as { token_hash: string }[];
    return revoked.map((r) => r.token_hash);
  },

  async insertAuthorizationCode(trx: Knex, hash: string, grant: Grant, binding: CodeBinding, ttlSeconds: number): Promise<void> {
    await trx('authorization_code').insert({
      code_hash: hash,
      ...grantColumns(grant),
      redirect_uri: binding.redirectUri,
      redirect_uri_sent: binding.redirectUriSent,
      code_challenge: binding.codeChallenge,
      expires_at: expiresIn(ttlSeconds),
    });
  },

  /**
   * Marks a code used and returns its grant and what the token request must match: each is good
   * for one exchange. A used code is kept a day (usedCodeKept), so presenting it again is seen as
   * the replay it is (RFC 6749 4.1.2, RFC 9700 4.5): the tokens issued for it (its chain) are
   * deleted. The row lock makes a concurrent second exchange wait and see the replay.
   */
  async consumeAuthorizationCode(trx: Knex.Transaction, hash: string, oauthClientId: number): Promise<ConsumedCode> {
    const mine = { code_hash: hash, oauth_client_id: oauthClientId };
    const [row] = await trx('authorization_code')
      .where(mine)
      .whereNull('used_at')
      .andWhere('expires_at', '>', trx.fn.now())
      .update({ used_at: trx.fn.now(), expires_at: trx.raw(`now() + interval '${usedCodeKept}'`) })
      .returning(['account_id', 'oauth_client_id', 'portal_account_id', 'scope', 'redirect_uri', 'redirect_uri_sent', 'code_challenge']);
    if (row) {
      const grant = { ...toGrant(row), redirectUri: row.redirect_uri, redirectUriSent: row.redirect_uri_sent, codeChallenge: row.code_challenge };
      return { kind: 'valid', grant };
    }
    const used = (await trx('authorization_code').select('chain_id').where(mine).whereNotNull('used_at').first()) as { chain_id: string | null } | undefined;
    if (!used) return { kind: 'unknown' };
    return { kind: 'reused', revokedAccessTokens: used.chain_id ? await tokenRepository.deleteChain(trx, used.chain_id) : [] };
  },

  /** The chain a code's exchange started: revoked if the code is presented again. */
  async codeIssued(trx: Knex, hash: string, chainId: string): Promise<void> {
    await trx('authorization_code').where({ code_hash: hash }).update({ chain_id: chainId });
  },

  /** The same notice as the access_token trigger's, for a revocation that keeps the rows. */
  async announceRevoked(trx: Knex, hashes: string[]): Promise<void> {
    if (hashes.length === 0) return;
    await trx.raw("SELECT pg_notify(?, 'token:' || h) FROM unnest(?::text[]) AS h", [changedChannel, hashes]);
  },

  /**
   * Deletes every token, code and client access of a client, or of a seller account (`seller`:
   * only the seller's own tokens, client_credentials, which have no client): the operator's tools
   * for a leaked credential (credential-lockout.service.ts). Answers the access tokens' hashes;
   * the access_token trigger tells every process at commit.
   */
  async deleteAllOf(
    trx: Knex.Transaction,
    owner: { oauthClientId: number } | { accountId: number; seller: boolean },
  ): Promise<{ accessTokens: string[]; clientAccesses: number }> {
    const where = 'oauthClientId' in owner ? { oauth_client_id: owner.oauthClientId } : { account_id: owner.accountId };
    const sellerOnly = 'seller' in owner && owner.seller;
    let clientAccesses = 0;
    if (!sellerOnly) {
      clientAccesses = await deleteClientAccesses(trx, (q) => q.where(where));
      await trx('refresh_token').where(where).delete();
      await trx('authorization_code').where(where).delete();
    }
    const tokens = trx('access_token').where(where);
    if (sellerOnly) void tokens.whereNull('oauth_client_id');
    const revoked = (await tokens.delete().returning('token_hash')) as { token_hash: string }[];
    return { accessTokens: revoked.map((r) => r.token_hash), clientAccesses };
  },

  /**
   * Deletes expired tokens and codes, and the client accesses left without a refresh token (in a
   * transaction of their own, again after a deadlock with a stock write naming one of their
   * handlers); answers how many tokens and codes went.
   */
  async deleteExpired(): Promise<number> {
    let removed = 0;
    for (const table of ['access_token', 'refresh_token', 'authorization_code']) {
      removed += await db()(table).where('expires_at', '<', db().fn.now()).delete();
    }
    await inTransaction((trx) =>
      deleteClientAccesses(trx, (q) => q.whereRaw('NOT EXISTS (SELECT 1 FROM refresh_token r WHERE r.chain_id = client_access.chain_id)')),
    );
    return removed;
  },
};
