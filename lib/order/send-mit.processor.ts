import { DelayedError } from 'bullmq';
import { db } from '../db';
import { outboxRepository, defineProcessors } from '../queue';
import { runSendMit } from './send-mit-run.service';
import { SendMitWaits } from './send-mit-hold';

/** The processors of the mail queue (workers/mail.ts): send_mit. */
export const sendMitProcessors = defineProcessors('mail', {
  'order.send_mit': (data, job, token) =>
    runSendMit(data, {
      jobId: String(job.id),
      lastAttempt: job.attemptsMade + 1 >= (job.opts.attempts ?? 1),
      // Both stores, each whatever the other does, then the first failure thrown: the retry reads
      // the job's data in Redis, and the outbox repair re-adds a job Redis lost from its row. A
      // Postgres error (or a lock wait) before the Redis write lost the mark of a step done, and
      // the retry mailed the buyer again (lib/order README, "Each step done is saved").
      save: async (progress) => {
        const kept = await Promise.allSettled([
          outboxRepository.saveProgress(db(), String(job.id), progress),
          job.updateData({ ...data, progress: { ...progress } }),
        ]);
        const failed = kept.find((k) => k.status === 'rejected');
        if (failed) throw failed.reason;
      },
    }).catch(async (err: unknown) => {
      // A portal's hold (send-mit-hold.ts): delayed without spending a try (BullMQ's skipAttempt), queued again after the wait.
      if (!(err instanceof SendMitWaits)) throw err;
      await job.moveToDelayed(Date.now() + err.delayMs, token);
      throw new DelayedError();
    }),
});
