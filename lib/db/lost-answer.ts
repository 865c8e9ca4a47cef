import type { Socket } from 'node:net';
import type { Client } from 'pg';

/** pg's error when query_timeout passes without an answer (the statement was sent, nothing came back). */
const readTimeout = 'Query read timeout';

/**
 * Drops a connection whose statement's answer never came (pg's query_timeout), instead of letting
 * the pool hand it out again. pg sends nothing more on a connection until the statement in flight
 * is answered, so while that answer stayed lost (a partition that dropped the bytes, a NAT that
 * forgot the flow) every later statement on it waited out the same bound and answered 503, for
 * as long as the socket lived, with PostgreSQL reachable again on a new connection. Destroying
 * the socket makes pg emit its end, which Knex marks as disposed (marked here at once too): the
 * pool discards it on release and opens a fresh one. Only the bounded pools set query_timeout (knex.ts boundStatements).
 */
export function dropOnLostAnswer(connection: Client): void {
  const query = connection.query.bind(connection) as (...args: unknown[]) => unknown;
  const watched = (...args: unknown[]): unknown => {
    const last = args.length - 1;
    const callback = args[last];
    if (typeof callback === 'function')
      args[last] = (err: Error | null, result: unknown) => {
        if (err?.message === readTimeout) {
          // Disposed now, not on pg's later `end`: a statement sent right after (a request's
          // next one, the release of its Idempotency-Key) was handed this connection again.
          (connection as unknown as { __knex__disposed?: unknown }).__knex__disposed ??= readTimeout;
          (connection as unknown as { connection: { stream: Socket } }).connection.stream.destroy();
        }
        (callback as (err: Error | null, result: unknown) => void)(err, result);
      };
    return query(...args);
  };
  connection.query = watched as Client['query'];
}
