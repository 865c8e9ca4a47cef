import Joi from 'joi';
import { DomainError, ErrorItem } from '../errors';
import { describe, Description } from './describe';
import { cutToSent } from './sent-fields';
import { isFromXml } from './xml-origin';
import type { Warning } from '../errors';

/** A field of an object type that a walk visits: marked, or holding marked fields below it. */
type Field = { key: string; child: Description; marked: boolean };

/**
 * A walk of input along its type to the fields a mark names (read only, absent when null). Each
 * type's fields worth visiting are found once: a stock item has about a hundred fields and a
 * dozen that matter, and stock/list/ walked every field of its 200 items (3 ms of a 50 ms call).
 * `visit` sees each marked field the input holds and answers whether to walk into its value.
 */
function typeWalk(isMarked: (d: Description) => boolean) {
  const fieldsOf = new WeakMap<Record<string, Description>, Field[]>();
  const keysOf = (d: Description) => d.keys ?? d.items?.[0]?.keys;
  const fields = (keys: Record<string, Description>): Field[] => {
    let found = fieldsOf.get(keys);
    if (!found) {
      found = Object.entries(keys)
        .map(([key, child]) => ({ key, child, marked: isMarked(child) }))
        .filter((f) => f.marked || mayHoldMarked(f.child));
      fieldsOf.set(keys, found);
    }
    return found;
  };
  const mayHoldMarked = (d: Description): boolean => {
    const keys = keysOf(d);
    return keys ? fields(keys).length > 0 : false;
  };
  const walk = (
    description: Description,
    value: unknown,
    path: string,
    visit: (record: Record<string, unknown>, key: string, path: string, field: Description) => boolean,
  ): void => {
    if (value === null || typeof value !== 'object') return;
    if (Array.isArray(value)) {
      const item = description.items?.[0];
      if (item) value.forEach((v, i) => walk(item, v, `${path}[${i}]`, visit));
      return;
    }
    const keys = keysOf(description);
    if (!keys) return;
    const record = value as Record<string, unknown>;
    for (const { key, child, marked } of fields(keys)) {
      if (!(key in record)) continue;
      const fieldPath = path ? `${path}.${key}` : key;
      if (!marked || visit(record, key, fieldPath, child)) walk(child, record[key], fieldPath, visit);
    }
  };
  return walk;
}

const toReadOnly = typeWalk((d) => d.metas?.some((m) => m.access === 'R') ?? false);
const toSingleLists = typeWalk((d) => d.type === 'array' && d.flags?.single === true);
const isAbsentWhenNull = (d: Description) => d.metas?.some((m) => m.nullIsAbsent === true) ?? false;
const takesNull = (d: Description) => d.allow?.includes(null) ?? false;
const toAbsentWhenNull = typeWalk((d) => isAbsentWhenNull(d) || takesNull(d));
const isObjectList = (d: Description) => d.type === 'array' && d.items?.[0]?.type === 'object';
const toObjects = typeWalk((d) => d.type === 'object' || isObjectList(d));

/**
 * Removes the read-only fields a client sent (document 2, access R) and returns one warning for
 * each, so an object read from the service can be sent back as it is.
 */
export function stripReadOnly(schema: Joi.Schema, value: unknown): Warning[] {
  const warnings: Warning[] = [];
  toReadOnly(describe(schema), value, '', (record, key, field) => {
    delete record[key];
    warnings.push({ warning: 'read_only_field', description: `${field} is read only and was ignored`, code: 200, field });
    return false;
  });
  return warnings;
}

/**
 * Drops the nulls of fields marked absentWhenNull (lib/http/schema), in place, before Joi sees them
 * (the empty element of a field that takes null as a value reads as that null);
 * from XML also their empty elements where the field takes no '' (a decimal, a date, an id). XML
 * has no null: the service writes a field without value as an empty element (`<platform/>`), so
 * reading one as no value lets an order read as XML post back as it is (document 1 takes XML as
 * it takes JSON). A text's empty element stays '', which clears it, as "" does in JSON: an XML
 * client has no other way to clear one (a text without value then reads '' in JSON, not null).
 */
function dropAbsentNulls(schema: Joi.Schema, value: unknown): void {
  toAbsentWhenNull(describe(schema), value, '', (record, key, _path, field) => {
    const emptyXml = record[key] === '' && isFromXml(record) && !field.allow?.includes('');
    // A field whose null is a value of its own (cia max_quantity: no cap) is answered as an empty
    // element; read back from XML, that element is the null, so the read item posts back as it is.
    if (!isAbsentWhenNull(field)) {
      if (emptyXml) record[key] = null;
      return !emptyXml;
    }
    const absent = record[key] === null || emptyXml;
    if (!absent) return true;
    delete record[key];
    return false;
  });
}

/**
 * Reads the empty element of an object field, from XML, as the object with no fields: it is how
 * XML writes `{}` (send_mit with its defaults, `<send_mit/>`; a task's `<reference/>`), and read
 * as the text '' it was a 400 "must be of type object" for what JSON's `{}` is taken as. Not
 * where the field's null means absent (an order's address, a stock item's groups): there the
 * empty element is how the service answers no value, and it stays no value (dropAbsentNulls).
 * Among a list's items an empty element is an item with no fields (`[{...}, {}]` as an XML
 * library writes it) whatever the list's null means; a lone one is read as an object field's is.
 */
function emptyXmlObjects(schema: Joi.Schema, value: unknown): void {
  if (typeof value !== 'object' || value === null || !isFromXml(value)) return;
  toObjects(describe(schema), value, '', (record, key, _path, field) => {
    const held = record[key];
    if (Array.isArray(held)) {
      if (isObjectList(field)) emptyItemsAsObjects(held);
      return true;
    }
    if (held !== '' || isAbsentWhenNull(field) || takesNull(field)) return true;
    record[key] = {};
    return false;
  });
}

/** A list's empty XML elements as items with no fields, in place. */
function emptyItemsAsObjects(list: unknown[]): void {
  for (let i = 0; i < list.length; i++) if (list[i] === '') list[i] = {};
}

/**
 * A bulk call's empty XML items (stock/list/'s `<stock/>`) as items with no fields, as JSON's
 * `{}` is: the body's type takes any item (each is validated on its own), so it holds no object
 * type for emptyXmlObjects to find. A lone empty element is one such item, as one element is a
 * list of one.
 */
export function emptyXmlBulkItems(body: Record<string, unknown>, field: string): void {
  if (!isFromXml(body)) return;
  const items = body[field];
  if (items === '') body[field] = {};
  else if (Array.isArray(items)) emptyItemsAsObjects(items);
}

/**
 * Makes a list field holding one value (one XML element, or a JSON object where a list goes) a
 * list of one, in place, before Joi sees it. Joi's single() takes it as that list, but its error
 * paths then leave the index out (`order.line.quantity`), so a client could not tell the field
 * from a scalar; as a list, the error names `order.line[0].quantity`, as it does for two lines.
 */
function listSingles(schema: Joi.Schema, value: unknown): void {
  toSingleLists(describe(schema), value, '', (record, key) => {
    const held = record[key];
    if (held !== undefined && held !== null && !Array.isArray(held)) record[key] = [held];
    return true;
  });
}

/** A portal account id a body names (ownPortalAccountId), with its field. */
export interface PortalAccountMention {
  field: string;
  id: number;
}

/**
 * Validates and converts input; a failure is a 400 whose errors name each field at fault.
 * portalAccounts collects the portal account ids the input names, for the caller to check.
 */
export function validate<T>(schema: Joi.Schema, value: unknown, prefix = '', portalAccounts?: PortalAccountMention[]): T {
  emptyXmlObjects(schema, value);
  dropAbsentNulls(schema, value);
  listSingles(schema, value);
  const { value: converted, error } = cutToSent(schema, value).validate(value, {
    abortEarly: false,
    convert: true,
    errors: { wrap: { label: false } },
    context: { portalAccounts },
  });
  if (error) throw validationError(error, prefix);
  return converted as T;
}

export function fieldPath(path: (string | number)[], prefix = ''): string {
  let out = prefix;
  for (const part of path) out += typeof part === 'number' ? `[${part}]` : out ? `.${part}` : part;
  return out;
}

/** The context of Joi's rules over an object (with, without, and, nand, or, xor, oxor): the keys they name. */
interface DependencyContext {
  main?: unknown;
  peer?: unknown;
  peers?: unknown;
  missing?: unknown;
  present?: unknown;
}

const names = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : value === undefined ? [] : [String(value)]);

/**
 * A rule over an object's keys (Joi's dependencies) as one error item: the fields it names, as the
 * request's paths, and what to do. Joi's path for these is the object's, empty at the top of the
 * body, and its context holds the keys: 18774bd named or/xor's peers, while with, without, and and
 * nand (no `peers`, or not all of them) still named only the object, `body` at the top. The field
 * is the ones to add or to drop, joined by commas where several (as Joi lists them).
 */
function dependencyItem(d: Joi.ValidationErrorItem, prefix: string): { field: string; description: string } | undefined {
  const c = (d.context ?? {}) as DependencyContext;
  const at = (keys: unknown) => names(keys).map((key) => fieldPath([...d.path, key], prefix));
  const listed = (keys: unknown) => `[${at(keys).join(', ')}]`;
  const item = (fields: string[], description: string) => ({ field: fields.join(','), description });
  switch (d.type) {
    case 'object.with': // main sent without its peer: the peer to add
      return item(at(c.peer), `${at(c.peer).join('')} is required when ${at(c.main).join('')} is sent`);
    case 'object.without': // main sent with a forbidden peer: the peer to drop
      return item(at(c.peer), `${at(c.peer).join('')} cannot be sent with ${at(c.main).join('')}`);
    case 'object.and': // some sent without the others: the missing ones
      return item(at(c.missing), `${listed(c.missing)} must be sent with ${listed(c.present)}`);
    case 'object.nand': // all sent together: every one of them
      return item([...at(c.main), ...at(c.peers)], `${listed([...names(c.main), ...names(c.peers)])} must not all be sent together`);
    case 'object.xor': // more than one of exclusive keys: those sent
    case 'object.oxor':
      return item(at(c.present), `${listed(c.present)} exclude each other: send only one of them`);
    case 'object.missing': // none of or/xor's keys: any of them
      return item(at(c.peers), `send at least one of ${listed(c.peers)}`);
    default:
      return undefined;
  }
}

/** How a type of Joi's alternatives reads in a description. */
const typeInWords: Record<string, string> = {
  number: 'a number',
  date: 'a datetime (YYYY-MM-DD, optionally with a time)',
  string: 'a text',
  boolean: 'true or false',
  object: 'an object',
  array: 'a list',
};

/**
 * Joi's own words for a value outside a field's choices list them as they are: a task's
 * appointment_date of `29.11.2026` read "must be one of [date, ]", market_d.id_type 5 "must be one
 * of [ASIN, ISBN, UPC, EAN, ]", the empty text that clears such a field showing as nothing. Written
 * out: "must be a datetime (...) or ''", "must be one of [ASIN, ISBN, UPC, EAN, '']".
 */
function choicesDescription(d: Joi.ValidationErrorItem, joiWords: string): string | undefined {
  // A field's own message for it (decimal(), freetext ids) stays.
  if (!joiWords.startsWith('must be one of [')) return undefined;
  if (d.type === 'any.only') {
    // An enumeration that takes '' (to clear the field) listed it as nothing: "[ASIN, ISBN, UPC, EAN, ]".
    const valids = d.context?.valids as unknown[] | undefined;
    return valids?.includes('') ? `must be one of [${valids.map((v) => (v === '' ? "''" : String(v))).join(', ')}]` : undefined;
  }
  if (d.type !== 'alternatives.types') return undefined;
  const types = names(d.context?.types).map((t) => typeInWords[t] ?? `'${t}'`);
  return types.length ? `must be ${types.join(' or ')}` : undefined;
}

/**
 * One error item per field at fault: Joi reports a value outside an enumeration of the wrong type
 * twice (`must be one of [...]`, `must be a string`), which a client would read as two faults.
 * Every item names a field: a rule over an object's keys the keys (dependencyItem), any other
 * rule the path Joi gives, and a rule over the whole body without one `body`.
 */
function validationError(error: Joi.ValidationError, prefix: string): DomainError {
  const byField = new Map<string, ErrorItem>();
  for (const d of error.details) {
    const dependency = dependencyItem(d, prefix);
    const field = dependency?.field || fieldPath(d.path, prefix) || 'body';
    const label = String(d.context?.label);
    const joiWords = d.message.startsWith(label) ? d.message.slice(label.length).trim() : d.message;
    const message = dependency?.description ?? choicesDescription(d, joiWords) ?? joiWords;
    const known = byField.get(field);
    if (known) known.description += ` and ${message}`;
    else byField.set(field, { error: 'invalid_field', description: dependency ? message : `${field} ${message}`, code: 400, field });
  }
  const [first, ...more] = byField.values();
  return new DomainError('invalid_field', first?.description ?? 'invalid request', { field: first?.field, more });
}
