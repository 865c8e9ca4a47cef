import type { Job } from 'bullmq';
import type { JobPayloads } from '../queue/jobs';
import type { Processor } from '../queue/worker';
import { adjustItem } from './cia.service';
import { cleanupOutbox, reconcileAll } from './cia-reconcile.service';

/** Processors of the cia queue. */
export const ciaProcessors: Record<string, Processor> = {
  'cia.adjust': async (job: Job) => {
    const data = job.data as JobPayloads['cia.adjust'];
    // A reconcile re-queues pushes still pending (ids with the tick), e.g. after a failed push.
    return adjustItem(data.accountId, data.stockId, { tick: data.reason === 'reconcile' ? String(job.id) : undefined });
  },
  'cia.reconcile': async (job: Job) => reconcileAll((job.data as JobPayloads['cia.reconcile']).tick),
  'outbox.cleanup': async () => cleanupOutbox(),
};
