import { defineProcessors } from '../queue/processors';
import { runSendMit } from './send-mit-run.service';

/** The processors of the mail queue (workers/mail.ts): send_mit. */
export const sendMitProcessors = defineProcessors('mail', {
  'order.send_mit': (data, job) => runSendMit(data, {
    jobId: String(job.id),
    lastAttempt: job.attemptsMade + 1 >= (job.opts.attempts ?? 1),
    save: (progress) => job.updateData({ ...data, progress: { ...progress } }),
  }),
});
