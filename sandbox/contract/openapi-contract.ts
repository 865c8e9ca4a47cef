/**
 * One vendor contract (OpenAPI 3.0 or Swagger 2.0, as published) turned into request checks:
 * the operation a request maps to (method and path template under the server's base path), its
 * path, query and header parameters (type, enum, required) and its JSON body against the
 * operation's schema, $refs resolved inside the file. Schemas are compiled by Ajv (ajv-formats
 * for date-time, email, uri ...) the first time an operation is called.
 *
 * Two readings are stricter than the vendors: a body field the schema does not name is a
 * violation (eBay drops it with warning 25028, Amazon ignores it: either way the adapter's
 * data would be lost, so a test must see it), and a query parameter is checked only when the
 * contract names it (vendors ignore the others).
 */
import Ajv, { ErrorObject, ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { readContract } from './contract-files';

type Json = Record<string, unknown>;

/** One thing a request did not do as the contract says. */
export interface ContractProblem {
  in: 'operation' | 'path' | 'query' | 'header' | 'body' | 'response';
  /** The parameter, header or body field (dotted path, e.g. requests[0].sku). */
  name: string;
  message: string;
}

/** A request as the checker reads it (Express's, or a test's). */
export interface CheckedRequest {
  method: string;
  /** The URL path without the query (as received: percent-encoded). */
  path: string;
  query: Record<string, unknown>;
  header(name: string): string | undefined;
  body: unknown;
}

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  /** Its schema (or a $ref into the file); a csv array is split before the check. */
  schema: Json;
  csv: boolean;
}

export interface Operation {
  method: string;
  /** The full path template (base path included), e.g. /sell/inventory/v1/offer/{offerId}. */
  template: string;
  operationId: string;
  deprecated: boolean;
  parameters: Parameter[];
  body?: { required: boolean; pointer: string };
  /** The JSON schema pointer of each documented answer's body, by status ("200", "default"). */
  responses: Record<string, string | null>;
  regex: RegExp;
  names: string[];
  /** Literal segments: a literal path wins over a template (/offer/publish_by_... over /offer/{offerId}). */
  literals: number;
}

/** A correction to a published file, with the reason (SOURCES.md "Where the references disagree"). */
export interface Erratum {
  /** JSON pointer of the schema replaced, e.g. /components/schemas/Product/properties/aspects. */
  pointer: string;
  schema: Json;
  why: string;
}

export interface ContractOptions {
  errata?: Erratum[];
  /** Unknown body fields are violations (default true). */
  rejectUnknownFields?: boolean;
  /**
   * Query parameters the operation does not name are violations (default false: a vendor may
   * document that it ignores them). A client sending one relies on what the contract does not
   * say: a filter the vendor does not have filters nothing.
   */
  rejectUnknownQuery?: boolean;
}

const methods = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const pointerPart = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

function at(doc: unknown, pointer: string): unknown {
  return pointer
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>((node, key) => (node && typeof node === 'object' ? (node as Json)[key] : undefined), doc);
}

function setAt(doc: Json, pointer: string, value: unknown): void {
  const parts = pointer.split('/').slice(1);
  const last = parts.pop()!;
  const parent = at(doc, parts.length ? `/${parts.join('/')}` : '');
  if (!parent || typeof parent !== 'object') throw new Error(`contract erratum: no ${pointer}`);
  (parent as Json)[last.replace(/~1/g, '/').replace(/~0/g, '~')] = value;
}

/** The object a $ref points to (parameters and request bodies may be references). */
function deref(doc: Json, node: unknown): Json {
  let current = node as Json;
  for (let i = 0; i < 10 && current && typeof current.$ref === 'string'; i++) current = at(doc, (current.$ref as string).replace(/^#/, '')) as Json;
  return current ?? {};
}

/**
 * A parameter's schema compiled on its own: its local $refs (#/components/schemas/Storefront in
 * Kaufland's OAS 3.0 file) point into the contract added to Ajv as `contract`.
 */
function intoContract(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(intoContract);
  if (!node || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node as Json).map(([k, v]) => [k, k === '$ref' && typeof v === 'string' && v.startsWith('#') ? `contract${v}` : intoContract(v)]),
  );
}

/** Object schemas without additionalProperties get false (rejectUnknownFields), combinators left alone. */
function closeObjects(node: unknown): void {
  if (!node || typeof node !== 'object') return;
  if (Array.isArray(node)) return node.forEach(closeObjects);
  const schema = node as Json;
  if (
    schema.properties &&
    typeof schema.properties === 'object' &&
    schema.additionalProperties === undefined &&
    !schema.allOf &&
    !schema.anyOf &&
    !schema.oneOf
  )
    schema.additionalProperties = false;
  for (const value of Object.values(schema)) closeObjects(value);
}

/**
 * OAS 3.0's `nullable` beside a combinator without `type` (Kaufland's `{allOf: [{$ref}], nullable:
 * true}`), which Ajv refuses to compile, as the JSON Schema it means: null or the combinator.
 */
function nullableCombinators(node: unknown): void {
  if (!node || typeof node !== 'object') return;
  if (Array.isArray(node)) return node.forEach(nullableCombinators);
  const schema = node as Json;
  for (const value of Object.values(schema)) nullableCombinators(value);
  if (schema.nullable === true && schema.type === undefined && (schema.allOf || schema.anyOf || schema.oneOf || schema.$ref)) {
    const { nullable: _n, description, example: _e, ...rest } = schema;
    for (const k of Object.keys(schema)) delete schema[k];
    Object.assign(schema, { anyOf: [{ type: 'null' }, rest] }, description === undefined ? {} : { description });
  }
}

/** The base path of the first server (OAS3, variables at their defaults) or basePath (Swagger 2.0). */
function basePathOf(doc: Json): string {
  if (typeof doc.basePath === 'string') return doc.basePath.replace(/\/$/, '');
  const server = (doc.servers as { url?: string; variables?: Record<string, { default?: string }> }[] | undefined)?.[0];
  if (!server?.url) return '';
  const url = server.url.replace(/\{(\w+)\}/g, (_m, name: string) => server.variables?.[name]?.default ?? '');
  return new URL(url, 'https://host.invalid').pathname.replace(/\/$/, '');
}

function parameterOf(doc: Json, raw: unknown): Parameter | undefined {
  const p = deref(doc, raw);
  if (p.in !== 'path' && p.in !== 'query' && p.in !== 'header') return undefined;
  // Swagger 2.0 puts type/items/enum on the parameter itself; OAS 3.0 in its schema.
  const { name: _n, in: _i, required: _r, description: _d, collectionFormat, ...inline } = p;
  const schema = (p.schema as Json | undefined) ?? inline;
  const array = deref(doc, schema).type === 'array';
  // Swagger 2.0's default collectionFormat is csv; OAS 3.0's query default is style form with
  // explode true (status=a&status=b), so a comma list is one value there unless explode is false.
  const swagger2 = typeof doc.swagger === 'string';
  const csv = array && (collectionFormat === 'csv' || (swagger2 && collectionFormat === undefined) || p.explode === false);
  return { name: String(p.name), in: p.in, required: p.required === true || p.in === 'path', schema, csv };
}

export class OpenApiContract {
  readonly title: string;
  readonly version: string;
  readonly operations: Operation[] = [];
  private readonly ajv: Ajv;
  private readonly params: Ajv;
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly rejectUnknownQuery: boolean;

  constructor(
    readonly file: string,
    doc: Json,
    options: ContractOptions = {},
  ) {
    const info = (doc.info ?? {}) as Json;
    this.title = String(info.title ?? file);
    this.version = String(info.version ?? '?');
    this.rejectUnknownQuery = options.rejectUnknownQuery === true;
    const copy = structuredClone(doc);
    nullableCombinators(copy);
    // An erratum applies to the files that have its pointer (one list serves a vendor's files).
    for (const e of options.errata ?? []) if (at(copy, e.pointer) !== undefined) setAt(copy, e.pointer, e.schema);
    const bodies = structuredClone(copy);
    if (options.rejectUnknownFields !== false) closeObjects(bodies.components ?? bodies.definitions);
    this.ajv = this.newAjv(false, bodies);
    this.params = this.newAjv('array', copy);
    this.readOperations(copy);
  }

  /** Loads `<shared contracts>/<folder>/<file>` (see contract-files.ts). */
  static load(folder: string, file: string, options?: ContractOptions, root?: string): OpenApiContract {
    return new OpenApiContract(file, readContract(folder, file, root), options);
  }

  /** The operation a method and path map to, with the decoded path parameters. */
  match(method: string, path: string): { operation: Operation; params: Record<string, string> } | undefined {
    for (const operation of this.operations) {
      if (operation.method !== method.toUpperCase()) continue;
      const found = operation.regex.exec(path);
      if (!found) continue;
      const params: Record<string, string> = {};
      operation.names.forEach((name, i) => {
        params[name] = decodeURIComponent(found[i + 1]!);
      });
      return { operation, params };
    }
    return undefined;
  }

  /** Whether a path (any method) is one of the contract's. */
  knows(path: string): boolean {
    return this.operations.some((o) => o.regex.test(path));
  }

  /** The problems of a request against its operation (empty: it keeps the contract). */
  check(request: CheckedRequest, matched = this.match(request.method, request.path)): ContractProblem[] {
    if (!matched)
      return [
        {
          in: 'operation',
          name: `${request.method} ${request.path}`,
          message: `no operation of ${this.title} ${this.version} is ${request.method} ${request.path}`,
        },
      ];
    const { operation, params } = matched;
    const problems: ContractProblem[] = [];
    for (const p of operation.parameters) {
      const raw = p.in === 'path' ? params[p.name] : p.in === 'query' ? request.query[p.name] : request.header(p.name);
      if (raw === undefined || raw === '') {
        if (p.required) problems.push({ in: p.in, name: p.name, message: `the ${p.in} parameter ${p.name} is required` });
        continue;
      }
      const value = p.csv && typeof raw === 'string' ? raw.split(',') : raw;
      const validate = this.validator(`param:${operation.method} ${operation.template} ${p.in} ${p.name}`, this.params, {
        type: 'object',
        properties: { value: intoContract(p.schema) },
      });
      if (!validate({ value })) problems.push(...this.problems(validate.errors, p.in, p.name));
    }
    if (this.rejectUnknownQuery) {
      const named = new Set(operation.parameters.filter((p) => p.in === 'query').map((p) => p.name));
      for (const name of Object.keys(request.query))
        if (!named.has(name)) problems.push({ in: 'query', name, message: `${name} is not a query parameter of ${operation.operationId}` });
    }
    if (operation.body) problems.push(...this.checkBody(operation, request));
    return problems;
  }

  private checkBody(operation: Operation, request: CheckedRequest): ContractProblem[] {
    const { body } = operation;
    if (!body) return [];
    if (request.body === undefined || request.body === null) return body.required ? [{ in: 'body', name: '', message: 'the request body is required' }] : [];
    const type = request.header('content-type') ?? '';
    if (!/^application\/([\w.+-]*\+)?json\b/i.test(type))
      return [{ in: 'header', name: 'Content-Type', message: `a JSON body needs Content-Type application/json, not "${type}"` }];
    const validate = this.validator(`body:${body.pointer}`, this.ajv, { $ref: `contract#${body.pointer}` });
    return validate(request.body) ? [] : this.problems(validate.errors, 'body', '');
  }

  private validator(key: string, ajv: Ajv, schema: Json): ValidateFunction {
    let validate = this.validators.get(key);
    if (!validate) {
      validate = ajv.compile(schema);
      this.validators.set(key, validate);
    }
    return validate;
  }

  /** Ajv's errors as problems, named by their field (requests[0].sku). */
  private problems(errors: ErrorObject[] | null | undefined, where: ContractProblem['in'], name: string): ContractProblem[] {
    return (errors ?? []).slice(0, 10).map((e) => {
      const parts = e.instancePath
        .split('/')
        .slice(1)
        .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
      if (where !== 'body' && where !== 'response') parts.shift(); // the wrapper's "value"
      const extra = e.keyword === 'additionalProperties' ? (e.params as { additionalProperty: string }).additionalProperty : undefined;
      if (extra) parts.push(extra);
      const field = parts.reduce((out, p) => (/^\d+$/.test(p) ? `${out}[${p}]` : out ? `${out}.${p}` : p), name);
      const allowed = e.keyword === 'enum' ? ` (${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')})` : '';
      const message = extra ? `${field} is not a field of the contract` : `${field || 'the body'} ${e.message ?? 'is invalid'}${allowed}`;
      return { in: where, name: field, message };
    });
  }

  private newAjv(coerceTypes: false | 'array', doc: Json): Ajv {
    const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false, logger: false, coerceTypes });
    addFormats(ajv);
    // OpenAPI's own formats: int32 and int64 are ranges (ajv-formats checks them: eBay's
    // availableQuantity and Kaufland's amount are int32, so a larger quantity breaks the
    // contract); for the others the type already says what they check.
    for (const format of ['float', 'double', 'byte', 'binary', 'password']) ajv.addFormat(format, true);
    ajv.addSchema(doc, 'contract');
    return ajv;
  }

  private readOperations(doc: Json): void {
    const base = basePathOf(doc);
    for (const [template, item] of Object.entries((doc.paths ?? {}) as Record<string, Json>)) {
      const shared = (item.parameters as unknown[] | undefined) ?? [];
      for (const method of methods) {
        const op = item[method] as Json | undefined;
        if (!op) continue;
        const raw = [...shared, ...((op.parameters as unknown[] | undefined) ?? [])];
        const parameters = raw.map((p) => parameterOf(doc, p)).filter((p): p is Parameter => p !== undefined);
        const full = `${base}${template}`;
        const names: string[] = [];
        const regex = new RegExp(
          `^${full
            .split(/(\{[^}]+\})/)
            .map((part) => {
              const name = /^\{([^}]+)\}$/.exec(part);
              if (!name) return escape(part);
              names.push(name[1]!);
              return '([^/]+)';
            })
            .join('')}/?$`,
        );
        this.operations.push({
          method: method.toUpperCase(),
          template: full,
          operationId: String(op.operationId ?? `${method} ${template}`),
          deprecated: op.deprecated === true,
          parameters,
          body: this.bodyOf(doc, template, method, op, raw),
          responses: this.responsesOf(template, method, op),
          regex,
          names,
          literals: full.split('/').filter((s) => s && !s.startsWith('{')).length,
        });
      }
    }
    this.operations.sort((a, b) => b.literals - a.literals);
  }

  /** Each documented answer's JSON schema pointer (null: the answer is documented without a JSON body). */
  private responsesOf(template: string, method: string, op: Json): Record<string, string | null> {
    const here = `/paths/${pointerPart(template)}/${method}/responses`;
    const out: Record<string, string | null> = {};
    for (const [status, raw] of Object.entries((op.responses ?? {}) as Record<string, Json>)) {
      const response = raw as Json;
      if (typeof response.$ref === 'string') {
        out[status] = null;
        continue;
      }
      if (response.schema) out[status] = `${here}/${pointerPart(status)}/schema`;
      else if (response.content) {
        const type = Object.keys(response.content as Json).find((t) => /json/i.test(t));
        out[status] = type && ((response.content as Json)[type] as Json).schema ? `${here}/${pointerPart(status)}/content/${pointerPart(type)}/schema` : null;
      } else out[status] = null;
    }
    return out;
  }

  /**
   * The problems of the sandbox's own answer against the operation's documented answers: its
   * status must be documented (or a default be), and a JSON body must validate against that
   * status's schema, unknown fields included (an emulator answering a field the vendor never
   * sends lets an adapter read what the vendor will not give it). 429 and the vendor's general
   * errors (401, 403, 404, 5xx) are not in every operation's list and are not checked.
   */
  checkResponse(operation: Operation, status: number, body: unknown): ContractProblem[] {
    if (status === 429 || status === 401 || status === 403 || status >= 500) return [];
    const key = String(status) in operation.responses ? String(status) : `${String(status)[0]}XX` in operation.responses ? `${String(status)[0]}XX` : 'default';
    if (!(key in operation.responses)) {
      if (status === 404 || status === 400) return [];
      return [
        {
          in: 'response',
          name: String(status),
          message: `${operation.operationId} documents no ${status} answer (${Object.keys(operation.responses).join(', ')})`,
        },
      ];
    }
    const pointer = operation.responses[key];
    if (!pointer || body === undefined || body === null || body === '') return [];
    const validate = this.validator(`response:${pointer}`, this.ajv, { $ref: `contract#${pointer}` });
    return validate(body) ? [] : this.problems(validate.errors, 'response', '');
  }

  /** The JSON body's schema pointer: OAS 3.0 requestBody (maybe a $ref), Swagger 2.0 the body parameter. */
  private bodyOf(doc: Json, template: string, method: string, op: Json, raw: unknown[]): Operation['body'] {
    const here = `/paths/${pointerPart(template)}/${method}`;
    if (op.requestBody) {
      let pointer = `${here}/requestBody`;
      let requestBody = op.requestBody as Json;
      if (typeof requestBody.$ref === 'string') {
        pointer = requestBody.$ref.replace(/^#/, '');
        requestBody = deref(doc, requestBody);
      }
      const content = (requestBody.content ?? {}) as Record<string, unknown>;
      const type = Object.keys(content).find((t) => /json/i.test(t));
      if (!type || !(content[type] as Json).schema) return undefined;
      return { required: requestBody.required === true, pointer: `${pointer}/content/${pointerPart(type)}/schema` };
    }
    const index = raw.findIndex((p) => deref(doc, p).in === 'body');
    if (index < 0) return undefined;
    const param = deref(doc, raw[index]);
    const shared = ((doc.paths as Record<string, Json>)[template]!.parameters as unknown[] | undefined) ?? [];
    const own = index >= shared.length;
    const pointer = (raw[index] as Json).$ref
      ? `${String((raw[index] as Json).$ref).replace(/^#/, '')}/schema`
      : own
        ? `${here}/parameters/${index - shared.length}/schema`
        : `/paths/${pointerPart(template)}/parameters/${index}/schema`;
    return { required: param.required === true, pointer };
  }
}
