import type { ErrorItem, Warning } from '../errors';

export type Payload = Record<string, unknown>;

/** The response envelope: warning[], error[], ack, then the payload fields. */
export function successEnvelope(payload: Payload, warnings: Warning[]): Payload {
  return {
    ...(warnings.length ? { warning: warnings } : {}),
    ack: warnings.length ? 'warning' : 'success',
    ...payload,
  };
}

export function errorEnvelope(errors: ErrorItem[], warnings: Warning[] = [], payload: Payload = {}): Payload {
  return {
    ...(warnings.length ? { warning: warnings } : {}),
    error: errors,
    ack: 'error',
    error_description: errors.map((e) => e.description).join('; '),
    ...payload,
  };
}

/** The envelope of a handler's answer: a 207 sums up its parts, any other success is success. */
export function answerEnvelope(status: number, payload: Payload, warnings: Warning[]): Payload {
  return status === 207 ? multiStatusEnvelope(payload as Payload & { response: Part[] }, warnings) : successEnvelope(payload, warnings);
}

interface Part {
  path?: string;
  code: number;
  error?: ErrorItem[];
}

/**
 * The envelope of a 207: its ack follows the parts, since document 1 says only success or warning
 * means the request succeeded. Every part done: success. Some failed: warning, one warning per
 * failed part (its path as field, its code as "the HTTP code that would result"). Every part
 * failed: error, whose error[] gathers the parts' own error items (each already names its field
 * with the part's path). The status stays 207 and response[] stays whole either way: the parts
 * are the answer, the ack only sums them up for a client that reads nothing else.
 */
function multiStatusEnvelope(payload: Payload & { response: Part[] }, warnings: Warning[]): Payload {
  // A part failed when it was refused: 4xx, 5xx, and 300 (an ambiguous stock id, document 1's
  // "several records would be found"), which a part answers with its error[] and nothing done.
  // Counted from 400 only, a list whose one part was a 300 was acked success.
  const failed = payload.response.filter((part) => part.code >= 300);
  if (failed.length === 0 || failed.length < payload.response.length) {
    return successEnvelope(payload, [...warnings, ...failed.map(partFailed)]);
  }
  return errorEnvelope(
    failed.flatMap((part) => part.error ?? []),
    warnings,
    payload,
  );
}

function partFailed(part: Part): Warning {
  const why = (part.error ?? []).map((e) => e.description).join('; ');
  return {
    warning: 'part_failed',
    description: `${part.path ?? 'a part'} failed${why ? `: ${why}` : ''}`,
    code: part.code,
    ...(part.path ? { field: part.path } : {}),
  };
}
