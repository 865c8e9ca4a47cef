/**
 * How a sync that PayPal refused ends: what the seller reads in the account's last_error and,
 * where the seller must act, in a task; and whether the job is tried again.
 */
import { portalRefused, portalUnavailable } from '../../errors';
import { createTaskOnce } from '../../task';
import { ProviderAuthError, ProviderPermissionError, ProviderRequestError } from './paypal.client';
import { providerAccountRepository, ProviderAccountRow } from './provider-account.repository';

/**
 * PayPal's delay before a newly enabled Transaction Search permission works: "it may take up to
 * 9 hours to be enabled for a new access token; until then the Transaction Search API will
 * return permission denied" (Transaction Search API integration guide, developer.paypal.com/docs/
 * transaction-search/). A 403 within 9 hours of connecting, before any sync succeeded, is that
 * delay: the job fails to be tried again and the seller reads why; after it, it is the seller's
 * to fix. Counted from the connection, as Kontor cannot see when the seller enabled it.
 */
export const permissionGrantMs = 9 * 3_600_000;

export const labelOf = (account: ProviderAccountRow) => `payment provider account "${account.name}" (id ${account.id})`;

/** Within the grant delay: never synced, and connected less than 9 hours ago. */
export const awaitingGrant = (account: ProviderAccountRow, now: Date) =>
  account.synced_until === null && now.getTime() - account.created_at.getTime() < permissionGrantMs;

/** What the seller should do about a refusal, by its kind; undefined for what is not a refusal (429, 5xx, network). */
function adviceOn(err: unknown): { kind: string; advice: string } | undefined {
  if (err instanceof ProviderAuthError) return { kind: 'credentials', advice: 'check its client_id and client_secret' };
  if (err instanceof ProviderPermissionError)
    return {
      kind: 'permission',
      advice:
        'PayPal has refused Transaction Search for more than 9 hours since the account was connected: check its client_id and ' +
        'client_secret, and that their REST app has Transaction Search enabled (PayPal developer dashboard, Apps & Credentials); ' +
        'PayPal may take up to 9 hours after that to grant it',
    };
  if (err instanceof ProviderRequestError) return { kind: 'request', advice: 'no payment of this sync was stored; the next sync asks again' };
  return undefined;
}

/**
 * The error that ends the job: a retryable one while Transaction Search may still be being
 * granted, a permanent one (with last_error and one high-priority task per provider account,
 * kind and day) for a refusal, the error itself for anything else.
 */
export async function failedSync(account: ProviderAccountRow, err: unknown, now: Date): Promise<unknown> {
  if (err instanceof ProviderPermissionError && awaitingGrant(account, now)) {
    const until = new Date(account.created_at.getTime() + permissionGrantMs);
    const message =
      `${labelOf(account)}: ${err.message}; Transaction Search access may still be being granted by PayPal ` +
      `(up to 9 hours after it is enabled on the app), so the sync keeps trying; if it is still refused at ${until.toISOString()} ` +
      `check the app's credentials and its Transaction Search permission`;
    await providerAccountRepository.setError(account.account_id, account.id, message);
    return portalUnavailable(message);
  }
  const refusal = adviceOn(err);
  if (!refusal) return err;
  const message = `${labelOf(account)}: ${(err as Error).message}; ${refusal.advice}`;
  await providerAccountRepository.setError(account.account_id, account.id, message);
  // One task a day per account and kind: the scheduler retries every 5 minutes, a task each time would flood the list.
  await createTaskOnce(
    account.account_id,
    { title: `Payment provider sync failed: ${account.name}`, text: message, priority: 'high', reference: { section: 'bank', id: String(account.id) } },
    `payment-provider-${account.id}-${refusal.kind}-${now.toISOString().slice(0, 10)}`,
  );
  return portalRefused(message);
}
