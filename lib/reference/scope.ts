import { scopes } from '../access';

/** System_scope_type: every scope the service checks, with title and description. */
export function listScopes(): { id: string; title: string; description: string }[] {
  return Object.entries(scopes).map(([id, s]) => ({ id, title: s.title, description: s.description }));
}
