/**
 * Typed errors with a stable short id and an HTTP code. One error handler maps them to the
 * envelope; anything that is not an ApiError becomes a 500 with no detail.
 */
export interface ErrorItem {
  /** Short error id, stable across releases. */
  error: string;
  description: string;
  code: number;
  /** Path of the request field at fault, where one is. */
  field?: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly id: string,
    description: string,
    readonly field?: string,
    readonly headers: Record<string, string> = {},
    readonly more: ErrorItem[] = [],
  ) {
    super(description);
  }

  items(): ErrorItem[] {
    const first: ErrorItem = { error: this.id, description: this.message, code: this.status };
    if (this.field !== undefined) first.field = this.field;
    return [first, ...this.more];
  }
}

export const badRequest = (id: string, description: string, field?: string) => new ApiError(400, id, description, field);

/** 400 for a request field, naming it: the id is invalid_field unless given. */
export const invalidField = (field: string, description: string, id = 'invalid_field') => new ApiError(400, id, description, field);

export const notFound = (what: string, field?: string) => new ApiError(404, 'not_found', `${what} does not exist`, field);

export const unauthorized = (id: string, description: string) =>
  new ApiError(401, id, description, undefined, { 'WWW-Authenticate': `Bearer error="${id}"` });

export const forbidden = (scope: string) =>
  new ApiError(403, 'insufficient_scope', `the access token lacks the scope ${scope} needed for this command`);

export const methodNotAllowed = (allow: string[]) =>
  new ApiError(405, 'method_not_allowed', `this path supports ${allow.join(', ')}`, undefined, { Allow: allow.join(', ') });

export const multipleChoices = (what: string, field?: string) =>
  new ApiError(300, 'ambiguous_id', `${what} matches several records; use an unambiguous id`, field);

/** A transaction lost a deadlock or a serialization conflict, or no connection was free: try again. */
export const retryLater = () =>
  new ApiError(503, 'retry_later', 'the request collided with another one and changed nothing; send it again', undefined, { 'Retry-After': '1' });

export const payloadTooLarge = (limit: number) => new ApiError(413, 'payload_too_large', `the request body exceeds ${limit} bytes`);
