/** The events worker process in the test process: the outbox relay, the BullMQ worker of the events queue and the webhook sweep. */
import { eventProcessors } from '../../lib/event/event.processor';
import { settleUnhandledEvents } from '../../lib/event/event-settle';
import { WebhookSweeper } from '../../lib/event/webhook-sweeper';
import { OutboxRelay } from '../../lib/queue/relay';
import { startWorker } from '../../lib/queue/worker';

export interface EventsWorker {
  sweeper: WebhookSweeper;
  /** Stops what the worker process would stop on SIGTERM: the worker, the sweep, the relay. */
  stop(): Promise<void>;
}

/** Quick cadences (relay poll 100 ms, sweep every 50 ms, no repair or prune timers) so tests wait little (4 jobs at once unless `concurrency` says); the relay merges rows and settles events no handler takes as workers/run.ts's does. */
export async function startEventsWorker(options: { concurrency?: number } = {}): Promise<EventsWorker> {
  const relay = new OutboxRelay({ pollMs: 100, repairEveryMs: 0, merge: true, settle: settleUnhandledEvents });
  await relay.start();
  const worker = await startWorker('events', eventProcessors, { skipEvictionCheck: true, registerShutdown: false, concurrency: options.concurrency ?? 4 });
  const sweeper = new WebhookSweeper({ everyMs: 50, pruneEveryMs: 0 });
  sweeper.start();
  return {
    sweeper,
    async stop() {
      await worker.close();
      await sweeper.stop();
      await relay.stop();
    },
  };
}
