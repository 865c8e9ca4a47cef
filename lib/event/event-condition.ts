import type { HandlerCondition } from './event-handler.type';
import { EventRecord, fieldOf } from './event-record';

const numeric = (v: unknown) => (typeof v === 'number' || (typeof v === 'string' && v.trim() !== '')) && Number.isFinite(Number(v));

/**
 * The value a < or > condition compares with: a decimal number as the API writes amounts and
 * quantities (12, -1.5, 0.50). Checked at creation (event-handler.service.ts), so '' (which
 * Number() reads as 0), '0x10', 'Infinity' and '1e400' are a 400 instead of a condition that
 * silently compares with something the seller did not write.
 */
export const decimalValue = /^-?\d{1,30}(\.\d{1,30})?$/;

/** A record field that holds nothing: absent, null or empty text. */
const isEmpty = (v: unknown) => v === undefined || v === null || (typeof v === 'string' && v.trim() === '');

/**
 * Whether a handler's condition holds on the event's record (document 1, Events 3). = and !=
 * compare numerically when both sides are numbers, else as text (case-insensitive, so a
 * condition on an e-mail address matches however it was typed); < and > are numeric. A field
 * the record lacks holds only for !=, except against the empty value: '' is how a condition
 * names "no value" (a value cannot be null), so `= ''` holds on an absent, null or empty field
 * and `!= ''` only where there is a value (an order without the buyer's e-mail address, as
 * channels import them, is what `customer.email != ''` keeps a mail handler away from).
 */
export function conditionHolds(condition: HandlerCondition, record: EventRecord): boolean {
  const actual = fieldOf(record, condition.field);
  const missing = isEmpty(actual);
  const value = condition.value;
  const equal =
    value.trim() === ''
      ? missing
      : !missing && (numeric(actual) && numeric(value) ? Number(actual) === Number(value) : String(actual).toLowerCase() === value.toLowerCase());
  switch (condition.operator) {
    case '=':
      return equal;
    case '!=':
      return !equal;
    case '<':
      return !missing && numeric(actual) && numeric(value) && Number(actual) < Number(value);
    case '>':
      return !missing && numeric(actual) && numeric(value) && Number(actual) > Number(value);
    default:
      return false;
  }
}

/** Every condition of a handler holds (document 1 allows one at present). */
export const conditionsHold = (conditions: HandlerCondition[], record: EventRecord) => conditions.every((c) => conditionHolds(c, record));
