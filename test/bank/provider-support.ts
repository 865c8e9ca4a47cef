/**
 * The payment provider tests' client: the sandbox PayPal in-process, the bank worker, a seller's
 * provider account connected through `kontor payment-provider connect`, the sandbox's PayPal
 * controls, one sync job run to its end, and what the seller sees afterwards.
 */
import crypto from 'node:crypto';
import { expect } from 'chai';
import type { Job } from 'bullmq';
import { config, setConfig } from '../../config';
import { db } from '../../lib/db/knex';
import { queues } from '../../lib/queue/queue.registry';
import { call, query, Seller } from '../support/api';
import { kontorWithInput } from '../support/cli';
import { waitFor } from '../event/servers';
import { Sandbox, startSandbox } from '../fleet/support';
import { startBankWorker } from './bank-worker';

export interface BankView {
  id: string;
  type: string;
  transfer_date: string;
  sender: string;
  subject: string;
  amount: string;
  status: string | null;
  order_id?: string;
  order_no?: string | null;
}

export interface ProviderWorld {
  sandbox: Sandbox;
  stop(): Promise<void>;
}

/** The sandbox and the bank worker, the sandbox's URL set only while they run. */
export async function startProviderWorld(name: string): Promise<ProviderWorld> {
  const original = config();
  const sandbox = await startSandbox();
  const worker = await startBankWorker(name);
  return {
    sandbox,
    async stop() {
      await worker.stop();
      await sandbox.close();
      setConfig(original);
    },
  };
}

/** Connects a PayPal account of the seller against the sandbox; answers its id and client_id. */
export async function connect(world: ProviderWorld, s: Seller, secret = 'sandbox-secret'): Promise<{ id: number; clientId: string }> {
  const clientId = `client-${crypto.randomBytes(4).toString('hex')}`;
  // The secret on standard input, as the README shows it (never in the process list).
  const res = await kontorWithInput(
    `${secret}\n`,
    'payment-provider',
    'connect',
    ...['--login', s.login, '--name', 'Shop PayPal', '--client-id', clientId, '--client-secret-stdin', '--base-url', world.sandbox.url],
  );
  expect(res.code, res.err).to.equal(0);
  return { id: (JSON.parse(res.out) as { id: number }).id, clientId };
}

/** POST to a sandbox control; answers the body. */
export async function control<T = Record<string, unknown>>(world: ProviderWorld, path: string, body: unknown, status = 201): Promise<T> {
  const res = await fetch(`${world.sandbox.url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status, await res.clone().text()).to.equal(status);
  return (await res.json()) as T;
}

/** A payment at the sandbox PayPal; answers its transaction id. */
export async function pay(world: ProviderWorld, fields: Record<string, unknown>): Promise<string> {
  return (await control<{ transaction_id: string }>(world, '/_sandbox/paypal/payments', fields)).transaction_id;
}

/** Changes a payment's status at PayPal (P to S or D, S to V). */
export const setStatus = (world: ProviderWorld, transactionId: string, status: string) =>
  control(world, `/_sandbox/paypal/payments/${transactionId}`, { status }, 200);

/** Runs one sync job of the provider account to its end (completed, or failed after its last try). */
export async function sync(s: Seller, providerAccountId: number): Promise<Job> {
  const jobId = `sync-${crypto.randomBytes(4).toString('hex')}`;
  await queues().add('bank.provider_sync', { accountId: s.id, providerAccountId, tick: 'test' }, jobId);
  return waitFor(async () => {
    // The state first, then the job: a job read before its last attempt ended shows that attempt's counts.
    const state = await queues().get('bank').getJobState(jobId);
    return state === 'completed' || state === 'failed' ? queues().get('bank').getJob(jobId) : undefined;
  }, `sync ${jobId}`);
}

/** GET bank/payment_provider/ as the seller. */
export async function payments(s: Seller): Promise<BankView[]> {
  const res = await call(`bank/payment_provider/?${query({ pagination: { limit: 100 } })}`, { token: s.token });
  expect(res.status, res.text).to.equal(200);
  return res.body.bank as BankView[];
}

/** The seller's open tasks from the provider sync (GET task/; the matching's own tasks left out). */
export async function openTasks(s: Seller): Promise<{ title: string; text: string; priority: string }[]> {
  const res = await call(`task/?${query({ filter: { is_completed: false } })}`, { token: s.token });
  expect(res.status, res.text).to.equal(200);
  return (res.body.task as { title: string; text: string; priority: string }[]).filter((t) => /^(Payment provider|PayPal)/.test(t.title));
}

/** The stored payment records: transaction id, amount and currency (the answer has no currency field). */
export async function storedPayments(s: Seller): Promise<{ entry_ref: string; amount: string; currency_id: string }[]> {
  return db()('bank').where({ account_id: s.id, type: 'payment_provider' }).orderBy('number').select('entry_ref', 'amount', 'currency_id');
}

/** What the seller reads on the provider account, and the payments remembered as pending. */
export async function providerAccount(s: Seller, id: number) {
  const account = (await db()('payment_provider_account').where({ account_id: s.id, id }).first()) as { last_error: string | null; synced_until: Date | null };
  const pending = (await db()('payment_provider_pending').where({ account_id: s.id, payment_provider_account_id: id }).orderBy('transaction_id')) as {
    transaction_id: string;
  }[];
  return { lastError: account.last_error, syncedUntil: account.synced_until, pending: pending.map((p) => p.transaction_id) };
}

/** The sandbox PayPal's answers to this client: status and query of each. */
export function asked(world: ProviderWorld, clientId: string): { status: number; query: Record<string, string> }[] {
  return world.sandbox.state.requests
    .filter((r) => r.portal === 'paypal' && r.portalAccount === clientId)
    .map((r) => ({ status: r.status, query: r.body as Record<string, string> }));
}
