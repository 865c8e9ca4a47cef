import type { Job } from 'bullmq';
import { db } from '../db/knex';
import type { JobPayloads } from '../queue/jobs';
import { outboxRepository } from '../queue/outbox.repository';
import type { Processor } from '../queue/worker';
import { runSendMit } from './send-mit.run';

/** The send_mit processor of the mail queue (workers/mail.ts). */
export const sendMitProcessors: Record<string, Processor> = {
  'order.send_mit': (job: Job) => {
    const data = job.data as JobPayloads['order.send_mit'];
    return runSendMit(data, {
      jobId: String(job.id),
      lastAttempt: job.attemptsMade + 1 >= (job.opts.attempts ?? 1),
      // Postgres first: a Redis restart without persistence loses the job's data, and the
      // outbox repair then re-adds the job from its row, steps done included.
      save: async (progress) => {
        await outboxRepository.saveProgress(db(), String(job.id), progress);
        await job.updateData({ ...data, progress: { ...progress } });
      },
    });
  },
};
