/**
 * JSON Schema (OpenAPI 3.1, draft 2020-12) of a Joi type, read from Joi's own describe(), in two
 * directions (issue 36):
 * - `request`: what validate() (lib/http/validate.ts) accepts: Joi converts, so a number may come
 *   as its text, a boolean as any of its truthy/falsy values, a list as one item (`single`); a
 *   case rule makes a pattern case-insensitive and trim lets a pattern's text carry spaces;
 *   read-only fields are taken (and dropped with a warning), nulls of absentWhenNull fields too.
 *   Patterns are written as patterns: a flag of the Joi regex is spelt out inside it.
 * - `read`: what the service writes: the same fields, each of them may be null or absent (a
 *   record read back holds what the seller or a portal left empty), numbers may come as their
 *   text (document 2 types order lines' quantity, price and tax, and a task's person_id, as
 *   strings; bigint ids are written as text), and write-only fields are never written.
 * What JSON Schema cannot say (a custom rule such as "the day exists", a condition on another
 * field) stays out: the schema is then wider than Joi, never narrower.
 */
import type Joi from 'joi';
import { describe, Description } from './describe';
import { datetimeText } from './schema';

export type JsonSchema = Record<string, unknown>;
export type Direction = 'request' | 'read';

/** The parts of describe() read here, beyond those the framework reads (describe.ts). */
interface Full extends Description {
  keys?: Record<string, Full>;
  items?: Full[];
  flags?: {
    presence?: string;
    only?: boolean;
    single?: boolean;
    unknown?: boolean;
    insensitive?: boolean;
    sensitive?: boolean;
    default?: unknown;
    description?: string;
    empty?: Full;
  };
  rules?: { name: string; args?: Record<string, unknown> }[];
  allow?: unknown[];
  invalid?: unknown[];
  truthy?: unknown[];
  falsy?: unknown[];
  matches?: { schema?: Full; ref?: unknown }[];
  patterns?: { schema?: Full; regex?: string; rule: Full }[];
  whens?: unknown[];
  renames?: { from: string; to: string }[];
  examples?: unknown[];
}

// No exponent: a number's text in exponent form is refused (schema.ts decimal, integer).
const numberText = '^\\s*[-+]?(\\d+(\\.\\d*)?|\\.\\d+)\\s*$';
const integerText = '^\\s*[-+]?\\d+(\\.0*)?\\s*$';

const genericText = 'string';

const ruleOf = (d: Full, name: string) => d.rules?.find((r) => r.name === name)?.args;
const hasRule = (d: Full, name: string) => d.rules?.some((r) => r.name === name) ?? false;
const metaOf = (d: Full, key: 'access' | 'nullIsAbsent') => d.metas?.find((m) => m[key] !== undefined)?.[key];

/** A Joi regex as describe() prints it (/source/flags) as a JSON Schema pattern: flags spelt out. */
export function patternOf(regex: string, caseInsensitive = false, trimmed = false): string {
  const end = regex.lastIndexOf('/');
  let source = regex.slice(1, end);
  const flags = regex.slice(end + 1);
  if (flags.includes('i') || caseInsensitive) source = bothCases(source);
  // Joi trims first and matches the trimmed text: the sent text may carry spaces around it.
  if (trimmed && source.startsWith('^') && source.endsWith('$') && !source.endsWith('\\$')) source = `^\\s*(?:${source.slice(1, -1)})\\s*$`;
  return source;
}

/** The source of a regex with every letter matching both cases (JSON Schema patterns have no flags). */
function bothCases(source: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === '\\') {
      const next = source[i + 1] ?? '';
      // \u and \x escapes carry hex digits that must stay as they are.
      const length = next === 'u' ? 6 : next === 'x' ? 4 : 2;
      out += source.slice(i, i + length);
      i += length - 1;
      continue;
    }
    if (inClass) {
      if (c === ']') {
        inClass = false;
        out += c;
      } else if (/[a-zA-Z]/.test(c) && source[i + 1] === '-' && /[a-zA-Z]/.test(source[i + 2] ?? '')) {
        const to = source[i + 2]!;
        out += `${c}-${to}${swap(c)}-${swap(to)}`;
        i += 2;
      } else out += /[a-zA-Z]/.test(c) ? `${c}${swap(c)}` : c;
      continue;
    }
    if (c === '[') {
      inClass = true;
      out += c;
      if (source[i + 1] === '^') out += source[++i];
      continue;
    }
    // {2,3} quantifiers and (?: groups hold no letters; a plain letter matches either case.
    out += /[a-zA-Z]/.test(c) ? `[${c}${swap(c)}]` : c;
  }
  return out;
}

const swap = (c: string) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase());

/** JSON Schema of a Joi type, for a request or for what the service writes. */
export function jsonSchemaOf(schema: Joi.Schema, direction: Direction): JsonSchema {
  return convert(describe(schema) as Full, direction);
}

function convert(d: Full, direction: Direction): JsonSchema {
  const base = direction === 'request' ? requestOf(d) : readOf(d);
  return withDescription(base, d);
}

function withDescription(schema: JsonSchema, d: Full): JsonSchema {
  const described = d.flags?.description ? { ...schema, description: d.flags.description } : schema;
  return d.examples?.length ? { ...described, examples: d.examples } : described;
}

/** Values Joi takes besides the type (allow, empty): an anyOf with their enum. */
function withAllowed(schema: JsonSchema, d: Full): JsonSchema {
  const extra = [...(d.flags?.only ? [] : (d.allow ?? [])), ...(d.flags?.empty?.allow ?? [])].filter((v) => typeof v !== 'object' || v === null);
  const invalid = d.invalid?.filter((v) => typeof v !== 'object' || v === null) ?? [];
  let out = schema;
  // A trimmed text that allows '' takes spaces alone too: they trim to ''.
  const blank = d.type === 'string' && extra.includes('') && isTrimmed(d) ? [{ type: 'string', pattern: '^\\s*$' }] : [];
  if (extra.length) out = { anyOf: [out, { enum: extra }, ...blank] };
  if (invalid.length) out = { allOf: [out, { not: { enum: invalid } }] };
  return out;
}

function requestOf(d: Full): JsonSchema {
  // A read-only field is taken and dropped with a warning, whatever its value.
  if (metaOf(d, 'access') === 'R') return { readOnly: true, description: 'Read only: a value sent is ignored with a read_only_field warning.' };
  let schema = requestType(d);
  // null means absent: taken where the field may be absent.
  if (metaOf(d, 'nullIsAbsent') && d.flags?.presence !== 'required') schema = { anyOf: [schema, { type: 'null' }] };
  const taken = withAllowed(schema, d);
  // On the whole (Joi's allow('') included): a default '' beside minLength 1 would break its own schema.
  return d.flags?.default !== undefined && typeof d.flags.default !== 'object' ? { ...taken, default: d.flags.default } : taken;
}

function requestType(d: Full): JsonSchema {
  // valid(...) alone: exactly those values (allow holds them).
  if (d.flags?.only) {
    const values = (d.allow ?? []).filter((v) => typeof v !== 'object' || v === null);
    // insensitive(), or a case rule that converts first: the values in any case; trim(): with
    // spaces around them (portal_account_id's " default ", schema.ts portalAccountRef).
    const anyCase = d.flags.insensitive || hasRule(d, 'case');
    if (d.type === 'string' && (anyCase || isTrimmed(d))) {
      const choices = values.map((v) => (anyCase ? bothCases(escape(String(v))) : escape(String(v)))).join('|');
      return { type: 'string', pattern: isTrimmed(d) ? `^\\s*(?:${choices})\\s*$` : `^(?:${choices})$` };
    }
    return { enum: values };
  }
  switch (d.type) {
    case 'string':
      return stringRequest(d);
    case 'number':
      return numberRequest(d);
    case 'boolean':
      return booleanRequest(d);
    case 'date':
      // schema.ts datetime(): ISO 8601 or 'YYYY-MM-DD HH:MM:SS' text, no timestamps; that the day
      // exists is beyond a pattern.
      return { type: 'string', pattern: patternOf(String(datetimeText)), description: 'A date and time: ISO 8601 or YYYY-MM-DD HH:MM:SS.' };
    case 'array':
      return arrayRequest(d);
    case 'object':
      return objectOf(d, 'request');
    case 'alternatives':
      return alternativesOf(d, 'request');
    default:
      return {};
  }
}

/** Joi trims the text before its other rules (and before its allowed values are compared). */
const isTrimmed = (d: Full): boolean => hasRule(d, 'trim') || d.rules?.some((r) => r.name === 'trim' && r.args?.enabled !== false) === true;

/**
 * A trimmed text's upper bound as a pattern: at most `most` characters between the spaces around
 * them (JavaScript's trim and \s strip the same characters), at least one when `some`. maxLength
 * would count the spaces a client may send around the text, which Joi trims first, so it was left
 * out and the document gave no bound at all: a 65-character category id or customer.id was refused
 * by a service whose openapi.json took it. Wider than Joi never narrower: with the u flag a
 * character outside the BMP counts once here, twice in Joi's max; a length rule is read as its
 * upper bound.
 */
export function trimmedWithin(most: number, some: boolean): string {
  if (most <= 0) return '^\\s*$';
  const core = most === 1 ? '\\S' : `\\S(?:[\\s\\S]{0,${most - 2}}\\S)?`;
  return some ? `^\\s*${core}\\s*$` : `^\\s*(?:${core})?\\s*$`;
}

function stringRequest(d: Full): JsonSchema {
  const trimmed = isTrimmed(d);
  const caseRule = hasRule(d, 'case');
  const out: JsonSchema = { type: 'string' };
  const patterns = (d.rules ?? []).filter((r) => r.name === 'pattern').map((r) => patternOf(String(r.args?.regex), caseRule, trimmed));
  // Lengths are checked after trimming: with trim, the sent text may be longer by its spaces.
  const min = ruleOf(d, 'min')?.limit;
  const max = ruleOf(d, 'max')?.limit ?? ruleOf(d, 'maxCharacters')?.limit;
  const length = ruleOf(d, 'length')?.limit;
  // Joi refuses the empty text unless allow('') says otherwise (withAllowed adds it then).
  const least = typeof min === 'number' ? min : 1;
  if (!trimmed && least > 0) out.minLength = least;
  const most = typeof length === 'number' ? length : max;
  if (trimmed && typeof most === 'number') out.pattern = trimmedWithin(most, least > 0);
  else if (trimmed && least > 0) out.pattern = '\\S';
  if (typeof max === 'number' && !trimmed) out.maxLength = max;
  if (typeof length === 'number' && !trimmed) Object.assign(out, { minLength: length, maxLength: length });
  if (hasRule(d, 'email')) out.format = 'email';
  if (hasRule(d, 'guid')) out.format = 'uuid';
  if (hasRule(d, 'uri')) out.format = 'uri';
  if (patterns.length === 1 && out.pattern === undefined) out.pattern = patterns[0];
  else if (patterns.length) return { allOf: [out, ...patterns.map((pattern) => ({ pattern }))] };
  // Swagger UI's Try it out (and other samplers) builds a value from a pattern: a trimmed text's
  // was random characters between runs of spaces. 'string' is what they show for a text without
  // one; a text with a pattern of its own has an example of its own (Joi's example()).
  if (trimmed && !patterns.length && !out.format && (typeof most !== 'number' || most >= genericText.length)) out.examples = [genericText];
  return out;
}

function numberRequest(d: Full): JsonSchema {
  const integer = hasRule(d, 'integer');
  const bounds: JsonSchema = {};
  for (const [rule, keyword] of [
    ['min', 'minimum'],
    ['max', 'maximum'],
    ['greater', 'exclusiveMinimum'],
    ['less', 'exclusiveMaximum'],
  ] as const) {
    const limit = ruleOf(d, rule)?.limit;
    if (typeof limit === 'number') bounds[keyword] = limit;
  }
  if (hasRule(d, 'positive')) bounds.exclusiveMinimum = 0;
  // Joi converts a number's text; the bounds then apply to the number it reads.
  return {
    anyOf: [
      { type: integer ? 'integer' : 'number', ...bounds },
      { type: 'string', pattern: integer ? integerText : numberText },
    ],
  };
}

function booleanRequest(d: Full): JsonSchema {
  const strings = ['true', 'false', ...[...(d.truthy ?? []), ...(d.falsy ?? [])].filter((v): v is string => typeof v === 'string')];
  const others = [...(d.truthy ?? []), ...(d.falsy ?? [])].filter((v) => typeof v !== 'string');
  // Joi compares the text case-insensitively unless the type is sensitive().
  const pattern = `^(?:${[...new Set(strings)].map((s) => (d.flags?.sensitive ? escape(s) : bothCases(escape(s)))).join('|')})$`;
  return { anyOf: [{ type: 'boolean' }, { type: 'string', pattern }, ...(others.length ? [{ enum: others }] : [])] };
}

function arrayRequest(d: Full): JsonSchema {
  const item = d.items?.length === 1 ? convert(d.items[0]!, 'request') : d.items?.length ? { anyOf: d.items.map((i) => convert(i, 'request')) } : {};
  const array: JsonSchema = { type: 'array', items: item };
  const min = ruleOf(d, 'min')?.limit;
  const max = ruleOf(d, 'max')?.limit;
  const length = ruleOf(d, 'length')?.limit;
  if (typeof min === 'number') array.minItems = min;
  if (typeof max === 'number') array.maxItems = max;
  if (typeof length === 'number') Object.assign(array, { minItems: length, maxItems: length });
  // single(): one value (one XML element) counts as a list of one.
  return d.flags?.single ? { anyOf: [array, { allOf: [item, { not: { type: 'array' } }] }] } : array;
}

function objectOf(d: Full, direction: Direction): JsonSchema {
  const out: JsonSchema = { type: 'object' };
  if (d.keys) {
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const [key, child] of Object.entries(d.keys)) {
      if (child.flags?.presence === 'forbidden') continue;
      if (direction === 'read' && metaOf(child, 'access') === 'W') continue;
      properties[key] = convert(child, direction);
      if (direction === 'request' && child.flags?.presence === 'required' && !metaOf(child, 'access')) required.push(key);
    }
    // A renamed key is taken under its old name too.
    for (const rename of d.renames ?? []) if (direction === 'request' && properties[rename.to]) properties[rename.from] ??= properties[rename.to]!;
    out.properties = properties;
    if (required.length) out.required = required;
  }
  if (d.patterns?.length) {
    const values = d.patterns.map((p) => convert(p.rule, direction));
    out.additionalProperties = values.length === 1 ? values[0] : { anyOf: values };
  } else if (d.keys && !d.flags?.unknown) out.additionalProperties = false;
  // Free-form objects too refuse these keys (lib/http/input-bounds.ts).
  if (direction === 'request' && out.additionalProperties !== false) out.propertyNames = { not: { enum: ['__proto__', 'constructor', 'prototype'] } };
  return out;
}

function alternativesOf(d: Full, direction: Direction): JsonSchema {
  const schemas = (d.matches ?? []).map((m) => (m.schema ? convert(m.schema, direction) : {}));
  // A conditional alternative (ref/is/then) stays open.
  if (!schemas.length || (d.matches ?? []).some((m) => !m.schema)) return {};
  // Alternatives that read alike (a date or '' are both text when read) are listed once.
  const distinct = [...new Map(schemas.map((s) => [JSON.stringify(s), s])).values()];
  return distinct.length === 1 ? distinct[0]! : { anyOf: distinct };
}

/** What the service writes for a field of this type: nullable, numbers possibly as text. */
function readOf(d: Full): JsonSchema {
  return nullable(readType(d));
}

function readType(d: Full): JsonSchema {
  switch (d.type) {
    case 'string':
      return { type: 'string' };
    case 'number':
      return { type: [hasRule(d, 'integer') ? 'integer' : 'number', 'string'] };
    case 'boolean':
      return { type: 'boolean' };
    case 'date':
      return { type: 'string' };
    case 'array':
      return {
        type: 'array',
        items: d.items?.length === 1 ? convert(d.items[0]!, 'read') : d.items?.length ? { anyOf: d.items.map((i) => convert(i, 'read')) } : {},
      };
    case 'object':
      return objectOf(d, 'read');
    case 'alternatives':
      return alternativesOf(d, 'read');
    default:
      return {};
  }
}

function nullable(schema: JsonSchema): JsonSchema {
  if (Object.keys(schema).length === 0) return schema;
  const type = schema.type;
  if (typeof type === 'string') return { ...schema, type: [type, 'null'] };
  if (Array.isArray(type)) return type.includes('null') ? schema : { ...schema, type: [...type, 'null'] };
  if (schema.anyOf) {
    const alternatives = schema.anyOf as JsonSchema[];
    return alternatives.some((s) => Array.isArray(s.type) && s.type.includes('null')) ? schema : { ...schema, anyOf: [...alternatives, { type: 'null' }] };
  }
  return { anyOf: [schema, { type: 'null' }] };
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
