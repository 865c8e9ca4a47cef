import { config } from '../../config';
import { log } from '../log';
import { webhookDeliveryRepository as deliveries } from './webhook-delivery.repository';
import { attemptDelivery } from './webhook-delivery.service';

export interface SweeperOptions {
  /** How often due deliveries are looked for, in ms (default WEBHOOK_SWEEP_MS). */
  everyMs?: number;
  /** Deliveries attempted at once (default WORKER_CONCURRENCY). */
  batch?: number;
  /** How often the log is pruned, in ms (default hourly); 0: never. */
  pruneEveryMs?: number;
}

/**
 * The retries of webhook deliveries, from Postgres: every events worker runs one. Each turn
 * claims the deliveries due (FOR UPDATE SKIP LOCKED, and a lease: a worker killed during an
 * attempt hands its delivery back when the lease is over) and attempts them. Nothing of a
 * retry lives in Redis, so a delivery waiting for hours survives restarts of workers and of
 * Redis alike, and its attempt count and backoff go on where they were. Attempts are not awaited
 * as a batch: a turn claims only as many as there is room for beside those in flight, so slow
 * receivers hold their own places, never the next turn (issue 31, fairness between sellers).
 */
export class WebhookSweeper {
  private timers: NodeJS.Timeout[] = [];
  private claiming: Promise<void> | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  private failures = 0;
  private readonly everyMs: number;
  private readonly batch: number;
  private readonly pruneEveryMs: number;

  constructor(options: SweeperOptions = {}) {
    this.everyMs = options.everyMs ?? config().webhookSweepMs;
    this.batch = options.batch ?? config().workerConcurrency;
    this.pruneEveryMs = options.pruneEveryMs ?? 3600 * 1000;
  }

  start(): void {
    this.timers.push(setInterval(() => this.kick(), this.everyMs));
    if (this.pruneEveryMs > 0)
      this.timers.push(
        setInterval(() => {
          void this.prune();
        }, this.pruneEveryMs),
      );
  }

  /** Stops; attempts in hand finish (their deliveries are settled, not left to the lease). */
  async stop(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    await this.claiming;
    await Promise.all([...this.inFlight]);
  }

  /** One claim at a time; it takes what there is room for. */
  kick(): void {
    if (this.claiming) return;
    this.claiming = this.claim()
      .then(() => {
        this.failures = 0;
      })
      .catch((err: Error) => this.warn(err, 'webhook sweep failed; the next turn tries again'))
      .finally(() => {
        this.claiming = undefined;
      });
  }

  private warn(err: Error, message: string): void {
    this.failures += 1;
    if (this.failures % 30 === 1) log.warn({ err: err.message }, message);
  }

  /** Claims due deliveries while there is room beside the attempts in flight, and starts them. */
  private async claim(): Promise<number> {
    const lease = Math.ceil(config().webhookTimeoutMs / 1000) + 60;
    let started = 0;
    for (;;) {
      const room = this.batch - this.inFlight.size;
      if (room <= 0) return started;
      const due = await deliveries.claimDue(room, lease);
      for (const d of due) {
        const attempt: Promise<void> = attemptDelivery(d, d.next_trigger === 'resume' ? 'resume' : d.attempts === 0 ? 'event' : 'retry')
          .then(() => undefined)
          .catch((err: Error) => this.warn(err, 'webhook attempt failed; its lease hands it back'))
          .finally(() => this.inFlight.delete(attempt));
        this.inFlight.add(attempt);
      }
      started += due.length;
      if (due.length < room) return started;
    }
  }

  /** Attempts every delivery due now and waits for them; returns how many were started. */
  async sweep(): Promise<number> {
    const started = await this.claim();
    await Promise.all([...this.inFlight]);
    return started;
  }

  /** Keeps the log within WEBHOOK_LOG_RETENTION_DAYS and WEBHOOK_LOG_MAX_PER_HANDLER. */
  async prune(): Promise<number> {
    try {
      return await deliveries.prune(config().webhookLogRetentionDays, config().webhookLogMaxPerHandler);
    } catch (err) {
      log.warn({ err: (err as Error).message }, 'webhook log prune failed; the next turn tries again');
      return 0;
    }
  }
}
