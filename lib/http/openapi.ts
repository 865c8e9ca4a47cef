/**
 * The OpenAPI 3.1 document of the API, derived from the endpoint declarations (paths, methods,
 * scopes, Joi types), the envelope, the error table and the media types: nothing is written twice,
 * so the document cannot drift from what the framework enforces and answers (issue 36). Requests
 * are described as validate() takes them and answers as the service writes them (json-schema.ts);
 * the suite checks every exchange it has against this document (test/support/contract.ts).
 */
import type Joi from 'joi';
import { scopes } from '../access';
import { ErrorKind, errorKinds, errorTable } from '../errors';
import type { Endpoint } from './endpoint';
import { idempotencyHeader, maxKeyLength } from './idempotency/key';
import { jsonSchemaOf, JsonSchema } from './json-schema';
import { charsets } from './media';
import { nameRepeatedSchemas } from './openapi-shared';
import { buildXmlRequest } from './xml';
import { portalAccountRefText } from './schema';
import { maxLimit, maxPage } from './search/pagination';
import type { FieldType, FilterField, Operator, SearchSpec } from './search/types';

type Schema = JsonSchema;
type Operation = Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const html = { 'text/html': { schema: { type: 'string' } } };
/** Express writes a line of text under a redirect. */
const redirectText = { 'text/plain': { schema: { type: 'string' } }, 'text/html': { schema: { type: 'string' } } };

const idsOf = (kind: ErrorKind) =>
  Object.entries(errorTable)
    .filter(([, entry]) => entry.kind === kind || ('alsoAs' in entry && entry.alsoAs === kind))
    .map(([id]) => id);

const kindsWithIds = (Object.keys(errorKinds) as ErrorKind[]).filter((kind) => idsOf(kind).length > 0);

/** The error statuses, each with its kinds (503 is both unavailable and portal_unavailable). */
const errorStatuses: Map<number, ErrorKind[]> = new Map();
for (const kind of kindsWithIds) errorStatuses.set(errorKinds[kind].status, [...(errorStatuses.get(errorKinds[kind].status) ?? []), kind]);
const statusRef = (status: number) => ({ $ref: `#/components/responses/error_${status}` });

/** JSON and XML carry the same fields; in XML under <response>, every value as text (document 1). */
function content(schema: Schema, example?: Record<string, unknown>): Record<string, unknown> {
  return {
    'application/json': { schema, ...(example ? { example } : {}) },
    'application/xml': { schema: { ...schema, xml: { name: 'response' } } },
  };
}

/** A request body's media types, each with the endpoint's example where it has one (XML under <request>). */
function requestContent(schema: Schema, example?: Record<string, unknown>): Record<string, unknown> {
  return {
    'application/json': { schema, ...(example ? { example } : {}) },
    'application/xml': { schema: { ...schema, xml: { name: 'request' } }, ...(example ? { example: buildXmlRequest(example) } : {}) },
    'application/x-www-form-urlencoded': { schema },
  };
}

const charsetNote = `Answers are in UTF-8 unless Accept-Charset names one of ${[...charsets].join(', ')} (ISO-8859-15 for document 1's clients); request bodies may be sent in any of them (charset= or encoding= in Content-Type), and XML bodies in UTF-16 too (XML 1.0 4.3.3; told by the bytes).`;

function components(baseUrl: string, named: Named): Record<string, unknown> {
  return {
    securitySchemes: {
      oauth2: {
        type: 'oauth2',
        description:
          'Sellers: client_credentials with Basic login:password at token.php (on the docs page: the clientCredentials flow, your login as client_id and your password as client_secret). Clients (third-party software): authorization code (PKCE S256) at authorize.php.',
        flows: {
          clientCredentials: { tokenUrl: `${baseUrl}token.php`, scopes: scopeTitles() },
          authorizationCode: {
            authorizationUrl: `${baseUrl}authorize.php`,
            tokenUrl: `${baseUrl}token.php`,
            refreshUrl: `${baseUrl}token.php`,
            scopes: scopeTitles(),
          },
        },
      },
    },
    parameters: {
      'Accept-Charset': { name: 'Accept-Charset', in: 'header', required: false, description: charsetNote, schema: { type: 'string' } },
    },
    schemas: {
      Warning_type: {
        type: 'object',
        properties: { warning: { type: 'string' }, description: { type: 'string' }, code: { type: 'integer' }, field: { type: 'string' } },
        required: ['warning'],
      },
      Error_type: {
        type: 'object',
        properties: {
          error: { type: 'string', enum: Object.keys(errorTable), description: 'Stable error id (never renamed).' },
          description: { type: 'string' },
          code: { type: 'integer', description: "The HTTP status of the error's kind." },
          field: { type: 'string', description: 'Path of the request field at fault.' },
        },
        required: ['error', 'description', 'code'],
      },
      Error_envelope: {
        type: 'object',
        properties: {
          ack: { const: 'error' },
          error: { type: 'array', items: ref('Error_type') },
          error_description: { type: 'string' },
          warning: { type: 'array', items: ref('Warning_type') },
        },
        required: ['ack', 'error'],
      },
      Multistatus_type: {
        type: 'object',
        description: "One part of a 207 answer: the part's path and HTTP code, its own fields (an id, a job_id), its warnings and errors.",
        properties: {
          path: { type: 'string' },
          code: { type: 'integer' },
          warning: { type: 'array', items: ref('Warning_type') },
          error: { type: 'array', items: ref('Error_type') },
        },
        required: ['code'],
      },
      Multistatus_envelope: {
        type: 'object',
        description:
          "ack sums up the parts: success when every part succeeded; warning (one part_failed warning per failed part) when some failed; error (error[] gathering the parts' errors) when every part failed.",
        properties: {
          ack: { enum: ['success', 'warning', 'error'] },
          warning: { type: 'array', items: ref('Warning_type') },
          error: { type: 'array', items: ref('Error_type') },
          error_description: { type: 'string' },
          response: { type: 'array', items: ref('Multistatus_type') },
        },
        required: ['ack', 'response'],
      },
      Options_envelope: {
        type: 'object',
        properties: {
          ack: { enum: ['success', 'warning'] },
          warning: { type: 'array', items: ref('Warning_type') },
          options: { type: 'object', description: "The path's methods, what each takes and answers, and the versions." },
        },
        required: ['ack', 'options'],
      },
      ...named,
    },
    // 405 is no operation's answer (a method a path does not take has no operation; info says so).
    responses: Object.fromEntries(
      [...errorStatuses]
        .filter(([status]) => status !== 405)
        .map(([status, kinds]) => [
          `error_${status}`,
          {
            description: kinds.map((kind) => `${kind}: ${idsOf(kind).join(', ')}`).join('; '),
            content: content(ref('Error_envelope'), {
              ack: 'error',
              error: [{ error: idsOf(kinds[0]!)[0], description: 'what went wrong', code: status }],
              error_description: 'what went wrong',
            }),
          },
        ]),
    ),
  };
}

const scopeTitles = () => Object.fromEntries(Object.entries(scopes).map(([name, s]) => [name, `${s.title}: ${s.description}`]));

/** The read schema of a declared type: what the service writes for it. */
const readSchema = (type: Joi.Schema | undefined): Schema => (type ? jsonSchemaOf(type, 'read') : {});

/** Schemas an operation names once and refers to from each media type and status (a smaller document and client). */
type Named = Record<string, Schema>;

function named(schemas: Named, name: string, schema: Schema): Schema {
  schemas[name] = schema;
  return ref(name);
}

/** A read type under one name however many operations answer it (a search and its one-record read). */
function namedRead(schemas: Named, type: Joi.Schema, payload: string, e: Endpoint): Schema {
  const existing = Object.entries(readTypes.get(schemas) ?? {}).find(([, t]) => t === type)?.[0];
  if (existing) return ref(existing);
  const name = schemas[`${payload}_read`] ? `${operationId(e.method, e.path)}_${payload}_read` : `${payload}_read`;
  readTypes.set(schemas, { ...readTypes.get(schemas), [name]: type });
  return named(schemas, name, readSchema(type));
}
const readTypes = new WeakMap<Named, Record<string, Joi.Schema>>();

/** The success envelope: ack, warning[], then the declared payload fields (typed where the declaration says how). */
function successSchema(e: Endpoint, schemas: Named): Schema {
  const first = e.response[0];
  // A payload field the declaration names but does not type: any JSON value.
  const properties: Record<string, Schema> = Object.fromEntries(e.response.map((name) => [name, {}]));
  if (first && e.select) properties[first] = namedRead(schemas, e.select.type, first, e);
  else if (first && e.search) properties[first] = { type: 'array', items: namedRead(schemas, e.search.type, first, e) };
  if (e.search) properties.next_min_id = { type: 'string', description: 'Present when a further page exists: pass it as pagination[min_id].' };
  if (e.async) properties.job_id = { type: 'string', format: 'uuid' };
  return {
    type: 'object',
    properties: { ack: { enum: ['success', 'warning'] }, warning: { type: 'array', items: ref('Warning_type') }, ...properties },
    required: ['ack'],
  };
}

/** The value of one filter field in a query: its text, as the search engine reads it by type. */
const filterValue: Record<FieldType, Schema> = {
  string: { type: ['string', 'number'] },
  integer: { type: ['string', 'integer'], pattern: '^\\s*-?\\d{1,15}\\s*$' },
  decimal: { type: ['string', 'number'], pattern: '^\\s*-?\\d{1,15}([.,]\\d{1,8})?\\s*$' },
  bool: { type: ['string', 'boolean', 'integer'], pattern: '^\\s*(0|1|true|false)\\s*$' },
  date: { type: 'string', pattern: '^\\s*\\d{4}-\\d{2}-\\d{2}\\s*$' },
  // schema.ts datetimeText: a day, optionally a time and an offset (Z, +01:00 or +0100).
  datetime: { type: 'string', pattern: '^\\s*\\d{4}-\\d{2}-\\d{2}([Tt ]\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?\\s*([Zz]|[+-]\\d{2}:?\\d{2})?)?\\s*$' },
};

const defaultOperators: Record<FieldType, Operator[]> = {
  string: ['=', '!=', '~', '!~'],
  integer: ['=', '!=', '<', '<=', '>', '>='],
  decimal: ['=', '!=', '<', '<=', '>', '>='],
  date: ['=', '!=', '<', '<=', '>', '>='],
  datetime: ['=', '!=', '<', '<=', '>', '>='],
  bool: ['=', '!='],
};

/**
 * Operator_filter_type of one field, or its bare value(s) meaning =: one named schema per type and
 * set of operators, referenced by every field of that kind (inline, the filters of order/ alone
 * were 119 KB of the document, and the docs page resolves the whole document again whenever an
 * operation is opened).
 */
function filterFieldSchema(schemas: Named, field: FilterField): Schema {
  const operators = field.operators ?? defaultOperators[field.type];
  const name = `Filter_${field.type}_${operators.map((o) => operatorNames[o]).join('_')}`;
  return schemas[name] ? ref(name) : named(schemas, name, operatorFilterSchema(field.type, operators));
}

const operatorNames: Record<Operator, string> = { '=': 'eq', '!=': 'ne', '<': 'lt', '<=': 'le', '>': 'gt', '>=': 'ge', '~': 'like', '!~': 'unlike' };

function operatorFilterSchema(type: FieldType, operators: Operator[]): Schema {
  // ~ and !~ compare text: their values are any text.
  const value = operators.some((o) => o === '~' || o === '!~') ? { type: ['string', 'number'] } : filterValue[type];
  const values = { anyOf: [value, { type: 'array', items: value, minItems: 1, maxItems: 200 }] };
  const operatorFilter = {
    type: 'object',
    properties: { operator: { enum: [...operators, ''] }, value: values },
    required: ['value'],
    additionalProperties: false,
  };
  return { anyOf: [values, operatorFilter, { type: 'array', items: operatorFilter, minItems: 1 }] };
}

/**
 * One filter object: the resource's filter fields by their dotted paths, nested as the query
 * nests them or dotted in one key (filter[quantity.difference] and filter[quantity][difference]
 * are one field, lib/http/search/filter.ts); a key that names a field is that field.
 */
function filterObjectSchema(schemas: Named, filters: Record<string, FilterField>, prefix: string[] = []): Schema {
  const properties: Record<string, Schema> = {};
  for (const name of Object.keys(filters)) {
    const parts = name.split('.');
    if (parts.length <= prefix.length || prefix.some((p, i) => parts[i] !== p)) continue;
    const rest = parts.slice(prefix.length);
    for (let k = 1; k <= rest.length; k++) {
      const key = rest.slice(0, k).join('.');
      if (properties[key]) continue;
      const full = [...prefix, ...rest.slice(0, k)];
      const field = filters[full.join('.')];
      properties[key] = field ? filterFieldSchema(schemas, field) : filterObjectSchema(schemas, filters, full);
    }
  }
  return { type: 'object', properties, additionalProperties: false };
}

/** A search's filter: one filter object or a list of them (OR), or empty; the object named once. */
function filterSchema(schemas: Named, path: string, search: SearchSpec<never>): Schema {
  // Named by the path's search (its GET), which a DELETE by filter shares.
  const object = named(schemas, `${operationId('GET', path)}_filter`, filterObjectSchema(schemas, search.filters as Record<string, FilterField>));
  return { anyOf: [object, { type: 'array', items: object }, { const: '' }] };
}

/** The query fields of a GET or DELETE, each its request schema. */
function queryFields(e: Endpoint): [string, Schema, boolean][] {
  const schema = e.query ? jsonSchemaOf(e.query, 'request') : { properties: {} };
  const required = new Set((schema.required as string[] | undefined) ?? []);
  return Object.entries((schema.properties ?? {}) as Record<string, Schema>).map(([name, s]) => [name, s, required.has(name)]);
}

const accountSchema: Schema = {
  description: 'The portal account the request acts for (an id or "default").',
  anyOf: [
    { type: 'integer', minimum: 1, maximum: 2147483647 },
    // The texts portalAccountRef takes (schema.ts): an integer's text as every integer field's, or default.
    { type: 'string', pattern: portalAccountRefText },
  ],
  // What Try it out fills in: the integer's minimum, 1, is another seller's account.
  examples: ['default'],
};

const charsetParameter = { $ref: '#/components/parameters/Accept-Charset' };

/** Path parameters take any text: one that is not an id of the resource answers 404. */
const pathParameters = (path: string) =>
  [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    description: 'A value that is not an id of this resource answers 404.',
    schema: { type: 'string' },
  }));

function parameters(e: Endpoint, schemas: Named): unknown[] {
  const path = pathParameters(e.path);
  const query =
    e.method === 'POST'
      ? []
      : queryFields(e).map(([name, schema, required]) => ({
          name,
          in: 'query',
          required,
          schema,
          ...(schema.type === 'object' ? { style: 'deepObject', explode: true } : {}),
        }));
  const search =
    !e.search && !e.select
      ? []
      : [
          {
            name: 'select',
            in: 'query',
            style: 'deepObject',
            explode: true,
            description: 'The fields to answer: comma-separated (dotted for nested fields), a list, or bracketed names (select[status][is_paid]=).',
            schema: { type: ['string', 'array', 'object'], items: { type: 'string' } },
            // The docs page fills "Try it out" with a parameter's example, else a sample built from
            // its schema: for filter and pagination one that the server refuses (every filter field
            // an empty list, min_id "string"). Empty: the first Execute reads the first page.
            example: {},
          },
          ...(e.search
            ? [
                {
                  name: 'filter',
                  in: 'query',
                  style: 'deepObject',
                  explode: true,
                  description:
                    'Filter objects (a list of them is joined by OR; the conditions of one by AND): each field takes a value, a list of values, or Operator_filter_type {operator, value}.',
                  schema: filterSchema(schemas, e.path, e.search),
                  example: e.search.example ?? {},
                },
                {
                  name: 'pagination',
                  in: 'query',
                  style: 'deepObject',
                  explode: true,
                  example: { page: 1, limit: 20 },
                  schema: {
                    type: 'object',
                    additionalProperties: false,
                    properties: {
                      page: { type: ['integer', 'string'], minimum: 0, maximum: maxPage, pattern: '^\\s*\\d{0,9}\\s*$' },
                      limit: {
                        anyOf: [
                          { type: 'integer', minimum: 1, maximum: maxLimit },
                          { type: 'string', pattern: `^\\s*(0*([1-9]|[1-9]\\d|1\\d\\d|${maxLimit}))?\\s*$` },
                        ],
                      },
                      min_id: { type: ['string', 'integer'] },
                    },
                  },
                },
              ]
            : []),
        ];
  // An authenticated POST takes portal_account_id in its query string too (server/framework/mount.ts withPostQuery).
  const account = e.method === 'POST' && (!e.auth || e.file) ? [] : [{ name: 'portal_account_id', in: 'query', schema: accountSchema }];
  // A DELETE by filter takes the filter only (server/framework/mount.ts readQuery).
  const taken = e.method === 'DELETE' ? search.filter((p) => p.name === 'filter') : search;
  return [
    ...path,
    ...query,
    ...taken,
    ...account,
    charsetParameter,
    ...(e.creates ? [idempotencyParameter] : []),
    ...(e.conditional ? [ifMatchParameter(e.conditional)] : []),
  ];
}

/** The header of a conditional write (lib/http/conditional.ts). */
const ifMatchParameter = (tag: string) => ({
  name: 'If-Match',
  in: 'header',
  required: false,
  // No `example`: the docs page would send it with every Execute (a 412 on every record).
  description: `Optional. A list of entity tags or *: ${tag}. A weak tag (W/) never matches. Without it the write applies to whatever state the record has. Example: "9e107d9d372bb6826bd81d3542a419d6.Jb3bbGq1hhVRj8x9".`,
  schema: { type: 'string' },
});

/** The header of an endpoint that creates or triggers (lib/http/idempotency/). */
const idempotencyParameter = {
  name: idempotencyHeader,
  in: 'header',
  required: false,
  description:
    'Makes the POST safe to retry: the same request (method, path, body) with the same key within 24 hours answers the first answer again (header Idempotent-Replayed: true) without doing the work twice. Another request with the key: 422 idempotency_key_reused; while the first runs: 409 idempotency_key_in_use. Keys are per seller account. 5xx and 429 answers are not kept. Example: a UUID, 5f0c7a6e-3b8e-4a61-9b0c-2f5d8e1a7c44.',
  // No `example`: the docs page would send the same key with every Execute of every endpoint (422).
  schema: { type: 'string' },
  'x-syntax': { minLength: 1, maxLength: maxKeyLength, pattern: '^[\\x21\\x23-\\x5b\\x5d-\\x7e]+$', refused: '400 invalid_idempotency_key' },
};

/**
 * A request body under its operation's name, or the name of an earlier operation that takes the
 * same body (POST stock/ and POST stock/{stock_id}/: 160 KB each, the document's largest).
 */
function namedBody(schemas: Named, name: string, schema: Schema): Schema {
  const text = JSON.stringify(schema);
  const bodies = bodyNames.get(schemas) ?? new Map<string, string>();
  bodyNames.set(schemas, bodies);
  const same = bodies.get(text);
  if (same) return ref(same);
  bodies.set(text, name);
  return named(schemas, name, schema);
}
const bodyNames = new WeakMap<Named, Map<string, string>>();

/** The request body of a POST: the declared type and the framework's portal_account_id. */
function requestBody(e: Endpoint, schemas: Named): Record<string, unknown> | undefined {
  if (e.file) {
    return {
      required: true,
      description: e.file,
      content: {
        'application/octet-stream': { schema: { type: 'string', format: 'binary' } },
        'application/zip': { schema: { type: 'string', format: 'binary' } },
        'application/xml': { schema: { type: 'string' } },
        'text/plain': { schema: { type: 'string' } },
      },
    };
  }
  if (e.method === 'DELETE') {
    // DELETE takes its fields in the query or, when the query is empty, in a body.
    const fields = queryFields(e);
    const filter = e.search ? { filter: filterSchema(schemas, e.path, e.search) } : {};
    const schema = named(schemas, `${operationId(e.method, e.path)}_request`, {
      type: 'object',
      properties: { ...Object.fromEntries(fields.map(([n, s]) => [n, s])), ...filter, portal_account_id: accountSchema },
      additionalProperties: false,
    });
    return { required: false, content: { ...content(schema), 'application/x-www-form-urlencoded': { schema } } };
  }
  if (e.method !== 'POST') return undefined;
  const declared = e.body ? jsonSchemaOf(e.body, 'request') : { type: 'object', properties: {}, additionalProperties: false };
  const properties: Record<string, Schema> = { ...(declared.properties as Record<string, Schema>), portal_account_id: accountSchema };
  if (e.bulk) properties[e.bulk.field] = bulkItems(schemas, `${operationId(e.method, e.path)}_item`, e.bulk.item(), properties[e.bulk.field]!);
  const schema = namedBody(schemas, `${operationId(e.method, e.path)}_request`, { ...declared, properties });
  const required = ((declared.required as string[] | undefined) ?? []).length > 0;
  return {
    required,
    description: 'JSON, XML under `<request>`, or a form; another or no Content-Type is read by its first character.',
    content: requestContent(schema, e.example),
  };
}

/**
 * A bulk endpoint's list with its items described (the body's Joi type takes any item, as each is
 * validated on its own): a list within the declared bounds, or one item alone (XML's single element).
 */
function bulkItems(schemas: Named, name: string, type: Joi.Schema, declared: Schema): Schema {
  const item = named(schemas, name, jsonSchemaOf(type, 'request'));
  const list = ((declared.anyOf as Schema[] | undefined) ?? [declared]).find((s) => s.type === 'array');
  return {
    description: 'Each item is validated on its own: one that does not match fails alone, in its part of the 207 answer.',
    anyOf: [{ ...list, type: 'array', items: item }, item],
  };
}

/** The error answers an endpoint can give: every kind its declaration does not rule out. */
function errorResponses(e: Endpoint): Record<string, unknown> {
  const kinds = kindsWithIds.filter((kind) => {
    if (kind === 'method_not_allowed') return false;
    if (kind === 'conflict' || kind === 'unprocessable') return Boolean(e.creates);
    if (kind === 'precondition_failed') return Boolean(e.conditional);
    if (kind === 'forbidden' || kind === 'ambiguous') return Boolean(e.auth);
    return true;
  });
  return Object.fromEntries(kinds.map((kind) => [String(errorKinds[kind].status), statusRef(errorKinds[kind].status)]));
}

function successResponses(e: Endpoint, schemas: Named): Record<string, unknown> {
  // Named when an answer uses it: a 207's parts are Multistatus_envelope (an unused component otherwise).
  const envelope = () => named(schemas, `${operationId(e.method, e.path)}_answer`, successSchema(e, schemas));
  const answer = (description: string) => ({ description, content: content(envelope()) });
  const out: Record<string, unknown> = {};
  // A payload named response is the list of a 207 (multiStatus): bulk calls and portal_upload.
  if (e.bulk || e.response.includes('response')) {
    out[207] = { description: 'Multi-Status: one Multistatus_type per part, in the order sent.', content: content(ref('Multistatus_envelope')) };
  } else if (e.async) {
    out[202] = {
      ...answer('Accepted: the work runs in a worker; follow Location (GET job/{job_id}/).'),
      headers: { Location: { schema: { type: 'string', format: 'uri' } } },
    };
  } else {
    out[200] = answer('OK');
    if (e.method === 'POST' && e.creates) out[201] = answer('Created.');
  }
  for (const [status, description] of Object.entries(e.answers ?? {})) {
    out[status] = status === '207' ? { description, content: content(ref('Multistatus_envelope')) } : answer(description);
  }
  return out;
}

const operationId = (method: string, path: string) =>
  `${method.toLowerCase()}_${path
    .replace(/[{}]/g, '')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/_$/, '')}`;

function operation(e: Endpoint, schemas: Named): Operation {
  const body = requestBody(e, schemas);
  return {
    operationId: operationId(e.method, e.path),
    summary: e.summary,
    tags: [e.path.split('/')[0]!.replace('.php', '')],
    security: e.auth ? [{ oauth2: [...e.auth.scopes] }] : [],
    parameters: parameters(e, schemas),
    ...(body ? { requestBody: body } : {}),
    responses: { ...successResponses(e, schemas), ...errorResponses(e) },
    ...(e.changes ? { 'x-changes': e.changes } : {}),
  };
}

/** OPTIONS of a path: its methods and what they take (server/framework/options.ts); no token. */
function optionsOperation(path: string): Operation {
  return {
    operationId: operationId('OPTIONS', path),
    summary: 'What the methods of this path take and answer, and the versions.',
    tags: [path.split('/')[0]!.replace('.php', '')],
    security: [],
    // OPTIONS reads no query: whatever it carries is taken and ignored.
    parameters: [
      ...pathParameters(path),
      { name: 'ignored', in: 'query', style: 'form', explode: true, schema: { type: 'object', additionalProperties: true } },
      charsetParameter,
    ],
    responses: {
      200: {
        description: 'The overview; Allow lists the methods.',
        headers: { Allow: { schema: { type: 'string' } } },
        content: content(ref('Options_envelope')),
      },
      400: statusRef(400),
      404: statusRef(404),
      413: statusRef(413),
      500: statusRef(500),
      503: statusRef(503),
    },
  };
}

/** A fault of the page: the error envelope, or a page when the browser asked for HTML. */
const pageError = (status: number) => ({
  description: `The error envelope (${status === 503 ? 'retry_later, service_unavailable' : 'internal_error'}), or an error page.`,
  content: { ...content(ref('Error_envelope')), ...html },
});

/** authorize.php is an HTML page, not an endpoint of the framework: described by hand. */
function authorizePaths(): Record<string, unknown> {
  const query = ['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'code_challenge', 'code_challenge_method'].map((name) => ({
    name,
    in: 'query',
    required: false,
    schema: { type: 'string' },
  }));
  return {
    '/authorize.php': {
      options: {
        operationId: 'options_authorize',
        tags: ['authorize'],
        security: [],
        summary: 'The methods of the page.',
        responses: { 200: { description: 'Allow lists them.', headers: { Allow: { schema: { type: 'string' } } }, content: redirectText } },
      },
      get: {
        operationId: 'get_authorize',
        tags: ['authorize'],
        security: [],
        parameters: query,
        summary: 'The consent page (OAuth 2 authorization code, RFC 6749 4.1): the seller logs in and grants scopes to a client.',
        responses: {
          200: { description: 'The consent form.', content: html },
          303: {
            description: 'An error of the request sent back to the client (unsupported_response_type, invalid_scope, invalid_request).',
            content: redirectText,
          },
          400: { description: 'An error page (unknown client or redirect_uri).', content: html },
          500: pageError(500),
          503: pageError(503),
        },
      },
      post: {
        operationId: 'post_authorize',
        tags: ['authorize'],
        security: [],
        summary:
          'The consent form sent (the page posts it; clients never do): step 1 (rights, login) answers step 2 (portal account); step 2 redirects to redirect_uri with code and state. Deny or no right ticked: error=access_denied.',
        requestBody: {
          content: {
            'application/x-www-form-urlencoded': {
              schema: { type: 'object', additionalProperties: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] } },
            },
          },
        },
        responses: {
          200: { description: 'Step 2: the choice of portal account.', content: html },
          303: { description: 'Redirect to the client.', headers: { Location: { schema: { type: 'string', format: 'uri' } } }, content: redirectText },
          400: { description: 'The form again, with the error (wrong login or password), or an error page.', content: html },
          403: { description: "The form without its page's CSRF value: the form again.", content: html },
          413: { description: 'A form larger than the page sends.', content: html },
          429: { description: 'Too many failed logins (Retry-After).', content: html },
          500: pageError(500),
          503: pageError(503),
        },
      },
    },
  };
}

/** openapi.json and the docs page (server/framework/docs.ts), public. */
function documentPaths(): Record<string, unknown> {
  const page = (operationId: string, summary: string, responses: Record<string, unknown>) => ({
    get: { operationId, summary, tags: ['docs'], security: [], responses },
  });
  return {
    '/openapi.json': page('get_openapi', 'This document.', {
      200: { description: 'The OpenAPI 3.1 document of this version.', content: { 'application/json': { schema: { type: 'object' } } } },
    }),
    '/docs': page('get_docs_redirect', 'Redirects to docs/.', {
      301: {
        description: 'Location: docs/.',
        headers: { Location: { schema: { type: 'string' } } },
        content: { 'text/plain': { schema: { type: 'string' } } },
      },
    }),
    '/docs/': page('get_docs', 'The interactive documentation (Swagger UI, served from this server).', { 200: { description: 'The page.', content: html } }),
    '/docs/{file}': {
      get: {
        operationId: 'get_docs_file',
        summary: "The page's scripts, styles and images.",
        tags: ['docs'],
        security: [],
        parameters: [{ name: 'file', in: 'path', required: true, schema: { type: 'string' } }],
        responses: {
          200: { description: 'The file.', content: { '*/*': { schema: { type: 'string' } } } },
          404: statusRef(404),
        },
      },
    },
  };
}

/**
 * The groups of the docs page (an operation's tag is its path's first segment), in document 1's
 * order of what the service does, each with what it holds: without a global list, Swagger UI shows
 * bare segment names in the order they first appear.
 */
const tagDescriptions: Record<string, string> = {
  token: 'Access tokens (document 1, Authentication): client_credentials for the seller, authorization_code and refresh_token for third-party clients.',
  stock:
    'Stock items with their listings on every portal, CIA (the cross-channel quantity adjustment), listing at portals, descriptions, own categories, history.',
  order: 'Orders: create, read, update, delete, status flags, history, order/list/ in bulk, send_mit (shipped at the portal, in-transit mail).',
  bank: 'Bank transfers and payment-provider payments, statement files (MT940, camt.053/.054, a ZIP of them) matched to orders.',
  system: 'Reference data: currencies, payment methods, conditions, countries, categories, scopes, event types, actions and conditions.',
  admin: 'Administration: customers, event handlers and their webhook deliveries, the API account, portal accounts, shipping groups, client accesses.',
  task: "Tasks: the seller's to-dos, and what the service raises for the seller to do.",
  job: 'The state and result of an async request (202 and its Location).',
  authorize: 'The consent page of the authorization code flow, where the seller grants a client its rights.',
  docs: 'This document and the interactive page.',
};

/**
 * The global tag list: the groups the operations use, in tagDescriptions' order; a group it does
 * not describe (another app's endpoints, as a test mounts them) comes last, bare.
 * test/framework/openapi.test.ts holds every group of the service to a description.
 */
function tagsOf(paths: Record<string, unknown>): { name: string; description?: string }[] {
  const operations = Object.values(paths).flatMap((methods) => Object.values(methods as Record<string, { tags?: string[] }>));
  const used = new Set(operations.flatMap((op) => op.tags ?? []));
  const described = Object.entries(tagDescriptions)
    .filter(([name]) => used.has(name))
    .map(([name, description]) => ({ name, description }));
  return [...described, ...[...used].filter((name) => !(name in tagDescriptions)).map((name) => ({ name }))];
}

/** The OpenAPI 3.1 document of a version: baseUrl is {base_url}, ending in '/'. */
export function openApiDocument(endpoints: Endpoint[], baseUrl: string, version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, Operation>> = {};
  const schemas: Named = {};
  for (const e of endpoints) {
    const path = `/${e.path}`;
    paths[path] = { ...paths[path], [e.method.toLowerCase()]: operation(e, schemas), options: optionsOperation(e.path) };
  }
  nameRepeatedSchemas(schemas);
  const allPaths = { ...paths, ...authorizePaths(), ...documentPaths() };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Kontor API',
      version,
      description: [
        'Every answer is an envelope: ack (success, warning, error), warning[] and error[] of Error_type, then the payload. Send Accept: application/xml for XML (the same fields under `<response>`, values as text).',
        'Async requests answer 202 with a job_id and Location. Bulk requests answer 207 with one Multistatus_type per part.',
        "A method a path does not take answers 405 (Allow lists those it takes), after the token as the path's methods ask for it (401 without a valid one); a path that is not an endpoint answers 404 unknown_path; both with the error envelope.",
        "POST data is the body. Of a POST's query string only portal_account_id is read (it must agree with the body's); any other parameter is a 400 unknown_parameter.",
        'Every version (v0.5, v0.6, v1.0, v1.1, and none for the current one) serves this document at {base_url}openapi.json with its own server.',
        charsetNote,
      ].join('\n\n'),
    },
    servers: [{ url: baseUrl.replace(/\/$/, '') }],
    'x-charsets': [...charsets],
    tags: tagsOf(allPaths),
    paths: allPaths,
    components: components(baseUrl, schemas),
  };
}
