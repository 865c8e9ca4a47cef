import type { Request, Response } from 'express';
import { ApiError } from '../../lib/http/errors';
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
