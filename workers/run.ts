import { config } from '../config';
import { guardProcessStart } from '../config/safety';
import { closeDb } from '../lib/db/knex';
import { log } from '../lib/log';
import { pushProcessMetrics } from '../lib/operator/metrics-push';
import { startQueueRecovery } from '../lib/queue-recovery/queue-recovery';
import { closeQueues, queues } from '../lib/queue/queue.registry';
import type { QueueName } from '../lib/queue/queues';
import { OutboxRelay } from '../lib/queue/relay';
import type { Processors } from '../lib/queue/processors';
import { startWorker } from '../lib/queue/worker';
import { closeRedis } from '../lib/redis';
import { developmentKeyWarning } from '../lib/secret/credentials';
import { handleSignals, onShutdown } from '../lib/shutdown';
// Provides lib/order's grant queries to the lower domains that read through them (lib/access/order-grant.ts).
import '../lib/order/order-grant.repository';

/** A further queue a worker process runs beside its own (order_import in the portal_upload process). */
export type AlsoRun = { [Q in QueueName]: { queue: Q; processors: Processors<Q> } }[QueueName];

/**
 * The body of every worker entry: pools closed last, the outbox relay (one in every worker
 * process; SKIP LOCKED lets them share the work, and any single worker keeps the outbox
 * moving), then the worker, signals handled. Shutdown runs in reverse: worker (finishes the
 * job in hand), relay, queues, Redis, Knex.
 */
export function runWorkerProcess<Q extends QueueName>(queue: Q, processors: Processors<Q>, ...also: AlsoRun[]): void {
  // No start without CREDENTIALS_KEY in production; every unsafe setting named in the log.
  guardProcessStart(config(), queue, (line) => log.warn(line));
  onShutdown('knex', closeDb);
  onShutdown('redis', closeRedis);
  onShutdown('queues', closeQueues);
  handleSignals();
  pushProcessMetrics(queue);
  // Workers open the credentials they call portals with: say so when the key protects nothing.
  const keyWarning = developmentKeyWarning();
  if (keyWarning) log.warn(keyWarning);
  // Worker processes carry the cia.adjust rows of one account that a pass takes as one job.
  const relay = new OutboxRelay({ merge: true });
  onShutdown('outbox relay', () => relay.stop());
  const watch = startQueueRecovery(relay, queues());
  onShutdown('redis watch', () => watch.stop());
  relay
    .start()
    .then(() => Promise.all([startWorker(queue, processors), ...also.map((a) => startWorker(a.queue, a.processors as Processors<typeof a.queue>))]))
    .catch((err) => {
      log.fatal({ err, queue }, 'worker could not start');
      process.exit(1);
    });
}
