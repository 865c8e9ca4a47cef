import crypto from 'node:crypto';
import type { Worker } from 'bullmq';
import { config, setConfig } from '../../config';
import { closeMailer } from '../../lib/mail/mailer';
import { sendMitProcessors } from '../../lib/order/send-mit.processor';
import { closeQueues } from '../../lib/queue/queue.registry';
import { OutboxRelay } from '../../lib/queue/relay';
import { startWorker } from '../../lib/queue/worker';

export interface MailWorker {
  worker: Worker;
  relay: OutboxRelay;
  /** Stops both, closes the queues and the mailer, and gives back the configuration before. */
  stop(): Promise<void>;
}

/**
 * The mail worker (send_mit) and the outbox relay of a suite, on queues of their own and sending to
 * the SMTP server at smtpUrl, with quick retries (3 tries, 50 ms apart).
 */
export async function startMailWorker(smtpUrl: string): Promise<MailWorker> {
  const original = config();
  await closeQueues();
  setConfig({ ...original, queuePrefix: `mail${crypto.randomBytes(4).toString('hex')}`, jobBackoffMs: 50, jobAttempts: 3, smtpUrl });
  const relay = new OutboxRelay({ pollMs: 100, repairEveryMs: 0 });
  await relay.start();
  const worker = await startWorker('mail', sendMitProcessors, { skipEvictionCheck: true, registerShutdown: false });
  return {
    worker,
    relay,
    async stop() {
      await worker.close();
      await relay.stop();
      await closeQueues();
      closeMailer();
      setConfig(original);
    },
  };
}
