/** The bank worker and the outbox relay in the test process, on queues of their own. */
import crypto from 'node:crypto';
import { config, setConfig } from '../../config';
import { bankProcessors } from '../../lib/bank/bank.processor';
import { closeQueues } from '../../lib/queue/queue.registry';
import { OutboxRelay } from '../../lib/queue/relay';
import { startWorker } from '../../lib/queue/worker';

/** Starts them (quick retries); stop() closes them and gives the configuration back. */
export async function startBankWorker(name: string): Promise<{ stop(): Promise<void> }> {
  const original = config();
  await closeQueues();
  setConfig({ ...original, queuePrefix: `test-${name}-${crypto.randomBytes(4).toString('hex')}`, jobBackoffMs: 50, jobAttempts: 3 });
  const relay = new OutboxRelay({ pollMs: 100, repairEveryMs: 0 });
  await relay.start();
  const worker = await startWorker('bank', bankProcessors, { skipEvictionCheck: true, registerShutdown: false });
  return {
    async stop() {
      await worker.close();
      await relay.stop();
      await closeQueues();
      setConfig(original);
    },
  };
}
