import type { Request, Response } from 'express';
import type { Caller } from '../../lib/access';
import type { OpenRequest } from '../../lib/db';
import type { Endpoint } from '../../lib/http';
import { claimKey, Claim, fingerprintOf, idempotencyHeader, idempotencyKeyOf, keyHolderOf, replayedHeader, StoredAnswer } from '../../lib/http';
import { sendEnvelope } from './respond';

/**
 * The Idempotency-Key of a request to an endpoint declared `creates`, checked (400 naming the
 * header); undefined for other endpoints or without the header. No I/O: a request without the
 * header costs one header lookup.
 */
export function requestKey(e: Endpoint, req: Request): string | undefined {
  return e.creates ? idempotencyKeyOf(req.get(idempotencyHeader)) : undefined;
}

/**
 * Claims the key for this request (the same method, version, path, parameters, query and
 * validated body) among the keys of the calling client: another client's key of the same name is
 * another key. The request's transactions (`open`) then mark the key's row as they commit.
 */
export function claimRequest(
  key: string,
  req: Request,
  caller: Caller,
  e: Endpoint,
  input: Record<string, unknown>,
  body: unknown,
  open: OpenRequest,
): Promise<Claim> {
  const fingerprint = fingerprintOf({
    method: e.method,
    version: req.context.version,
    path: e.path,
    params: req.params as Record<string, string>,
    query: req.query,
    portalAccount: input.portal_account_id ?? null,
    body,
  });
  return claimKey(keyHolderOf(caller), key, fingerprint, { requestId: req.context.id, open });
}

/** The first answer again, in the format and charset this request asks for. */
export function sendReplay(req: Request, res: Response, answer: StoredAnswer): void {
  req.context.log.info({ idempotent_replay: true }, 'answered from Idempotency-Key');
  sendEnvelope(req, res, answer.status, answer.envelope, { ...answer.headers, [replayedHeader]: 'true' });
}
