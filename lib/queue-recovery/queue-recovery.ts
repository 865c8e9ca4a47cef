import { queueWaitingPushes } from '../cia';
import { db } from '../db';
import type { QueueRegistry, OutboxRelay } from '../queue';
import { RedisWatch } from '../queue';

/**
 * What the leading relay does so that no job depends on Redis keeping its data: when Redis
 * comes back empty, every outbox job not finished is added again and a push is queued for every
 * state the portal has not acknowledged; periodically, pushes of states that have waited a
 * while without an error are queued again (adds coalesce, so a push that still waits absorbs them).
 */
export function startQueueRecovery(
  relay: OutboxRelay,
  queues: QueueRegistry,
  options: { everyMs?: number; periodicMs?: number; settledSeconds?: number } = {},
): RedisWatch {
  const { settledSeconds = 60, ...timing } = options;
  const watch = new RedisWatch({
    queues,
    active: () => relay.leading,
    onLost: async () => {
      await relay.repairSweep(1000, 0);
      await queueWaitingPushes(db(), queues);
    },
    periodic: async () => {
      await queueWaitingPushes(db(), queues, settledSeconds);
    },
    ...timing,
  });
  watch.start();
  return watch;
}
