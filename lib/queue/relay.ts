import type { Knex } from 'knex';
import { Client } from 'pg';
import { config } from '../../config';
import { db } from '../db';
import { log } from '../log';
import { finalStates, planJobs } from './merged-jobs';
import { outboxChannel } from './outbox';
import { outboxRepository, OutboxRow } from './outbox.repository';
import { QueueRegistry, queues as sharedQueues } from './queue.registry';
import { QueueName, queueNames } from './queues';

export interface RelayOptions {
  knex?: Knex;
  queues?: QueueRegistry;
  /** Rows per transaction (default from config). */
  batch?: number;
  /** Safety-net poll in ms (default from config). */
  pollMs?: number;
  /** How often the repair sweep runs, in ms (default 30 s); 0 disables it. */
  repairEveryMs?: number;
  /** A relayed row whose job is still missing from Redis after this many seconds is relayed again. */
  repairAfterSeconds?: number;
  /** How often a standby relay tries to take over, in ms (default 1000). */
  standbyRetryMs?: number;
  /** How often the listening session proves it is alive, in ms (default OUTBOX_RELAY_HEARTBEAT_MS). */
  heartbeatMs?: number;
  /** The connection string of the listening session (default DATABASE_URL; tests put a proxy between). */
  listenUrl?: string;
  /** Least time between two passes, in ms (default OUTBOX_RELAY_GATHER_MS). */
  gatherMs?: number;
  /**
   * Carry the mergeable rows of one account that a pass takes as one job (lib/queue/merged-jobs.ts;
   * default false: every row its own job). The worker processes merge.
   */
  merge?: boolean;
  /** Rows a pass finishes without a job (workers/run.ts: events no handler takes). */
  settle?: RowSettler;
  /** How long the leader may fail to reach Redis before it gives up leading, in ms (default redisPatienceMs). */
  redisPatienceMs?: number;
}

/**
 * A leader that cannot reach Redis for this long (10 s) gives up leading, so that a relay that
 * reaches it takes over: the lock is Postgres's, and a leader cut off from Redis alone (a
 * partition between its host and Redis) kept it, every seller's outbox stopped until it was
 * restarted. Long enough to ride out a Redis restart or failover (the producer connection comes
 * back within 2 s; Sentinel or a cluster promote a replica in a few seconds), where moving the
 * lead would gain nothing; short against what a stopped outbox costs (CIA quantities not pushed
 * while orders come in: oversold items).
 */
export const redisPatienceMs = 10_000;

/**
 * Of the rows a pass takes, those whose job would do nothing, with the result the job would
 * have given, by job id. The relay records them completed instead of adding their jobs.
 */
export type RowSettler = (trx: Knex.Transaction, rows: readonly OutboxRow[]) => Promise<Map<string, unknown>>;

/**
 * Moves outbox rows to BullMQ. Wakes on NOTIFY (from a trigger on outbox inserts, delivered at
 * commit), with a slow poll as a safety net. Every worker process runs one, but only one per
 * database and queue prefix relays at a time: the one whose listening connection holds the
 * relay's session advisory lock. The others stand by and try to take over every second; the lock goes with the
 * connection, so a killed leader is replaced at once. (Several relays waking on every commit
 * would each spend a transaction to find the rows taken.) Rows are still taken with FOR UPDATE
 * SKIP LOCKED, so relays overlapping in a take-over are safe; the BullMQ job id is the row's
 * job_id, so a crash between the add and the commit re-adds an id BullMQ already has, which it
 * ignores. The transaction holds one pool connection and asks for no other. While Redis is away
 * the rows stay pending and the relay retries with backoff; a leader that cannot reach Redis for
 * redisPatienceMs gives up leading, and a relay tries for the lock only while its Redis answers;
 * a repair sweep re-adds jobs a Redis restart without persistence lost.
 */
export class OutboxRelay {
  private readonly knex: Knex;
  private readonly queues: QueueRegistry;
  private readonly batch: number;
  private readonly pollMs: number;
  private readonly repairEveryMs: number;
  private readonly repairAfterSeconds: number;
  private readonly standbyRetryMs: number;
  private readonly gatherMs: number;
  private readonly merge: boolean;
  private readonly settle: RowSettler | undefined;
  private readonly heartbeatMs: number;
  private readonly listenUrl: string;
  private readonly redisPatienceMs: number;
  /** Since when the leader's Redis has not answered (a pass failed, and a PING after it too). */
  private redisAwaySince: number | undefined;
  /** The check redisPatienceMs after that (giveUpIfRedisAway). */
  private redisPatience: NodeJS.Timeout | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  /** When the query now out on the listening session was sent. */
  private sessionQueryAt: number | undefined;
  /** When the last pass started (ms), and the pass waiting for gatherMs to pass since. */
  private lastPass = 0;
  private gathering: { timer: NodeJS.Timeout; done: Promise<void>; fire: () => void } | undefined;
  private listener: Client | undefined;
  /** This relay holds the lock and relays; otherwise it stands by. */
  leading = false;
  private timers: NodeJS.Timeout[] = [];
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private failures = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  /** Rows moved since start (metrics, tests). */
  relayed = 0;

  constructor(options: RelayOptions = {}) {
    this.knex = options.knex ?? db();
    this.queues = options.queues ?? sharedQueues();
    this.batch = options.batch ?? config().outboxRelayBatch;
    this.pollMs = options.pollMs ?? config().outboxRelayPollMs;
    this.repairEveryMs = options.repairEveryMs ?? 30000;
    this.repairAfterSeconds = options.repairAfterSeconds ?? 60;
    this.standbyRetryMs = options.standbyRetryMs ?? 1000;
    this.gatherMs = options.gatherMs ?? config().outboxRelayGatherMs;
    this.merge = options.merge ?? false;
    this.settle = options.settle;
    this.heartbeatMs = options.heartbeatMs ?? config().outboxRelayHeartbeatMs;
    this.listenUrl = options.listenUrl ?? config().databaseUrl;
    this.redisPatienceMs = options.redisPatienceMs ?? redisPatienceMs;
  }

  /** Starts listening; once it leads, it relays what is pending (lead() kicks). */
  async start(): Promise<void> {
    this.stopped = false;
    await this.listen();
    this.timers.push(setInterval(() => this.kick(), this.pollMs));
    if (this.repairEveryMs > 0)
      this.timers.push(
        setInterval(() => {
          void this.repair();
        }, this.repairEveryMs),
      );
  }

  /** Stops waking; waits for a batch in hand to commit or roll back. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.redisBack();
    if (this.heartbeat) clearInterval(this.heartbeat);
    if (this.gathering) {
      clearTimeout(this.gathering.timer);
      this.gathering.fire();
    }
    this.gathering = undefined;
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => undefined);
    await this.running;
  }

  /**
   * Asks for a pass over the pending rows; passes never overlap, and one starts at least
   * gatherMs after the one before: what commits meanwhile goes in one pass (a pass after a quiet
   * spell starts at once). A standby relay does nothing.
   */
  kick(): void {
    if (this.stopped || !this.leading) return;
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.gathering) return;
    const wait = this.lastPass + this.gatherMs - Date.now();
    if (wait > 0) {
      let fire: () => void = () => undefined;
      const done = new Promise<void>((resolve) => {
        fire = resolve;
      });
      const timer = setTimeout(() => {
        this.gathering = undefined;
        this.kick();
        fire();
      }, wait);
      this.gathering = { timer, done, fire };
      return;
    }
    this.lastPass = Date.now();
    this.running = this.drain().finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        this.kick();
      }
    });
  }

  /** Resolves when nothing is pending or in flight (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.running || this.gathering) await (this.running ?? this.gathering?.done);
  }

  private async drain(): Promise<void> {
    try {
      while (!this.stopped && (await this.relayBatch()) === this.batch) {
        /* more waiting */
      }
      this.failures = 0;
      this.redisBack();
    } catch (err) {
      this.failures += 1;
      const delay = Math.min(100 * 2 ** this.failures, 5000);
      if (this.failures === 1 || this.failures % 20 === 0)
        log.warn({ err: (err as Error).message, retry_ms: delay }, 'outbox relay: cannot reach Redis or Postgres; rows stay pending');
      if (!this.stopped) this.retryTimer = setTimeout(() => this.kick(), delay);
      await this.checkRedis();
    }
  }

  /**
   * After a failed pass: whether it was Redis (a PING unanswered; Postgres away is the listening
   * session's heartbeat's, and a Redis that answers but refuses writes, full, is full for every
   * relay). The first time, the leader gives Redis redisPatienceMs to come back before it gives
   * up leading (giveUpIfRedisAway).
   */
  private async checkRedis(): Promise<void> {
    if (this.stopped || !this.leading || this.redisAwaySince !== undefined) return;
    const failedAt = Date.now();
    if (await this.queues.answers()) return;
    if (this.stopped || !this.leading || this.redisAwaySince !== undefined) return;
    this.redisAwaySince = failedAt;
    this.redisPatience = setTimeout(
      () => {
        void this.giveUpIfRedisAway();
      },
      Math.max(0, failedAt + this.redisPatienceMs - Date.now()),
    );
    this.redisPatience.unref();
  }

  /** A pass succeeded (or the relay stops): Redis is not away. */
  private redisBack(): void {
    if (this.redisPatience) clearTimeout(this.redisPatience);
    this.redisPatience = undefined;
    this.redisAwaySince = undefined;
  }

  /**
   * Redis has not answered for redisPatienceMs: unless a pass got through meanwhile or a PING now
   * does, the leader ends its listening session, which frees the lock for a standby that reaches
   * Redis (lead() takes it only after a PING). It then stands by itself, listening anew.
   */
  private async giveUpIfRedisAway(): Promise<void> {
    const since = this.redisAwaySince;
    if (since === undefined || this.stopped || !this.leading) return;
    const answers = await this.queues.answers();
    if (this.redisAwaySince !== since) return;
    this.redisBack();
    if (answers || this.stopped || !this.leading) return;
    log.warn({ away_ms: Date.now() - since }, 'outbox relay: cannot reach Redis; gives up leading for a relay that can');
    // 'end' runs the session's retry (listen()): leading off, a new session after a second.
    this.leading = false;
    await this.listener?.end().catch(() => undefined);
  }

  /** Moves one batch in one transaction (rolled back when the add fails); returns how many rows it moved. */
  async relayBatch(): Promise<number> {
    return this.knex.transaction(async (trx) => {
      const rows = await outboxRepository.takePending(trx, this.batch);
      if (rows.length === 0) return 0;
      await this.addJobs(trx, rows);
      this.relayed += rows.length;
      return rows.length;
    });
  }

  /**
   * Adds the rows' jobs (merged where they may be), after naming in their rows the merged jobs
   * that carry them; rows the settler finishes are recorded completed instead.
   */
  private async addJobs(trx: Knex.Transaction, rows: OutboxRow[]): Promise<void> {
    const settled = this.settle ? await this.settle(trx, rows) : new Map<string, unknown>();
    await outboxRepository.recordFinals(
      trx,
      [...settled].map(([jobId, result]) => ({ jobId, state: 'completed', result, attemptsMade: 0 })),
    );
    const known = rows.filter((row): row is OutboxRow & { queue: QueueName } => {
      if (settled.has(row.job_id)) return false;
      if (row.queue in queueNames) return true;
      log.error({ queue: row.queue, job_id: row.job_id }, 'outbox row names an unknown queue; skipped');
      return false;
    });
    const { jobs, carried } = planJobs(known, this.merge);
    // A row relayed again on its own (the repair) no longer names the merged job it was in.
    const own = known.filter((row) => row.relayed_as && !carried.some((c) => c.id === row.id)).map((row) => ({ id: row.id, as: null }));
    await outboxRepository.markCarried(trx, [...carried, ...own]);
    const byQueue = new Map<QueueName, typeof jobs>();
    for (const job of jobs) byQueue.set(job.queue, [...(byQueue.get(job.queue) ?? []), job]);
    await Promise.all([...byQueue].map(([queue, list]) => this.queues.get(queue).addBulk(list.map(({ name, data, opts }) => ({ name, data, opts })))));
  }

  /** The periodic repair sweep (repairSweep below): a failure is logged, and the next sweep tries again. */
  async repair(maxPages = 50, olderThanSeconds = this.repairAfterSeconds): Promise<number> {
    try {
      return await this.repairSweep(maxPages, olderThanSeconds);
    } catch (err) {
      log.warn({ err: (err as Error).message }, 'outbox repair sweep failed; the next sweep tries again');
      return 0;
    }
  }

  /**
   * Re-adds relayed jobs Redis no longer has (restarted without persistence) and records the
   * final state of jobs that finished while their worker could not write it. Walks every
   * unfinished row in pages (a bounded number per sweep); returns how many jobs it re-added, and
   * throws when a page fails (Redis recovery then tries again at its next check, lib/queue-recovery).
   * olderThanSeconds: 0 right after Redis lost its data (every relayed row is a candidate; a
   * row in the middle of being relayed is locked and skipped).
   */
  async repairSweep(maxPages = 50, olderThanSeconds = this.repairAfterSeconds): Promise<number> {
    // The leader's work, like relaying: two sweeps would walk the same rows (SKIP LOCKED only splits them).
    if (!this.leading) return 0;
    let cursor = '0';
    let readded = 0;
    try {
      for (let page = 0; page < maxPages && !this.stopped; page++) {
        const { count, last, full } = await this.knex.transaction(async (trx) => {
          const rows = await outboxRepository.lockUnfinished(trx, olderThanSeconds, config().jobRetentionSeconds, cursor, this.batch);
          const lost: OutboxRow[] = [];
          for (const row of rows) {
            if (!(row.queue in queueNames)) continue;
            const job = await this.queues.get(row.queue as QueueName).getJob(row.relayed_as ?? row.job_id);
            if (!job) {
              lost.push(row);
              continue;
            }
            if (job.finishedOn) {
              const failed = Boolean(job.failedReason) && !job.returnvalue;
              const final = finalStates(job, row.job_id, failed).find((f) => f.jobId === row.job_id);
              if (final) await outboxRepository.recordFinals(trx, [final]);
            }
          }
          if (lost.length > 0) await this.addJobs(trx, lost);
          return { count: lost.length, last: rows[rows.length - 1]?.id, full: rows.length === this.batch };
        });
        readded += count;
        if (!last || !full) break;
        cursor = last;
      }
    } finally {
      if (readded > 0) log.warn({ jobs: readded }, 'outbox relay: re-added jobs Redis had lost');
    }
    return readded;
  }

  /**
   * The listening session holds the lock, so a leader cut off from Postgres (a partition, not a
   * closed socket) would keep the outbox to itself until TCP keepalive noticed, hours by
   * default. Both ends watch for that instead: the session asks Postgres to end it after three
   * heartbeats of silence (idle_session_timeout, sent in the start-up packet: no round trip),
   * which frees the lock for a standby; and the relay gives up leading when a heartbeat is not
   * answered (beat()).
   */
  private async listen(): Promise<void> {
    if (this.stopped) return;
    const client = new Client({
      connectionString: this.listenUrl,
      connectionTimeoutMillis: 5000,
      options: `-c idle_session_timeout=${3 * this.heartbeatMs}`,
    });
    const retry = () => {
      if (this.listener !== client || this.stopped) return;
      if (this.leading) log.warn('outbox relay: lost its session; gives up leading');
      this.listener = undefined;
      this.leading = false;
      if (this.heartbeat) clearInterval(this.heartbeat);
      client.end().catch(() => undefined);
      setTimeout(() => {
        this.listen().catch(() => undefined);
      }, 1000).unref();
    };
    client.on('error', retry);
    client.on('end', retry);
    client.on('notification', () => this.kick());
    this.listener = client;
    try {
      await client.connect();
      this.heartbeat = setInterval(() => this.beat(client, retry), this.heartbeatMs);
      this.heartbeat.unref();
      await this.lead(client);
    } catch (err) {
      log.warn({ err: (err as Error).message }, 'outbox relay: cannot listen; trying again');
      retry();
    }
  }

  /**
   * One heartbeat: unanswered within two periods, the session counts as lost (one period flapped
   * on a loaded machine). Postgres ends the session after three: the old leader may overlap a new
   * one briefly at worst, which rows taken FOR UPDATE SKIP LOCKED and job ids already make safe.
   * A query of the session still out (a standby's try for the lock) is the heartbeat itself:
   * pg would queue a second one behind it.
   */
  private beat(client: Client, lost: () => void): void {
    if (this.sessionQueryAt !== undefined) {
      if (Date.now() - this.sessionQueryAt > 2 * this.heartbeatMs) lost();
      return;
    }
    const timer = setTimeout(lost, 2 * this.heartbeatMs);
    this.sessionQuery(client, 'SELECT 1').then(
      () => clearTimeout(timer),
      () => {
        clearTimeout(timer);
        lost();
      },
    );
  }

  /** A query on the listening session, remembered while it is out (beat()). */
  private async sessionQuery<R extends object>(client: Client, sql: string, values: unknown[] = []): Promise<R[]> {
    this.sessionQueryAt = Date.now();
    try {
      return (await client.query<R>(sql, values)).rows;
    } finally {
      this.sessionQueryAt = undefined;
    }
  }

  /**
   * Takes the relay lock on the listening connection and listens, or tries again later. Only a
   * relay whose Redis answers a PING tries: one that cannot add jobs would hold the outbox up
   * (redisPatienceMs).
   */
  private async lead(client: Client): Promise<void> {
    if (this.stopped || this.listener !== client) return;
    const again = () => {
      setTimeout(() => {
        this.lead(client).catch(() => undefined);
      }, this.standbyRetryMs).unref();
    };
    if (!(await this.queues.answers())) return again();
    if (this.stopped || this.listener !== client) return;
    const rows = await this.sessionQuery<{ leader: boolean }>(client, 'SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS leader', [
      `outbox-relay:${config().queuePrefix}`,
    ]);
    if (!rows[0]?.leader) return again();
    await this.sessionQuery(client, `LISTEN ${outboxChannel}`);
    this.leading = true;
    this.kick();
  }
}
