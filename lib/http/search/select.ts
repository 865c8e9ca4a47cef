import type Joi from 'joi';
import { describe, Description } from '../describe';
import { domainError, ErrorItem, invalidField } from '../../errors';
import type { SelectTree } from './types';

/**
 * Parses Select_type: the structure of the read type, values irrelevant. Naming a container
 * selects all of it; naming a sub-field selects only that. Unknown fields are a 400.
 */
export function parseSelect(raw: unknown, type: Joi.ObjectSchema): SelectTree | null {
  if (raw === undefined || raw === '') return null;
  if (Array.isArray(raw)) {
    // select[]=id&select[]=name, the flat list form some clients use. Mixed with the bracket form
    // (select=id&select[title]=), qs gives a list holding an object, which was named in the 400
    // as select[[object Object]]: a 400 naming select says so (the API document takes either form, not both).
    if (raw.some((name) => typeof name === 'object' && name !== null)) {
      throw invalidField(
        'select',
        'select mixes a list of names (select=id, select[]=id) with bracketed names (select[title]=): send one form',
        'unknown_select',
      );
    }
    return parseSelect(Object.fromEntries(raw.map((name) => [String(name), ''])), type);
  }
  if (typeof raw !== 'object' || raw === null) throw invalidField('select', 'select must name fields of the resource, e.g. select[name]=');
  const unknown: ErrorItem[] = [];
  const selected = tree(raw as Record<string, unknown>, describe(type), 'select', unknown);
  // Every unknown field at once, as validation names every bad field (lib/http README).
  const [first, ...more] = unknown;
  if (first) throw domainError('unknown_select', first.description, { field: first.field, more });
  return selected;
}

function tree(raw: Record<string, unknown>, description: Description, path: string, unknown: ErrorItem[]): SelectTree {
  const out: SelectTree = {};
  const keys = description.keys ?? description.items?.[0]?.keys ?? {};
  for (const [key, value] of Object.entries(raw)) {
    const child = keys[key];
    const field = `${path}[${key}]`;
    if (!child) {
      unknown.push(...invalidField(field, `${field} is not a field of this resource`, 'unknown_select').items());
      continue;
    }
    const nested = child.keys ?? child.items?.[0]?.keys;
    out[key] =
      nested && typeof value === 'object' && value !== null && Object.keys(value).length > 0
        ? tree(value as Record<string, unknown>, child, field, unknown)
        : true;
  }
  return out;
}

/** Keeps only the selected fields of a record (and the always-returned ids). */
export function project(record: Record<string, unknown>, select: SelectTree | null, always: string[]): Record<string, unknown> {
  if (!select) return record;
  const out = pick(record, select);
  for (const key of always) if (key in record) out[key] = record[key];
  return out;
}

function pick(value: Record<string, unknown>, select: SelectTree): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, sub] of Object.entries(select)) {
    if (!(key in value)) continue;
    const field = value[key];
    if (sub === true || field === null || typeof field !== 'object') out[key] = field;
    else if (Array.isArray(field))
      out[key] = field.map((item) => (typeof item === 'object' && item !== null ? pick(item as Record<string, unknown>, sub) : item));
    else out[key] = pick(field as Record<string, unknown>, sub);
  }
  return out;
}
