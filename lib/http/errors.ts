/**
 * Typed errors with a stable short id and an HTTP code. One error handler maps them to the
 * envelope; anything that is not an ApiError becomes a 500 with no detail.
 */
export interface ErrorItem {
  /** Short error id, stable across releases. */
  error: string;
  description: string;
  code: number;
  /** Path of the request field at fault, where one is. */
  field?: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly id: string,
    description: string,
    readonly field?: string,
    readonly headers: Record<string, string> = {},
    readonly more: ErrorItem[] = [],
  ) {
    super(description);
  }

  items(): ErrorItem[] {
    const first: ErrorItem = { error: this.id, description: this.message, code: this.status };
    if (this.field !== undefined) first.field = this.field;
    return [first, ...this.more];
  }
}

export const badRequest = (id: string, description: string, field?: string) => new ApiError(400, id, description, field);

/** 400 for a request field, naming it: the id is invalid_field unless given. */
export const invalidField = (field: string, description: string, id = 'invalid_field') => new ApiError(400, id, description, field);

export const notFound = (what: string, field?: string) => new ApiError(404, 'not_found', `${what} does not exist`, field);

export const unauthorized = (id: string, description: string) =>
  new ApiError(401, id, description, undefined, { 'WWW-Authenticate': `Bearer error="${id}"` });

export const forbidden = (scope: string) =>
  new ApiError(403, 'insufficient_scope', `the access token lacks the scope ${scope} needed for this command`);

export const methodNotAllowed = (allow: string[]) =>
  new ApiError(405, 'method_not_allowed', `this path supports ${allow.join(', ')}`, undefined, { Allow: allow.join(', ') });

export const multipleChoices = (what: string, field?: string) =>
  new ApiError(300, 'ambiguous_id', `${what} matches several records; use an unambiguous id`, field);

/** A transaction lost a deadlock or a serialization conflict, or no connection was free: try again. */
export const retryLater = () =>
  new ApiError(503, 'retry_later', 'the request collided with another one and changed nothing; send it again', undefined, { 'Retry-After': '1' });

/** PostgreSQL or Redis cannot be reached: nothing was done; the service recovers by itself. */
export const dependencyUnavailable = (dependency: Dependency) =>
  new ApiError(503, 'service_unavailable', `${dependency === 'postgres' ? 'the database' : 'the queue'} cannot be reached right now; send the request again later`, undefined, { 'Retry-After': '5' });

export type Dependency = 'postgres' | 'redis';

const networkCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
// PostgreSQL's SQLSTATE classes for a lost or refused connection: 08 (connection exception),
// 57P01-03 (shutting down, crashed, starting up), 53300 (too many connections).
const postgresDown = /^(08|57P0[123]$|53300$)/;
const redisDown = /enableOfflineQueue|Connection is closed|Command timed out|max retries per request/i;
const postgresGone = /^Connection terminated|timeout exceeded when trying to connect/;

/**
 * Which dependency an error says is unreachable (connection refused, reset, timed out), if any.
 * A bare network error is told apart by the port it names (ports: of the database and Redis
 * URLs); one naming neither is not a dependency's.
 */
export function unreachableDependency(err: unknown, ports: Record<Dependency, number>): Dependency | undefined {
  const e = (err ?? {}) as { name?: string; message?: string; code?: unknown; port?: unknown; errors?: { port?: unknown }[] };
  const message = String(e.message ?? '');
  const code = typeof e.code === 'string' ? e.code : '';
  if (e.name === 'MaxRetriesPerRequestError' || redisDown.test(message)) return 'redis';
  if (postgresGone.test(message) || postgresDown.test(code)) return 'postgres';
  if (!networkCodes.has(code)) return undefined;
  const port = e.port ?? e.errors?.[0]?.port;
  return port === ports.redis ? 'redis' : port === ports.postgres ? 'postgres' : undefined;
}

export const payloadTooLarge = (limit: number) => new ApiError(413, 'payload_too_large', `the request body exceeds ${limit} bytes`);
