/**
 * This process's own Prometheus figures: Node's default metrics, job run times, portal calls
 * and webhook deliveries. Low in the layering so portals, queue and event can count without
 * knowing the operator pages; workers push the registry to Redis and the web's /operator/metrics
 * shows every process (metrics-push.ts beside this file).
 */
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

export const processRegistry = new Registry();
/**
 * The event loop's delay is sampled every 100 ms, not prom-client's 10: its histogram
 * (monitorEventLoopDelay) runs a libuv timer at that resolution, so every process woke 100 times a
 * second doing nothing else, 4-8 ms of CPU a second each, most of what the idle service cost. At
 * 100 ms a stall of the loop still shows in the max and the percentiles; one shorter than 100 ms is
 * caught when it spans a sample, and the job run times above show slow work anyway.
 */
collectDefaultMetrics({ register: processRegistry, eventLoopMonitoringPrecision: 100 });

export const jobRunDuration = new Histogram({
  name: 'kontor_job_run_duration_seconds',
  help: 'Run time of jobs in this process by queue, job name and outcome (completed, failed, or delayed: moved to wait without spending a try).',
  labelNames: ['queue', 'job', 'outcome'],
  buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  registers: [processRegistry],
});

/** Outcomes: ok, refused (4xx), unavailable (429, 5xx, 408) or failed (no answer, network). */
export const portalCalls = new Counter({
  name: 'kontor_portal_calls_total',
  help: 'Calls to portal APIs by portal and outcome.',
  labelNames: ['portal', 'outcome'],
  registers: [processRegistry],
});

/** Outcomes of each attempt: delivered (2xx), retry (any other answer, timeout, DNS, network), refused (410, blocked host). */
export const webhookDeliveries = new Counter({
  name: 'kontor_webhook_deliveries_total',
  help: 'Webhook (notification) delivery attempts by outcome.',
  labelNames: ['outcome'],
  registers: [processRegistry],
});

/** Webhooks the channels send Kontor (Shopify's), by channel and outcome: queued, duplicate, unknown_shop, refused (bad signature), acted (uninstall, compliance), ignored. */
export const channelWebhooks = new Counter({
  name: 'kontor_channel_webhooks_received_total',
  help: 'Webhooks received from channels (Shopify) by channel and outcome.',
  labelNames: ['channel', 'outcome'],
  registers: [processRegistry],
});
