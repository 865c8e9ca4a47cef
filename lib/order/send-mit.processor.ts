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
      // Postgres first: a Redis restart without persistence loses the job's data, and the
      // outbox repair then re-adds the job from its row, steps done included.
      save: async (progress) => {
        await outboxRepository.saveProgress(db(), String(job.id), progress);
        await job.updateData({ ...data, progress: { ...progress } });
      },
    }).catch(async (err: unknown) => {
      // A portal's hold (send-mit-hold.ts): delayed without spending a try (BullMQ's skipAttempt), queued again after the wait.
      if (!(err instanceof SendMitWaits)) throw err;
      await job.moveToDelayed(Date.now() + err.delayMs, token);
      throw new DelayedError();
    }),
});
