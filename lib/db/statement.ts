import type { Knex } from 'knex';

/** A statement with ? bindings. */
export interface Statement {
  sql: string;
  bindings: readonly Knex.RawBinding[];
}
