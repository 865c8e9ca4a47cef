import { ApiError } from '../http/errors';
import { allScopes, isScope, Scope } from '../access/scopes';

/** RFC 6749 section 5.2 errors; invalid_client is a 401, the rest 400. */
export const oauthError = (id: string, description: string) =>
  new ApiError(id === 'invalid_client' ? 401 : 400, id, description, undefined,
    id === 'invalid_client' ? { 'WWW-Authenticate': 'Basic realm="kontor"' } : {});

/** Parses a requested scope string; absent means everything the grant allows. */
export function parseScope(requested: string | undefined, allowed: readonly Scope[] = allScopes): Scope[] {
  if (!requested || !requested.trim()) return [...allowed];
  const names = [...new Set(requested.trim().split(/[\s,]+/))];
  const unknown = names.find((name) => !isScope(name) || !allowed.includes(name));
  if (unknown) throw oauthError('invalid_scope', `scope ${unknown} is unknown or not granted`);
  return names as Scope[];
}

