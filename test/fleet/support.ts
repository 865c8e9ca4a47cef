/**
 * Fleet test support: queue names of this run kept apart by a key prefix, the sandbox portal
 * in-process on an ephemeral port, the relay and the workers in-process, and bounded waits.
 */
import { expect } from 'chai';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Worker } from 'bullmq';
import { config, setConfig } from '../../config';
import { db } from '../../lib/db/knex';
import { ciaProcessors } from '../../lib/cia/cia.processor';
import { sendMitProcessors } from '../../lib/order/send-mit.processor';
import { portalUploadProcessors } from '../../lib/portal-offer/portal-upload.processor';
import { closeQueues, QueueRegistry, queues } from '../../lib/queue/queue.registry';
import { OutboxRelay } from '../../lib/queue/relay';
import { startWorker } from '../../lib/queue/worker';
import { createSandbox, SandboxState } from '../../sandbox/sandbox.app';
import { call } from '../support/api';

// Every run has its own queues in the shared Redis; retries are quick; the portal rate is high
// unless a test lowers it.
setConfig({ ...config(), queuePrefix: `kt-fleet-${process.pid}-${Date.now()}`, jobBackoffMs: 50, portalCallsPerSecond: 1000, jobAttempts: 5 });
// Queues made before (by other test files of the same run) name the old prefix: start afresh.
void closeQueues();

/** Polls until the check returns a value other than undefined/false, or fails after the timeout. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 10000,
  everyMs = 25,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value as T;
    } catch (err) {
      last = err;
    }
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

export interface Sandbox {
  state: SandboxState;
  url: string;
  close(): Promise<void>;
}

/** The sandbox portal on an ephemeral port; portal accounts without base_url call it. */
export async function startSandbox(): Promise<Sandbox> {
  const { app, state } = createSandbox();
  // The fleet's suites push CIA quantities to eBay for items they never list there: the seller's
  // eBay account holds their inventory items (sandbox/ebay-state.sandbox.ts itemsMadeElsewhere).
  state.ebay.itemsMadeElsewhere = true;
  const server: Server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  setConfig({ ...config(), sandboxPortalUrl: url, unconnectedPortalUrl: url });
  return {
    state,
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * The sandbox for the enclosing describe block (`started` receives it); every test of the block
 * ends by asserting that the sandbox recorded no violation of the vendor's published contract.
 */
export function sandboxKeepingContract(vendor: 'ebay' | 'amazon' | 'kaufland' | 'shopify', started: (sandbox: Sandbox) => void): void {
  let sandbox: Sandbox | undefined;
  before(async () => {
    sandbox = await startSandbox();
    started(sandbox);
  });
  after(async () => {
    await sandbox?.close();
  });
  afterEach(async () => {
    const violations = (await (await fetch(`${sandbox!.url}/_sandbox/violations?vendor=${vendor}`)).json()) as unknown[];
    expect(violations, JSON.stringify(violations)).to.deep.equal([]);
  });
}

/**
 * Test files that run no relay leave their outbox rows pending; a fleet started later would
 * first work through that backlog of other sellers' jobs. Marks them relayed, so that a test
 * measures its own seller's jobs only.
 */
export async function forgetOtherSellersBacklog(accountId = 0): Promise<void> {
  await db()('outbox').whereNull('relayed_at').whereNot({ account_id: accountId }).update({ relayed_at: db().fn.now() });
}

export interface Fleet {
  relay: OutboxRelay;
  workers: Worker[];
  stop(): Promise<void>;
}

/** The relay and the cia and portal_upload workers, in this process. */
export async function startFleet(options: { queues?: QueueRegistry; lockDuration?: number; only?: ('cia' | 'portal_upload')[] } = {}): Promise<Fleet> {
  const relay = new OutboxRelay({ queues: options.queues ?? queues(), pollMs: 60000, repairEveryMs: 0 });
  await relay.start();
  const common = { skipEvictionCheck: true, registerShutdown: false, lockDuration: options.lockDuration, stalledInterval: options.lockDuration };
  const only = options.only ?? ['cia', 'portal_upload'];
  const workers: Worker[] = [];
  if (only.includes('cia')) workers.push(await startWorker('cia', ciaProcessors, { ...common, concurrency: 4 }));
  if (only.includes('portal_upload')) workers.push(await startWorker('portal_upload', portalUploadProcessors, { ...common, concurrency: 8 }));
  return {
    relay,
    workers,
    async stop() {
      await relay.stop();
      for (const w of workers) await w.close(true);
    },
  };
}

export { closeQueues };

/**
 * The sandbox and every worker for a describe block: started once before its tests (other
 * sellers' backlog set aside), stopped after them. Read `.sandbox` inside the tests.
 */
export function withSandboxAndFleet(): { readonly sandbox: Sandbox } {
  const running = {} as { sandbox: Sandbox; fleet: Fleet };
  before(async () => {
    running.sandbox = await startSandbox();
    await forgetOtherSellersBacklog();
    running.fleet = await startFleet();
  });
  after(async () => {
    await running.fleet?.stop();
    await running.sandbox?.close();
  });
  return running;
}

/**
 * A channel's whole loop for the enclosing describe block: the sandbox, the fleet (relay, CIA and
 * upload workers) and the mail worker (send_mit); `started` receives the sandbox and the fleet.
 * Every test ends by asserting that the sandbox recorded no violation of any vendor's contract.
 */
export function channelLoopForSuite(started: (loop: { sandbox: Sandbox; fleet: Fleet }) => void): void {
  let sandbox: Sandbox | undefined;
  let fleet: Fleet | undefined;
  let mail: Worker | undefined;
  before(async () => {
    sandbox = await startSandbox();
    await forgetOtherSellersBacklog();
    fleet = await startFleet();
    mail = await startWorker('mail', sendMitProcessors, { skipEvictionCheck: true, registerShutdown: false });
    started({ sandbox, fleet });
  });
  after(async () => {
    await mail?.close(true);
    await fleet?.stop();
    await sandbox?.close();
  });
  afterEach(async () => {
    const violations = (await (await fetch(`${sandbox!.url}/_sandbox/violations`)).json()) as unknown[];
    expect(violations, JSON.stringify(violations)).to.deep.equal([]);
  });
}

/** A job's end as GET job/{job_id}/ answers it (completed or failed). */
export const jobEnd = (token: string, jobId: string) =>
  waitFor(
    'the job to end',
    async () => {
      const j = (await call(`job/${jobId}/`, { token })).body.job as { state: string; error?: string; result?: unknown; finished_date?: string } | undefined;
      return j && (j.state === 'completed' || j.state === 'failed') && j.finished_date ? j : undefined;
    },
    20000,
  );

/** POST stock/{id}/portal_upload/ with one part (207, the part 202), run by the fleet to its end. */
export async function uploadToEnd(token: string, stockId: number, portalUpload: Record<string, unknown>) {
  const res = await call(`stock/${stockId}/portal_upload/`, { token, body: { portal_upload: portalUpload } });
  expect(res.status, res.text).to.equal(207);
  const part = (res.body.response as { code: number; job_id: string }[])[0]!;
  expect(part.code, res.text).to.equal(202);
  return jobEnd(token, part.job_id);
}
