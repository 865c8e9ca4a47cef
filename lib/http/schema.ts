/**
 * Joi building blocks for the types of document 2, so that every resource accepts what existing
 * clients send: booleans as true/false, 1/0 or "1"/"0"; a single XML element where a list is
 * expected; numbers in XML as text.
 */
import Joi from 'joi';
import { fieldPath, PortalAccountMention } from './validate';

export { Joi };

/**
 * A type built on its first use and kept: the large types of the API (Stock_type, Order_type)
 * are declared by their domain, whose entry every worker loads, though only the web process
 * (and the order import, Order_type) validates with them; built at load they were 1.7 MB of
 * heap in every worker (lib/stock/README.md). One instance, as a constant was: a type used
 * twice is the same schema.
 */
export function builtOnFirstUse<T extends Joi.Schema>(build: () => T): () => T {
  let schema: T | undefined;
  return () => (schema ??= build());
}

/** A bool field: true/false, 1/0, "1"/"0", "true"/"false". */
export const bool = () => Joi.boolean().truthy(1, '1', 'true', 'TRUE', 'yes').falsy(0, '0', 'false', 'FALSE', 'no');

/** A list field; a single value (one XML element) counts as a list of one. */
export const list = (item: Joi.Schema) => Joi.array().items(item).single();

/** A string whose maxCharacters counts characters (code points), not UTF-16 code units. */
interface CharacterString extends Joi.StringSchema {
  maxCharacters(limit: number): this;
}

/**
 * Joi's string with `maxCharacters`: document 2's string(n), PostgreSQL's varchar(n) and JSON
 * Schema's maxLength (openapi.json) count characters, Joi's max counts UTF-16 code units, so 80
 * emoji in an auction_a name (string(80)) were refused as longer than 80 characters. Its error is
 * Joi's string.max, so the 400 reads as before; json-schema.ts reads the rule as maxLength.
 */
const characterJoi = Joi.extend({
  type: 'string',
  base: Joi.string(),
  rules: {
    maxCharacters: {
      method(limit: number) {
        return (this as Joi.Schema).$_addRule({ name: 'maxCharacters', args: { limit } });
      },
      args: [{ name: 'limit', assert: (value: unknown) => Number.isSafeInteger(value), message: 'must be an integer' }],
      validate(value: string, helpers: Joi.CustomHelpers, args: Record<string, unknown>) {
        const limit = args.limit as number;
        // Code units first: a text within them is within its characters, the common case.
        if (value.length <= limit) return value;
        let characters = 0;
        for (const character of value) if (++characters > limit) return helpers.error('string.max', { limit, value, character });
        return value;
      },
    },
  },
}) as Joi.Root & { string(): CharacterString };

/** A string of at most max characters (code points), as document 2's string(n) means. */
export const characters = (max: number): CharacterString => (characterJoi.string() as CharacterString).maxCharacters(max);

/** A string field of document 2 with a maximum length in characters; empty is allowed (clears it). */
export const text = (max?: number) => (max ? characters(max) : Joi.string()).allow('');

/**
 * The texts an integer field takes: digits, with a sign and a fraction of zeros ("5", "+5", "5.00"),
 * as openapi.json publishes them (json-schema.ts integerText). Joi's number read "1e2" as 100, so
 * an order line's quantity (document 2: a string) of "1e2", or an XML <quantity>1E2</quantity>,
 * moved a hundred units where a client's typo or another program's float formatting meant
 * something else; a JSON number is the client's own number and stays as JSON reads it.
 */
const integerText = /^\s*[-+]?\d+(\.0*)?\s*$/;

/** An integer field, within PostgreSQL's integer so that no input can overflow a column; as text only in digits. */
export const integer = () =>
  Joi.number()
    .integer()
    .min(-2147483648)
    .max(2147483647)
    .custom((value: number, helpers) =>
      typeof helpers.original === 'string' && !integerText.test(helpers.original)
        ? helpers.message({ custom: '{{#label}} must be a whole number written in digits (no exponent)' })
        : value,
    );

/**
 * A decimal text rounded to scale places on its digits, half away from zero (commercial
 * rounding): 2.675 is 2.68 and 1.005 is 1.01. Number(text).toFixed() rounded the binary
 * double instead (2.675 was 2.67, 1.005 was 1.00, 10.005 was 10.01), so the cents a client
 * sent depended on how the double happened to fall.
 */
export function roundDecimalText(text: string, scale: number): string {
  const match = /^(-?)(\d+)(?:[.,](\d*))?$/.exec(text);
  if (!match) return Number(text).toFixed(scale);
  const [, sign, whole, fraction = ''] = match;
  const digits = BigInt(whole! + fraction.padEnd(scale + 1, '0').slice(0, scale + 1));
  const rounded = (digits + 5n) / 10n;
  const body = rounded.toString().padStart(scale + 1, '0');
  const result = scale > 0 ? `${body.slice(0, -scale)}.${body.slice(-scale)}` : body;
  return rounded === 0n ? result : `${sign}${result}`;
}

/**
 * A decimal field, kept as a string so money never passes through a float; accepts JSON
 * numbers and numeric strings with a dot or a decimal comma, up to maxDigits before the point.
 * A JSON number is read as its shortest decimal text (what the client wrote), then rounded.
 * A text in exponent form ("1e2", XML's <price>1E2</price>) is refused, as integer's are: Joi's
 * number branch read it as 100, so a typo or another program's float formatting booked a
 * hundred as a price, a fee or a payment.
 */
export const decimal = (scale = 2, maxDigits = 12) => {
  // One message for every way a value misses: Joi's own showed the client our regular expression,
  // or "does not match any of the allowed types" for a number text that is only too long.
  const message = `must be a decimal number of at most ${maxDigits} digits before the point (a dot or a comma before the decimals)`;
  return Joi.alternatives(
    Joi.number()
      .greater(-(10 ** maxDigits))
      .less(10 ** maxDigits)
      .custom((value: number, helpers) => {
        if (typeof helpers.original === 'string' && /e/i.test(helpers.original)) return helpers.error('number.exponent');
        return /e/i.test(String(value)) ? value.toFixed(scale) : roundDecimalText(String(value), scale);
      })
      .messages({ 'number.greater': message, 'number.less': message, 'number.exponent': message }),
    Joi.string()
      .trim()
      .pattern(new RegExp(`^-?\\d{1,${maxDigits}}([.,]\\d+)?$`))
      .custom((value: string) => roundDecimalText(value, scale))
      .messages({ 'string.pattern.base': message }),
  ).messages({ 'alternatives.match': message, 'alternatives.types': message });
};

/** 2026-02-30 parses in JavaScript (as 2 March) but not in PostgreSQL: the day must exist. */
export function isCalendarDate(text: string): boolean {
  const date = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === text;
}

/** A date field (YYYY-MM-DD) whose day exists; empty is allowed (clears it). */
export const calendarDate = () =>
  Joi.string()
    .trim()
    .pattern(/^\d{4}-\d{2}-\d{2}$/)
    .custom((value: string, helpers) => (isCalendarDate(value) ? value : helpers.message({ custom: '{{#label}} is not a date that exists' })))
    .allow('')
    .example('2026-11-29');

/** A date and time without an offset (`2026-11-20 10:00:00`, `2026-11-20T10:00`). */
const withoutOffset = /^\s*(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)\s*$/;

/**
 * A date and time a client sent without an offset, read as UTC; undefined for any other text.
 * JavaScript reads such a text in the process's time zone, so `TZ=Europe/Berlin` on the host
 * stored 10:00 as 09:00Z; the service answers datetimes in UTC (`...Z`), and reads them so.
 */
export function utcWithoutOffset(text: string): Date | undefined {
  const match = withoutOffset.exec(text);
  return match ? new Date(`${match[1]}T${match[2]}Z`) : undefined;
}

/** The texts a datetime is sent as: a day, or a day and a time, with or without an offset (openapi.json states it). */
export const datetimeText = /^\s*(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)\s*(Z|[+-]\d{2}:?\d{2})?)?\s*$/i;

/**
 * The instant a datetime text names, in the forms a body's datetime takes (datetimeText; without
 * an offset UTC), or undefined: a day that does not exist, a time that does not (10:61), or an
 * instant outside the years 1 to 9999, which PostgreSQL's timestamptz and toISOString cannot both
 * write. Filters read their values with it (search/filter.ts): JavaScript's lenient Date.parse took
 * '+01' and ' UTC' that new Date() then refused, and year 0 went to PostgreSQL, both a 500.
 */
export function datetimeOf(text: string): Date | undefined {
  const match = datetimeText.exec(text);
  if (!match || !isCalendarDate(match[1]!)) return undefined;
  const [, day, time = '00:00', zone] = match;
  const offset = !zone || zone.toUpperCase() === 'Z' ? 'Z' : `${zone.slice(0, 3)}:${zone.slice(-2)}`;
  const at = new Date(`${day}T${time}${offset}`);
  const year = at.getUTCFullYear();
  return Number.isNaN(at.getTime()) || year < 1 || year > 9999 ? undefined : at;
}

/**
 * A datetime field as clients send it (ISO 8601, or 'YYYY-MM-DD HH:MM:SS'), between 1900 and
 * 2200; like calendarDate, the day must exist (JavaScript would read 2026-02-30 as 2 March).
 * Without an offset it is UTC (`utcWithoutOffset`), whatever the host's time zone. Any other
 * text or a number is a 400, as in filters (search/filter.ts): Joi's date read '01.11.2026' (1
 * November to a German seller) as 11 January and 1700000000 (Unix seconds) as milliseconds, in
 * 1970, and stored them. A Date object (the order import's own calls) is taken as it is.
 */
export const datetime = () =>
  Joi.date()
    .min('1900-01-01')
    .max('2200-01-01')
    .custom((value: Date, helpers) => {
      if (helpers.original instanceof Date) return value;
      const original = String(helpers.original);
      if (typeof helpers.original !== 'string' || !datetimeText.test(original))
        return helpers.message({ custom: '{{#label}} must be a datetime: YYYY-MM-DD, optionally with a time (ISO 8601 or YYYY-MM-DD HH:MM:SS)' });
      const day = /^\s*(\d{4}-\d{2}-\d{2})/.exec(original)?.[1];
      if (day && !isCalendarDate(day)) return helpers.message({ custom: '{{#label}} is not a date that exists' });
      return utcWithoutOffset(original) ?? value;
    })
    .example('2026-11-29T09:15:00Z');

/** Marks a field of a resource type as read only: accepted on input with a warning, never written. */
export const readOnly = <T extends Joi.Schema>(schema: T): T => schema.meta({ access: 'R' }) as T;

/**
 * Marks a field whose null means absent (its default applies, a required one is missing):
 * validate() drops its null before Joi sees it. Joi's own `.empty(null)` matched every value
 * sent against the empty schema, which was half the time order/list/ spent validating.
 */
export const absentWhenNull = <T extends Joi.Schema>(schema: T): T => schema.meta({ nullIsAbsent: true }) as T;

/**
 * An object type each of whose fields takes null as "not sent" (absentWhenNull), so that what the
 * service answers for a field without value (null, an empty element in XML) posts back as it is;
 * an empty string still clears a text. A field that takes null as a value of its own
 * (`.allow(null)`: cia max_quantity's "no cap") keeps it.
 */
export function nullIsAbsent(schema: Joi.ObjectSchema): Joi.ObjectSchema {
  const keys = (schema.describe() as { keys?: Record<string, { allow?: unknown[] }> }).keys ?? {};
  return schema.fork(
    Object.keys(keys).filter((key) => !keys[key]!.allow?.includes(null)),
    absentWhenNull,
  );
}

/** Marks a field as write only: accepted on input, never returned. */
export const writeOnly = <T extends Joi.Schema>(schema: T): T => schema.meta({ access: 'W' }) as T;

/**
 * A portal account reference: an id or the word default. An id sent as text is an integer's text
 * (`integer()`: digits, a sign, a fraction of zeros, spaces around), so `1e0`, `0x1` or `1_0` is a
 * 400 as in every other integer field; it took any text Joi reads as a number (POST task/ with
 * portal_account_id "1e0" answered 201), while openapi.json stated digits (found 2026-11-30). The
 * word takes spaces around it as the number does (" default " was a 400 while " 5 " was taken).
 * openapi.json states `portalAccountRefText`, which takes the same texts (a test compares them).
 */
export const portalAccountRef = () => {
  const message = '{{#label}} must be a portal account id (a whole number from 1, in digits) or the word default';
  return Joi.alternatives(integer().min(1), Joi.string().trim().valid('default')).messages({ 'alternatives.match': message, 'alternatives.types': message });
};

/**
 * The texts portalAccountRef takes, as a JSON Schema pattern: integer()'s texts of a number from 1
 * (leading zeros, a plus sign, a fraction of zeros) with at most 10 significant digits, or the
 * word default; spaces around either. Above 2147483647 the number is refused as the integer's is.
 */
export const portalAccountRefText = '^\\s*(\\+?0*[1-9]\\d{0,9}(\\.0*)?|default)\\s*$';

/**
 * A portal account id inside a body. Joi validates synchronously, so it only notes the id and
 * its field in the validation context; the framework then checks every noted id against the
 * caller's portal accounts in one query (400 naming the field, before the endpoint runs).
 */
export const ownPortalAccountId = () =>
  integer()
    .min(1)
    .custom((value: number, helpers) => {
      const context = helpers.prefs.context as { portalAccounts?: PortalAccountMention[] } | undefined;
      // A single object taken as a list (list(): Joi's single()) has a boxed Number in its path.
      const path = (helpers.state.path ?? []).map((part: unknown) => (typeof part === 'string' ? part : Number(part)));
      context?.portalAccounts?.push({ field: fieldPath(path), id: value });
      return value;
    });
