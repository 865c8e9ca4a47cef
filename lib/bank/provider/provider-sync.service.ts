/**
 * The payment provider sync of one connected account (job bank.provider_sync, queued by the
 * scheduler per account): new completed payments since the last sync are stored as bank records
 * of type payment_provider (entry_ref = the provider's transaction id, so a payment fetched twice
 * is stored once) and matched by the bank.match job their storing queues. A 429 or 5xx is
 * retried with the portal backoff (Retry-After honoured); refused credentials fail the job with
 * a message naming the provider account, kept on the account and given to the seller as a task.
 */
import { noLongerExists, portalRefused } from '../../errors';
import { inTransaction } from '../../db/transaction';
import { fromCents, toCents } from '../../order/order-money';
import { queues } from '../../queue/queue.registry';
import { openCredentials } from '../../secret/credentials';
import { createTaskOnce } from '../../task/task.service';
import { storeEntriesIn } from '../bank-store.service';
import { clip, StatementEntry } from '../statement/statement.type';
import { listTransactions, PayPalTransaction, ProviderAuthError } from './paypal.client';
import { providerAccountRepository, ProviderAccountRow } from './provider-account.repository';

/** PayPal lists a payment up to three hours after it happened: each sync looks back that far again. */
const lateArrivalMs = 3 * 3_600_000;
/** A first sync fetches the last 31 days (one Transaction Search span). */
const firstSyncMs = 31 * 86_400_000;

function entryOf(t: PayPalTransaction): StatementEntry | null {
  const info = t.transaction_info ?? {};
  const value = info.transaction_amount?.value ?? '';
  const date = new Date(info.transaction_initiation_date ?? '');
  // Refunds, fees and withdrawals are negative; a payment without an id or date cannot be kept once.
  if (!/^-?\d{1,12}(\.\d{1,2})?$/.test(value) || toCents(value) <= 0n || !info.transaction_id || !Number.isFinite(date.getTime())) return null;
  const name = t.payer_info?.payer_name;
  const sender = name?.alternate_full_name ?? [name?.given_name, name?.surname].filter(Boolean).join(' ');
  const subject = [info.invoice_id, info.transaction_subject, info.transaction_note, info.custom_field].filter(Boolean).join(' ');
  return {
    reference: info.transaction_id,
    transferDate: date,
    sender: clip(sender, 255),
    subject: clip(subject, 1000),
    amount: fromCents(toCents(value)),
    currency: info.transaction_amount?.currency_code ?? 'EUR',
    payerReferences: [],
  };
}

const label = (account: ProviderAccountRow) => `payment provider account "${account.name}" (id ${account.id})`;

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
  jobId: string | null;
}

export async function syncProviderAccount(accountId: number, providerAccountId: number, jobId: string): Promise<SyncRun> {
  const account = await providerAccountRepository.get(accountId, providerAccountId);
  if (!account) throw noLongerExists(`payment provider account ${providerAccountId}`);
  const end = new Date();
  const start = account.synced_until ? new Date(account.synced_until.getTime() - lateArrivalMs) : new Date(end.getTime() - firstSyncMs);
  let transactions: PayPalTransaction[];
  try {
    // Opened here and handed to the client only, as a portal account's are in portal-target.repository.
    const credentials = openCredentials('payment_provider_account', account.credentials);
    transactions = await listTransactions({ baseUrl: account.base_url, credentials }, start, end);
  } catch (err) {
    if (!(err instanceof ProviderAuthError)) throw err;
    const message = `${label(account)}: ${err.message}; check its client_id and client_secret`;
    await providerAccountRepository.setError(accountId, account.id, message);
    await createTaskOnce(
      accountId,
      { title: `Payment provider sync failed: ${account.name}`, text: message, priority: 'high', reference: { section: 'bank', id: String(account.id) } },
      jobId,
    );
    throw portalRefused(message);
  }
  const entries = transactions.map(entryOf).filter((e): e is StatementEntry => e !== null);
  const stored = await inTransaction(async (trx) => {
    const result = await storeEntriesIn(trx, accountId, 'payment_provider', entries, 'completed');
    await providerAccountRepository.setSynced(trx, accountId, account.id, end);
    return result;
  });
  return { fetched: transactions.length, stored: stored.stored, jobId: stored.jobId };
}
