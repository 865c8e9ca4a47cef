import { closeDb } from '../lib/db/knex';
import { log } from '../lib/log';
import type { QueueName } from '../lib/queue/queues';
import { Processor, startWorker } from '../lib/queue/worker';
import { handleSignals, onShutdown } from '../lib/shutdown';

/** The body of every worker entry: pools closed last, the worker started, signals handled. */
export function runWorkerProcess(queue: QueueName, processors: Record<string, Processor>): void {
  onShutdown('knex', closeDb);
  handleSignals();
  startWorker(queue, processors).catch((err) => {
    log.fatal({ err, queue }, 'worker could not start');
    process.exit(1);
  });
}
