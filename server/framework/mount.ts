import type { NextFunction, Request, RequestHandler, Response } from 'express';
import Joi from 'joi';
import { grantOfAccessToken } from '../../lib/auth';
import type { Caller } from '../../lib/access';
import type { Warning } from '../../lib/errors';
import { config } from '../../config';
import type { Endpoint, RequestContext, Claim, StoredAnswer } from '../../lib/http';
import {
  acquire,
  quotaOf,
  rateLimitHeaders,
  checkInput,
  checkParts,
  checkText,
  partsIn,
  portalAccountRef,
  parseDeleteFilter,
  parseSearch,
  project,
  SearchRequest,
  parseSelect,
  PortalAccountMention,
  stripReadOnly,
  validate,
  emptyXmlBulkItems,
  keepXmlOrigin,
} from '../../lib/http';
import { DomainError, forbidden, invalidField, methodNotAllowed, notFound, unauthenticated } from '../../lib/errors';
import { checkMentionedPortalAccounts, PortalAccountRef, resolveRequestPortalAccount } from '../../lib/portal-account';
import { bodyRead, decodeBody, readRawBody } from './body';
import { refuseReservedKeys } from './query-parser';
import { basicCredentials, bearerToken } from './credentials';
import { optionsOverview } from './options';
import { PathTable } from './path-table';
import { versions } from './context';
import { afterCommit, answerOf, errorAnswerOf, errorHeaders, sendEnvelope, sendError, sendSuccess, toDomainError } from './respond';
import { claimRequest, requestKey, sendReplay } from './idempotency';
import { recordJobsAnswered } from '../../lib/queue';
import { openRequest, OpenRequest } from '../../lib/db';

const noSearch: SearchRequest = { select: null, singletons: [], filters: [], limit: 20, offset: 0 };
const defaultWeight = 10;
// Built once: Joi compiles a schema at construction, which per request cost more than validating.
const portalAccountField = Joi.object({ portal_account_id: portalAccountRef() }).unknown(true);
const emptyObject = Joi.object({});

/** The label of a declared path in the metrics: 'order/{order_id}/history/' → '/order/:order_id/history', as Express's route pattern was. */
function routeLabel(path: string): string {
  return '/' + path.replace(/\/$/, '').replace(/\{(\w+)\}/g, ':$1');
}

type PathHandler = (req: Request, res: Response) => void | Promise<void>;

/** One declared path: a handler per method it declares and its OPTIONS, the 405 for the rest. */
interface DeclaredPath {
  label: string;
  byMethod: Map<string, PathHandler>;
  notAllowed: PathHandler;
}

/** A version prefix of document 1 (the mount Express matched it with ignored case, so does this). */
const versionPrefix = new RegExp(`^/(?:${versions.map((v) => v.replace(/\./g, '\\.')).join('|')})(?=/|$)`, 'i');

/**
 * Every declared endpoint as one request handler, with or without a version prefix: its method's
 * handler, the path's OPTIONS and its 405; a path it does not know goes on to the next layer. The
 * path is found in a PathTable (path-table.ts), not by Express's routers: three nested routers
 * and a route per path were about 4 % of a trivial GET's web CPU (profile, bench read-path).
 */
export function endpointHandler(endpoints: Endpoint[]): RequestHandler {
  const byPath = new Map<string, Endpoint[]>();
  for (const e of endpoints) {
    const group = byPath.get(e.path) ?? [];
    // A second declaration of the same method and path would be shadowed without a sound.
    if (group.some((other) => other.method === e.method)) throw new Error(`endpoint ${e.method} ${e.path} is declared twice`);
    // Idempotency-Key needs an account to scope the key and a body that makes the request.
    if (e.creates && (e.method !== 'POST' || !e.auth)) throw new Error(`endpoint ${e.method} ${e.path}: only an authenticated POST creates`);
    byPath.set(e.path, [...group, e]);
  }
  const table = new PathTable<DeclaredPath>();
  for (const [path, group] of byPath) table.add(path, declaredPath(path, group));
  return (req: Request, res: Response, next: NextFunction) => {
    const found = table.match(req.path.replace(versionPrefix, '') || '/');
    if (!found) return next();
    req.params = found.params;
    res.locals.route = found.value.label;
    // HEAD is answered by GET's handler, as Express's routes did (sendEnvelope sends no body).
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    const done = (found.value.byMethod.get(method) ?? found.value.notAllowed)(req, res);
    if (done) done.catch(next);
  };
}

function declaredPath(path: string, group: Endpoint[]): DeclaredPath {
  const byMethod = new Map<string, PathHandler>(group.map((e) => [e.method, handlerFor(e)]));
  const allow = [...group.map((e) => e.method), 'OPTIONS'];
  byMethod.set('OPTIONS', (req, res) => sendSuccess(req, res, 200, optionsOverview(path, group), [], { Allow: allow.join(', ') }));
  // Document 1's 405 is "correct endpoint, authorized, but the method is not supported": where
  // the path's methods take a token, a caller without a valid one is answered as they would be.
  const authorized = group.every((e) => e.auth);
  const notAllowed = async (req: Request, res: Response) => {
    if (authorized && !(await grantOfAccessToken(bearerToken(req)))) return sendError(req, res, invalidToken());
    sendError(req, res, methodNotAllowed(allow));
  };
  return { label: routeLabel(path), byMethod, notAllowed };
}

const invalidToken = () => unauthenticated('invalid_token', 'the access token is unknown or expired; request a new one at token.php');

function handlerFor(e: Endpoint) {
  return async (req: Request, res: Response): Promise<void> => {
    const context = req.context;
    // The call's slot is handed back before its answer is written (release resolves once the
    // release is on Redis's socket): a client that sends its next call on the answer, through
    // another web host, must not find this one still in flight (document 1: one call at a time).
    let release = (): Promise<void> => Promise.resolve();
    let claim: Claim | undefined;
    // The request's transactions (those opened with caller.requestId, its key), for the marks of its Idempotency-Key.
    let opened: OpenRequest | undefined;
    try {
      // The caller first: an unknown token or a missing scope is answered before the body is read.
      const grant = e.auth ? await authenticate(e, req, res) : null;
      const input = await readInput(e, req);
      if (e.parts) checkParts(input, e.parts);
      let caller: Caller | null = null;
      let key: string | undefined;
      if (grant) {
        key = requestKey(e, req);
        const limit = await acquire(grant.accountId, weightOf(e, input));
        release = limit.release;
        res.set(rateLimitHeaders(limit.state));
        // Its key stays its own while the work runs, even if the client drops the connection (lib/db commit-marks.ts).
        opened = openRequest(context.id);
        const ref =
          input.portal_account_id === undefined ? undefined : validate<{ portal_account_id?: PortalAccountRef }>(portalAccountField, input).portal_account_id;
        caller = {
          accountId: grant.accountId,
          scopes: new Set(grant.scope),
          oauthClientId: grant.oauthClientId,
          clientId: grant.clientId ?? null,
          clientAccessId: grant.clientAccessId ?? null,
          portalAccountGrant: grant.portalAccountId ?? 'all',
          portalAccountId: await resolveRequestPortalAccount(grant.accountId, ref, grant.portalAccountId),
          requestId: opened.key,
        };
      } else {
        const basic = basicCredentials(req);
        if (basic) context.basic = basic;
      }
      const { portal_account_id: _ignored, ...rest } = input;
      const fields = keepXmlOrigin(input, rest);
      const params = e.params ? validateParams(e, req.params as Record<string, string>) : {};
      const mentioned: PortalAccountMention[] = [];
      const body = e.file ? fileBody(req) : e.method === 'POST' ? readBody(e, fields, context.warnings, mentioned) : {};
      if (caller) await checkMentionedPortalAccounts(caller, mentioned);
      const { query, search } = e.method === 'POST' ? { query: {}, search: noSearch } : readQuery(e, fields);
      // After authentication, the rate limit and validation: a replay counts as a call, and a
      // request refused as invalid leaves its key free for the corrected request.
      if (key && caller && opened) {
        claim = await claimRequest(key, req, caller, e, input, body, opened);
        if (claim.replay) {
          await release();
          return sendReplay(req, res, claim.replay);
        }
      }
      const result = await e.run({ request: context, caller, params, body, query, search });
      const payload = result.payload ?? {};
      // Before the answer: a client bound to a portal account reads the jobs it started (lib/job).
      if (caller) await recordJobsAnswered(caller, payload);
      if (e.select && search.select) {
        const name = e.response[0]!;
        payload[name] = project(payload[name] as Record<string, unknown>, search.select, e.select.alwaysSelected);
      }
      await release();
      const status = result.status ?? 200;
      await send(req, res, claim, {
        status,
        envelope: answerOf(status, payload, context.warnings),
        headers: { ...jobLocation(context, result.status, payload), ...result.headers },
      });
    } catch (err) {
      // A body left unread (a refused caller) is not drained on a kept-alive connection: it is closed.
      if (!bodyRead(req)) res.setHeader('Connection', 'close');
      // Once a transaction of the request committed, never "nothing was done, send again".
      const error = afterCommit(toDomainError(err, context.log), opened?.committed === true, context.log);
      const envelope = errorAnswerOf(error, err instanceof DomainError ? context.warnings : []);
      await release();
      const headers = { ...(await uncountedQuota(res, error)), ...errorHeaders(error) };
      await send(req, res, claim, { status: error.status, envelope, headers }, err);
    } finally {
      void release();
      opened?.close();
    }
  };
}

/**
 * Sends an answer; under an Idempotency-Key it is stored first (or the key freed), so a retry
 * that follows the answer finds it; `failure` (what the request threw) tells a lost COMMIT, whose
 * key is never freed. Storing that fails is logged: the work is done and answered.
 */
async function send(req: Request, res: Response, claim: Claim | undefined, answer: StoredAnswer, failure?: unknown): Promise<void> {
  if (claim && !claim.replay) {
    await claim.settle(answer, failure).catch((err: unknown) => req.context.log.warn({ err }, 'the answer of an Idempotency-Key could not be stored'));
  }
  sendEnvelope(req, res, answer.status, answer.envelope, answer.headers);
}

/** A 202 with a job_id points at the job's status (Location: {base_url}job/{id}/). */
function jobLocation(context: RequestContext, status: number | undefined, payload: Record<string, unknown>): Record<string, string> {
  if (status !== 202 || typeof payload.job_id !== 'string') return {};
  return { Location: `${config().publicUrl}/${context.version}/job/${payload.job_id}/` };
}

/**
 * Rate-limit weight in tenths of a call: a bulk request counts one tenth per item, a request of
 * parts one tenth per part of all its lists (each at least one).
 */
function weightOf(e: Endpoint, input: Record<string, unknown>): number {
  if (e.parts) return Math.max(partsIn(input[e.parts.field]), 1);
  if (!e.bulk) return defaultWeight;
  const items = input[e.bulk.field];
  return Array.isArray(items) ? Math.max(items.length, 1) : 1;
}

/**
 * The X-RateLimit headers for a refusal that came before the call was counted (a missing scope,
 * a body too large or not decodable): the account's quota as it stands. A caller not known
 * (401, token.php) has no quota to show, and a counted call has its headers already.
 */
async function uncountedQuota(res: Response, error: DomainError): Promise<Record<string, string>> {
  const accountId = res.locals.accountId as number | undefined;
  if (accountId === undefined || error.quota || res.hasHeader('X-RateLimit-Limit')) return {};
  const quota = await quotaOf(accountId);
  return quota ? rateLimitHeaders(quota) : {};
}

/** The grant of the request's bearer token, with every scope the endpoint declares; 401, or 403 naming the scopes it lacks. */
async function authenticate(e: Endpoint, req: Request, res: Response): Promise<NonNullable<Awaited<ReturnType<typeof grantOfAccessToken>>>> {
  const grant = await grantOfAccessToken(bearerToken(req));
  if (!grant) throw invalidToken();
  res.locals.accountId = grant.accountId;
  const missing = e.auth!.scopes.filter((s) => !grant.scope.includes(s));
  if (missing.length) throw forbidden(missing.join(' '));
  return grant;
}

/** POST data is the body; GET data the query string; DELETE takes either (filters of DELETE stock/category/). */
async function readInput(e: Endpoint, req: Request): Promise<Record<string, unknown>> {
  if (e.file) {
    await readRawBody(req);
    return {};
  }
  if (e.method === 'POST') {
    const body = await decodeBody(req);
    return e.auth ? withPostQuery(req, body) : body;
  }
  const at = req.url.indexOf('?');
  if (at >= 0) refuseReservedKeys(req.url.slice(at + 1));
  const query = req.query as Record<string, unknown>;
  if (e.method === 'DELETE') {
    const body = await decodeBody(req);
    if (Object.keys(query).length === 0) return body;
    // A body beside a query string was dropped unread: `?filter[platform]=shop_g` with the rest of
    // the filter in the body deleted every shop_g category. One place, or a 400 (nothing deleted).
    if (Object.keys(body).length > 0) {
      throw invalidField('body', 'a DELETE takes its fields in the query string or in the body, not in both: send them all in one of the two');
    }
  }
  checkInput(query);
  return query;
}

/**
 * The query string of an authenticated POST. Its data is the body (document 1: "Data is sent in
 * the body as JSON or XML; for GET it is sent in the query string"), but portal_account_id,
 * which "every request accepts", is taken from the query string as GET and DELETE take it (the
 * body's, when both name it, must agree). Any other query parameter is a 400 `unknown_parameter`
 * naming it. Before, a POST's query string was dropped unread: `POST order/?portal_account_id=3`
 * wrote the order to the default portal account, and `?portal_account_id=999` was no error.
 * token.php (no token) keeps RFC 6749's "MUST ignore unrecognized request parameters"; a file
 * body (bank/statement/) keeps its query string unread.
 */
function withPostQuery(req: Request, body: Record<string, unknown>): Record<string, unknown> {
  const at = req.url.indexOf('?');
  if (at < 0 || at === req.url.length - 1) return body;
  refuseReservedKeys(req.url.slice(at + 1));
  const query = req.query as Record<string, unknown>;
  checkInput(query);
  const { portal_account_id: portalAccountId, ...rest } = query;
  const other = Object.keys(rest)[0];
  if (other !== undefined) {
    throw invalidField(other, `${other} is not taken in the query string of a POST: send the request's fields in the body`, 'unknown_parameter');
  }
  if (portalAccountId === undefined) return body;
  if (body.portal_account_id !== undefined && accountKey(body.portal_account_id) !== accountKey(portalAccountId)) {
    throw invalidField('portal_account_id', 'portal_account_id is given in the query string and in the body with different values: send it once');
  }
  return { ...body, portal_account_id: body.portal_account_id ?? portalAccountId };
}

/**
 * A portal_account_id as the validation will read it: integer text (" 3", "03") is the number it
 * names, so the query's and the body's spellings of one account agree; anything else is compared
 * as given and left to the validation to name.
 */
function accountKey(id: unknown): string {
  const text = String(id).trim();
  return /^[+-]?\d{1,15}$/.test(text) ? String(Number(text)) : text;
}

/** A file body: its bytes as received (the body limit applies); an empty one names the body. */
function fileBody(req: Request): Buffer {
  const bytes = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
  if (bytes.length === 0) throw invalidField('body', 'the request body must be the file');
  return bytes;
}

function validateParams(e: Endpoint, params: Record<string, string>): unknown {
  for (const [name, value] of Object.entries(params)) checkText(value, name);
  const { value, error } = e.params!.validate(params, { convert: true });
  if (error) {
    const field = String(error.details[0]?.path[0] ?? 'id');
    throw notFound(`${field} ${params[field] ?? ''}`, field);
  }
  return value;
}

function readBody(e: Endpoint, fields: Record<string, unknown>, warnings: Warning[], portalAccounts: PortalAccountMention[]): unknown {
  const schema = e.body ?? emptyObject;
  if (e.bulk) emptyXmlBulkItems(fields, e.bulk.field);
  warnings.push(...stripReadOnly(schema, fields));
  return validate(schema, fields, '', portalAccounts);
}

/** GET/DELETE input: select, filter and pagination when the endpoint searches or selects; its own query fields. */
function readQuery(e: Endpoint, fields: Record<string, unknown>): { query: unknown; search: SearchRequest } {
  const { select, filter, pagination, ...rest } = fields;
  if (!e.search && filter !== undefined) throw invalidField('filter', 'filter is not taken by this endpoint', 'unknown_parameter');
  if (!e.search && pagination !== undefined) throw invalidField('pagination', 'pagination is not taken by this endpoint', 'unknown_parameter');
  if (!e.search && !e.select && select !== undefined) throw invalidField('select', 'select is not taken by this endpoint', 'unknown_parameter');
  if (e.search && e.method === 'DELETE') {
    // A DELETE removes every record its filter names (lib/http/search parseDeleteFilter): a
    // pagination[limit] would not bound it, and a select answers nothing.
    for (const [name, value] of [
      ['pagination', pagination],
      ['select', select],
    ] as const) {
      if (value !== undefined) throw invalidField(name, `${name} is not taken by a DELETE: it deletes every record the filter names`, 'unknown_parameter');
    }
    return { query: validate(e.query ?? emptyObject, rest), search: parseDeleteFilter(filter, e.search) };
  }
  const query = validate(e.query ?? emptyObject, rest);
  if (e.search) return { query, search: parseSearch({ select, filter, pagination }, e.search) };
  if (e.select) return { query, search: { ...noSearch, select: parseSelect(select, e.select.type) } };
  return { query, search: noSearch };
}
