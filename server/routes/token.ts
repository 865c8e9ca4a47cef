import { grantAuthorizationCode, grantClientCredentials, grantRefreshToken } from '../../lib/auth';
import { invalidInput } from '../../lib/errors';
import { ok, publicEndpoint, Result, Joi, revisionNotes } from '../../lib/http';
import type { TokenAnswer } from '../../lib/auth';

interface TokenRequest {
  grant_type: 'client_credentials' | 'authorization_code' | 'refresh_token';
  code?: string;
  refresh_token?: string;
  scope?: string;
  client_id?: string;
  client_secret?: string;
  redirect_uri?: string;
  code_verifier?: string;
  username?: string;
  password?: string;
}

/** RFC 6749 5.1: an answer holding tokens must not be stored by any cache (HTTP/1.0 ones included). */
const noStore = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };
const tokens = (answer: TokenAnswer): Result => ({ ...ok({ ...answer }), headers: noStore });

export const tokenEndpoints = [
  publicEndpoint<Record<string, never>, TokenRequest>({
    method: 'POST',
    path: 'token.php',
    changes: [revisionNotes.refreshTokenLifetime],
    summary:
      'Obtain an access token: grant_type client_credentials with Basic login:password (sellers), authorization_code (with code_verifier after PKCE) or refresh_token (clients).',
    body: Joi.object({
      grant_type: Joi.string().valid('client_credentials', 'authorization_code', 'refresh_token').required(),
      code: Joi.string().max(200),
      refresh_token: Joi.string().max(200),
      scope: Joi.string().allow('').max(1000),
      client_id: Joi.string().max(200),
      client_secret: Joi.string().max(200),
      redirect_uri: Joi.string().max(2000),
      // RFC 7636 4.5: PKCE, when the authorization request had a code_challenge.
      code_verifier: Joi.string().max(200),
      // RFC 6749 lets a client send its credentials in the body instead of Basic.
      username: Joi.string().max(200),
      password: Joi.string().max(1000),
    }),
    response: ['access_token', 'token_type', 'expires', 'expires_in', 'scope', 'refresh_token'],
    async handle({ request, body }) {
      const basic = request.basic;
      if (body.grant_type === 'client_credentials') {
        const login = basic?.user ?? body.username ?? body.client_id;
        const password = basic?.password ?? body.password ?? body.client_secret;
        if (!login || !password) throw invalidInput('invalid_request', 'send Authorization: Basic base64(login:password)');
        return tokens(await grantClientCredentials(login, password, body.scope, request.address));
      }
      const clientId = basic?.user ?? body.client_id;
      const secret = basic?.password ?? body.client_secret;
      if (body.grant_type === 'authorization_code') {
        return tokens(await grantAuthorizationCode(clientId, secret, { code: body.code, redirectUri: body.redirect_uri, codeVerifier: body.code_verifier }));
      }
      return tokens(await grantRefreshToken(clientId, secret, body.refresh_token, body.scope));
    },
  }),
];
