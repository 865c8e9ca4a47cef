/**
 * An endpoint is one declaration: path, method, scope, request schemas, payload names, sync or
 * async, and a handler. The framework (server/framework/) derives routing, authentication,
 * scope checks, body decoding (JSON/XML, charsets), read-only warnings, validation, select/
 * filter/pagination, 405, OPTIONS and the envelope from it.
 */
import type Joi from 'joi';
import type { Caller, Scope } from '../access';
import type { Warning } from '../errors';
import type { Logger } from '../log';
import type { Payload } from './envelope';
import type { SearchPage, SearchRequest, SearchSpec } from './search';

export type Method = 'GET' | 'POST' | 'DELETE';

export interface RequestContext {
  id: string;
  log: Logger;
  /** The API version segment the client used (v1.1 when none). */
  version: string;
  /** Warnings gathered while handling; they join the envelope. */
  warnings: Warning[];
  /** The client's address (X-Forwarded-For only from a loopback proxy), for the login throttle. */
  address: string;
  /** Basic credentials sent with the request, for token.php. */
  basic?: { user: string; password: string };
  /** The If-Match header as sent (a conditional write, on endpoints that declare `conditional`). */
  readonly ifMatch: string | undefined;
}

export interface Result {
  status?: 200 | 201 | 202 | 207 | 302;
  payload?: Payload;
  headers?: Record<string, string>;
}

interface Context<P, B, Q> {
  request: RequestContext;
  params: P;
  body: B;
  query: Q;
  /** Parsed select, filter and pagination, for endpoints that declare search. */
  search: SearchRequest;
}

export interface CallerContext<P, B, Q> extends Context<P, B, Q> {
  caller: Caller;
}

interface Declaration {
  method: Method;
  /** Relative to the version segment, ending in '/': 'order/{order_id}/history/'. */
  path: string;
  summary: string;
  /** Path parameters; a value that fails is a 404 for ids, a 400 otherwise (the schema decides via `notFound`). */
  params?: Joi.ObjectSchema;
  /** Request body (POST); portal_account_id is added by the framework. */
  body?: Joi.ObjectSchema;
  /**
   * The body the docs page's "Try it out" starts with. Without one Swagger UI builds it from the
   * schema, every text "string", which the checks refuse; this one, sent as it is, is answered
   * 2xx (test/framework/docs-page.test.ts presses Execute).
   */
  example?: Record<string, unknown>;
  /**
   * The body is a file (a bank statement), handed to the handler as its bytes: no JSON/XML
   * decoding, no portal_account_id; the description says what the file may be.
   */
  file?: string;
  /** Query fields of a GET other than select, filter, pagination and portal_account_id. */
  query?: Joi.ObjectSchema;
  /** Declares a search endpoint: select, filter and pagination are parsed against it. */
  search?: SearchSpec<never>;
  /** A one-record read that takes select: the type its first payload field has. */
  select?: { type: Joi.ObjectSchema; alwaysSelected: string[] };
  /** Payload field names of a successful answer (for OPTIONS and the XML root's children). */
  response: string[];
  /** Answered with 202 and a job_id: the work happens in a worker. */
  async?: boolean;
  /**
   * A POST that creates records or triggers work (a job, a mail, a portal call): sending it twice
   * would do it twice. The framework then honours Idempotency-Key (lib/http/idempotency/).
   */
  creates?: boolean;
  /**
   * A bulk endpoint: the list field of its items, and the type its handler validates each item
   * against on its own (an item it refuses fails alone, in its part of the 207): the body's Joi
   * type takes any item, and the API document describes the items by this one. It counts 1/10 of
   * a call per item (others 1 call).
   */
  bulk?: { field: string; item: () => Joi.Schema };
  /**
   * A request of parts that is no bulk list: the object field whose lists hold them
   * (portal_upload: one list per portal). It is bounded and weighed as a bulk request is
   * (document 1: up to 200 items, 1/10 of a call each), over all its lists together: more than
   * `max` parts is a 400 too_many_items naming the field and the bound, refused before the call
   * is counted (as a body too large is) and before anything is read of it.
   */
  parts?: { field: string; max: number };
  /**
   * Success statuses the handler answers besides the usual ones (200; 201 too for a POST that
   * creates; 202 for async, 207 for bulk), each with when: the API document lists them (issue 36).
   */
  answers?: Partial<Record<200 | 201 | 202 | 207 | 302, string>>;
  /** Version notes shown by OPTIONS. */
  changes?: { version: string; change: string }[];
  /**
   * A write that honours If-Match: what the tag is (where a client reads it). The request is
   * refused with 412 record_changed when the record no longer has the state the tag names.
   */
  conditional?: string;
}

export interface Endpoint extends Declaration {
  /** Authenticated endpoints need a bearer token holding every scope declared (none: any valid token). */
  auth: { scopes: readonly Scope[] } | null;
  run(context: Context<unknown, unknown, unknown> & { caller: Caller | null }): Promise<Result>;
}

/**
 * Declares an endpoint that needs a bearer token, and the scope when given; several when the
 * command does what each of them guards (take_over writes stock items: admin_w, stock_r, stock_w),
 * every one required, a token lacking any refused with 403 naming those it lacks.
 */
export function endpoint<P = Record<string, never>, B = Record<string, never>, Q = Record<string, never>>(
  declaration: Declaration & { scope?: Scope | readonly Scope[]; handle(context: CallerContext<P, B, Q>): Promise<Result> },
): Endpoint {
  const { scope, handle, ...rest } = declaration;
  return {
    ...rest,
    auth: { scopes: scope === undefined ? [] : typeof scope === 'string' ? [scope] : [...scope] },
    run: (context) => handle({ ...(context as Context<P, B, Q>), caller: context.caller as Caller }),
  };
}

/** Declares an endpoint open without a token (token.php, authorize.php). */
export function publicEndpoint<P = Record<string, never>, B = Record<string, never>, Q = Record<string, never>>(
  declaration: Declaration & { handle(context: Context<P, B, Q>): Promise<Result> },
): Endpoint {
  const { handle, ...rest } = declaration;
  return { ...rest, auth: null, run: (context) => handle(context as Context<P, B, Q>) };
}

export const ok = (payload: Payload = {}): Result => ({ status: 200, payload });
export const created = (payload: Payload): Result => ({ status: 201, payload });
export const accepted = (payload: Payload): Result => ({ status: 202, payload });
export const multiStatus = (response: Payload[]): Result => ({ status: 207, payload: { response } });

/** A search answer: the records under their payload name, and next_min_id when a further page exists. */
export const okPage = (name: string, page: SearchPage<unknown>): Result =>
  ok({ [name]: page.items, ...(page.nextMinId ? { next_min_id: page.nextMinId } : {}) });
