/**
 * Admin_user_type.settings is "free client settings" (document 2) in one object per account, and
 * POST admin/user/ merges the keys sent into it. Each top-level key is its writer's: a
 * third-party client's (its oauth_client id) or the seller's ("seller", the seller's own tokens).
 * Without it every client with admin_w replaced the keys another client keeps there (its sync
 * state, its configuration) and every client with admin_r read them.
 *
 * - A client reads its own keys, the seller's, and keys of no recorded writer; not another
 *   client's (choice: the seller's settings stay readable, as Admin_user_type is the account's).
 * - A client writes its own keys and new ones. Another client's key is a 400 naming it, even sent
 *   with its very value (else a client could test guesses of a value it cannot read). The seller's
 *   keys, and settings.invoice always (lib/invoice prints it), it may send back unchanged only.
 * - Keys stored before writers were recorded (migration 20261127_2350) have none: every client
 *   reads them, and the first client to change one takes it (choice: the writer is unknown, and
 *   refusing every client would stop the one that keeps it there; sent back unchanged it is not
 *   taken, so a client writing back what it read takes nothing).
 * - The seller's own tokens read all and change any key; a key keeps its writer when the seller
 *   changes it, so the client still reads it.
 */
import { isDeepStrictEqual } from 'node:util';
import { invalidField } from '../errors';

export type Settings = Record<string, unknown>;
/** Writer of each key: an oauth_client id, or the seller's own tokens. A key absent: none recorded. */
export type SettingsOwners = Record<string, number | 'seller'>;

/** The writer a caller is: its oauth_client id, null for the seller's own tokens. */
type Writer = number | null;

const ownerOf = (owners: SettingsOwners, key: string): number | 'seller' | undefined => (Object.hasOwn(owners, key) ? owners[key] : undefined);

/** The keys a caller reads. */
export function settingsSeenBy(settings: Settings, owners: SettingsOwners, writer: Writer): Settings {
  if (writer === null) return settings;
  return Object.fromEntries(
    Object.entries(settings).filter(([key]) => {
      const owner = ownerOf(owners, key);
      return owner === undefined || owner === 'seller' || owner === writer;
    }),
  );
}

/** The settings and their writers after a write of `sent`; a key the caller may not change is a 400 naming it, nothing written. */
export function settingsAfterWrite(stored: Settings, owners: SettingsOwners, sent: Settings, writer: Writer): { settings: Settings; owners: SettingsOwners } {
  const taken: [string, unknown][] = [];
  const newOwners: [string, number | 'seller'][] = [];
  for (const [key, value] of Object.entries(sent)) {
    const owner = ownerOf(owners, key);
    const known = Object.hasOwn(stored, key);
    const unchanged = known && isDeepStrictEqual(value, stored[key]);
    if (writer === null) {
      taken.push([key, value]);
      if (!known && owner === undefined) newOwners.push([key, 'seller']);
      continue;
    }
    if (owner === writer) {
      taken.push([key, value]);
      continue;
    }
    if (typeof owner === 'number')
      throw invalidField(`user.settings.${key}`, `settings.${key} is another client's: keep this client's settings under a key of its own`);
    if (key === 'invoice' || owner === 'seller') {
      if (unchanged) continue;
      throw invalidField(
        `user.settings.${key}`,
        key === 'invoice'
          ? "settings.invoice is the seller's identity on its invoices (IBAN, BIC, tax ids): only the seller's own login changes it; keep the client's settings under another key"
          : `settings.${key} is the seller's: only the seller's own login changes it; keep the client's settings under a key of its own`,
      );
    }
    // A key of no recorded writer (stored before) or a new one: changed, it becomes this client's.
    if (unchanged) continue;
    taken.push([key, value]);
    newOwners.push([key, writer]);
  }
  return { settings: { ...stored, ...Object.fromEntries(taken) }, owners: { ...owners, ...Object.fromEntries(newOwners) } };
}
