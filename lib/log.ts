import { AsyncLocalStorage } from 'node:async_hooks';
import pino from 'pino';
import { config } from '../config';

/**
 * Paths that could carry a secret anywhere they appear in a logged object. The request logger
 * never logs headers or bodies, so this is a second line of defence.
 */
const redact = [
  'password',
  '*.password',
  'token',
  '*.token',
  'access_token',
  '*.access_token',
  'refresh_token',
  '*.refresh_token',
  'client_secret',
  '*.client_secret',
  'authorization',
  '*.authorization',
  'headers.authorization',
  'req.headers.authorization',
  'credentials',
  '*.credentials',
];

/**
 * The request a job serves (workers only). The web never runs one: on Node 20 the first run
 * turns on promise hooks for every promise of the process; the web hands the request id to the
 * transactions it opens instead (lib/db `transaction`), and its request logger binds req_id.
 */
const requestScope = new AsyncLocalStorage<{ id: string }>();

/**
 * Runs a job's work on behalf of a request id: the outbox copies it into the jobs the work
 * queues, webhook deliveries send it, and every log line inside carries it as req_id.
 */
export function withRequestId<T>(id: string | undefined, fn: () => T): T {
  return id ? requestScope.run({ id }, fn) : fn();
}

/** The request id of the job in hand, if any. */
export function currentRequestId(): string | undefined {
  return requestScope.getStore()?.id;
}

/**
 * An error as pino's standard serializer writes it, without PostgreSQL's `detail`: a constraint's
 * detail quotes the row's values ("Key (email)=(buyer@example.org) already exists."); the
 * SQLSTATE, constraint, table and column name the fault without them. (Knex's part of the
 * message is the SQL with pg's $n placeholders: it writes values only in place of `?`.)
 */
function loggedError(err: Error | string): Record<string, unknown> {
  // Many lines carry only the error's message (`err: err.message`: a job's failure, a Redis
  // outage); pino's serializer spread such a string into one key per character.
  if (typeof err === 'string') return { message: err };
  return withoutDetail(pino.stdSerializers.err(err) as Record<string, unknown>);
}

/** The serialized error and the causes it carries, each without `detail`. */
function withoutDetail(serialized: Record<string, unknown>): Record<string, unknown> {
  const { detail: _detail, cause, ...kept } = serialized;
  if (cause && typeof cause === 'object') kept.cause = withoutDetail(cause as Record<string, unknown>);
  else if (cause !== undefined) kept.cause = cause;
  return kept;
}

export const log = pino(
  {
    mixin: () => {
      const scope = requestScope.getStore();
      return scope ? { req_id: scope.id } : {};
    },
    level: config().logLevel,
    // npm start runs every process into one stdout: `process` tells whose line it is.
    base: { service: 'kontor', pid: process.pid, ...(config().processName ? { process: config().processName } : {}) },
    redact: { paths: redact, censor: '[redacted]' },
    serializers: { err: loggedError },
    timestamp: pino.stdTimeFunctions.isoTime,
  },
  // Asynchronous stdout: pino's default writes each line with its own write(2) on the main thread,
  // which at info (a line per request) cost the web process a quarter of its CPU per API call
  // (bench read-path, issue 32). Lines written while a write is under way leave together with the
  // next; a line is not held back when the process is quiet. Pino flushes synchronously on exit.
  pino.destination({ dest: 1, sync: false }),
);

export type Logger = typeof log;

/**
 * The web's line per request (server/framework/context.ts): the root logger without redaction.
 * The line's keys are fixed and none is a path of `redact`, so redaction could never change it;
 * @pinojs/redact walks each wildcard path of each line: 11 µs a line on its own, 5-6 % of the
 * web process's samples in a trivial GET. A child keeps the level it was made with: nothing sets
 * the level at run time but the tests' log capture, which sets both.
 */
export const requestLog: Logger = log.child({}, { redact: [] });
