/**
 * kontor credentials reseal, composed from the owners of the three tables of sealed credentials
 * (lib/portal-account: portal_account; lib/bank: payment_provider_account; lib/event:
 * event_handler's signing secrets) and lib/admin's rule
 * (lib/admin/credentials-reseal.ts). Here, above every domain, because lib/bank sits above
 * lib/admin in the layering (scripts/check-cycles.ts) and lib/portal-account and lib/bank know
 * nothing of each other.
 */
import { resealTables } from '../lib/admin';
import { providerAccountCredentialsRepository } from '../lib/bank';
import { eventHandlerSecretsRepository } from '../lib/event';
import { portalAccountCredentialsRepository } from '../lib/portal-account';

/** Every sealed value not under CREDENTIALS_KEY (or not bound to its row) sealed again; how many of each table. */
export function resealCredentials(): Promise<{ key_id: string; resealed: Record<string, number> }> {
  return resealTables({
    portal_account: portalAccountCredentialsRepository,
    payment_provider_account: providerAccountCredentialsRepository,
    event_handler: eventHandlerSecretsRepository,
  });
}
