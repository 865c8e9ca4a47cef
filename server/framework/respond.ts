import crypto from 'node:crypto';
import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import { config } from '../../config';
import { isConflictVictim, lostCommitOf } from '../../lib/db';
import {
  commitOutcomeUnknown,
  DomainError,
  dependencyUnavailable,
  errorTable,
  failedAfterCommit,
  internalError,
  isPermanent,
  retryLater,
  unreachableDependency,
  Warning,
} from '../../lib/errors';
import {
  answerEnvelope,
  boundEchoes,
  errorEnvelope,
  Payload,
  successEnvelope,
  rateLimitHeaders,
  encodeText,
  jsonEscape,
  negotiateCharset,
  negotiateFormat,
  buildXmlResponse,
  keyTakenOverError,
  xmlReference,
} from '../../lib/http';
import { decodedBodyOf } from './body';

/**
 * Writes an envelope in the format (JSON or XML) and charset the client asked for. The answer
 * Express's res.send would give (the same headers, its weak ETag), written directly: res.send
 * checks the content type, copies a UTF-8 body into a buffer and tests freshness on every call.
 * A conditional request (If-None-Match, If-Modified-Since) or a HEAD goes through res.send, which
 * answers 304 or no body as before.
 *
 * A handler that names its record's version (an `ETag` header of one opaque tag, GET
 * order/{order_id}/) gets a strong tag of version and representation, `"<version>.<digest of the
 * body>"`: an If-Match of a later write compares the version (the order's state, whatever select,
 * format or charset it was read with), an If-None-Match the whole tag, so a read with another
 * select or format is never answered 304 with the body of the first.
 */
export function sendEnvelope(req: Request, res: Response, status: number, envelope: Payload, headers: Record<string, string> = {}): void {
  // Every answer leaves here (replays too): what its errors and warnings repeat of a long text the
  // client sent is cut (lib/http README, "What an error repeats").
  envelope = boundEchoes(envelope, sentInput(req));
  const format = negotiateFormat(req.headers.accept);
  const charset = negotiateCharset(req.get('accept-charset'));
  const text = format === 'xml' ? buildXmlResponse(envelope, charset) : JSON.stringify(envelope);
  const contentType = `${format === 'xml' ? 'application/xml' : 'application/json'}; charset=${charset.toUpperCase()}`;
  // A character the charset cannot hold goes as an escape both formats read back (lib/http media.ts).
  const unheld = format === 'xml' ? xmlReference : jsonEscape;
  const conditional = req.headers['if-none-match'] !== undefined || req.headers['if-modified-since'] !== undefined;
  const body = charset === 'utf-8' ? text : encodeText(text, charset, unheld);
  const given = headers.ETag;
  if (given !== undefined) headers = { ...headers, ETag: versionTag(given, body) };
  if (conditional || req.method === 'HEAD') {
    // res.send keeps an ETag already set (the version's) and makes its own otherwise.
    res
      .status(status)
      .set(headers)
      .set('Content-Type', contentType)
      .send(typeof body === 'string' ? encodeText(body, charset, unheld) : body);
    return;
  }
  res.statusCode = status;
  for (const name in headers) res.setHeader(name, headers[name]!);
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Length', typeof body === 'string' ? Buffer.byteLength(body) : body.length);
  if (given === undefined) {
    const etag = req.app.get('etag fn') as ((body: string | Buffer, encoding?: BufferEncoding) => string | undefined) | undefined;
    const tag = etag?.(body, 'utf8');
    if (tag) res.setHeader('ETag', tag);
  }
  // A string body leaves with the headers in one write; a buffer would be a second chunk.
  res.end(body);
}

/** What the request carried, decoded: query, body, path parameters and the path itself. */
function sentInput(req: Request): unknown[] {
  const sent: unknown[] = [req.path, req.params, decodedBodyOf(req), echoableHeaders(req)];
  // Express parses the query string on each read of req.query; a query too odd to parse repeats nothing of it here.
  try {
    if (req.url.includes('?')) sent.push(req.query);
  } catch {
    // nothing more to look for
  }
  return sent;
}

/**
 * The request's header values an error may repeat (an unknown charset of Content-Type, an
 * Idempotency-Key, an If-Match), so that a 16 KB header comes back cut like any other text sent.
 * Credentials are left out: nothing that repeats them is ever written, and they need no walk.
 */
function echoableHeaders(req: Request): string[] {
  const values: string[] = [];
  for (const [name, value] of Object.entries(req.headers)) {
    if (name === 'authorization' || name === 'proxy-authorization' || name === 'cookie' || value === undefined) continue;
    // With its parameters' values: `charset=<text>` repeats the text alone.
    for (const v of Array.isArray(value) ? value : [value]) values.push(v, ...v.split(/[;=]/).map((p) => p.trim().replace(/^"|"$/g, '')));
  }
  return values;
}

/** `"<version>.<digest>"`: the handler's version (its tag's opaque part) and a digest of the representation. */
function versionTag(given: string, body: string | Buffer): string {
  const version = given.replace(/^"|"$/g, '');
  const digest = crypto.createHash('sha1').update(body).digest('base64url').slice(0, 16);
  return `"${version}.${digest}"`;
}

export function sendSuccess(req: Request, res: Response, status: number, payload: Payload, warnings: Warning[], headers?: Record<string, string>): void {
  sendEnvelope(req, res, status, successEnvelope(payload, warningsAt(status, warnings)), headers);
}

/**
 * Warning_type code is the "HTTP code that would result" (document 1, Errors): the status the
 * answer leaves with, set here for every endpoint, whatever code the domain wrote (200 on a 201
 * or a 400 before). Every envelope with warnings is built through this (answerOf, errorAnswerOf,
 * sendSuccess, sendError); a replay sends the stored envelope, already so.
 */
function warningsAt(status: number, warnings: Warning[]): Warning[] {
  return warnings.map((w) => (w.code === status ? w : { ...w, code: status }));
}

/**
 * The envelope of a handler's answer (lib/http answerEnvelope), its warnings at the status; a
 * 207's parts each with their warnings at the part's code (the request's own warnings say 207,
 * each part_failed its part's code).
 */
export function answerOf(status: number, payload: Payload, warnings: Warning[]): Payload {
  if (status === 207 && Array.isArray(payload.response)) {
    const parts = (payload.response as Payload[]).map((part) =>
      Array.isArray(part.warning) && typeof part.code === 'number' ? { ...part, warning: warningsAt(part.code, part.warning as Warning[]) } : part,
    );
    payload = { ...payload, response: parts };
  }
  return answerEnvelope(status, payload, warningsAt(status, warnings));
}

/** The envelope of a refused request: its errors, and the warnings gathered before, at the error's status. */
export function errorAnswerOf(error: DomainError, warnings: Warning[] = []): Payload {
  return errorEnvelope(error.items(), warningsAt(error.status, warnings));
}

/**
 * The one mapping of a domain error to its HTTP answer: the status of its kind (lib/errors
 * error table), the envelope with its Error_type items, and the headers its kind calls for:
 * WWW-Authenticate for 401 and 403, Allow for 405, Retry-After for 429 and 503, the quota on 429.
 */
export function sendError(req: Request, res: Response, error: DomainError, warnings: Warning[] = []): void {
  sendEnvelope(req, res, error.status, errorAnswerOf(error, warnings), errorHeaders(error));
}

export function errorHeaders(error: DomainError): Record<string, string> {
  const headers: Record<string, string> = {};
  const entry = errorTable[error.id];
  if ((error.kind === 'unauthenticated' || error.kind === 'forbidden') && 'challenge' in entry) {
    headers['WWW-Authenticate'] = entry.challenge === 'Bearer' ? bearerChallenge(error) : entry.challenge;
  }
  if (error.allow) headers.Allow = error.allow.join(', ');
  if (error.quota) Object.assign(headers, rateLimitHeaders(error.quota));
  if (error.retryAfterSeconds !== undefined) headers['Retry-After'] = String(Math.ceil(error.retryAfterSeconds));
  return headers;
}

/** RFC 6750 3: the error code, and for insufficient_scope the scope the command needs. */
function bearerChallenge(error: DomainError): string {
  return `Bearer error="${error.id}"` + (error.scope ? `, scope="${error.scope}"` : '');
}

/**
 * The one mapping of a thrown error to a domain error: a DomainError as it is; a COMMIT whose
 * outcome is unknown 503 saying so (lib/db commit-outcome.ts); a lost transaction conflict 503
 * (send again); PostgreSQL or Redis unreachable 503 with Retry-After, never a 500; anything else
 * a logged 500 without detail.
 */
export function toDomainError(err: unknown, log: Logger): DomainError {
  if (err instanceof DomainError) return err;
  const takenOver = keyTakenOverError(err);
  if (takenOver) {
    // An operator's sign, apart from the 409s of ordinary duplicates: this process ran a keyed
    // request past its running lock (5 minutes: a frozen VM or container, a stall), and only the
    // fence kept its writes from committing beside the resend's. The pool's "Connection Error"
    // line of the disposed connection says nothing of that (lib/http README, Idempotency-Key).
    log.warn(
      { err: (err as Error).message },
      'a keyed request ran past its Idempotency-Key running lock and a resend took the key over: rolled back, answered 409',
    );
    return takenOver;
  }
  const lost = lostCommitOf(err);
  if (lost) {
    log.warn({ err: (err as Error).message, xid: lost.xid ?? null }, 'the answer to COMMIT was lost; answered 503, outcome unknown');
    return commitOutcomeUnknown();
  }
  if (isTransient(err)) {
    log.warn({ err }, 'transient database conflict');
    return retryLater();
  }
  const unavailable = dependencyError(err, log);
  if (unavailable) return unavailable;
  log.error({ err }, 'unhandled error');
  return internalError();
}

/**
 * The answer to a failure of a request a transaction of which committed (`committed`: lib/db
 * OpenRequest): an error that says nothing was done and the request may be sent again (a 503
 * service_unavailable or retry_later, a 429, a 409 or 408) becomes a 500 saying part of it was
 * saved (lib/errors failedAfterCommit), logged; outcome_unknown keeps its answer (it says so
 * already), and so does an error the domain chose (4xx). A session ended after the COMMIT of a
 * bound client's send_mit answered 503 "send the request again", and the resend mailed twice.
 */
export function afterCommit(error: DomainError, committed: boolean, log: Logger): DomainError {
  if (!committed || isPermanent(error) || error.kind === 'internal' || error.id === 'outcome_unknown' || error.id === 'already_carried_out') return error;
  log.error({ answered: error.id }, 'the request failed after a transaction of it committed; answered 500, not "send again"');
  return failedAfterCommit();
}

/** The 503 for an error that says PostgreSQL or Redis is unreachable (logged as a warning), else undefined. */
export function dependencyError(err: unknown, log: Logger): DomainError | undefined {
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
