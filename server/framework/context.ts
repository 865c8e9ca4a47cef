import crypto from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { RequestContext } from '../../lib/http';
import { log, Logger, requestLog } from '../../lib/log';
import { observeRequest } from '../../lib/operator';

declare module 'express-serve-static-core' {
  interface Request {
    context: RequestContext;
  }
}

export const currentVersion = 'v1.1';
export const versions = ['v0.5', 'v0.6', 'v1.0', 'v1.1'];

// No '#': lib/db commit-marks.ts keys a request by its id and, while another has that key, '#' and a number.
const requestIdPattern = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Gives each request an id (the client's X-Request-Id when well formed, whatever other requests
 * carry it: lib/db commit-marks.ts tells requests of one id apart), a child logger and the
 * headers of document 1, and when it ends records it in the metrics (lib/operator) and logs one
 * line: method, path (never the query or headers), status, time, account. One middleware and one
 * listener: each layer Express walks and each listener costs every request.
 */
export function requestContext(req: Request, res: Response, next: NextFunction): void {
  const given = req.headers['x-request-id'];
  const id = typeof given === 'string' && requestIdPattern.test(given) ? given : crypto.randomUUID();
  req.context = new Context(id, versionOf(req.path), req);
  // setHeader directly: res.set() checks every value for a content type on each request.
  for (const [name, value] of standard) res.setHeader(name, value);
  res.setHeader('X-Request-Id', id);
  const started = process.hrtime.bigint();
  res.on('finish', () => {
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    observeRequest(req, res, seconds);
    // No request line below info (the bench's and some operators' setting).
    if (requestLog.isLevelEnabled('info')) logRequest(req, res, id, seconds);
  });
  next();
}

/**
 * The most characters of a path a request line holds: a client's 16 KB unknown path was written
 * whole on every request that sent it (its 404 answer repeats it cut to 100, lib/http echo-bound).
 * Every path of document 1's table fits.
 */
const loggedPathMax = 200;

/**
 * The path the client requested, as a request line holds it: req.originalUrl, since req.path
 * inside a mounted router is the part below the mount point (authorize.php was logged as "/",
 * /operator/metrics as "/metrics"); without the query, which may carry codes or tokens
 * (authorize.php's state, a channel's callback code); cut at loggedPathMax.
 */
function loggedPath(req: Request): string {
  const url = req.originalUrl;
  const query = url.indexOf('?');
  const path = query < 0 ? url : url.slice(0, query);
  return path.length > loggedPathMax ? `${path.slice(0, loggedPathMax)}…` : path;
}

function logRequest(req: Request, res: Response, id: string, seconds: number): void {
  // The line's logger with req_id first gives the line a child logger would, without one per request.
  requestLog.info(
    {
      req_id: id,
      method: req.method,
      path: loggedPath(req),
      status: res.statusCode,
      ms: Math.round(seconds * 1e4) / 10,
      account_id: res.locals.accountId,
      bytes: Number(res.get('content-length') ?? 0),
    },
    'request',
  );
}

/**
 * A request's context; its child logger, and its client address (req.ip walks the trusted proxy
 * chain), are made when something asks for them, not for every request.
 */
class Context implements RequestContext {
  warnings: RequestContext['warnings'] = [];
  basic?: RequestContext['basic'];
  private child: Logger | undefined;

  constructor(
    readonly id: string,
    readonly version: string,
    private readonly req: Request,
  ) {}

  get ifMatch(): string | undefined {
    return this.req.headers['if-match'];
  }

  get address(): string {
    return this.req.ip ?? this.req.socket.remoteAddress ?? 'unknown';
  }

  get log(): Logger {
    this.child ??= log.child({ req_id: this.id });
    return this.child;
  }
}

function versionOf(path: string): string {
  for (const v of versions) if (path.startsWith(`/${v}`) && (path.length === v.length + 1 || path[v.length + 1] === '/')) return v;
  return currentVersion;
}

/** Headers document 1 lists for every response. */
const standard = Object.entries({
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'GET, POST, DELETE, OPTIONS',
  'Access-Control-Allow-Headers': 'Authorization, Content-Type, Accept, Accept-Charset, X-Request-Id, Idempotency-Key, If-Match',
  'Access-Control-Expose-Headers': 'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, X-Request-Id, Location, Idempotent-Replayed, ETag',
  'X-Powered-By': 'Kontor',
});
