/** The bank worker and the outbox relay in the test process, on queues of their own; statements posted as a client posts them. */
import { expect } from 'chai';
import { bankProcessors } from '../../lib/bank/bank.processor';
import { waitFor } from '../event/servers';
import { createOrder } from '../order/helpers';
import { call, query, Seller } from '../support/api';
import { startQueueWorker } from '../support/queue-worker';

export const startBankWorker = (name: string) => startQueueWorker('bank', bankProcessors, name);

/** The bank worker for the suite around the call (mocha's before and after): statements' matching jobs run. */
export function bankWorkerForSuite(name: string): void {
  let worker: { stop(): Promise<void> } | undefined;
  before(async () => {
    worker = await startBankWorker(name);
  });
  after(async () => {
    await worker?.stop();
  });
}

/**
 * Posts a statement file to POST bank/statement/ and, when the import queued its bank.match job
 * (202), waits until the job completed; a file that stored nothing is answered 200 without one.
 * Returns the answer's statement counts.
 */
export async function importStatement(s: Seller, body: Buffer, token = s.token): Promise<Record<string, unknown>> {
  const res = await call('bank/statement/', { token, body, headers: { 'Content-Type': 'application/octet-stream' } });
  expect(res.body.ack, res.text).to.equal('success');
  const jobId = res.body.job_id as string | undefined;
  expect(res.status, res.text).to.equal(jobId ? 202 : 200);
  if (jobId) {
    await waitFor(async () => {
      const job = (await call(`job/${jobId}/`, { token: s.token })).body.job as Record<string, unknown> | undefined;
      return job && job.state === 'completed' && job.finished_date ? job : undefined;
    }, `job ${jobId}`);
  }
  return res.body.statement as Record<string, unknown>;
}

/** An order of one line at price whose buyer (billing name) pays it by transfer. */
export const orderPaidBy = (s: Seller, price: string, name = 'Jürgen Müller') =>
  createOrder(s, { customer: { email: 'buyer@example.com', address: { name } }, line: [{ id: 1, price, quantity: 1 }] });

/** The seller's bank transfers as GET bank/transfer/ answers them (up to 100), typed as the caller reads them. */
export async function bankTransfers<T>(s: Seller): Promise<T[]> {
  const res = await call(`bank/transfer/?${query({ pagination: { limit: 100 } })}`, { token: s.token });
  expect(res.status, res.text).to.equal(200);
  return res.body.bank as T[];
}
