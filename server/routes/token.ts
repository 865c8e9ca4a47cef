import { grantAuthorizationCode, grantClientCredentials, grantRefreshToken, presentedCredentials } from '../../lib/auth';
import { invalidInput } from '../../lib/errors';
import { ok, publicEndpoint, Result, Joi, revisionNotes } from '../../lib/http';
import type { TokenAnswer } from '../../lib/auth';

interface TokenRequest {
  grant_type: string;
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
      // Any value passes the schema: another is RFC 6749 5.2's unsupported_grant_type, not a field error.
      grant_type: Joi.string().max(100).required().description('client_credentials, authorization_code or refresh_token'),
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
      // RFC 6749 3.2: "The authorization server MUST ignore unrecognized request parameters"
      // (libraries add their own, e.g. audience or resource).
    }).unknown(true),
    // The docs page's Authorize button does the same with Basic; here login and password go in the body.
    example: { grant_type: 'client_credentials', username: 'your-login', password: 'your-password' },
    response: ['access_token', 'token_type', 'expires', 'expires_in', 'scope', 'refresh_token'],
    async handle({ request, body }) {
      // RFC 6749 2.3.1: Basic (as sent, then form-decoded) or the body, not both.
      const credentials = presentedCredentials(request.basic, body);
      if (body.grant_type === 'client_credentials') {
        const [sent, ...alternatives] = credentials ?? [];
        if (!sent) throw invalidInput('invalid_request', 'send Authorization: Basic base64(login:password)', 'Authorization');
        return tokens(await grantClientCredentials(sent.id, sent.secret, body.scope, request.address, alternatives));
      }
      if (body.grant_type === 'authorization_code') {
        return tokens(
          await grantAuthorizationCode(credentials, { code: body.code, redirectUri: body.redirect_uri, codeVerifier: body.code_verifier }, request.address),
        );
      }
      if (body.grant_type === 'refresh_token') return tokens(await grantRefreshToken(credentials, body.refresh_token, body.scope, request.address));
      throw invalidInput(
        'unsupported_grant_type',
        `grant_type ${body.grant_type} is not supported: use client_credentials, authorization_code or refresh_token`,
        'grant_type',
      );
    },
  }),
];
