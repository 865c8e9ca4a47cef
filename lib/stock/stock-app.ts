/**
 * A stock item's app[] (document 2: "Per active app, keyed by client_id"; Stock_app_type not
 * shown): each authorized client's own data on the shared item, its entry the one naming its own
 * client_id. A third-party client reads and writes that entry alone; the seller's own tokens
 * (appClient undefined) read and write the whole list, as before. Without it a client bound to one
 * portal account read every other client's entries, and its app[] replaced the list, deleting
 * theirs (README "Portal account grant", lib/stock README). customs is keyed the same way
 * (document 2: "Per active customs app keyed by client_id") and follows the same rule: a customs
 * app's customs[] deleted the entries of the others.
 */
import { invalidField } from '../errors';
import type { Json } from './stock-merge';

/** Who writes app[]: a third-party client's client_id, undefined for the seller's own tokens. */
export type AppWriter = { clientId?: string | null };
export const appClientOf = (who: AppWriter): string | undefined => who.clientId ?? undefined;

const clientOf = (entry: unknown): unknown => (entry !== null && typeof entry === 'object' ? (entry as Json).client_id : undefined);

/** app[] as the caller reads it: a client's own entry only. */
export function appSeenBy(app: unknown, appClient: string | undefined): unknown {
  if (appClient === undefined || !Array.isArray(app)) return app;
  return app.filter((entry) => clientOf(entry) === appClient);
}

/**
 * The stored app[] after a write of `sent`: a client's entries replace its own and keep every
 * other client's; each entry it sends names its own client_id, else a 400 naming the entry's
 * client_id (choice: a client writing under another's id is refused rather than its entry
 * silently renamed, so it learns its key). The seller's own tokens replace the list.
 */
export function appAfterWrite(stored: unknown, sent: Json[], appClient: string | undefined, field: string): Json[] {
  if (appClient === undefined) return sent;
  sent.forEach((entry, i) => {
    if (entry.client_id !== appClient) {
      throw invalidField(`${field}[${i}].client_id`, `app[] of this token takes only its own client_id ${appClient}`);
    }
  });
  const others = Array.isArray(stored) ? (stored as Json[]).filter((entry) => clientOf(entry) !== appClient) : [];
  return [...others, ...sent];
}
