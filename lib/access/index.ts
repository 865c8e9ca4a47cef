/**
 * lib/access, the one way in from other domains: permission scopes.
 * scripts/check-cycles.ts refuses imports of this folder's other files from outside it;
 * README.md beside this file has the decisions.
 */
export { allOrdersOf, grantOf, grantReaches } from './caller';
export type { AccountWork, Caller, OrderScope } from './caller';
export { orderGrantQueries, provideOrderGrantQueries } from './order-grant';
export type { OrderGrantQueries } from './order-grant';
export { allScopes, isScope, scopes } from './scopes';
export type { Scope } from './scopes';
