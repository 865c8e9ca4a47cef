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
