import { domainError, DomainError, ErrorId } from '../errors';
import { allScopes, isScope, Scope } from '../access';

/**
 * RFC 6749 section 5.2 errors; invalid_client is a 401 (the credentials, no field), the rest 400s
 * naming the token request's parameter at fault, as every 400 of the interface names its field
 * (lib/http README): the client_id beside Basic, the scope, the code and its code_verifier named none,
 * and the fuzz test's random pass found it (FUZZ_SEED=2782380).
 */
export function oauthError(id: 'invalid_client', description: string): DomainError;
export function oauthError(
  id: 'invalid_grant' | 'invalid_scope' | 'invalid_request' | 'unsupported_grant_type' | 'unauthorized_client',
  description: string,
  field: string,
): DomainError;
export function oauthError(id: ErrorId, description: string, field?: string): DomainError {
  return domainError(id, description, field === undefined ? {} : { field });
}

/** Parses a requested scope string; absent means everything the grant allows. */
export function parseScope(requested: string | undefined, allowed: readonly Scope[] = allScopes): Scope[] {
  if (!requested || !requested.trim()) return [...allowed];
  const names = [...new Set(requested.trim().split(/[\s,]+/))];
  const unknown = names.find((name) => !isScope(name) || !allowed.includes(name));
  if (unknown) throw oauthError('invalid_scope', `scope ${unknown} is unknown or not granted`, 'scope');
  return names as Scope[];
}
