/**
 * lib/queue-recovery, the one way in from other domains: recovery after Redis loses its data.
 * scripts/check-cycles.ts refuses imports of this folder's other files from outside it;
 * README.md beside this file has the decisions.
 */
export { startQueueRecovery } from './queue-recovery';
