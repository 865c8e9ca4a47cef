/**
 * Schemas the API document repeats, named once. The Joi types repeat their parts: a list of
 * objects is the list or one object alone (XML's single element), so `list(auctionA())` held the
 * same 23 KB object twice; POST stock/ and every item of POST stock/list/ share all but their id;
 * POST order/ and a new order of POST order/list/ are the same. Every schema of at least
 * `minLength` characters that occurs more than once among the named schemas becomes a component
 * of its own, named by where it first occurs (the component and the fields down to it), and each
 * occurrence a $ref to it. Nothing changes in what the document allows: a $ref stands for the
 * schema it replaces. A typed client then has one type for each, and Swagger UI resolves less.
 */
import type { JsonSchema } from './json-schema';

/** Smaller schemas (a bounded text, a flag) stay where they are: a $ref would not be shorter to read. */
const minLength = 1000;

/** Keywords whose value is one schema, a list of schemas, or a map of names to schemas. */
const oneSchema = new Set([
  'items',
  'additionalProperties',
  'not',
  'contains',
  'propertyNames',
  'if',
  'then',
  'else',
  'unevaluatedItems',
  'unevaluatedProperties',
]);
const schemaLists = new Set(['anyOf', 'allOf', 'oneOf', 'prefixItems']);
const schemaMaps = new Set(['properties', 'patternProperties', '$defs']);

interface Occurrence {
  node: JsonSchema;
  parent: Record<string, unknown> | unknown[];
  key: string | number;
  /** Field names from the component down to it, for its name. */
  trail: string[];
}

/** Every schema below a component's root (the root already has a name), by its text. */
function collect(schema: JsonSchema, trail: string[], found: Map<string, Occurrence[]>): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(schema)) {
    let text: string;
    if (oneSchema.has(key) && isSchema(value)) {
      text = child(schema, key, value, [...trail, ...(key === 'items' ? ['item'] : [])], found);
    } else if (schemaLists.has(key) && Array.isArray(value)) {
      text = `[${value.map((v, i) => (isSchema(v) ? child(value, i, v, trail, found) : JSON.stringify(v))).join(',')}]`;
    } else if (schemaMaps.has(key) && isSchema(value)) {
      text = `{${Object.entries(value)
        .map(([name, v]) => `${JSON.stringify(name)}:${isSchema(v) ? child(value, name, v, [...trail, name], found) : JSON.stringify(v)}`)
        .join(',')}}`;
    } else text = JSON.stringify(value);
    parts.push(`${JSON.stringify(key)}:${text}`);
  }
  return `{${parts.join(',')}}`;
}

function child(parent: Occurrence['parent'], key: string | number, schema: JsonSchema, trail: string[], found: Map<string, Occurrence[]>): string {
  const text = collect(schema, trail, found);
  if (text.length >= minLength) found.set(text, [...(found.get(text) ?? []), { node: schema, parent, key, trail }]);
  return text;
}

const isSchema = (value: unknown): value is JsonSchema => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Names the repeated schemas of `schemas` (the document's components.schemas) in place, the
 * largest first, each listed after the schema it was first found in. A repeat inside one named in
 * the same pass waits for the next pass, which counts it again (its copies in the replaced
 * occurrences are gone), until none repeats.
 */
export function nameRepeatedSchemas(schemas: Record<string, JsonSchema>): void {
  const order = Object.keys(schemas);
  // The last name listed after each schema, so that those found in it follow it largest first.
  const lastAfter = new Map<string, string>();
  for (;;) {
    const found = new Map<string, Occurrence[]>();
    for (const name of order) collect(schemas[name]!, [name], found);
    const repeated = [...found.entries()]
      .filter(([, at]) => at.length > 1)
      .sort(([a], [b]) => b.length - a.length)
      .map(([, at]) => at);
    if (repeated.length === 0) break;
    const moved = new Set<object>();
    for (const at of repeated) {
      if (at.some((o) => moved.has(o.node))) continue;
      at.forEach((o) => within(o.node, moved));
      const first = at[0]!;
      const name = unusedName(schemas, first.trail.join('_'));
      schemas[name] = first.node;
      const source = first.trail[0]!;
      order.splice(order.indexOf(lastAfter.get(source) ?? source) + 1, 0, name);
      lastAfter.set(source, name);
      for (const { parent, key } of at) (parent as Record<string | number, unknown>)[key] = { $ref: `#/components/schemas/${name}` };
    }
  }
  const all = { ...schemas };
  for (const name of order) {
    delete schemas[name];
    schemas[name] = all[name]!;
  }
}

/** Every object inside a schema, itself included. */
function within(value: unknown, into: Set<object>): void {
  if (typeof value !== 'object' || value === null) return;
  into.add(value);
  for (const v of Object.values(value)) within(v, into);
}

function unusedName(schemas: Record<string, JsonSchema>, wanted: string): string {
  let name = wanted;
  for (let n = 2; schemas[name]; n++) name = `${wanted}_${n}`;
  return name;
}
