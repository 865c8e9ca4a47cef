import { DomainError } from './domain-error';

export type Dependency = 'postgres' | 'redis';

/** PostgreSQL or Redis cannot be reached or did not answer in time: nothing was done; the service recovers by itself. */
export const dependencyUnavailable = (dependency: Dependency) =>
  new DomainError(
    'service_unavailable',
    `${dependency === 'postgres' ? 'the database' : 'the queue'} cannot be reached or did not answer in time; send the request again later`,
    { retryAfterSeconds: 5 },
  );

/**
 * The answer to a request's COMMIT was lost and PostgreSQL could not be asked what became of it
 * (lib/db commit-outcome.ts): the request may have been carried out. Its own id, outcome_unknown
 * (not service_unavailable, which says nothing was done), so a client can match it; the status
 * stays 503, as for every unreachable dependency: document 1's 500 says "processed only partly,
 * leaving inconsistent data", which a transaction never is (all or nothing), and RFC 9110 15.6.4
 * has 503 for a condition of the server that passes. No Retry-After: resent without its
 * Idempotency-Key, the request could be carried out twice; with the key it never is
 * (lib/http README, Idempotency-Key).
 */
export const commitOutcomeUnknown = () =>
  new DomainError(
    'outcome_unknown',
    'the database did not answer whether this request was committed: it may or may not have been carried out. Read what it writes (for a created record, search for it) before sending it again, or send it again with the same Idempotency-Key, which never carries a request out twice',
  );

/**
 * A request failed after a transaction of it committed (lib/db commit-marks.ts `committed`): some
 * or all of its work is saved. A 500 (document 1: "the request may have been processed only
 * partly"), never the 503 of a dependency that went away meanwhile (service_unavailable, "send the
 * request again"; retry_later alike): resent without an Idempotency-Key, the work was done twice
 * (a second send_mit mail). No Retry-After. With the key, a resend learns that it was carried out.
 */
export const failedAfterCommit = () =>
  new DomainError(
    'internal_error',
    'the request failed after part of its work was saved; it has been logged. Read what it writes (for a created record, search for it) before sending it again, or send it again with the same Idempotency-Key, which never carries a request out twice',
  );

const networkCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
// PostgreSQL's SQLSTATE classes for a lost or refused connection: 08 (connection exception),
// 57P01-03 (shutting down, crashed, starting up), 53300 (too many connections); and 57014, a
// statement cancelled (the web's statement_timeout, lib/db/knex.ts boundStatements, or an
// operator's pg_cancel_backend): its transaction rolled back, nothing was done.
const postgresDown = /^(08|57P0[123]$|53300$|57014$)/;
// The last ones are a Redis Cluster's: no node answers, or its slots are not (yet) served.
const redisDown =
  /enableOfflineQueue|Connection is closed|Command timed out|max retries per request|CLUSTERDOWN|None of startup nodes is available|Failed to refresh slots cache|Cluster isn't ready/i;
// Redis at its maxmemory refuses every write (maxmemory-policy noeviction, which BullMQ needs:
// lib/queue README): "OOM command not allowed when used memory > 'maxmemory'", also from inside a
// script. Nothing was written, and it passes as workers drain the queues or an operator adds memory.
const redisFull = /^OOM /;
// pg's own: a connection lost ('Connection terminated unexpectedly': the backend ended, by
// pg_terminate_backend, a failover or a restart) or used after it was lost ('... is not
// queryable'), a pool's or a new connection's connect timeout ('timeout expired': a server that
// does not answer, not even a refusal; answered 500 before), a statement whose answer never came
// (query_timeout, lib/db/knex.ts). pg gives them no code, and Knex puts the statement's text
// before the message ('ROLLBACK - Connection terminated unexpectedly'): matched at the start or
// after ' - ' (a lost connection under a POST order/ answered 500 when only the start was matched).
const postgresGone =
  /(^| - )Connection terminated|(^| - )Client (has encountered a connection error|was closed) and is not queryable$|timeout exceeded when trying to connect|(^| - )timeout expired$|(^| - )Query read timeout$/;
/** How deep unreachableDependency follows an error's cause (a wrapper's wrapper at most). */
const causeDepth = 3;

interface ErrorLike {
  name?: string;
  message?: string;
  code?: unknown;
  port?: unknown;
  errors?: { port?: unknown }[];
  cause?: unknown;
}

/**
 * Which dependency an error says is unreachable (connection refused, reset, timed out, ended) or
 * unable to take a write (Redis full), if any; an error that wraps another (cause: pg-pool's
 * connect timeout) is judged by what it wraps too. A bare network error is told apart by the port
 * it names (ports: of the database and Redis URLs); one naming neither is not a dependency's.
 */
export function unreachableDependency(err: unknown, ports: Record<Dependency, number>): Dependency | undefined {
  let current: unknown = err;
  for (let depth = 0; depth <= causeDepth && current instanceof Object; depth++) {
    const found = dependencyOf(current as ErrorLike, ports);
    if (found) return found;
    current = (current as ErrorLike).cause;
  }
  return undefined;
}

function dependencyOf(e: ErrorLike, ports: Record<Dependency, number>): Dependency | undefined {
  const message = String(e.message ?? '');
  const code = typeof e.code === 'string' ? e.code : '';
  if (e.name === 'MaxRetriesPerRequestError' || redisDown.test(message)) return 'redis';
  if (e.name === 'ReplyError' && redisFull.test(message)) return 'redis';
  if (postgresDown.test(code) || postgresGone.test(message)) return 'postgres';
  if (!networkCodes.has(code)) return undefined;
  const port = e.port ?? e.errors?.[0]?.port;
  return port === ports.redis ? 'redis' : port === ports.postgres ? 'postgres' : undefined;
}
