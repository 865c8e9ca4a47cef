/**
 * lib/metrics, the one way in from other domains: each process's own Prometheus figures, and
 * their push to Redis.
 * scripts/check-cycles.ts refuses imports of this folder's other files from outside it;
 * README.md beside this file has the decisions.
 */
export { allMetrics, pushProcessMetrics } from './metrics-push';
export { channelWebhooks, jobRunDuration, portalCalls, processRegistry, webhookDeliveries } from './process-metrics';
