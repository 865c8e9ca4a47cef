import type Joi from 'joi';
import { describe, Description } from '../../lib/http';
import type { Endpoint } from '../../lib/http';
import { currentVersion, versions } from './context';

type Shape = string | { [key: string]: Shape } | Shape[];

/** A readable outline of a schema: field names with their types, nested as the type nests. */
function shape(description: Description): Shape {
  if (description.keys)
    return Object.fromEntries(Object.entries(description.keys).map(([k, d]) => [k + (d.flags?.presence === 'required' ? '' : '?'), shape(d)]));
  if (description.type === 'array' && description.items?.[0]) return [shape(description.items[0])];
  return description.type ?? 'any';
}

const idempotencyNote =
  'optional; 1-255 visible ASCII characters (a UUID): the same request with the same key within 24 h answers the first answer again without doing the work twice';

const outline = (schema: Joi.Schema | undefined) => (schema ? shape(describe(schema)) : null);

/** The OPTIONS answer of a path: its methods, what each takes and returns, and version notes. */
export function optionsOverview(path: string, endpoints: Endpoint[]) {
  return {
    options: {
      path,
      methods: endpoints.map((e) => ({
        method: e.method,
        description: e.summary,
        scope: e.auth ? e.auth.scopes.join(' ') || 'any valid token' : 'none',
        ...(e.body ? { request: outline(e.body) } : {}),
        ...(e.file ? { request: { file: e.file } } : {}),
        ...(e.search ? { query: { select: outline(e.search.type), filter: Object.keys(e.search.filters), pagination: ['page', 'limit', 'min_id'] } } : {}),
        response: e.response,
        async: Boolean(e.async),
        // The request headers a method reads beyond document 1's (openapi.json lists them too).
        ...(e.creates || e.conditional
          ? {
              headers: { ...(e.creates ? { 'Idempotency-Key': idempotencyNote } : {}), ...(e.conditional ? { 'If-Match': `optional; ${e.conditional}` } : {}) },
            }
          : {}),
        ...(e.changes ? { changes: e.changes } : {}),
      })),
      versions: { current: currentVersion, supported: versions },
    },
  };
}
