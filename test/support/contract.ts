/**
 * The contract test (issue 36): every exchange the suite has with the API under a documented base
 * path (/v0.5/ ... /v1.1/ on this machine) is validated against the document that server serves
 * at {base_url}openapi.json, with openapi-backend (lib/http/README.md says why that validator).
 *
 * The suite's HTTP traffic is Node's global fetch (test/support/api.ts and the tests' own calls),
 * so fetch is wrapped once, here. Each exchange is checked after it happened, without holding
 * the test up; the root afterEach hook waits for the checks of its test, and the run fails at
 * the end with every mismatch (test, request, what did not match) and prints the count.
 *
 * What is checked:
 * - the request matches a documented operation (else the answer must be the documented 404
 *   unknown_path or 405 envelope);
 * - the answer's status is documented for the operation, its media type and charset too, and a
 *   JSON body validates against the schema of that status;
 * - the request validates against the operation (parameters, body) whenever the service took it
 *   (any answer but 400): the document must not forbid what the service accepts; and when the
 *   service refused it as invalid input naming a field the document describes, the document must
 *   refuse it too.
 */
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { XMLValidator } from 'fast-xml-parser';
import iconv from 'iconv-lite';
import OpenAPIBackend, { type Document, type Operation, SetMatchType } from 'openapi-backend';
import type { ErrorObject, ValidateFunction } from 'ajv';
// GET data and forms are read as the service reads them.
import { parseQuery } from '../../server/framework/query-parser';

const versionPrefix = /^\/(v0\.5|v0\.6|v1\.0|v1\.1)(\/.*)?$/;
const loopback = new Set(['127.0.0.1', 'localhost', '[::1]']);
const originalFetch = globalThis.fetch;

export interface Exchange {
  method: string;
  url: URL;
  version: string;
  /** Path below the version segment, starting with '/'. */
  path: string;
  requestHeaders: Headers;
  requestBody: Buffer | undefined;
  status: number;
  responseHeaders: Headers;
  responseBody: Buffer;
}

interface Contract {
  api: OpenAPIBackend;
  /** The document as served ($refs kept), registered in ajv as 'kontor'. */
  document: Document;
  /**
   * Answers are checked with one Ajv over the document as served, its $refs kept, so a schema
   * many operations answer (Error_envelope, order_read) is compiled once, not once per status of
   * each operation as openapi-backend's dereferenced validators would (most of the cost).
   */
  ajv: Ajv2020;
  validators: Map<string, ValidateFunction>;
  errorEnvelope: ValidateFunction;
  /** Every documented path as a pattern, literal segments first (as the framework routes). */
  paths: { path: string; pattern: RegExp; operations: Record<string, Operation> }[];
  /** The charsets an answer may be in (x-charsets). */
  charsets: Set<string>;
}

/** Literal segments before parameters, as server/framework/mount.ts routes: stock/category/ before stock/{stock_id}/. */
function bySpecificity(a: string, b: string): number {
  const as = a.split('/');
  const bs = b.split('/');
  for (let i = 0; i < Math.max(as.length, bs.length); i++) {
    const ap = as[i]?.startsWith('{') ? 1 : 0;
    const bp = bs[i]?.startsWith('{') ? 1 : 0;
    if (ap !== bp) return ap - bp;
  }
  return as.length - bs.length;
}

export interface Mismatch {
  test: string;
  exchange: string;
  problems: string[];
}

const state = {
  validated: 0,
  mismatches: [] as Mismatch[],
  pending: new Set<Promise<void>>(),
  currentTest: '(outside a test)',
  /** Time spent validating (compiling a validator on first use included), for the closing line. */
  ms: 0,
};
const contracts = new Map<string, Promise<Contract>>();
const byText = new Map<string, Promise<Contract>>();
/** The test in which each origin's document was last read again (rereadForUnknownPath). */
const reread = new Map<string, string>();

/** The figures of the run so far (the closing line prints them). */
export function contractFigures(): { validated: number; mismatches: Mismatch[] } {
  return { validated: state.validated, mismatches: [...state.mismatches] };
}

/** Waits for the checks of the exchanges sent so far. */
export async function contractSettled(): Promise<void> {
  while (state.pending.size) await Promise.all([...state.pending]);
}

function ajv2020(coerceTypes = false): Ajv2020 {
  // The first error of each check: a body of a million bad lines must not make a million (openapi-backend spreads them into one push).
  // Without Ajv's code optimisation passes compiling takes 40 % of the time (2.5 s instead of 6.5 s
  // for every operation's request validators); a validator then runs a few microseconds longer.
  const ajv = new Ajv2020({ strict: false, allErrors: false, coerceTypes, code: { optimize: false } });
  addFormats(ajv);
  // OpenAPI's own formats (numbers' widths, passwords) constrain nothing JSON Schema checks.
  for (const format of ['int32', 'int64', 'float', 'double', 'byte', 'binary', 'password']) ajv.addFormat(format, true);
  return ajv;
}

/** The document a server serves for a version, its validator built once per distinct document. */
function contractOf(origin: string, version: string): Promise<Contract> {
  const key = `${origin}/${version}`;
  let contract = contracts.get(key);
  if (!contract) {
    contract = (async () => {
      const res = await originalFetch(`${origin}/${version}/openapi.json`);
      if (res.status !== 200) throw new Error(`${origin}/${version}/openapi.json answered ${res.status}`);
      const document = (await res.json()) as Document & { servers?: unknown; info: { version: string } };
      // The documents of the versions differ in their server and version only.
      const text = JSON.stringify({ ...document, servers: [], info: { ...document.info, version: '' } });
      let built = byText.get(text);
      if (!built) byText.set(text, (built = buildContract(document)));
      return built;
    })();
    contracts.set(key, contract);
  }
  return contract;
}

async function buildContract(document: Document): Promise<Contract> {
  const api = new OpenAPIBackend({
    definition: structuredClone(document),
    apiRoot: '/',
    strict: false,
    validate: true,
    // quick: validators compiled per operation on its first exchange, then kept (and the document,
    // already validated by test/framework/openapi.test.ts, not validated again).
    quick: true,
    ignoreTrailingSlashes: false,
    // Draft 2020-12, the dialect of OpenAPI 3.1. Parameters arrive as text: their validator
    // converts them (openapi-backend asks for that in its options).
    customizeAjv: (_ajv, options) => ajv2020(Boolean(options.coerceTypes)) as never,
  });
  await api.init();
  const definition = api.definition as Document & { components: { schemas: Record<string, unknown> } };
  const ajv = ajv2020();
  ajv.addSchema({ ...structuredClone(document), $id: 'kontor' });
  const errorEnvelope = ajv.compile({ $ref: 'kontor#/components/schemas/Error_envelope' });
  const operations = api.router.getOperations();
  const paths = Object.keys(definition.paths ?? {})
    .sort(bySpecificity)
    .map((path) => ({
      path,
      pattern: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}$`),
      operations: Object.fromEntries(operations.filter((o) => o.path === path).map((o) => [o.method, o])),
    }));
  const charsets = new Set(((document as { 'x-charsets'?: string[] })['x-charsets'] ?? ['utf-8']).map((c) => c.toLowerCase()));
  return { api, document, ajv, validators: new Map(), errorEnvelope, paths, charsets };
}

const mediaType = (headers: Headers, name: string) => (headers.get(name) ?? '').split(/[;\s]/)[0]!.trim().toLowerCase();
const charsetOf = (headers: Headers, name: string) => /(?:charset|encoding)="?([^";\s]+)/i.exec(headers.get(name) ?? '')?.[1]?.toLowerCase() ?? 'utf-8';

function decode(bytes: Buffer, charset: string): string {
  return charset === 'utf-8' || charset === 'utf8' || !iconv.encodingExists(charset) ? bytes.toString('utf8') : iconv.decode(bytes, charset);
}

const describeErrors = (errors: ErrorObject[] | null | undefined) =>
  (errors ?? [])
    .slice(0, 8)
    .map(
      (e) => `${e.instancePath || '/'} ${e.message ?? e.keyword}${e.params && 'allowedValues' in e.params ? ` ${JSON.stringify(e.params.allowedValues)}` : ''}`,
    );

/**
 * The request body as the validator reads it: JSON and forms decoded, another or no Content-Type
 * read by its first character as the service does (server/framework/body.ts); XML and files are
 * not typed here.
 */
function requestBodyOf(exchange: Exchange): { body?: unknown; typed: boolean; untyped: boolean } {
  const bytes = exchange.requestBody;
  if (!bytes || bytes.length === 0) return { typed: false, untyped: false };
  const type = mediaType(exchange.requestHeaders, 'content-type');
  const text = decode(bytes, charsetOf(exchange.requestHeaders, 'content-type')).replace(/^\uFEFF/, '');
  const first = text.trimStart()[0];
  const json = type === 'application/json' || type.endsWith('+json') || type === 'text/json';
  const xml = type === 'application/xml' || type === 'text/xml' || type.endsWith('+xml');
  // a form that starts as JSON or XML is read as that, as the service does
  if (json || (!xml && (first === '{' || first === '['))) {
    try {
      return { body: JSON.parse(text), typed: true, untyped: false };
    } catch {
      return { typed: false, untyped: true };
    }
  }
  if (!xml && first !== '<') return { body: parseQuery(text), typed: true, untyped: false };
  return { typed: false, untyped: true };
}

/**
 * A refusal JSON Schema can express (unknown field, type, required, enum, pattern, length, count,
 * numeric bound, filter field or operator): the document must refuse that request too. Joi's
 * custom rules (a day that exists, a date range, a business rule) are beyond JSON Schema.
 */
const expressible =
  / is required$| is not allowed$| is not allowed to be empty$| must be one of \[| must be an? (string|number|boolean|array|object|integer)$| fails to match | length must be | must contain (less|more) than | must be (less|greater) than (or equal to )?-?\d+$| must be between /;
/**
 * A value none of a field's alternatives takes, in lib/http's words ("must be a number or ''"): the
 * document's anyOf refuses it too. Not a datetime's: whether a date exists (2026-13-45 has the
 * format) is beyond JSON Schema.
 */
const alternative = "(a number|a text|true or false|an object|a list|'[^']*')";
const expressibleAlternatives = new RegExp(` must be ${alternative}( or ${alternative})+$`);
const expressibleIds = new Set(['unknown_parameter', 'unknown_filter', 'invalid_operator']);
// Refused by the input bounds at any depth, also inside free-form values the schema leaves open.
const forbiddenKeys = /(__proto__|constructor|prototype)/;

/**
 * The value at a field path of an error (order.line[0].quantity) in what was sent: a list sent as
 * its one item (`single`, as XML sends one element) is its item [0].
 */
function valueAt(data: unknown, field: string): unknown {
  let value = data;
  for (const part of field.match(/[^.[\]]+/g) ?? []) {
    if (part === '0' && !Array.isArray(value)) continue;
    value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[part] : undefined;
  }
  return value;
}

/** A refusal of the validator, of a field the request holds (a handler's own invalid_field is a rule, not a schema). */
function refusedAsExpressible(json: unknown, sent: Set<string>, data: unknown): boolean {
  const items = (json as { error?: { error?: string; description?: string; field?: string }[] } | undefined)?.error ?? [];
  return items.some((item) => {
    // A bound of a number sent as its text: JSON Schema bounds numbers, not their text.
    if (/ must be (less|greater) than /.test(item.description ?? '') && typeof valueAt(data, item.field ?? '') === 'string') return false;
    const first = /^[^.[]+/.exec(item.field ?? '')?.[0] ?? '';
    if (!sent.has(first) || forbiddenKeys.test(item.field ?? '')) return false;
    const description = item.description ?? '';
    return (
      (item.error !== undefined && expressibleIds.has(item.error)) ||
      (item.error === 'invalid_field' && (expressible.test(description) || expressibleAlternatives.test(description)))
    );
  });
}

/** The documented path a request path takes (literal segments first), and its operation for the method. */
function route(contract: Contract, method: string, path: string): { path?: string; requestPath: string; operation?: Operation } {
  // The path as sent first; the framework's routes take it with or without the trailing slash.
  for (const requestPath of path.endsWith('/') ? [path, path.slice(0, -1)] : [path, `${path}/`]) {
    const documented = contract.paths.find((p) => p.pattern.test(requestPath));
    if (documented) return { path: documented.path, requestPath, operation: documented.operations[method] };
  }
  return { requestPath: path };
}

const mediaMatches = (documented: string, actual: string) => {
  const type = documented.split(';')[0]!.trim().toLowerCase();
  return type === '*/*' || type === actual || (type.endsWith('/*') && actual.startsWith(type.slice(0, -1)));
};

const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** The validator of a documented JSON answer, compiled on first use from the document as served. */
function answerValidator(contract: Contract, path: string, method: string, statusKey: string): ValidateFunction | undefined {
  const paths = contract.document.paths as Record<
    string,
    Record<string, { responses?: Record<string, { $ref?: string; content?: Record<string, { schema?: { $ref?: string } }> }> }>
  >;
  let response = paths[path]?.[method]?.responses?.[statusKey];
  let at = `#/${pointer('paths', path, method, 'responses', statusKey)}`;
  if (response?.$ref) {
    at = response.$ref;
    const name = response.$ref.split('/').pop()!;
    response = (contract.document.components as { responses?: Record<string, typeof response> } | undefined)?.responses?.[name];
  }
  const schema = response?.content?.['application/json']?.schema;
  if (!schema) return undefined;
  // A named schema under its name, so every operation answering it shares one compiled validator.
  const ref = schema.$ref ?? `${at}/${pointer('content', 'application/json', 'schema')}`;
  let validate = contract.validators.get(ref);
  if (!validate) contract.validators.set(ref, (validate = contract.ajv.compile({ $ref: `kontor${ref}` })));
  return validate;
}

/**
 * openapi-backend compiles an operation's request validators on its first request; the servers of
 * the tests that add endpoints (createApp(extra)) serve their own documents, whose operations are
 * mostly the same: a validator compiled for one is given to the others.
 */
const sharedRequestValidators = new Map<string, unknown>();
const operationKeys = new WeakMap<Operation, string>();

function shareRequestValidators(api: OpenAPIBackend, operation: Operation): void {
  const compiled = (api.validator as unknown as { requestValidators: Record<string, unknown> }).requestValidators;
  const id = operation.operationId!;
  let key = operationKeys.get(operation);
  if (!key) operationKeys.set(operation, (key = JSON.stringify([operation.path, operation.method, operation.parameters, operation.requestBody])));
  if (compiled[id] === undefined) {
    const shared = sharedRequestValidators.get(key);
    if (shared) compiled[id] = shared;
    else {
      api.validator.getRequestValidatorsForOperation(id);
      sharedRequestValidators.set(key, compiled[id]);
    }
  }
}

function decodable(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * A bulk operation's list field and the schema of its items (lib/http/openapi.ts bulkItems: the
 * list or one item alone, each a $ref to the item's schema), read from the document as served.
 */
function bulkOf(contract: Contract, path: string, method: string): { field: string; item: string } | undefined {
  const operation = (
    contract.document.paths?.[path] as Record<string, { requestBody?: { content?: Record<string, { schema?: { $ref?: string } }> } }> | undefined
  )?.[method];
  const body = operation?.requestBody?.content?.['application/json']?.schema?.$ref;
  const components = (contract.document.components?.schemas ?? {}) as Record<
    string,
    { properties?: Record<string, { anyOf?: { type?: string; items?: { $ref?: string }; $ref?: string }[] }> }
  >;
  const properties = body ? components[body.replace('#/components/schemas/', '')]?.properties : undefined;
  for (const [field, schema] of Object.entries(properties ?? {})) {
    const [list, one] = schema.anyOf ?? [];
    if (list?.type === 'array' && list.items?.$ref && list.items.$ref === one?.$ref) return { field, item: list.items.$ref };
  }
  return undefined;
}

/**
 * The items of a bulk request answered 207, each against its part of the answer (in the order
 * sent): one the service took must be one the document takes, one it refused as invalid in a way
 * JSON Schema can say must be refused by the document too.
 */
function bulkItemProblems(contract: Contract, bulk: { field: string; item: string }, body: unknown, json: unknown): string[] {
  const sent = (body as Record<string, unknown> | undefined)?.[bulk.field];
  const items = Array.isArray(sent) ? sent : [sent];
  const parts = (json as { response?: { code?: number; error?: { field?: string }[] }[] } | undefined)?.response ?? [];
  let validate = contract.validators.get(bulk.item);
  if (!validate) contract.validators.set(bulk.item, (validate = contract.ajv.compile({ $ref: `kontor${bulk.item}` })));
  const problems: string[] = [];
  items.forEach((item, i) => {
    const part = parts[i];
    if (!part?.code) return;
    const valid = validate(item);
    if (part.code < 400 && !valid) {
      problems.push(...describeErrors(validate.errors).map((e) => `the service took ${bulk.field}[${i}], the document refuses it: ${e}`));
    }
    const prefix = new RegExp(`^${bulk.field}(\\[${i}\\])?\\.?`);
    const own = { error: (part.error ?? []).map((e) => ({ ...e, field: e.field?.replace(prefix, '') })) };
    const keys = new Set(item !== null && typeof item === 'object' ? Object.keys(item) : []);
    if (part.code === 400 && valid && refusedAsExpressible(own, keys, item)) {
      problems.push(`the document takes ${bulk.field}[${i}], the service refused it: ${JSON.stringify(part.error).slice(0, 300)}`);
    }
  });
  return problems;
}

/** What does not match in an exchange with a server under a version prefix (the test of the checker uses it). */
export async function checkExchange(exchange: Exchange): Promise<string[]> {
  const contract = await contractOf(exchange.url.origin, exchange.version);
  const started = performance.now();
  try {
    return problemsOf(contract, exchange);
  } finally {
    state.ms += performance.now() - started;
  }
}

function problemsOf(contract: Contract, exchange: Exchange): string[] {
  const { api } = contract;
  const problems: string[] = [];
  const method = exchange.method.toLowerCase();
  const query = exchange.url.search.replace(/^\?/, '');
  const headers = Object.fromEntries(exchange.requestHeaders.entries());
  const routed = route(contract, method, exchange.path === '' ? '/' : exchange.path);
  const operation = routed.operation;
  const contentType = mediaType(exchange.responseHeaders, 'content-type');
  const charset = charsetOf(exchange.responseHeaders, 'content-type');
  const text = decode(exchange.responseBody, charset);
  let json: unknown;
  if (contentType === 'application/json') {
    try {
      json = JSON.parse(text);
    } catch {
      problems.push(`the answer says application/json but is not JSON`);
    }
  }
  if (contentType === 'application/xml' && text.length > 0 && XMLValidator.validate(text) !== true)
    problems.push('the answer says application/xml but is not well-formed');
  if ((contentType === 'application/json' || contentType === 'application/xml') && !contract.charsets.has(charset)) {
    problems.push(`charset ${charset} is not one the document names`);
  }

  // A path that is no percent-encoding (the fuzz test sends lone surrogates): the service
  // answers it 400 or 404 before anything reads it, so only that is checked.
  if (!decodable(routed.requestPath)) {
    if (exchange.status !== 400 && exchange.status !== 404) problems.push(`a path that does not decode answered ${exchange.status}`);
    return problems;
  }

  if (!operation) {
    // Not an operation: the service's conventions for unknown paths and methods (info.description).
    const expected = routed.path ? 405 : 404;
    // A path whose methods take a token answers a caller without a valid one 401 first (info.description).
    const unauthenticated = Boolean(routed.path) && exchange.status === 401;
    if (exchange.status !== expected && !unauthenticated)
      problems.push(
        `${routed.path ? `a method not documented for ${routed.path}` : 'an undocumented path'} answered ${exchange.status}, the document says ${expected}`,
      );
    if (json !== undefined && !contract.errorEnvelope(json)) problems.push(...describeErrors(contract.errorEnvelope.errors).map((e) => `error envelope: ${e}`));
    return problems;
  }

  const responses = (operation.responses ?? {}) as Record<string, { content?: Record<string, unknown>; headers?: Record<string, unknown> }>;
  const status = String(exchange.status);
  const response = responses[status] ?? responses[`${status[0]}XX`] ?? responses.default;
  if (!response) problems.push(`status ${status} is not documented for ${operation.operationId} (documented: ${Object.keys(responses).join(', ')})`);
  else {
    if (contentType && exchange.responseBody.length > 0) {
      if (!response.content) problems.push(`status ${status} of ${operation.operationId} is documented without a body, the answer has ${contentType}`);
      else if (!Object.keys(response.content).some((type) => mediaMatches(type, contentType)))
        problems.push(`media type ${contentType} is not documented for ${status} of ${operation.operationId}`);
    }
    if (response.headers) {
      const headerCheck = api.validator.validateResponseHeaders(Object.fromEntries(exchange.responseHeaders.entries()), operation, {
        statusCode: exchange.status,
        setMatchType: SetMatchType.Any,
      });
      if (!headerCheck.valid) problems.push(...describeErrors(headerCheck.errors).map((e) => `answer headers: ${e}`));
    }
    const validate =
      json === undefined
        ? undefined
        : answerValidator(contract, routed.path!, method, responses[status] ? status : responses[`${status[0]}XX`] ? `${status[0]}XX` : 'default');
    if (validate && !validate(json)) problems.push(...describeErrors(validate.errors).map((e) => `answer body: ${e}`));
  }

  // The request: the document must take what the service took, and refuse what its schema refused.
  const file = Boolean((operation.requestBody as { content?: Record<string, unknown> } | undefined)?.content?.['application/octet-stream']);
  // A DELETE with a query reads the query and not its body (server/framework/mount.ts).
  const bodyIgnored = method === 'get' || method === 'options' || (method === 'delete' && query !== '');
  const body = bodyIgnored
    ? { typed: false, untyped: false }
    : file
      ? { typed: false, untyped: Boolean(exchange.requestBody?.length) }
      : requestBodyOf(exchange);
  // The query of a POST is not read (info.description): the body is its data.
  const parsedQuery = method === 'post' ? {} : parseQuery(query);
  shareRequestValidators(api, operation);
  const requestCheck = api.validateRequest(
    { method, path: routed.requestPath, headers, query: parsedQuery as never, ...(body.typed ? { body: body.body as never } : {}) },
    operation,
  );
  const bulk = exchange.status === 207 && body.typed ? bulkOf(contract, routed.path!, method) : undefined;
  // An XML or file body is not typed here: that it is there is what counts. A bulk request's
  // items are checked one by one below, as the service checks them.
  const errors = (requestCheck.errors ?? []).filter(
    (e) =>
      !(body.untyped && e.keyword === 'required' && (e.params as { missingProperty?: string }).missingProperty === 'requestBody') &&
      !(bulk && e.instancePath.startsWith(`/requestBody/${bulk.field}`)),
  );
  if (bulk) problems.push(...bulkItemProblems(contract, bulk, body.body, json));
  // Statuses answered after validation: the service took the request (auth, rate limit and
  // input bounds answer 401, 403, 429, 413 before it).
  if ((exchange.status < 400 || exchange.status === 409 || exchange.status === 422) && errors.length) {
    problems.push(...describeErrors(errors).map((e) => `the service took a request the document refuses: ${e}`));
  }
  const sent = new Set([...Object.keys(parsedQuery), ...(body.typed && body.body && typeof body.body === 'object' ? Object.keys(body.body) : [])]);
  if (
    exchange.status === 400 &&
    errors.length === 0 &&
    body.untyped === false &&
    refusedAsExpressible(json, sent, { ...parsedQuery, ...(body.typed && body.body && typeof body.body === 'object' ? body.body : {}) })
  ) {
    problems.push(`the document takes a request the service refused: ${text.slice(0, 300)}`);
  }
  return problems;
}

function record(exchange: Exchange, test: string): void {
  const label = `${exchange.method} ${exchange.url.pathname}${exchange.url.search.slice(0, 120)} -> ${exchange.status}`;
  const run = checkExchange(exchange)
    .then((problems) => {
      state.validated++;
      if (problems.length) state.mismatches.push({ test, exchange: label, problems });
    })
    .catch((err: unknown) => {
      state.mismatches.push({ test, exchange: label, problems: [`could not be validated: ${(err as Error).stack?.split('\n').slice(0, 8).join(' | ')}`] });
    })
    .finally(() => state.pending.delete(run));
  state.pending.add(run);
}

function bodyBytes(body: unknown): Buffer | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (Buffer.isBuffer(body)) return body;
  if (body instanceof Uint8Array) return Buffer.from(body);
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  if (body instanceof URLSearchParams) return Buffer.from(body.toString(), 'utf8');
  return undefined;
}

/**
 * A port the suite used before may now be another server's (a test's own app listening on port 0):
 * a path the document kept for that origin lacks is read again from the server answering there
 * now, before the exchange. Keyed by origin alone, the error table's app got the document of an
 * earlier server on its port in one full run, and its routes were "undocumented" (11 mismatches).
 */
async function rereadForUnknownPath(origin: string, version: string, path: string): Promise<void> {
  const key = `${origin}/${version}`;
  const kept = await contracts.get(key)?.catch(() => undefined);
  // Once per origin and test: a new server on a used port belongs to a new test, and a test of
  // unknown paths (the fuzz test) reads the document once, not per path.
  if (!kept || route(kept, 'get', path).path || reread.get(key) === state.currentTest) return;
  reread.set(key, state.currentTest);
  contracts.delete(key);
  await contractOf(origin, version).catch(() => contracts.set(key, Promise.resolve(kept)));
}

/** fetch, as the tests call it, with each exchange under a documented base path checked. */
async function contractFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
  const match = versionPrefix.exec(url.pathname);
  if (!match || !loopback.has(url.hostname)) return originalFetch(input, init);
  // A Request (openapi-fetch sends one) carries its method, headers and body; init overrides them.
  const request = input instanceof Request ? input : undefined;
  const requestHeaders = new Headers(init?.headers ?? request?.headers);
  const requestBody = init?.body !== undefined ? bodyBytes(init.body) : request?.body ? Buffer.from(await request.clone().arrayBuffer()) : undefined;
  // The content types fetch adds by itself, so the validator sees the request the server got.
  if (init?.body !== undefined && !requestHeaders.has('content-type')) {
    if (typeof init.body === 'string') requestHeaders.set('content-type', 'text/plain;charset=UTF-8');
    if (init.body instanceof URLSearchParams) requestHeaders.set('content-type', 'application/x-www-form-urlencoded;charset=UTF-8');
  }
  const version = match[1]!;
  const test = state.currentTest;
  // The document is read before the first exchange with a server, which may stop right after it.
  await contractOf(url.origin, version).catch(() => undefined);
  await rereadForUnknownPath(url.origin, version, match[2] ?? '/');
  const response = await originalFetch(input, init);
  const copy = response.clone();
  const method = (init?.method ?? request?.method ?? 'GET').toUpperCase();
  // A redirect followed: the exchange checked is the last one, a GET unless the method was kept (307, 308).
  const last = response.redirected ? new URL(response.url) : url;
  const lastMatch = versionPrefix.exec(last.pathname);
  const pending = copy
    .arrayBuffer()
    .then((bytes) => {
      if (!lastMatch || !loopback.has(last.hostname)) return;
      record(
        {
          method: response.redirected && method !== 'HEAD' ? 'GET' : method,
          url: last,
          version: lastMatch[1]!,
          path: lastMatch[2] ?? '/',
          requestHeaders,
          requestBody: response.redirected ? undefined : requestBody,
          status: response.status,
          responseHeaders: response.headers,
          responseBody: Buffer.from(bytes),
        },
        test,
      );
    })
    // A body the test aborted or never read to its end: nothing to validate.
    .catch(() => undefined)
    .finally(() => state.pending.delete(pending));
  state.pending.add(pending);
  return response;
}

globalThis.fetch = contractFetch as typeof fetch;

function report(): string {
  return state.mismatches.map((m) => `  ${m.test}\n    ${m.exchange}\n${m.problems.map((p) => `      - ${p}`).join('\n')}`).join('\n');
}

/** Root hooks (.mocharc.cjs): each test's exchanges are attributed to it; the run ends with the figures. */
export const mochaHooks = {
  beforeEach(this: Mocha.Context) {
    state.currentTest = this.currentTest?.fullTitle() ?? '(unknown test)';
  },
  async afterEach() {
    await contractSettled();
  },
  async afterAll() {
    await contractSettled();
    const { validated, mismatches } = contractFigures();
    console.log(
      `\ncontract (issue 36): ${validated} exchanges validated against openapi.json, ${mismatches.length} mismatches (validation took ${(state.ms / 1000).toFixed(1)} s)`,
    );
    if (mismatches.length) throw new Error(`${mismatches.length} exchanges do not match openapi.json:\n${report()}`);
  },
};
