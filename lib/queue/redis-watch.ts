import crypto from 'node:crypto';
import { config } from '../../config';
import { log } from '../log';
import { isCluster, RedisClient, slotOf, whenReady } from '../redis';
import type { QueueRegistry } from './queue.registry';

export interface RedisWatchOptions {
  queues: QueueRegistry;
  /** Only the process that answers true watches (the leading relay): one sweep per fleet. */
  active: () => boolean;
  /** Runs when Redis came back without its data (and at the first check of an empty Redis). */
  onLost: () => Promise<void>;
  /** Runs every `periodicMs` as a safety net. */
  periodic: () => Promise<void>;
  everyMs?: number;
  periodicMs?: number;
}

/**
 * Notices a Redis that lost its data (restarted without persistence, flushed, replaced): a
 * marker key set once with NX is missing again. Whoever sets it anew runs `onLost`, which
 * queues again from Postgres what only Redis held. A restart with persistence keeps the
 * marker, and nothing needs doing.
 */
export class RedisWatch {
  private timers: NodeJS.Timeout[] = [];
  private running: Promise<void> | undefined;
  private failures = 0;

  constructor(private readonly options: RedisWatchOptions) {}

  start(): void {
    this.timers.push(setInterval(() => this.run(() => this.check()), this.options.everyMs ?? config().redisWatchMs));
    this.timers.push(setInterval(() => this.run(this.options.periodic), this.options.periodicMs ?? config().ciaPushSweepMs));
  }

  async stop(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    await this.running;
  }

  /**
   * Checks the markers once; true when Redis had lost one (and onLost ran). On a cluster each
   * master restarts on its own: one marker per master, in a slot that master serves.
   */
  async check(): Promise<boolean> {
    const client = this.options.queues.client();
    const markers = await markersOf(client);
    const lost: string[] = [];
    for (const marker of markers) if ((await client.set(marker, crypto.randomUUID(), 'NX')) === 'OK') lost.push(marker);
    if (lost.length === 0) return false;
    log.warn({ markers: lost }, 'Redis holds no data of this fleet (restarted without persistence?); queueing again from Postgres');
    try {
      await this.options.onLost();
    } catch (err) {
      // Not done: the next check finds the marker missing again and tries once more.
      for (const marker of lost) await client.del(marker).catch(() => undefined);
      throw err;
    }
    return true;
  }

  /**
   * One task at a time, only where active; a failure waits for the next turn. The producer
   * connection refuses commands until it is connected, and the first turn may be what opens it.
   */
  private run(task: () => Promise<unknown>): void {
    if (this.running || !this.options.active()) return;
    this.running = whenReady(this.options.queues.client())
      .then(task)
      .then(() => {
        this.failures = 0;
      })
      .catch((err: Error) => {
        // Once per outage (and now and then while it lasts), not every turn.
        this.failures += 1;
        if (this.failures % 30 === 1)
          log.warn({ err: err.message, failures: this.failures }, 'Redis watch: cannot reach Redis or Postgres; the next turn tries again');
      })
      .finally(() => {
        this.running = undefined;
      });
  }
}

/**
 * The restart markers: one key on a single Redis; on a cluster one per master, each named with a
 * hash tag that falls in a slot range the master serves (found by trying tags: a third of them
 * fit each of three masters). Asked anew at every check: a failover or resharding moves ranges.
 */
async function markersOf(client: RedisClient): Promise<string[]> {
  const base = `${config().queuePrefix}:kontor:epoch`;
  if (!isCluster(client)) return [base];
  const firstRangeOf = new Map<string, [number, number]>();
  for (const [start, end, master] of await client.cluster('SLOTS')) {
    if (!master) continue;
    const [host, port, id] = master;
    const name = id || `${host}:${port}`;
    if (!firstRangeOf.has(name)) firstRangeOf.set(name, [start, end]);
  }
  const markers: string[] = [];
  for (const [start, end] of firstRangeOf.values()) {
    for (let i = 0; i < 1_000_000; i++) {
      const slot = slotOf(`{${base}:${i}}`);
      if (slot >= start && slot <= end) {
        markers.push(`{${base}:${i}}`);
        break;
      }
    }
  }
  return markers;
}
