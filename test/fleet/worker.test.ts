import { expect } from 'chai';
import type { Job } from 'bullmq';
import { config } from '../../config';
import { notFound, retryLater } from '../../lib/errors';
import { defineProcessors } from '../../lib/queue/processors';
import { queues } from '../../lib/queue/queue.registry';
import type { Processors } from '../../lib/queue/processors';
import { concurrencyOf, startWorker } from '../../lib/queue/worker';

/**
 * Test-only job names on the bank queue: the worker's own machinery (close, unknown names,
 * retries) is what these tests exercise, not the catalog, so the catalog's typing is stepped over.
 */
const testProcessors = (handlers: Record<string, (job: Job) => Promise<unknown>>) => handlers as unknown as Processors<'bank'>;
import { waitFor } from './support';

describe('fleet: workers', () => {
  it('when a worker is closed with a job in hand, then the job finishes before the close returns', async () => {
    let finished = false;
    const worker = await startWorker(
      'bank',
      testProcessors({
        'test.slow': async (_job: Job) => {
          await new Promise((resolve) => setTimeout(resolve, 400));
          finished = true;
          return { ok: true };
        },
      }),
      { skipEvictionCheck: true, registerShutdown: false, concurrency: 1 },
    );
    const job = await queues()
      .get('bank')
      .add('test.slow', {}, { jobId: `slow-${Date.now()}` });
    await waitFor('the job active', async () => (await job.getState()) === 'active');
    await worker.close();
    expect(finished).to.equal(true);
    expect(await job.getState()).to.equal('completed');
  });

  it('when a job has no processor, then it fails at once without retries', async () => {
    const worker = await startWorker('bank', testProcessors({}), { skipEvictionCheck: true, registerShutdown: false });
    try {
      const job = await queues()
        .get('bank')
        .add('test.unknown', {}, { jobId: `unknown-${Date.now()}`, attempts: 5 });
      await waitFor('the job failed', async () => (await job.getState()) === 'failed');
      const failed = await queues().get('bank').getJob(job.id!);
      expect(failed?.attemptsMade).to.equal(1);
      expect(failed?.failedReason).to.contain('no processor for job test.unknown');
    } finally {
      await worker.close();
    }
  });

  it('when a processor throws, then the job is retried with exponential backoff up to the configured tries, then lands in the failed set', async () => {
    const tries: number[] = [];
    const worker = await startWorker(
      'bank',
      testProcessors({
        'test.flaky': async () => {
          tries.push(Date.now());
          throw new Error('not yet');
        },
      }),
      { skipEvictionCheck: true, registerShutdown: false },
    );
    try {
      const job = await queues()
        .get('bank')
        .add('test.flaky', {}, { jobId: `flaky-${Date.now()}`, attempts: 4, backoff: { type: 'exponential', delay: 250 } });
      await waitFor('the job failed for good', async () => (await job.getState()) === 'failed', 10000);
      expect(tries).to.have.length(4);
      const gaps = tries.slice(1).map((t, i) => t - tries[i]!);
      // 250, 500, 1000 ms: a loaded machine only lengthens a wait, so each is at least its nominal
      // delay (less a timer's tolerance), and the third is well over twice the first.
      [250, 500, 1000].forEach((nominal, i) => expect(gaps[i]!).to.be.at.least(nominal - 10));
      expect(gaps[2]!).to.be.above(gaps[0]! * 2);
    } finally {
      await worker.close();
    }
  });

  /** Runs a send_mit job whose processor always throws `error`; how often it ran and how the job ended. */
  async function failingJob(error: () => Error, attempts: number): Promise<{ tries: number; attemptsMade?: number; failedReason?: string }> {
    let tries = 0;
    const worker = await startWorker(
      'mail',
      defineProcessors('mail', {
        'order.send_mit': async () => {
          tries++;
          throw error();
        },
      }),
      { skipEvictionCheck: true, registerShutdown: false },
    );
    try {
      const job = await queues()
        .get('mail')
        .add('order.send_mit', {}, { jobId: `failing-${Date.now()}`, attempts, backoff: { type: 'fixed', delay: 50 } });
      await waitFor('the job failed for good', async () => (await job.getState()) === 'failed', 10000);
      const failed = await queues().get('mail').getJob(job.id!);
      return { tries, attemptsMade: failed?.attemptsMade, failedReason: failed?.failedReason };
    } finally {
      await worker.close();
    }
  }

  it('when a processor throws a permanent domain error (not found), then the job fails at once without retries', async () => {
    const run = await failingJob(() => notFound('order 1_2026_1'), 5);
    expect(run.attemptsMade).to.equal(1);
    expect(run.failedReason).to.equal('order 1_2026_1 does not exist');
    expect(run.tries).to.equal(1);
  });

  it('when a processor throws a retryable domain error (retry later), then the job is retried up to its tries', async () => {
    const run = await failingJob(retryLater, 3);
    expect(run.attemptsMade).to.equal(3);
    expect(run.tries).to.equal(3);
  });

  it('when concurrency is configured per queue, then each worker takes its own', () => {
    expect(concurrencyOf('cia')).to.equal(config().ciaWorkerConcurrency);
    expect(concurrencyOf('portal_upload')).to.equal(config().portalUploadWorkerConcurrency);
    expect(concurrencyOf('mail')).to.equal(config().workerConcurrency);
  });
});
