import { DomainError, domainError, ErrorItem, invalidField } from '../../errors';
import { datetimeOf, isCalendarDate } from '../schema';
import type { Condition, FieldType, FilterField, FilterObject, Operator, SearchSpec } from './types';
import { operators } from './types';

const defaultOperators: Record<FieldType, Operator[]> = {
  string: ['=', '!=', '~', '!~'],
  integer: ['=', '!=', '<', '<=', '>', '>='],
  decimal: ['=', '!=', '<', '<=', '>', '>='],
  date: ['=', '!=', '<', '<=', '>', '>='],
  datetime: ['=', '!=', '<', '<=', '>', '>='],
  bool: ['=', '!='],
};

type Raw = unknown;

const isRecord = (v: Raw): v is Record<string, Raw> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Parses filter (one filter object, or a list of them joined by OR) into conditions, following
 * document 1's rules for Operator_filter_type: a bare value or value list means one = filter;
 * several operator filters on one field are joined by AND; several values within one by OR.
 * Singleton fields (first object only) restrict every object; what remains of each object is one
 * OR branch, also when nothing remains: an object of singletons only is the branch 'true', so
 * adding a filter object never shrinks a result.
 */
export function parseFilters<Row>(raw: Raw, spec: SearchSpec<Row>): { filters: FilterObject[]; singletons: Condition[] } {
  if (raw === undefined || raw === '') return { filters: [], singletons: [] };
  const objects = Array.isArray(raw) ? raw : [raw];
  const singletons: Condition[] = [];
  // Every bad filter field at once, as validation names every bad body field (lib/http README):
  // a client that sent two got one, fixed it, and met the other on the next call.
  const errors: ErrorItem[] = [];
  const filters = objects.map((object, index) => {
    const prefix = Array.isArray(raw) ? `filter[${index}]` : 'filter';
    if (!isRecord(object)) {
      errors.push(...invalidField(prefix, `${prefix} must be a filter object`).items());
      return [];
    }
    const conditions: Condition[] = [];
    collect(object, '', prefix, spec, conditions, errors);
    const own = conditions.filter((c) => !c.field.singleton);
    const singles = conditions.filter((c) => c.field.singleton);
    if (singles.length && index > 0) {
      errors.push(
        ...invalidField(
          prefix,
          `${prefix}: ${nameOf(spec, singles[0]!.field)} is a singleton filter, valid only in the first filter object`,
          'singleton_filter',
        ).items(),
      );
    }
    singletons.push(...singles);
    return own;
  });
  const [first, ...more] = errors;
  if (first) throw domainError(first.error, first.description, { field: first.field, more });
  return { filters, singletons };
}

function nameOf<Row>(spec: SearchSpec<Row>, field: FilterField): string {
  return Object.entries(spec.filters).find(([, f]) => f === field)?.[0] ?? 'field';
}

function collect<Row>(object: Record<string, Raw>, path: string, prefix: string, spec: SearchSpec<Row>, out: Condition[], errors: ErrorItem[]): void {
  for (const [key, value] of Object.entries(object)) {
    const name = path ? `${path}.${key}` : key;
    const where = `${prefix}.${name}`;
    const field = spec.filters[name];
    if (field) {
      try {
        out.push(...parseField(value, field, where));
      } catch (err) {
        if (!(err instanceof DomainError)) throw err;
        errors.push(...err.items());
      }
    } else if (isRecord(value) && Object.keys(spec.filters).some((f) => f.startsWith(`${name}.`))) {
      collect(value, name, prefix, spec, out, errors);
    } else {
      errors.push(...invalidField(where, `${where} is not a filter field of this resource`, 'unknown_filter').items());
    }
  }
}

/** One field's filter: a value, a list of values, an Operator_filter_type or a list of those. */
function parseField(value: Raw, field: FilterField, where: string): Condition[] {
  const isOperatorFilter = (v: Raw) => isRecord(v) && ('value' in v || 'operator' in v);
  if (isOperatorFilter(value)) return [operatorFilter(value as Record<string, Raw>, field, where)];
  if (Array.isArray(value) && value.length > 0 && value.every(isOperatorFilter)) {
    return value.map((v, i) => operatorFilter(v as Record<string, Raw>, field, `${where}[${i}]`));
  }
  if (isRecord(value)) throw invalidField(where, `${where} must be a value, a list of values or {operator, value[]}`);
  return [condition('=', value, field, where)];
}

function operatorFilter(filter: Record<string, Raw>, field: FilterField, where: string): Condition {
  const extra = Object.keys(filter).find((k) => k !== 'value' && k !== 'operator');
  if (extra) throw invalidField(`${where}.${extra}`, `${where}.${extra} is not a field of Operator_filter_type`);
  const operator = filter.operator === undefined || filter.operator === '' ? '=' : filter.operator;
  return condition(operator, filter.value, field, `${where}.value`, `${where}.operator`);
}

function condition(operator: Raw, value: Raw, field: FilterField, where: string, operatorWhere = where): Condition {
  if (typeof operator !== 'string' || !operators.includes(operator as Operator)) {
    throw invalidField(operatorWhere, `${operatorWhere} must be one of ${operators.join(' ')}`, 'invalid_operator');
  }
  const allowed = field.operators ?? defaultOperators[field.type];
  if (!allowed.includes(operator as Operator)) {
    throw invalidField(operatorWhere, `${operatorWhere}: operator ${operator} is not allowed here; allowed: ${allowed.join(' ')}`, 'invalid_operator');
  }
  const raw = Array.isArray(value) ? value : [value];
  if (raw.length === 0 || value === undefined) throw invalidField(where, `${where} needs at least one value`);
  if (raw.length > 200) throw invalidField(where, `${where} takes at most 200 values`);
  const op = operator as Operator;
  const values = raw.map(
    (v, i) => dayText(field, v) ?? convert(v, op === '~' || op === '!~' ? 'string' : field.type, Array.isArray(value) ? `${where}[${i}]` : where, field.bigint),
  );
  if (field.values && (op === '=' || op === '!=')) {
    const known = field.values;
    values.forEach((v, i) => {
      const at = Array.isArray(value) ? `${where}[${i}]` : where;
      if (!known.includes(String(v))) throw invalidField(at, `${at} must be one of ${known.join(' ')}`);
    });
  }
  return { field, operator: op, values };
}

const datePattern = /^\d{4}-\d{2}-\d{2}$/;
const int4Max = 2147483647;

/** A day that exists, of the years 1 to 9999 (PostgreSQL has no year 0: '0000-12-31' was a 500). */
const isFilterDate = (text: string) => datePattern.test(text) && isCalendarDate(text) && !text.startsWith('0000');

/** A range end's date without a time (FilterField.dayText), as its text; undefined for anything else. */
function dayText(field: FilterField, value: Raw): string | undefined {
  const text = typeof value === 'string' ? value.trim() : undefined;
  return field.dayText && field.type === 'datetime' && text !== undefined && isFilterDate(text) ? text : undefined;
}

function convert(value: Raw, type: FieldType, where: string, bigint = false): string | number | boolean {
  const text = typeof value === 'string' ? value.trim() : value;
  switch (type) {
    case 'string':
      if (typeof text === 'string' || typeof text === 'number') return String(text);
      break;
    case 'integer': {
      const number = typeof text === 'string' && /^-?\d{1,15}$/.test(text) ? Number(text) : text;
      if (typeof number === 'number' && Number.isSafeInteger(number) && (bigint || Math.abs(number) <= int4Max)) return number;
      break;
    }
    case 'decimal':
      if (typeof text === 'number' && Number.isFinite(text)) return String(text);
      if (typeof text === 'string' && /^-?\d{1,15}([.,]\d{1,8})?$/.test(text)) return text.replace(',', '.');
      break;
    case 'bool':
      if (text === true || text === 1 || text === '1' || text === 'true') return true;
      if (text === false || text === 0 || text === '0' || text === 'false') return false;
      break;
    case 'date':
      if (typeof text === 'string' && isFilterDate(text)) return text;
      break;
    case 'datetime': {
      // The forms a body's datetime takes (lib/http README), within the years PostgreSQL holds.
      const at = typeof text === 'string' ? datetimeOf(text) : undefined;
      if (at) return at.toISOString();
      break;
    }
  }
  const expected =
    type === 'bool'
      ? 'boolean (true/false or 1/0)'
      : type === 'integer' && !bigint
        ? `integer between -${int4Max} and ${int4Max}`
        : type === 'date'
          ? 'date (YYYY-MM-DD) that exists'
          : type;
  throw invalidField(where, `${where} must be ${/^[aeiou]/.test(expected) ? 'an' : 'a'} ${expected}`);
}

/** Turns a client's pattern into a LIKE pattern: * is the wildcard, \* a literal *, and % and _ stay literal. */
export function likePattern(value: string): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    if (c === '\\' && value[i + 1] === '*') {
      out += '*';
      i++;
    } else if (c === '*') out += '%';
    else if (c === '%' || c === '_' || c === '\\') out += `\\${c}`;
    else out += c;
  }
  return out;
}
