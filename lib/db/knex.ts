import knexFactory, { Knex } from 'knex';
import { config } from '../../config';
import type { Client } from 'pg';
import { log } from '../log';
import { stopChangeNotices } from './change-notices';
import { watchCommits } from './commit-outcome';
import { dropOnLostAnswer } from './lost-answer';
import { namePreparedStatements } from './prepared';

let shared: Knex | undefined;
let sharedRead: Knex | undefined;

let statementTimeoutMs = 0;

/**
 * Bounds every statement of this process's pools (db(), readPool()) from their first use on: the
 * web process's (server/index.ts, DATABASE_STATEMENT_TIMEOUT_MS). A request waiting on a lock
 * held elsewhere (a long transaction, a migration, psql) or on a database that stopped answering
 * hung until the client gave up, holding its pool connection and its call in flight. PostgreSQL
 * cancels a statement past the bound (statement_timeout, lock waits included; SQLSTATE 57014,
 * the transaction rolls back); the client gives up 5 s later when no answer comes at all (pg's
 * query_timeout: a network that drops packets, a server stopped). Both answer 503 with
 * Retry-After (lib/errors dependency.ts). Workers, the CLI and migrations stay unbounded: a
 * migration or a large sweep may run long by right.
 */
export function boundStatements(ms: number): void {
  statementTimeoutMs = ms;
}

/**
 * A Knex instance for a connection string; each process normally uses db() instead.
 * connectTimeoutMs: how long a new connection may take (default 5000); statementMs: the bound of
 * one statement (0: none; see boundStatements).
 */
export function createKnex(connectionString: string, poolMax = config().databasePoolMax, connectTimeoutMs = 5000, statementMs = 0, lockMs = 0): Knex {
  const bounded = {
    ...(statementMs > 0 ? { statement_timeout: statementMs, query_timeout: statementMs + 5000 } : {}),
    ...(lockMs > 0 ? { lock_timeout: lockMs } : {}),
  };
  return knexFactory({
    client: 'pg',
    // A server that does not answer (not even a refusal) fails a new connection after 5 s: a
    // 503 for the request, not one that waits for the pool's 10 s.
    connection: { connectionString, connectionTimeoutMillis: connectTimeoutMs, ...bounded },
    pool: {
      min: 0,
      max: poolMax,
      afterCreate: (connection: Client, done: (err: Error | null, connection: Client) => void) => {
        namePreparedStatements(connection);
        if (statementMs > 0) dropOnLostAnswer(connection);
        // A request's BEGIN reads its transaction id; a COMMIT whose answer is lost is marked.
        watchCommits(connection);
        done(null, connection);
      },
    },
    // Ask for a connection briefly: a request waiting longer is better answered with an error.
    acquireConnectionTimeout: 10000,
    // Knex's own warnings (a connection lost, an acquire refused: a replica that stopped) as
    // pino JSON like every other line, not console text. They name no connection string.
    log: {
      warn: (message: unknown) => log.warn({ knex: String(message) }, 'database pool'),
      error: (message: unknown) => log.error({ knex: String(message) }, 'database pool'),
      deprecate: (method: string, alternative: string) => log.warn({ knex: `${method} is deprecated; use ${alternative}` }, 'database pool'),
      debug: (message: unknown) => log.debug({ knex: String(message) }, 'database pool'),
    },
  });
}

/** The process's shared pool. */
export function db(): Knex {
  if (!shared) shared = createKnex(config().databaseUrl, config().databasePoolMax, 5000, statementTimeoutMs);
  return shared;
}

/**
 * The pool on DATABASE_READ_URL, or undefined when none is configured. Only read-replica.ts
 * uses it (it decides when the replica is fresh enough). A replica that does not answer gives
 * up a new connection after 1 s: the read then goes to the primary rather than waiting.
 */
export function readPool(): Knex | undefined {
  const url = config().databaseReadUrl;
  if (!url) return undefined;
  if (!sharedRead) sharedRead = createKnex(url, config().databasePoolMax, 1000, statementTimeoutMs);
  return sharedRead;
}

/** Closes the pools and the change-notice listener (the next use opens them on the database configured then). */
export async function closeDb(): Promise<void> {
  await stopChangeNotices();
  if (shared) await shared.destroy();
  shared = undefined;
  if (sharedRead) await sharedRead.destroy();
  sharedRead = undefined;
}

export type { Knex };
