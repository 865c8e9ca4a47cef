import { hostname } from 'node:os';
import { AggregatorRegistry } from 'prom-client';
import { config } from '../../config';
import { log } from '../log';
import { processRegistry } from './process-metrics';
import { redis, whenReady } from '../redis';
import { onShutdown } from '../shutdown';

/** How often a worker writes its figures; the web drops a process silent for three periods. */
const pushEveryMs = 15000;
/** One process's registry as getMetricsAsJSON() gives it. */
type Metrics = object[];

const key = () => `${config().queuePrefix}:process-metrics`;

/**
 * Workers have no port of their own (a Procfile platform gives only web one): each writes its
 * registry (default metrics, job run times, portal calls, webhooks) to Redis under its name, host
 * name and pid, labelled process=<name>; the web's /operator/metrics shows them with its own. The
 * host name is in the key because in containers every process is PID 1: keyed by pid alone, the
 * workers of one name on several hosts overwrote each other's figures.
 */
export function pushProcessMetrics(name: string): void {
  processRegistry.setDefaultLabels({ process: name });
  const field = `${name}:${hostname()}:${process.pid}`;
  const push = async () => {
    const entry = JSON.stringify({ at: Date.now(), metrics: await processRegistry.getMetricsAsJSON() });
    await redis().hset(key(), field, entry);
  };
  const tick = () => push().catch((err: Error) => log.warn({ err: err.message }, 'could not push metrics to Redis'));
  // The shared connection queues nothing while it connects: the first push waits for it.
  void whenReady(redis()).then(tick, () => undefined);
  const timer = setInterval(tick, pushEveryMs);
  timer.unref();
  onShutdown('metrics push', async () => {
    clearInterval(timer);
    await redis()
      .hdel(key(), field)
      .catch(() => undefined);
  });
}

/** The figures other processes pushed recently; stale entries (a process that died) are removed. */
export async function pushedMetrics(): Promise<Metrics[]> {
  const entries = await redis()
    .hgetall(key())
    .catch(() => ({}) as Record<string, string>);
  const fresh: Metrics[] = [];
  for (const [field, text] of Object.entries(entries)) {
    const entry = JSON.parse(text) as { at: number; metrics: Metrics };
    if (Date.now() - entry.at < 3 * pushEveryMs) fresh.push(entry.metrics);
    else
      await redis()
        .hdel(key(), field)
        .catch(() => undefined);
  }
  return fresh;
}

/** The Prometheus text of this process's registries and every worker's pushed figures, in one exposition. */
export async function allMetrics(...own: { getMetricsAsJSON(): Promise<Metrics> }[]): Promise<string> {
  const mine = (await Promise.all(own.map((r) => r.getMetricsAsJSON()))).flat();
  return AggregatorRegistry.aggregate([mine, ...(await pushedMetrics())]).metrics();
}
