import { domainError } from '../errors';
import { allScopes, isScope, Scope } from '../access';

/** RFC 6749 section 5.2 errors; invalid_client is a 401, the rest 400. */
export const oauthError = (
  id: 'invalid_client' | 'invalid_grant' | 'invalid_scope' | 'invalid_request' | 'unsupported_grant_type' | 'unauthorized_client',
  description: string,
) => domainError(id, description);

/** Parses a requested scope string; absent means everything the grant allows. */
export function parseScope(requested: string | undefined, allowed: readonly Scope[] = allScopes): Scope[] {
  if (!requested || !requested.trim()) return [...allowed];
  const names = [...new Set(requested.trim().split(/[\s,]+/))];
  const unknown = names.find((name) => !isScope(name) || !allowed.includes(name));
  if (unknown) throw oauthError('invalid_scope', `scope ${unknown} is unknown or not granted`);
  return names as Scope[];
}
