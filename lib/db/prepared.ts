import crypto from 'node:crypto';
import type { Client, QueryConfig } from 'pg';

/**
 * Marks a statement of the hot paths as prepared: `query.options(prepared)`. Postgres then parses
 * it once per connection instead of on every call, and plans it once too where, after its first
 * five runs, it judges the generic plan no dearer than the custom ones. Under the fleet bench, planning was 35% of the time Postgres spent in statements
 * (pg_stat_statements with track_planning; bench/RESULTS.md), for statements whose execution
 * takes less time than their plan.
 *
 * Only for statements whose text is one of a few shapes: each distinct text is a prepared
 * statement held by every connection that ran it, for the connection's life. So the marked
 * statements take lists as arrays (`= ANY(?)`, `unnest(?)`), never as a list of placeholders
 * whose length varies, and name their columns (a `*` would fail once a migration changes the
 * table under a live connection: "cached plan must not change result type").
 */
export const prepared: Readonly<{ prepare: true }> = Object.freeze({ prepare: true });

const names = new Map<string, string>();

/**
 * The statement's name: derived from its text, so one text always has one name on a connection.
 * Kept per text (a few shapes, see above), as the hot statements run thousands of times a second.
 */
function statementName(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    // A bound on a mistake (a varying text marked prepared), not a cache policy.
    if (names.size >= 10_000) names.clear();
    name = `k${crypto.createHash('sha1').update(text).digest('hex')}`;
    names.set(text, name);
  }
  return name;
}

/**
 * Names the statements marked `prepared` as they reach the connection (Knex hands a query's
 * options to pg with its text): pg prepares a named statement once per connection and then only
 * binds and runs it. Installed on every connection of the pool (lib/db/knex).
 */
export function namePreparedStatements(connection: Client): void {
  const query = connection.query.bind(connection) as (config: QueryConfig, ...rest: unknown[]) => unknown;
  const named = (config: unknown, ...rest: unknown[]): unknown => {
    if (typeof config === 'object' && config !== null && (config as { prepare?: unknown }).prepare === true) {
      const { prepare: _prepare, ...statement } = config as QueryConfig & { prepare: true };
      return query({ ...statement, name: statementName(statement.text) }, ...rest);
    }
    return query(config as QueryConfig, ...rest);
  };
  connection.query = named as Client['query'];
}
