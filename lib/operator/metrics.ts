import type { Request, Response } from 'express';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { db } from '../db';
import { outboxRepository, queues, QueueName, queueNames } from '../queue';

/** The web process's Prometheus registry: HTTP latency here; queue figures read from Redis at scrape time. */
export const metricsRegistry = new Registry();

const httpDuration = new Histogram({
  name: 'kontor_http_request_duration_seconds',
  help: 'API request duration by method, route and status.',
  labelNames: ['method', 'route', 'status'],
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers: [metricsRegistry],
});

const stateNames = ['waiting', 'active', 'delayed', 'failed', 'completed', 'prioritized'] as const;

/** How long a scrape waits for one figure read from Redis or PostgreSQL. */
const readBoundMs = 1000;

/**
 * A figure read at scrape time, or undefined when it fails or does not come within readBoundMs.
 * A BullMQ Queue whose connection has not reached Redis waits for it without end (its commands
 * neither fail nor time out), so with Redis away since the Queue was made, /operator/metrics hung,
 * the page an operator needs most then; its process's own figures are answered without it.
 */
async function bounded<T>(read: Promise<T>): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), readBoundMs);
  });
  try {
    return await Promise.race([read.catch(() => undefined), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** One figure of every queue, read side by side (each bounded): a scrape waits readBoundMs at most per gauge. */
async function perQueue<T>(read: (name: QueueName) => Promise<T>): Promise<[QueueName, T][]> {
  const names = Object.keys(queueNames) as QueueName[];
  const values = await Promise.all(names.map((name) => bounded(read(name))));
  return names.flatMap((name, i) => (values[i] === undefined ? [] : [[name, values[i]] as [QueueName, T]]));
}

// Read at scrape time from Redis, so they cover every worker process, not only this one.
new Gauge({
  name: 'kontor_queue_jobs',
  help: 'Jobs per queue and state (queue depth: waiting + delayed).',
  labelNames: ['queue', 'state'],
  registers: [metricsRegistry],
  async collect() {
    this.reset();
    for (const [name, counts] of await perQueue((n) =>
      queues()
        .get(n)
        .getJobCounts(...stateNames),
    ))
      for (const state of stateNames) this.set({ queue: name, state }, counts[state] ?? 0);
  },
});

new Gauge({
  name: 'kontor_job_duration_seconds',
  help: 'Run time of the last 200 completed jobs per queue (quantiles 0.5, 0.99).',
  labelNames: ['queue', 'quantile'],
  registers: [metricsRegistry],
  async collect() {
    this.reset();
    for (const [name, jobs] of await perQueue((n) => queues().get(n).getJobs(['completed'], 0, 199))) {
      const times = jobs
        .filter((j) => j.finishedOn && j.processedOn)
        .map((j) => (j.finishedOn! - j.processedOn!) / 1000)
        .sort((a, b) => a - b);
      if (times.length === 0) continue;
      for (const q of [0.5, 0.99]) this.set({ queue: name, quantile: String(q) }, times[Math.min(times.length - 1, Math.floor(q * times.length))]!);
    }
  },
});

new Gauge({
  name: 'kontor_jobs_failed',
  help: 'Jobs in the failed set per queue (failed after their last try).',
  labelNames: ['queue'],
  registers: [metricsRegistry],
  async collect() {
    this.reset();
    for (const [name, count] of await perQueue((n) => queues().get(n).getFailedCount())) this.set({ queue: name }, count);
  },
});

new Gauge({
  name: 'kontor_outbox_pending',
  help: 'Outbox rows not yet relayed to BullMQ (grows while Redis is away).',
  registers: [metricsRegistry],
  async collect() {
    const pending = await bounded(outboxRepository.pendingCount(db()));
    if (pending !== undefined) this.set(pending);
  },
});

/** Failures seen by this process's request handling (5xx answers). */
export const httpErrors = new Counter({ name: 'kontor_http_errors_total', help: 'API answers with a 5xx status.', registers: [metricsRegistry] });

/**
 * The label of a matched route: its pattern without the version (never the raw path: ids would
 * explode the labels). An endpoint's is res.locals.route (server/framework/mount.ts); the
 * operator pages' is their Express route's.
 */
function routeLabel(req: Request, res: Response): string {
  if (typeof res.locals.route === 'string') return res.locals.route;
  const route = (req.route as { path?: string } | undefined)?.path;
  if (route === undefined) return 'unmatched';
  // The base is the version prefix (or a router of the operator pages); the route its full pattern.
  return `${req.baseUrl}${route === '/' ? '' : route}`.replace(/^\/v\d+\.\d+/, '');
}

/** Observers per label set, so a request does not hash its labels (prom-client does per observe). */
const observers = new Map<string, (seconds: number) => void>();

function observerOf(method: string, route: string, status: number): (seconds: number) => void {
  const key = `${method} ${status} ${route}`;
  let observe = observers.get(key);
  if (!observe) {
    const child = httpDuration.labels({ method, route, status: String(status) });
    observers.set(key, (observe = (seconds) => child.observe(seconds)));
  }
  return observe;
}

/**
 * Records a finished request by its route pattern: its duration and, for a 5xx, an error. Called
 * by the request's one 'finish' listener (server/framework/context.ts), which also writes its log line.
 */
export function observeRequest(req: Request, res: Response, seconds: number): void {
  observerOf(req.method, routeLabel(req, res), res.statusCode)(seconds);
  if (res.statusCode >= 500) httpErrors.inc();
}
