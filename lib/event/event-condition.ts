import type { HandlerCondition } from './event-handler.type';
import { EventRecord, fieldOf } from './event-record';

const numeric = (v: unknown) => (typeof v === 'number' || (typeof v === 'string' && v.trim() !== '')) && Number.isFinite(Number(v));

/**
 * Whether a handler's condition holds on the event's record (document 1, Events 3). = and !=
 * compare numerically when both sides are numbers, else as text (case-insensitive, so a
 * condition on an e-mail address matches however it was typed); < and > are numeric. A field
 * the record lacks holds only for !=.
 */
export function conditionHolds(condition: HandlerCondition, record: EventRecord): boolean {
  const actual = fieldOf(record, condition.field);
  const missing = actual === undefined || actual === null || actual === '';
  const equal =
    !missing &&
    (numeric(actual) && numeric(condition.value) ? Number(actual) === Number(condition.value) : String(actual).toLowerCase() === condition.value.toLowerCase());
  switch (condition.operator) {
    case '=':
      return equal;
    case '!=':
      return !equal;
    case '<':
      return !missing && numeric(actual) && Number(actual) < Number(condition.value);
    case '>':
      return !missing && numeric(actual) && Number(actual) > Number(condition.value);
    default:
      return false;
  }
}

/** Every condition of a handler holds (document 1 allows one at present). */
export const conditionsHold = (conditions: HandlerCondition[], record: EventRecord) => conditions.every((c) => conditionHolds(c, record));
