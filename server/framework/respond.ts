import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import { config } from '../../config';
import { isConflictVictim } from '../../lib/db/transaction';
import { ApiError, dependencyUnavailable, retryLater, unreachableDependency } from '../../lib/http/errors';
import { errorEnvelope, Payload, successEnvelope, Warning } from '../../lib/http/envelope';
import { encodeText, negotiateCharset, negotiateFormat } from '../../lib/http/media';
import { buildXmlResponse } from '../../lib/http/xml';

/** Writes an envelope in the format (JSON or XML) and charset the client asked for. */
export function sendEnvelope(req: Request, res: Response, status: number, envelope: Payload, headers: Record<string, string> = {}): void {
  const format = negotiateFormat(req.get('accept'));
  const charset = negotiateCharset(req.get('accept-charset'));
  const text = format === 'xml' ? buildXmlResponse(envelope, charset) : JSON.stringify(envelope);
  res.status(status).set(headers)
    .set('Content-Type', `${format === 'xml' ? 'application/xml' : 'application/json'}; charset=${charset.toUpperCase()}`)
    .send(encodeText(text, charset));
}

export function sendSuccess(req: Request, res: Response, status: number, payload: Payload, warnings: Warning[], headers?: Record<string, string>): void {
  sendEnvelope(req, res, status, successEnvelope(payload, warnings), headers);
}

export function sendError(req: Request, res: Response, error: ApiError, warnings: Warning[] = []): void {
  sendEnvelope(req, res, error.status, errorEnvelope(error.items(), warnings), error.headers);
}

/** Anything that is not an ApiError: logged in full, answered without detail. */
export const internalError = () => new ApiError(500, 'internal_error', 'the request could not be processed; it has been logged');

/**
 * The one mapping of a thrown error to its answer: an ApiError as it is; a lost transaction
 * conflict 503 (send again); PostgreSQL or Redis unreachable 503 with Retry-After, never a 500;
 * anything else a logged 500 without detail.
 */
export function toApiError(err: unknown, log: Logger): ApiError {
  if (err instanceof ApiError) return err;
  if (isTransient(err)) {
    log.warn({ err }, 'transient database conflict');
    return retryLater();
  }
  const unavailable = dependencyError(err, log);
  if (unavailable) return unavailable;
  log.error({ err }, 'unhandled error');
  return internalError();
}

/** The 503 for an error that says PostgreSQL or Redis is unreachable (logged as a warning), else undefined. */
export function dependencyError(err: unknown, log: Logger): ApiError | undefined {
  const dependency = unreachableDependency(err, { postgres: portOf(config().databaseUrl, 5432), redis: portOf(config().redisUrl, 6379) });
  if (!dependency) return undefined;
  log.warn({ err: (err as Error).message, dependency }, 'dependency unreachable; answered 503');
  return dependencyUnavailable(dependency);
}

/** Deadlock, serialization failure, or a full pool: the transaction rolled back; the client may retry. */
function isTransient(err: unknown): boolean {
  return isConflictVictim(err) || (err as Error).name === 'KnexTimeoutError';
}

function portOf(url: string, fallback: number): number {
  try {
    return Number(new URL(url).port || fallback);
  } catch {
    return fallback;
  }
}
