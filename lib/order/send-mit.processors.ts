import type { Job } from 'bullmq';
import type { JobPayloads } from '../queue/jobs';
import type { Processor } from '../queue/worker';
import { runSendMit } from './send-mit.run';

/** The send_mit processor of the mail queue (workers/mail.ts). */
export const sendMitProcessors: Record<string, Processor> = {
  'order.send_mit': (job: Job) => {
    const data = job.data as JobPayloads['order.send_mit'];
    return runSendMit(data, {
      jobId: String(job.id),
      lastAttempt: job.attemptsMade + 1 >= (job.opts.attempts ?? 1),
      save: (progress) => job.updateData({ ...data, progress: { ...progress } }),
    });
  },
};
