import { oauthError } from './scopes-request';

/** One way to read the credentials a token request presented: the client_id (or login) and its secret (or password). */
export interface CredentialReading {
  id: string;
  secret: string;
}

/**
 * The credentials of a token.php request, as readings to try in order (RFC 6749 2.3.1), or
 * undefined when none were sent.
 *
 * - HTTP Basic: RFC 6749 2.3.1 has the client form-urlencode client_id and password before base64
 *   (simple-oauth2's default, IdentityModel's Rfc6749 style), document 1 and most libraries (curl
 *   -u, requests, PHP League) send them as they are. The raw reading comes first, the decoded one
 *   second when it differs (a password with '%', '+', ':' or non-ASCII characters), so both work.
 * - The body: client_id and client_secret (RFC 6749 2.3.1), for a seller's login also username and
 *   password; already decoded by the form parser, so one reading.
 * - Both at once is refused with invalid_request (RFC 6749 2.3: a client MUST NOT use more than one
 *   authentication method; 5.2 invalid_request: "utilizes more than one mechanism for
 *   authenticating the client"). A client_id in the body beside Basic is not a second method (RFC
 *   6749 4.1.3 asks for it in the code exchange, and libraries send it): it must name the same
 *   client, and so must a username beside it.
 */
export function presentedCredentials(
  basic: { user: string; password: string } | undefined,
  body: { client_id?: string; client_secret?: string; username?: string; password?: string },
): CredentialReading[] | undefined {
  if (basic) {
    if (body.client_secret !== undefined || body.password !== undefined)
      throw oauthError(
        'invalid_request',
        'send the credentials either in the Authorization header (Basic) or in the body, not both',
        body.client_secret !== undefined ? 'client_secret' : 'password',
      );
    const readings = [{ id: basic.user, secret: basic.password }];
    const decoded = formDecoded(basic.user, basic.password);
    if (decoded && (decoded.id !== basic.user || decoded.secret !== basic.password)) readings.push(decoded);
    // Each of client_id and username the body names must be Basic's: a request naming two
    // identities is refused, never answered for one of them (both were named, only one checked).
    for (const field of ['client_id', 'username'] as const) {
      const named = body[field];
      if (named !== undefined && !readings.some((r) => r.id === named))
        throw oauthError('invalid_request', `${field} in the body names another client than the Authorization header`, field);
    }
    return readings;
  }
  const id = body.username ?? body.client_id;
  const secret = body.password ?? body.client_secret;
  return id !== undefined && secret !== undefined ? [{ id, secret }] : undefined;
}

/** application/x-www-form-urlencoded decoding of both parts; undefined when one is not validly encoded. */
function formDecoded(id: string, secret: string): CredentialReading | undefined {
  try {
    const decode = (value: string) => decodeURIComponent(value.replace(/\+/g, ' '));
    return { id: decode(id), secret: decode(secret) };
  } catch {
    return undefined;
  }
}
