import knexFactory, { Knex } from 'knex';
import { config } from '../../config';
import type { Client } from 'pg';
import { stopChangeNotices } from './change-notices';
import { namePreparedStatements } from './prepared';

let shared: Knex | undefined;

/** A Knex instance for a connection string; each process normally uses db() instead. */
export function createKnex(connectionString: string, poolMax = config().databasePoolMax): Knex {
  return knexFactory({
    client: 'pg',
    // A server that does not answer (not even a refusal) fails a new connection after 5 s: a
    // 503 for the request, not one that waits for the pool's 10 s.
    connection: { connectionString, connectionTimeoutMillis: 5000 },
    pool: {
      min: 0,
      max: poolMax,
      afterCreate: (connection: Client, done: (err: Error | null, connection: Client) => void) => {
        namePreparedStatements(connection);
        done(null, connection);
      },
    },
    // Ask for a connection briefly: a request waiting longer is better answered with an error.
    acquireConnectionTimeout: 10000,
  });
}

/** The process's shared pool. */
export function db(): Knex {
  if (!shared) shared = createKnex(config().databaseUrl);
  return shared;
}

/** Closes the pool and the change-notice listener (the next use opens both on the database configured then). */
export async function closeDb(): Promise<void> {
  await stopChangeNotices();
  if (shared) await shared.destroy();
  shared = undefined;
}

export type { Knex };
