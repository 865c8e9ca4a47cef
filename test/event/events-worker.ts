/** The events worker process in the test process: the outbox relay, the BullMQ worker of the events queue and the webhook sweep. */
import crypto from 'node:crypto';
import { Config, config, setConfig } from '../../config';
import { eventProcessors } from '../../lib/event/event.processor';
import { settleUnhandledEvents } from '../../lib/event/event-settle';
import { WebhookSweeper } from '../../lib/event/webhook-sweeper';
import { OutboxRelay } from '../../lib/queue/relay';
import { closeMailer } from '../../lib/mail/mailer';
import { closeQueues } from '../../lib/queue/queue.registry';
import { startWorker } from '../../lib/queue/worker';
import { Answer, CaughtMail, MailCatcher, Received, Receiver, startMailCatcher, startReceiver } from './servers';

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

/** What useEventsWorker gives a describe block, once its before hook ran. */
export interface EventsSetting {
  readonly events: EventsWorker;
  /** The webhook receiver (answers 204 unless told otherwise). */
  readonly receiver: Receiver;
  /** The settings before the block's own. */
  readonly original: Config;
  /** The mails sent (SMTP_URL is a catcher's), with `mail: true`. */
  readonly mails: CaughtMail[];
  /** The worker process goes and Redis loses its data (a fresh queue prefix); `meanwhile` runs before it starts again. */
  restart(meanwhile?: () => void): Promise<void>;
}

/**
 * A describe block's events worker with a webhook receiver and settings of its own: a queue prefix
 * no other file uses, and `settings()` (read as the block starts, so it may name a server an earlier
 * before hook started). After the block the worker stops, the queues and the mailer close and the
 * settings are restored. `start: false`: the block starts its workers itself.
 */
export function useEventsWorker(
  name: string,
  options: { answer?: (r: Received) => Answer; settings?: () => Partial<Config>; concurrency?: number; start?: boolean; mail?: boolean } = {},
): EventsSetting {
  const prefix = () => `test-${name}-${crypto.randomBytes(4).toString('hex')}`;
  let events: EventsWorker | undefined;
  let receiver: Receiver | undefined;
  let catcher: MailCatcher | undefined;
  let original: Config | undefined;
  before(async () => {
    original = config();
    await closeQueues();
    receiver = await startReceiver(options.answer ?? (() => ({ status: 204 })));
    if (options.mail) catcher = await startMailCatcher();
    const mail = catcher ? { smtpUrl: catcher.url } : {};
    setConfig({ ...original, queuePrefix: prefix(), ...mail, ...options.settings?.() });
    if (options.start !== false) events = await startEventsWorker({ concurrency: options.concurrency });
  });
  after(async () => {
    await events?.stop();
    await closeQueues();
    closeMailer();
    if (original) setConfig(original);
    await receiver?.close();
    await catcher?.close();
  });
  return {
    get events() {
      return events!;
    },
    get receiver() {
      return receiver!;
    },
    get original() {
      return original!;
    },
    get mails() {
      return catcher!.mails;
    },
    async restart(meanwhile) {
      await events?.stop();
      await closeQueues();
      setConfig({ ...config(), queuePrefix: prefix() });
      meanwhile?.();
      events = await startEventsWorker({ concurrency: options.concurrency });
    },
  };
}
