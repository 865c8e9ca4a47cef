/**
 * The payment provider sync of one connected account (job bank.provider_sync, queued by the
 * scheduler per account): the payments PayPal lists since the last sync, of every status, and
 * the payments remembered as pending, asked for by id. Completed ones are stored as bank records
 * of type payment_provider (entry_ref = the transaction id, so a payment fetched twice is stored
 * once) and matched by the bank.match job their storing queues; pending ones are remembered
 * until they complete, fail or are given up (provider-payment.ts). Failures: provider-failure.ts.
 */
import { noLongerExists } from '../../errors';
import { inTransaction } from '../../db';
import { log } from '../../log';
import { queues } from '../../queue';
import { openCredentials } from '../../secret';
import { createTaskOnce } from '../../task';
import { storeEntriesIn } from '../bank-store.service';
import { listTransactions, maxSpanMs, openSession, PayPalTransaction, SearchWindow } from './paypal.client';
import { providerAccountRepository, ProviderAccountRow } from './provider-account.repository';
import { failedSync, labelOf } from './provider-failure';
import { PendingPayment, planSync, SyncPlan, Unreadable } from './provider-payment';
import { providerPendingRepository } from './provider-pending.repository';

/** PayPal lists a payment up to three hours after it happened: each sync looks back that far again. */
const lateArrivalMs = 3 * 3_600_000;
/** A first sync fetches the last 31 days (one Transaction Search span). */
const firstSyncMs = 31 * 86_400_000;
/**
 * Pending payments asked for by id in one sync (one call each), least recently asked first: at
 * a sync every 5 minutes, 300 an hour, within PayPal's rate limits however many are pending.
 */
export const pendingChecksPerSync = 25;

/**
 * The window a pending payment is asked for in: from a day before its date (dates carry the
 * account's time zone) for 31 days, up to now. That covers its date, and, should PayPal's window
 * ever go by the last update instead, its completion within the time it is watched.
 */
function pendingWindow(p: PendingPayment, now: Date): SearchWindow {
  const start = new Date(p.transactionDate.getTime() - 86_400_000);
  const end = new Date(Math.max(start.getTime() + 1000, Math.min(now.getTime(), start.getTime() + maxSpanMs)));
  return { start, end, transactionId: p.transactionId };
}

/** What PayPal answered: the window since the last sync, then the pending payments not in it, by id. */
async function fetchFromPayPal(account: ProviderAccountRow, window: SearchWindow, known: PendingPayment[], now: Date) {
  // Opened here and handed to the client only, as a portal account's are in portal-target.repository.
  const credentials = openCredentials('payment_provider_account', account.credentials, account.id);
  const session = await openSession({ baseUrl: account.base_url, credentials });
  const listed: PayPalTransaction[] = await listTransactions(session, window);
  const inWindow = new Set(listed.map((t) => t.transaction_info?.transaction_id));
  const asked = known.filter((k) => !inWindow.has(k.transactionId)).slice(0, pendingChecksPerSync);
  for (const p of asked) listed.push(...(await listTransactions(session, pendingWindow(p, now))));
  return { listed, asked: asked.map((p) => p.transactionId) };
}

/** "2 payments not stored: ABC (no ISO 4217 currency_code), ...": kept in last_error, as the seller cannot see logs. */
function noteOn(account: ProviderAccountRow, unreadable: Unreadable[]): string | null {
  if (!unreadable.length) return null;
  const list = unreadable.map((u) => `${u.transactionId || '(no id)'} (${u.reason})`).join(', ');
  return `${labelOf(account)}: ${unreadable.length} payment(s) PayPal listed were not stored: ${list}`.slice(0, 2000);
}

/** Tells the seller of each pending payment given up (one task per payment). */
async function tellGivenUp(account: ProviderAccountRow, givenUp: PendingPayment[]): Promise<void> {
  for (const p of givenUp) {
    await createTaskOnce(
      account.account_id,
      {
        title: `PayPal payment still pending: ${p.transactionId}`,
        text:
          `${labelOf(account)}: the payment ${p.transactionId} of ${p.transactionDate.toISOString().slice(0, 10)} ` +
          `(${p.amount} ${p.currency}${p.sender ? ` from ${p.sender}` : ''}) has been pending for more than 30 days; Kontor no longer ` +
          `asks PayPal for it and has not stored it. Check it in PayPal; if it completes, record it with POST bank/transfer/.`,
        priority: 'normal',
        reference: { section: 'bank', id: String(account.id) },
      },
      `payment-provider-${account.id}-pending-${p.transactionId}`,
    );
  }
}

/** bank.provider_sync_all: one sync job per connected account for this tick. */
export async function queueProviderSyncs(tick: string): Promise<{ queued: number }> {
  const accounts = await providerAccountRepository.all();
  for (const a of accounts) {
    await queues().add('bank.provider_sync', { accountId: a.account_id, providerAccountId: a.id, tick }, `bank-provider-sync-${a.id}-${tick}`);
  }
  return { queued: accounts.length };
}

export interface SyncRun {
  fetched: number;
  stored: number;
  /** Payments pending after this sync (remembered). */
  pending: number;
  /** Denied or reversed payments seen; nothing stored for them. */
  failed: number;
  /** Pending payments given up this sync (the seller got a task each). */
  givenUp: number;
  unreadable: number;
  jobId: string | null;
}

async function applyPlan(account: ProviderAccountRow, plan: SyncPlan, end: Date) {
  const { account_id: accountId, id } = account;
  return inTransaction(async (trx) => {
    const result = await storeEntriesIn(trx, accountId, 'payment_provider', plan.store, 'completed');
    await providerPendingRepository.forget(trx, accountId, id, [...plan.resolved, ...plan.givenUp.map((p) => p.transactionId)]);
    await providerPendingRepository.remember(trx, accountId, id, plan.remember);
    await providerPendingRepository.checked(trx, accountId, id, plan.stillPending, end);
    await providerAccountRepository.setSynced(trx, accountId, id, end, noteOn(account, plan.unreadable));
    return result;
  });
}

export async function syncProviderAccount(accountId: number, providerAccountId: number, jobId: string): Promise<SyncRun> {
  const account = await providerAccountRepository.get(accountId, providerAccountId);
  if (!account) throw noLongerExists(`payment provider account ${providerAccountId}`);
  const end = new Date();
  const start = account.synced_until ? new Date(account.synced_until.getTime() - lateArrivalMs) : new Date(end.getTime() - firstSyncMs);
  const known = await providerPendingRepository.all(accountId, account.id);
  let fetched: Awaited<ReturnType<typeof fetchFromPayPal>>;
  try {
    fetched = await fetchFromPayPal(account, { start, end }, known, end);
  } catch (err) {
    throw await failedSync(account, err, end);
  }
  const plan = planSync(fetched.listed, known, fetched.asked, end);
  for (const u of plan.unreadable)
    log.warn({ provider_account_id: account.id, transaction_id: u.transactionId, reason: u.reason, job_id: jobId }, 'provider payment not stored');
  // Tasks first (each once by its key): a crash before the plan is applied repeats them harmlessly.
  await tellGivenUp(account, plan.givenUp);
  const stored = await applyPlan(account, plan, end);
  const forgotten = new Set([...plan.resolved, ...plan.givenUp.map((p) => p.transactionId)]);
  return {
    fetched: fetched.listed.length,
    stored: stored.stored,
    pending: known.filter((k) => !forgotten.has(k.transactionId)).length + plan.remember.length,
    failed: plan.failed.length,
    givenUp: plan.givenUp.length,
    unreadable: plan.unreadable.length,
    jobId: stored.jobId,
  };
}
