import knexFactory, { Knex } from 'knex';
import { config } from '../../config';

let shared: Knex | undefined;

/** A Knex instance for a connection string; each process normally uses db() instead. */
export function createKnex(connectionString: string, poolMax = config().databasePoolMax): Knex {
  return knexFactory({
    client: 'pg',
    connection: connectionString,
    pool: { min: 0, max: poolMax },
    // Ask for a connection briefly: a request waiting longer is better answered with an error.
    acquireConnectionTimeout: 10000,
  });
}

/** The process's shared pool. */
export function db(): Knex {
  if (!shared) shared = createKnex(config().databaseUrl);
  return shared;
}

export async function closeDb(): Promise<void> {
  if (shared) await shared.destroy();
  shared = undefined;
}

export type { Knex };
