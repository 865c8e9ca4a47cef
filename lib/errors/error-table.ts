/**
 * The one table of error kinds and of every stable error id a client (or a job's final state)
 * sees. A kind says what went wrong in domain words; the framework turns it into an HTTP status
 * and headers (server/framework/respond.ts), defineProcessors into a permanent failure or a
 * retry (lib/queue/processors.ts). Ids are contracts: never renamed.
 */
export const errorKinds = {
  /** The request (or a job's data) is wrong; the field at fault is named where there is one. */
  invalid: { status: 400, permanent: true },
  /** No credentials, or credentials that name nobody. */
  unauthenticated: { status: 401, permanent: true },
  /** The caller is known but lacks the permission. */
  forbidden: { status: 403, permanent: true },
  /** The record addressed does not exist (for this account). */
  not_found: { status: 404, permanent: true },
  /** The reference matches several records (HTTP 300 Multiple Choices). */
  ambiguous: { status: 300, permanent: true },
  /** The path does not take this method. */
  method_not_allowed: { status: 405, permanent: true },
  /** The request is larger than the service takes. */
  too_large: { status: 413, permanent: true },
  /** The request line and headers are larger than the HTTP server reads (Node's 16 KB). */
  headers_too_large: { status: 431, permanent: true },
  /** The request did not arrive whole within the server's time for it. */
  request_timeout: { status: 408, permanent: false },
  /** Another request with the same Idempotency-Key is still running; send again when it is answered. */
  conflict: { status: 409, permanent: false },
  /** Well formed, but it contradicts what the service holds (an Idempotency-Key used for another request). */
  unprocessable: { status: 422, permanent: true },
  /** The request's If-Match names a state of the record it no longer has: read it again, then decide. */
  precondition_failed: { status: 412, permanent: true },
  /** A quota or throttle refused the call; it may be sent again after retryAfterSeconds. */
  throttled: { status: 429, permanent: false },
  /**
   * A dependency is unreachable or the work collided with other work: nothing changed; try again.
   * Except the two ids of a COMMIT whose answer was lost (outcome_unknown, already_carried_out):
   * the request may have been, or was, carried out; only web answers carry them, never a job.
   */
  unavailable: { status: 503, permanent: false },
  /** A portal refused the data (its own limits, a 4xx): sending it again cannot help. */
  portal_refused: { status: 502, permanent: true },
  /** A portal did not answer or answered 429/5xx: worth another try, after retryAfterSeconds if it said so. */
  portal_unavailable: { status: 503, permanent: false },
  /** A fault of the service; answered without detail, logged in full. */
  internal: { status: 500, permanent: false },
} as const;

export type ErrorKind = keyof typeof errorKinds;

/**
 * Every error id with its kind. `alsoAs` is a second kind an id is answered with today: a
 * portal account a request field names is invalid input (400), one a portal_upload part
 * addresses is not found (404); both are unknown_portal_account to the client.
 * `challenge` is the WWW-Authenticate scheme of a 401, and of the 403 for a missing scope: RFC 6750 3
 * asks the header whenever the token does not enable access.
 */
export const errorTable = {
  // invalid input (400)
  invalid_field: { kind: 'invalid' },
  bad_request: { kind: 'invalid' },
  malformed_json: { kind: 'invalid' },
  malformed_xml: { kind: 'invalid' },
  malformed_statement: { kind: 'invalid' },
  unsupported_statement: { kind: 'invalid' },
  xml_doctype_refused: { kind: 'invalid' },
  unsupported_charset: { kind: 'invalid' },
  invalid_text: { kind: 'invalid' },
  too_deep: { kind: 'invalid' },
  too_many_items: { kind: 'invalid' },
  too_many_fields: { kind: 'invalid' },
  unknown_parameter: { kind: 'invalid' },
  unknown_select: { kind: 'invalid' },
  unknown_filter: { kind: 'invalid' },
  invalid_operator: { kind: 'invalid' },
  invalid_range: { kind: 'invalid' },
  singleton_filter: { kind: 'invalid' },
  period_too_long: { kind: 'invalid' },
  status_conflict: { kind: 'invalid' },
  not_changeable: { kind: 'invalid' },
  duplicate_line_id: { kind: 'invalid' },
  unknown_currency: { kind: 'invalid' },
  unknown_country: { kind: 'invalid' },
  unknown_payment_method: { kind: 'invalid' },
  unsupported_action: { kind: 'invalid' },
  /** The account lacks what the command must state (an invoice without the seller's address or tax id). */
  seller_details_missing: { kind: 'invalid' },
  invalid_idempotency_key: { kind: 'invalid' },
  // OAuth 2 token errors (RFC 6749 section 5.2)
  invalid_request: { kind: 'invalid' },
  invalid_grant: { kind: 'invalid' },
  invalid_scope: { kind: 'invalid' },
  unsupported_grant_type: { kind: 'invalid' },
  unauthorized_client: { kind: 'invalid' },
  invalid_client: { kind: 'unauthenticated', challenge: 'Basic realm="kontor"' },
  // unauthenticated (401), forbidden (403)
  // RFC 6750 3.1: a request without credentials gets the scheme and no error code.
  missing_token: { kind: 'unauthenticated', challenge: 'Bearer realm="kontor"' },
  invalid_token: { kind: 'unauthenticated', challenge: 'Bearer' },
  insufficient_scope: { kind: 'forbidden', challenge: 'Bearer' },
  /** A field names a portal account of the seller that the token's grant does not reach (lib/access grantReaches). */
  portal_account_not_granted: { kind: 'forbidden' },
  // not found (404), ambiguous (300)
  not_found: { kind: 'not_found' },
  unknown_path: { kind: 'not_found' },
  unknown_portal_account: { kind: 'not_found', alsoAs: 'invalid' },
  unknown_lister: { kind: 'not_found' },
  unknown_live_listing: { kind: 'not_found' },
  /**
   * A contained object a request names by id that does not exist (document 1, Errors: 404 "a
   * contained object with a given id"): credit.main_id, line[].stock_align_id. Both were 400 once.
   */
  unknown_order: { kind: 'not_found' },
  unknown_stock_item: { kind: 'not_found' },
  no_live_listing: { kind: 'not_found' },
  ambiguous_id: { kind: 'ambiguous' },
  ambiguous_lister: { kind: 'ambiguous' },
  // the request as a whole
  method_not_allowed: { kind: 'method_not_allowed' },
  payload_too_large: { kind: 'too_large' },
  headers_too_large: { kind: 'headers_too_large' },
  request_timeout: { kind: 'request_timeout' },
  idempotency_key_in_use: { kind: 'conflict' },
  idempotency_key_reused: { kind: 'unprocessable' },
  /** If-Match of a conditional write (POST order/{order_id}/) names a state the order no longer has. */
  record_changed: { kind: 'precondition_failed' },
  too_many_requests: { kind: 'throttled' },
  too_many_concurrent_calls: { kind: 'throttled' },
  too_many_login_attempts: { kind: 'throttled' },
  retry_later: { kind: 'unavailable' },
  service_unavailable: { kind: 'unavailable' },
  /**
   * The answer to the request's COMMIT was lost and the database could not be asked what became
   * of it: the request may or may not have been carried out (lib/db commit-outcome.ts). Its own id,
   * apart from service_unavailable ("nothing was done, send it again"): a client must not resend
   * it blindly, only with the same Idempotency-Key or after reading what it writes.
   */
  outcome_unknown: { kind: 'unavailable' },
  /**
   * A resend with the Idempotency-Key of an outcome_unknown request, whose transaction is now known
   * to have committed, or of a request whose process died (or that failed) after a transaction of
   * it committed (the key's commit mark): it was carried out, its answer is lost, it is not
   * carried out again (lib/http idempotency.ts). A client stops resending and reads what it wrote.
   */
  already_carried_out: { kind: 'unavailable' },
  internal_error: { kind: 'internal' },
  // portals, seen in a job's final state (GET job/{job_id}/), never in an HTTP answer
  portal_refused: { kind: 'portal_refused' },
  portal_unavailable: { kind: 'portal_unavailable' },
} as const satisfies Record<string, { kind: ErrorKind; alsoAs?: ErrorKind; challenge?: string }>;

export type ErrorId = keyof typeof errorTable;

/** The kinds an id may be thrown as: its own, and its alsoAs where it has one. */
export type KindOf<I extends ErrorId> = (typeof errorTable)[I] extends { alsoAs: infer A }
  ? (typeof errorTable)[I]['kind'] | A
  : (typeof errorTable)[I]['kind'];

/** Ids of one kind, for constructors that take only those (e.g. invalidField takes invalid ids). */
export type IdOfKind<K extends ErrorKind> = { [I in ErrorId]: K extends KindOf<I> ? I : never }[ErrorId];
