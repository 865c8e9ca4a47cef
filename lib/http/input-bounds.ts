/**
 * Bounds every decoded request (body, query, path) before validation runs: Joi, JSON.stringify
 * and the XML builder recurse, PostgreSQL text cannot hold NUL and jsonb refuses lone UTF-16
 * surrogates. Generous for real use (document 1: 200 items per bulk request), cheap to check.
 */
import { invalidField, tooLarge } from '../errors';
import { fieldPath } from './validate';
import { isFromXml } from './xml-origin';

export const inputBounds = {
  /** Objects and lists nested inside one another (a stock item's deepest field is about 6). */
  depth: 32,
  /** Items of one list (document 1 allows 200 per bulk request; order lines and the like fit). */
  arrayItems: 10_000,
  /** Keys of one object. */
  keys: 1_000,
  /** Values of a whole request (objects, lists and scalars). */
  values: 100_000,
  /** Elements of an XML body, counted before parsing: fast-xml-parser takes about 3 µs each. */
  xmlElements: 20_000,
};

/** Keys that name JavaScript's object machinery: refused like any unknown field, never dropped. */
const reservedKeys = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * The names fast-xml-parser renames to `__` + name without a word (its onDangerousProperty
 * default): `<toString>` reached validation as `__toString`, refused under a name the client never
 * sent, or stored so in free-form settings. In a body read from XML such a key is refused under
 * the name sent, as the reserved keys are (the parser's option cannot be a function: large bodies
 * are parsed in a worker, lib/http xml-worker.ts, whose options travel as JSON).
 */
const renamedFromXml = new Map(
  ['hasOwnProperty', 'toString', 'valueOf', '__defineGetter__', '__defineSetter__', '__lookupGetter__', '__lookupSetter__'].map((name) => [`__${name}`, name]),
);

// NUL is the point of this pattern.
// eslint-disable-next-line no-control-regex
const badText = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A 400 naming the field when a string holds NUL or a lone surrogate. */
export function checkText(value: string, field: string): void {
  if (badText.test(value)) {
    throw invalidField(field, `${field || 'request'} contains a NUL character or an unpaired UTF-16 surrogate`, 'invalid_text');
  }
}

/** Checks a decoded request against the bounds; field names follow the validation errors' form. */
export function checkInput(value: unknown, prefix: (string | number)[] = []): void {
  let count = 0;
  const visit = (node: unknown, path: (string | number)[]): void => {
    if (++count > inputBounds.values) {
      throw tooLarge(`the request holds more than ${inputBounds.values} values`);
    }
    if (typeof node === 'string') return checkText(node, fieldPath(path));
    if (node === null || typeof node !== 'object') return;
    const field = fieldPath(path);
    if (path.length - prefix.length >= inputBounds.depth) {
      throw invalidField(field, `${field} nests deeper than ${inputBounds.depth} levels`, 'too_deep');
    }
    if (Array.isArray(node)) {
      if (node.length > inputBounds.arrayItems) throw invalidField(field, `${field} has more than ${inputBounds.arrayItems} items`, 'too_many_items');
      node.forEach((item, i) => visit(item, [...path, i]));
      return;
    }
    const keys = Object.keys(node);
    if (keys.length > inputBounds.keys)
      throw invalidField(field || 'request', `${field || 'request'} has more than ${inputBounds.keys} fields`, 'too_many_fields');
    for (const key of keys) {
      const child = [...path, key];
      checkText(key, field || 'request');
      if (reservedKeys.has(key)) throw invalidField(fieldPath(child), `${fieldPath(child)} is not allowed`);
      const sent = renamedFromXml.get(key);
      if (sent !== undefined && isFromXml(node)) {
        const named = fieldPath([...path, sent]);
        throw invalidField(named, `${named} is not allowed: it names a property of JavaScript objects, which an XML body cannot carry`);
      }
      visit((node as Record<string, unknown>)[key], child);
    }
  };
  visit(value, prefix);
}

/**
 * The parts under a field of lists (an endpoint's `parts`, portal_upload's one list per portal),
 * all lists together; one value where a list goes (a lone XML element) is a list of one.
 */
export function partsIn(value: unknown): number {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 0;
  let count = 0;
  for (const list of Object.values(value)) count += Array.isArray(list) ? list.length : list === undefined || list === null ? 0 : 1;
  return count;
}

/** A request holding more parts than its endpoint takes: a 400 naming the field and the bound. */
export function checkParts(input: Record<string, unknown>, parts: { field: string; max: number }): void {
  const count = partsIn(input[parts.field]);
  if (count > parts.max) {
    throw invalidField(
      parts.field,
      `${parts.field} holds ${count} parts; at most ${parts.max} are taken in one request, all its lists together`,
      'too_many_items',
    );
  }
}
