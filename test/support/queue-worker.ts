/** One queue's worker and the outbox relay in the test process, on queues of their own. */
import crypto from 'node:crypto';
import { config, setConfig } from '../../config';
import type { Processors } from '../../lib/queue/processors';
import { closeQueues } from '../../lib/queue/queue.registry';
import type { QueueName } from '../../lib/queue/queues';
import { OutboxRelay } from '../../lib/queue/relay';
import { startWorker } from '../../lib/queue/worker';

/** Starts them (quick retries); stop() closes them and gives the configuration back. */
export async function startQueueWorker<Q extends QueueName>(queue: Q, processors: Processors<Q>, name: string): Promise<{ stop(): Promise<void> }> {
  const original = config();
  await closeQueues();
  setConfig({ ...original, queuePrefix: `test-${name}-${crypto.randomBytes(4).toString('hex')}`, jobBackoffMs: 50, jobAttempts: 3 });
  const relay = new OutboxRelay({ pollMs: 100, repairEveryMs: 0 });
  await relay.start();
  const worker = await startWorker(queue, processors, { skipEvictionCheck: true, registerShutdown: false });
  return {
    async stop() {
      await worker.close();
      await relay.stop();
      await closeQueues();
      setConfig(original);
    },
  };
}
