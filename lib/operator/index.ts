/**
 * lib/operator, the one way in from other domains: health, metrics, dashboard.
 * scripts/check-cycles.ts refuses imports of this folder's other files from outside it;
 * README.md beside this file has the decisions.
 */
export { observeRequest } from './metrics';
export { healthRouter, operatorRouter } from './operator.router';
