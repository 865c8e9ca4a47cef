/**
 * A request Node's HTTP parser refuses before any route sees it (malformed HTTP, a request line
 * and headers over Node's 16 KB, a request that never arrived whole). Node answers those with a
 * bare status line; document 1 says every error answer has error[] and error_description, so the
 * answer is written to the socket in the envelope (there is no request or response object yet).
 * Nothing of the request is logged: its raw bytes may hold an Authorization header.
 */
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { ErrorId, errorKinds, errorTable } from '../errors';
import { log } from '../log';
import { errorEnvelope } from './envelope';

const refusals: Record<string, { error: ErrorId; description: string }> = {
  HPE_HEADER_OVERFLOW: { error: 'headers_too_large', description: 'the request line and headers are larger than 16 KB' },
  ERR_HTTP_REQUEST_TIMEOUT: { error: 'request_timeout', description: 'the request did not arrive whole in time' },
};
const malformed = { error: 'bad_request' as const, description: 'the request is not well-formed HTTP/1.1' };

/** The server's clientError listener. */
export function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  // A connection reset has nobody to answer; an answer already under way must not be cut into.
  const started = 'bytesWritten' in socket && Number(socket.bytesWritten) > 0;
  if (err.code === 'ECONNRESET' || !socket.writable || started) {
    socket.destroy();
    return;
  }
  const refusal = refusals[err.code ?? ''] ?? malformed;
  const status = errorKinds[errorTable[refusal.error].kind].status;
  log.info({ code: err.code, status }, 'request refused by the HTTP parser');
  const body = JSON.stringify(errorEnvelope([{ ...refusal, code: status }]));
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
