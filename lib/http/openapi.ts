/**
 * The OpenAPI 3.1 document of the API, derived from the endpoint declarations (paths, methods,
 * scopes, Joi schemas through joi-to-json), the envelope and the error table: nothing is written
 * twice, so the document cannot drift from what the framework enforces.
 */
import type Joi from 'joi';
import parse from 'joi-to-json';
import { scopes } from '../access/scopes';
import { ErrorKind, errorKinds, errorTable } from '../errors';
import type { Endpoint } from './endpoint';
import { idempotencyHeader, maxKeyLength } from './idempotency/key';

type Schema = Record<string, unknown>;
type Operation = Record<string, unknown>;

const media = ['application/json', 'application/xml'] as const;
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const errorRef = (kind: ErrorKind) => ({ $ref: `#/components/responses/${kind}` });

/** JSON Schema of a Joi schema; a type joi-to-json cannot express stays open rather than failing the document. */
function jsonSchema(schema: Joi.Schema | undefined): Schema {
  if (!schema) return { type: 'object' };
  try {
    return parse(schema, 'open-api-3.1') as Schema;
  } catch {
    return {};
  }
}

const idsOf = (kind: ErrorKind) =>
  Object.entries(errorTable)
    .filter(([, entry]) => entry.kind === kind || ('alsoAs' in entry && entry.alsoAs === kind))
    .map(([id]) => id);

/** Both media types the framework answers in (Accept: application/xml gives XML with the same fields). */
function content(schema: Schema, example?: unknown): Record<string, unknown> {
  return Object.fromEntries(media.map((type) => [type, { schema, ...(example && type === 'application/json' ? { example } : {}) }]));
}

function components(baseUrl: string): Record<string, unknown> {
  const kinds = Object.keys(errorKinds).filter((k) => idsOf(k as ErrorKind).length > 0) as ErrorKind[];
  return {
    securitySchemes: {
      oauth2: {
        type: 'oauth2',
        description:
          'Sellers: client_credentials with Basic login:password at token.php. Clients (third-party software): authorization code (PKCE S256) at authorize.php.',
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
    schemas: {
      Warning_type: {
        type: 'object',
        properties: { warning: { type: 'string' }, description: { type: 'string' }, field: { type: 'string' } },
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
    },
    responses: Object.fromEntries(
      kinds.map((kind) => [
        kind,
        {
          description: `${kind} (HTTP ${errorKinds[kind].status}); error ids: ${idsOf(kind).join(', ')}`,
          content: content(ref('Error_envelope'), {
            ack: 'error',
            error: [{ error: idsOf(kind)[0], description: 'what went wrong', code: errorKinds[kind].status }],
            error_description: 'what went wrong',
          }),
        },
      ]),
    ),
  };
}

const scopeTitles = () => Object.fromEntries(Object.entries(scopes).map(([name, s]) => [name, `${s.title}: ${s.description}`]));

/** The success envelope: ack, warning[], then the declared payload fields (typed where the declaration says how). */
function successSchema(e: Endpoint): Schema {
  const first = e.response[0];
  const properties: Record<string, Schema> = Object.fromEntries(e.response.map((name) => [name, {}]));
  if (first && e.select) properties[first] = jsonSchema(e.select.type);
  else if (first && e.search) properties[first] = { type: 'array', items: jsonSchema(e.search.type) };
  if (e.search) properties.next_min_id = { type: 'string', description: 'Present when a further page exists: pass it as pagination[min_id].' };
  if (e.async) properties.job_id = { type: 'string', format: 'uuid' };
  return {
    type: 'object',
    properties: { ack: { enum: ['success', 'warning'] }, warning: { type: 'array', items: ref('Warning_type') }, ...properties },
    required: ['ack'],
  };
}

function parameters(e: Endpoint): unknown[] {
  const path = [...e.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: (jsonSchema(e.params).properties as Record<string, Schema> | undefined)?.[name!] ?? { type: 'string' },
  }));
  const query =
    e.method === 'POST'
      ? []
      : Object.entries((jsonSchema(e.query).properties ?? {}) as Record<string, Schema>).map(([name, schema]) => ({ name, in: 'query', schema }));
  const search =
    !e.search && !e.select
      ? []
      : [
          { name: 'select', in: 'query', description: 'Comma-separated fields to answer (dotted for nested fields).', schema: { type: 'string' } },
          ...(e.search
            ? [
                {
                  name: 'filter',
                  in: 'query',
                  style: 'deepObject',
                  explode: true,
                  description: `Filters: ${Object.keys(e.search.filters).join(', ')}.`,
                  schema: { type: 'object' },
                },
                {
                  name: 'pagination',
                  in: 'query',
                  style: 'deepObject',
                  explode: true,
                  schema: { type: 'object', properties: { page: { type: 'integer' }, limit: { type: 'integer' }, min_id: { type: 'string' } } },
                },
              ]
            : []),
        ];
  const account = e.auth
    ? [{ name: 'portal_account_id', in: 'query', description: 'The portal account the request acts for (an id or "default").', schema: { type: 'string' } }]
    : [];
  return [...path, ...query, ...search, ...(e.method === 'POST' ? [] : account), ...(e.creates ? [idempotencyParameter] : [])];
}

/** The header of an endpoint that creates or triggers (lib/http/idempotency/). */
const idempotencyParameter = {
  name: idempotencyHeader,
  in: 'header',
  required: false,
  description:
    'Makes the POST safe to retry: the same request (method, path, body) with the same key within 24 hours answers the first answer again (header Idempotent-Replayed: true) without doing the work twice. Another request with the key: 422 idempotency_key_reused; while the first runs: 409 idempotency_key_in_use. Keys are per seller account. 5xx and 429 answers are not kept.',
  schema: { type: 'string', minLength: 1, maxLength: maxKeyLength, pattern: '^[\\x21\\x23-\\x5b\\x5d-\\x7e]+$' },
  example: '5f0c7a6e-3b8e-4a61-9b0c-2f5d8e1a7c44',
};

/** The error answers an endpoint can give, as far as its declaration tells. */
function errorResponses(e: Endpoint): Record<string, unknown> {
  const kinds: ErrorKind[] = ['invalid'];
  if (e.auth) kinds.push('unauthenticated', 'forbidden', 'throttled');
  if (e.params) kinds.push('not_found', 'ambiguous');
  if (e.method === 'POST') kinds.push('too_large');
  if (e.creates) kinds.push('conflict', 'unprocessable');
  kinds.push('unavailable', 'internal');
  return Object.fromEntries(kinds.map((kind) => [String(errorKinds[kind].status), errorRef(kind)]));
}

function successResponses(e: Endpoint): Record<string, unknown> {
  const answer = { content: content(successSchema(e)) };
  if (e.async && !e.bulk) {
    return {
      202: {
        ...answer,
        description: 'Accepted: the work runs in a worker; follow Location (GET job/{job_id}/).',
        headers: { Location: { schema: { type: 'string', format: 'uri' } } },
      },
    };
  }
  const ok =
    e.method === 'POST' && e.auth ? { '2XX': { ...answer, description: '200, or 201 when a record was created.' } } : { 200: { ...answer, description: 'OK' } };
  const parts =
    e.bulk || e.async
      ? {
          207: {
            description: 'Multi-Status: one answer (code, error, job_id) per part.',
            content: content({ type: 'object', properties: { ack: { type: 'string' }, response: { type: 'array', items: { type: 'object' } } } }),
          },
        }
      : {};
  return { ...ok, ...parts };
}

function operation(e: Endpoint): Operation {
  const body = e.method === 'POST' ? jsonSchema(e.body) : undefined;
  return {
    operationId: `${e.method.toLowerCase()}_${e.path
      .replace(/[{}]/g, '')
      .replace(/[^A-Za-z0-9]+/g, '_')
      .replace(/_$/, '')}`,
    summary: e.summary,
    tags: [e.path.split('/')[0]!.replace('.php', '')],
    security: e.auth ? [{ oauth2: e.auth.scope ? [e.auth.scope] : [] }] : [],
    parameters: parameters(e),
    ...(body
      ? { requestBody: { required: true, content: { ...content(body), ...(e.auth ? {} : { 'application/x-www-form-urlencoded': { schema: body } }) } } }
      : {}),
    responses: { ...successResponses(e), ...errorResponses(e) },
    ...(e.changes ? { 'x-changes': e.changes } : {}),
  };
}

/** authorize.php is an HTML page, not an endpoint of the framework: described by hand. */
function authorizePaths(): Record<string, unknown> {
  const query = ['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'code_challenge', 'code_challenge_method'].map((name) => ({
    name,
    in: 'query',
    required: ['response_type', 'client_id'].includes(name),
    schema: { type: 'string' },
  }));
  return {
    '/authorize.php': {
      get: {
        operationId: 'get_authorize',
        tags: ['authorize'],
        security: [],
        parameters: query,
        summary: 'The consent page (OAuth 2 authorization code, RFC 6749 4.1): the seller logs in and grants scopes to a client.',
        responses: {
          200: { description: 'The consent form.', content: { 'text/html': { schema: { type: 'string' } } } },
          303: { description: 'An error of the request sent back to the client (unsupported_response_type, invalid_scope, invalid_request).' },
          400: { description: 'An error page (unknown client or redirect_uri).', content: { 'text/html': { schema: { type: 'string' } } } },
        },
      },
      post: {
        operationId: 'post_authorize',
        tags: ['authorize'],
        security: [],
        summary:
          'The consent form sent (the page posts it; clients never do): step 1 (rights, login) answers step 2 (portal account); step 2 redirects to redirect_uri with code and state. Deny or no right ticked: error=access_denied.',
        requestBody: { content: { 'application/x-www-form-urlencoded': { schema: { type: 'object', additionalProperties: { type: 'string' } } } } },
        responses: {
          200: { description: 'Step 2: the choice of portal account.', content: { 'text/html': { schema: { type: 'string' } } } },
          303: { description: 'Redirect to the client.', headers: { Location: { schema: { type: 'string', format: 'uri' } } } },
          400: {
            description: 'The form again, with the error (wrong login or password), or an error page.',
            content: { 'text/html': { schema: { type: 'string' } } },
          },
          403: { description: "The form without its page's CSRF value: the form again.", content: { 'text/html': { schema: { type: 'string' } } } },
          429: { description: 'Too many failed logins (Retry-After).', content: { 'text/html': { schema: { type: 'string' } } } },
        },
      },
    },
  };
}

/** The OpenAPI 3.1 document of a version: baseUrl is {base_url}, ending in '/'. */
export function openApiDocument(endpoints: Endpoint[], baseUrl: string, version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, Operation>> = {};
  for (const e of endpoints) {
    const path = `/${e.path}`;
    paths[path] = { ...paths[path], [e.method.toLowerCase()]: operation(e) };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Kontor API',
      version,
      description:
        'Every answer is an envelope: ack (success, warning, error), warning[] and error[] of Error_type, then the payload. Send Accept: application/xml for XML. Async requests answer 202 with a job_id and Location.',
    },
    servers: [{ url: baseUrl.replace(/\/$/, '') }],
    paths: { ...paths, ...authorizePaths() },
    components: components(baseUrl),
  };
}
