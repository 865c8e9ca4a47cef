import crypto from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { RequestContext } from '../../lib/http/endpoint';
import { log } from '../../lib/log';

declare module 'express-serve-static-core' {
  interface Request {
    context: RequestContext;
  }
}

export const currentVersion = 'v1.1';
export const versions = ['v0.5', 'v0.6', 'v1.0', 'v1.1'];

const requestIdPattern = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Gives each request an id (the client's X-Request-Id when well formed), a child logger, and
 * logs one line when it ends: method, path (never the query or headers), status, time, account.
 */
export function requestContext(req: Request, res: Response, next: NextFunction): void {
  const given = req.get('x-request-id');
  const id = given && requestIdPattern.test(given) ? given : crypto.randomUUID();
  const version = versions.find((v) => req.path === `/${v}` || req.path.startsWith(`/${v}/`)) ?? currentVersion;
  req.context = { id, log: log.child({ req_id: id }), version, warnings: [], address: req.ip ?? req.socket.remoteAddress ?? 'unknown' };
  res.set('X-Request-Id', id);
  const started = process.hrtime.bigint();
  res.on('finish', () => {
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    req.context.log.info(
      {
        method: req.method,
        path: req.path,
        status: res.statusCode,
        ms: Math.round(ms * 10) / 10,
        account_id: res.locals.accountId,
        bytes: Number(res.get('content-length') ?? 0),
      },
      'request',
    );
  });
  next();
}

/** Headers document 1 lists for every response. */
export function standardHeaders(_req: Request, res: Response, next: NextFunction): void {
  res.set({
    'Access-Control-Allow-Origin': '*',
    'Access-Control-Allow-Methods': 'GET, POST, DELETE, OPTIONS',
    'Access-Control-Allow-Headers': 'Authorization, Content-Type, Accept, Accept-Charset, X-Request-Id, Idempotency-Key',
    'Access-Control-Expose-Headers': 'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, X-Request-Id, Location, Idempotent-Replayed',
    'X-Powered-By': 'Kontor',
  });
  next();
}
