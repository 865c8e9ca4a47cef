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
 * The retries of webhook deliveries, from Postgres: every events worker runs one. Each pass
 * claims the deliveries due (FOR UPDATE SKIP LOCKED, and a lease: a worker killed during an
 * attempt hands its delivery back when the lease is over) and attempts them. Nothing of a
 * retry lives in Redis, so a delivery waiting for hours survives restarts of workers and of
 * Redis alike, and its attempt count and backoff go on where they were.
 */
export class WebhookSweeper {
  private timers: NodeJS.Timeout[] = [];
  private running: Promise<void> | undefined;
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

  /** Stops; an attempt in hand finishes (its delivery is settled, not left to the lease). */
  async stop(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    await this.running;
  }

  /** One pass at a time; a pass takes batches until fewer than a batch are due. */
  kick(): void {
    if (this.running) return;
    this.running = this.sweep()
      .then(() => {
        this.failures = 0;
      })
      .catch((err: Error) => {
        this.failures += 1;
        if (this.failures % 30 === 1) log.warn({ err: err.message }, 'webhook sweep failed; the next turn tries again');
      })
      .finally(() => {
        this.running = undefined;
      });
  }

  /** Attempts every delivery due now; returns how many. */
  async sweep(): Promise<number> {
    let done = 0;
    const lease = Math.ceil(config().webhookTimeoutMs / 1000) + 60;
    for (;;) {
      const due = await deliveries.claimDue(this.batch, lease);
      await Promise.all(due.map((d) => attemptDelivery(d, d.next_trigger === 'resume' ? 'resume' : d.attempts === 0 ? 'event' : 'retry')));
      done += due.length;
      if (due.length < this.batch) return done;
    }
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
