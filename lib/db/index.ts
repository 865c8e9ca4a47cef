/**
 * lib/db, the one way in from other domains: PostgreSQL.
 * scripts/check-cycles.ts refuses imports of this folder's other files from outside it;
 * README.md beside this file has the decisions.
 */
export { lostCommitOf } from './commit-outcome';
export { openRequest, publicRequestId } from './commit-marks';
export type { OpenRequest } from './commit-marks';
export type { CommitOutcome, LostCommit } from './commit-outcome';
export { applyCellRanges, CellRangeError, routePrefix } from './cells';
export { changedChannel, listening, onChange } from './change-notices';
export { ensureDatabase } from './ensure-database';
export { jsonParameter } from './json-parameter';
export { boundStatements, closeDb, createKnex, db } from './knex';
export { migrationSource } from './migrations';
export { prepared } from './prepared';
export { schemaCurrent } from './schema-current';
export { readTolerantOfLag } from './read-replica';
export type { Statement } from './statement';
export { commitOutcome, inTransaction, isConflictVictim, inSavepoint, requestOf, transaction } from './transaction';
