import { config } from '../config';
import { guardProcessStart } from '../config/safety';
import { closeDb } from '../lib/db';
import { log } from '../lib/log';
import { pushProcessMetrics } from '../lib/metrics';
import { startQueueRecovery } from '../lib/queue-recovery';
import { closeQueues, queues, OutboxRelay, startWorker } from '../lib/queue';
import type { QueueName, Processors } from '../lib/queue';
import { closeRedis } from '../lib/redis';
import { developmentKeyWarning } from '../lib/secret';
import { handleSignals, onShutdown } from '../lib/shutdown';
import { provideOrderGrant } from '../lib/order';
import { provideClientAccessHandlers, provideStockEventTargets, settleUnhandledEvents } from '../lib/event';
import { provideEbayListings } from '../lib/portal-offer';

// lib/order's grant queries, which lib/customer and lib/stock read through lib/access/order-grant.ts.
provideOrderGrant();
// lib/event's handler look-up, with which lib/stock checks cia.event target[] (a worker may write
// an item: the eBay take-over).
provideStockEventTargets();
// lib/event's deletion of a client's handlers with its client access (lib/auth/client-access-going.ts): the expired-tokens cleanup.
provideClientAccessHandlers();
// lib/portal-offer's record of an item's eBay listings, by which a save warns of no SKU eBay holds a listing under (lib/stock/stock-ebay-sku.ts).
provideEbayListings();

/** A further queue a worker process runs beside its own (order_import in the portal_upload process). */
export type AlsoRun = { [Q in QueueName]: { queue: Q; processors: Processors<Q> } }[QueueName];

/**
 * The body of every worker entry: pools closed last, the outbox relay (one in every worker
 * process; one leads at a time, the others stand by to take over, so any single worker keeps
 * the outbox moving: lib/queue/README.md), then the worker, signals handled. Shutdown runs in reverse: worker (finishes the
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
  // Worker processes carry the cia.adjust rows of one account that a pass takes as one job, and
  // finish the events no handler takes without one.
  const relay = new OutboxRelay({ merge: true, settle: settleUnhandledEvents });
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
