import Joi from 'joi';
import { DomainError, ErrorItem } from '../errors';
import { describe, Description } from './describe';
import type { Warning } from '../errors';

/**
 * Removes the read-only fields a client sent (document 2, access R) and returns one warning for
 * each, so an object read from the service can be sent back as it is.
 */
export function stripReadOnly(schema: Joi.Schema, value: unknown): Warning[] {
  const warnings: Warning[] = [];
  walk(describe(schema), value, '', warnings);
  return warnings;
}

function walk(description: Description, value: unknown, path: string, warnings: Warning[]): void {
  if (value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    const item = description.items?.[0];
    if (item) value.forEach((v, i) => walk(item, v, `${path}[${i}]`, warnings));
    return;
  }
  const keys = description.keys ?? description.items?.[0]?.keys;
  if (!keys) return;
  const record = value as Record<string, unknown>;
  for (const { key, child, readOnly } of fieldsToWalk(keys)) {
    if (!(key in record)) continue;
    const fieldPath = path ? `${path}.${key}` : key;
    if (readOnly) {
      delete record[key];
      warnings.push({ warning: 'read_only_field', description: `${fieldPath} is read only and was ignored`, code: 200, field: fieldPath });
    } else {
      walk(child, record[key], fieldPath, warnings);
    }
  }
}

type FieldToWalk = { key: string; child: Description; readOnly: boolean };
const walked = new WeakMap<Record<string, Description>, FieldToWalk[]>();

/**
 * The fields of an object type that are read only or may hold some, in the schema's order: a
 * stock item has about a hundred fields and a dozen that matter here, and stock/list/ walked
 * every field of each of its 200 items (3 ms of a 50 ms call).
 */
function fieldsToWalk(keys: Record<string, Description>): FieldToWalk[] {
  let fields = walked.get(keys);
  if (!fields) {
    fields = Object.entries(keys)
      .map(([key, child]) => ({ key, child, readOnly: child.metas?.some((m) => m.access === 'R') ?? false }))
      .filter((f) => f.readOnly || f.child.keys !== undefined || f.child.items !== undefined);
    walked.set(keys, fields);
  }
  return fields;
}

/** A portal account id a body names (ownPortalAccountId), with its field. */
export interface PortalAccountMention {
  field: string;
  id: number;
}

/** Where, under a type, a field marked absentWhenNull (lib/http/schema) can be: per keys, the fields to look at. */
type NullField = { key: string; child: Description; absentWhenNull: boolean };
const nullFieldsOf = new WeakMap<Record<string, Description>, NullField[]>();

const marked = (d: Description) => d.metas?.some((m) => m.nullIsAbsent === true) ?? false;

function nullFields(keys: Record<string, Description>): NullField[] {
  let fields = nullFieldsOf.get(keys);
  if (!fields) {
    fields = Object.entries(keys)
      .map(([key, child]) => ({ key, child, absentWhenNull: marked(child) }))
      .filter((f) => f.absentWhenNull || mayHoldMarked(f.child));
    nullFieldsOf.set(keys, fields);
  }
  return fields;
}

function mayHoldMarked(d: Description): boolean {
  const keys = d.keys ?? d.items?.[0]?.keys;
  return keys ? nullFields(keys).length > 0 : false;
}

/** Drops the nulls of fields marked absentWhenNull, in place, as the value is walked along the type. */
function dropAbsentNulls(description: Description, value: unknown): void {
  if (value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    const item = description.items?.[0];
    if (item) for (const v of value) dropAbsentNulls(item, v);
    return;
  }
  const keys = description.keys ?? description.items?.[0]?.keys;
  if (!keys) return;
  const record = value as Record<string, unknown>;
  for (const { key, child, absentWhenNull } of nullFields(keys)) {
    const field = record[key];
    if (field === null && absentWhenNull) delete record[key];
    else dropAbsentNulls(child, field);
  }
}

/**
 * Validates and converts input; a failure is a 400 whose errors name each field at fault.
 * portalAccounts collects the portal account ids the input names, for the caller to check.
 */
export function validate<T>(schema: Joi.Schema, value: unknown, prefix = '', portalAccounts?: PortalAccountMention[]): T {
  dropAbsentNulls(describe(schema), value);
  const { value: converted, error } = schema.validate(value, {
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

function validationError(error: Joi.ValidationError, prefix: string): DomainError {
  const items: ErrorItem[] = error.details.map((d) => {
    const field = fieldPath(d.path, prefix);
    const message = d.message.startsWith(String(d.context?.label)) ? d.message.slice(String(d.context?.label).length).trim() : d.message;
    return { error: 'invalid_field', description: `${field || 'request'} ${message}`, code: 400, field };
  });
  const [first, ...more] = items;
  return new DomainError('invalid_field', first?.description ?? 'invalid request', { field: first?.field, more });
}
