import { ErrorId, ErrorKind, errorKinds, errorTable, IdOfKind, KindOf } from './error-table';

/** Error_type of document 1: one entry of an envelope's error[] (code is the kind's status). */
export interface ErrorItem {
  /** Short error id, stable across releases. */
  error: ErrorId;
  description: string;
  code: number;
  /** Path of the request field at fault, where one is. */
  field?: string;
}

export interface ErrorOptions<I extends ErrorId = ErrorId> {
  /** Path of the request field at fault. */
  field?: string;
  /** The id's second kind (errorTable alsoAs), when it is thrown as that. */
  as?: KindOf<I>;
  /** Further faults of the same request, listed after this one. */
  more?: ErrorItem[];
  /** When sending again may succeed (throttled, unavailable, a portal that said so). */
  retryAfterSeconds?: number;
  /** The methods a path takes (method_not_allowed). */
  allow?: string[];
  /** The caller's quota when a throttle refused the call. */
  quota?: { limit: number; remaining: number; reset: number };
  /** The scope a command needs (insufficient_scope: the challenge's scope attribute, RFC 6750 3). */
  scope?: string;
  /**
   * What a portal waits for that only someone else can give (a store's fulfillment hold): not a
   * fault of the call, so a job may wait for it without spending its tries (lib/order send_mit).
   */
  waitsFor?: string;
  /**
   * A portal call that failed after it reached the portal, which may still apply it (an answer
   * not received in time or a connection reset after the request was written, a 5xx): set where
   * the call is made (lib/portals portal-request.ts `mayLandUnanswered`, `mayLandAnswered`). A
   * CIA push sends such a call's items once more when it can no longer land (lib/portal-offer
   * README "A push whose outcome is unknown"). Unset: nothing the call asked was applied, or it
   * asked nothing.
   */
  mayHaveLanded?: boolean;
}

/**
 * An error of the domain: an id of the table, its kind and a description for the client.
 * Domain code throws these and nothing about HTTP; anything else thrown is a fault (500).
 */
export class DomainError extends Error {
  override name = 'DomainError';
  readonly kind: ErrorKind;
  readonly field?: string;
  readonly more: ErrorItem[];
  readonly retryAfterSeconds?: number;
  readonly allow?: string[];
  readonly quota?: ErrorOptions['quota'];
  readonly scope?: string;
  readonly waitsFor?: string;
  readonly mayHaveLanded?: boolean;

  constructor(
    readonly id: ErrorId,
    description: string,
    options: ErrorOptions = {},
  ) {
    super(description);
    this.kind = options.as ?? errorTable[id].kind;
    this.more = options.more ?? [];
    if (options.field !== undefined) this.field = options.field;
    if (options.retryAfterSeconds !== undefined) this.retryAfterSeconds = options.retryAfterSeconds;
    if (options.allow) this.allow = options.allow;
    if (options.quota) this.quota = options.quota;
    if (options.scope) this.scope = options.scope;
    if (options.waitsFor) this.waitsFor = options.waitsFor;
    if (options.mayHaveLanded) this.mayHaveLanded = true;
  }

  /** The status of the kind (Error_type code; the HTTP status of a whole answer). */
  get status(): number {
    return errorKinds[this.kind].status;
  }

  /** This error and the further ones as Error_type items. */
  items(): ErrorItem[] {
    const first: ErrorItem = { error: this.id, description: this.message, code: this.status };
    if (this.field !== undefined) first.field = this.field;
    return [first, ...this.more];
  }
}

/** An error of the table, its id checked against the table and its kind (as) against the id's. */
export const domainError = <I extends ErrorId>(id: I, description: string, options: ErrorOptions<I> = {}) =>
  new DomainError(id, description, options as ErrorOptions);

/** Sending the work again cannot help: a job fails at once (see lib/queue/worker.ts). */
export function isPermanent(err: unknown): boolean {
  if (err instanceof DomainError) return errorKinds[err.kind].permanent;
  return (err as Error | undefined)?.name === 'UnrecoverableError';
}

export const invalidInput = (id: IdOfKind<'invalid'>, description: string, field?: string) => new DomainError(id, description, { field, as: 'invalid' });

/** Invalid input naming the request field: the id is invalid_field unless given. */
export const invalidField = (field: string, description: string, id: IdOfKind<'invalid'> = 'invalid_field') =>
  new DomainError(id, description, { field, as: 'invalid' });

export const notFound = (what: string, field?: string) => new DomainError('not_found', `${what} does not exist`, { field });

/** A job's record was deleted after the job was queued: the job fails for good. */
export const noLongerExists = (what: string) => new DomainError('not_found', `${what} no longer exists`);

export const ambiguous = (what: string, field?: string) => new DomainError('ambiguous_id', `${what} matches several records; use an unambiguous id`, { field });

export const unauthenticated = (id: IdOfKind<'unauthenticated'>, description: string) => new DomainError(id, description);

export const forbidden = (scope: string) =>
  new DomainError('insufficient_scope', `the access token lacks the scope ${scope} needed for this command`, { scope });

export const methodNotAllowed = (allow: string[]) => new DomainError('method_not_allowed', `this path supports ${allow.join(', ')}`, { allow });

export const tooLarge = (description: string) => new DomainError('payload_too_large', description);

export const throttled = (id: IdOfKind<'throttled'>, description: string, retryAfterSeconds: number, quota?: ErrorOptions['quota']) =>
  new DomainError(id, description, { retryAfterSeconds, quota });

/** A transaction lost a deadlock or a serialization conflict, or no connection was free: try again. */
export const retryLater = () =>
  new DomainError('retry_later', 'the request collided with another one and changed nothing; send it again', { retryAfterSeconds: 1 });

/** Any fault that is not a domain error: logged in full, answered without detail. */
export const internalError = () => new DomainError('internal_error', 'the request could not be processed; it has been logged');

/** Data a portal refuses (its own limits, or its 4xx answer): fails the job at once. */
export const portalRefused = (message: string) => new DomainError('portal_refused', message);

/**
 * A portal that waits for someone else's action before it takes the call whole (a store's
 * fulfillment hold, `waitsFor` naming it): retryable like portal_unavailable, and a job may wait
 * for it without spending its tries.
 */
export const portalWaiting = (message: string, waitsFor: string) => new DomainError('portal_unavailable', message, { waitsFor });

/**
 * A portal call worth retrying (429, 5xx, timeout, network); retryAfterMs from its Retry-After.
 * `landed`: the portal may still apply it (ErrorOptions.mayHaveLanded); false by default.
 */
export const portalUnavailable = (message: string, retryAfterMs?: number, landed = false) =>
  new DomainError('portal_unavailable', message, {
    ...(retryAfterMs === undefined ? {} : { retryAfterSeconds: retryAfterMs / 1000 }),
    ...(landed ? { mayHaveLanded: true } : {}),
  });

/** Whether a failure is a portal call the portal may still apply (ErrorOptions.mayHaveLanded). */
export const mayHaveLanded = (err: unknown): boolean => err instanceof DomainError && err.mayHaveLanded === true;
