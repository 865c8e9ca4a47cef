import qs from 'qs';
import { invalidField } from '../../lib/errors';

/**
 * GET data arrives as nested bracket parameters (filter[0][id][value][199]=), as deep as the
 * types nest and with lists of up to 200 values. Parsed here rather than by Express's own
 * setting so that every Express version reads them the same way.
 */
export const queryOptions: qs.IParseOptions = { depth: 12, arrayLimit: 1000, parameterLimit: 20000, allowDots: false };

export function parseQuery(text: string): Record<string, unknown> {
  return qs.parse(appendIndices(text), queryOptions) as Record<string, unknown>;
}

/**
 * The names qs drops without a word, as a key or a bracket segment of one: every property of
 * Object.prototype (qs's allowPrototypes: false skips each, not only __proto__ and constructor:
 * `?select[toString]=` answered every field, `?valueOf=1` as if not sent), and `prototype`,
 * which lib/http input-bounds refuses in every body.
 */
const droppedNames = [...Object.getOwnPropertyNames(Object.prototype), 'prototype'].join('|');
const reservedSegment = new RegExp(`^(?:${droppedNames})(?:\\[|$)|\\[(?:${droppedNames})\\]`);
const mayHoldOne = new RegExp(`${droppedNames}|%`);

/**
 * A 400 naming the key when one names a property of Object.prototype or `prototype` (lib/http
 * input-bounds: refused like any unknown field, never dropped). qs drops such keys without a word,
 * so `?constructor=1` was answered as if not sent and `select[constructor]=` as no select (every
 * field): a client's mistake passed as success. Only texts that may hold one are split. Called
 * where the framework reads a request (mount.ts, body.ts), not in parseQuery, which reads as qs does.
 */
export function refuseReservedKeys(text: string): void {
  if (!mayHoldOne.test(text)) return;
  for (const pair of text.split('&')) {
    const eq = pair.indexOf('=');
    const key = decodeKey(eq === -1 ? pair : pair.slice(0, eq));
    if (reservedSegment.test(key))
      throw invalidField(key, `${key} is not allowed: it names a property of JavaScript objects, which a query string or form cannot carry`);
  }
}

/** Some `[]`, literal or percent-encoded: only such texts need `appendIndices`. */
const emptyBrackets = /\[\]|%5B%5D|\[%5D|%5B\]/i;

/**
 * An empty index `[]` appends a new element, as PHP reads a query (the interface's own reading:
 * token.php) and as qs's own `arrayFormat: 'brackets'` and hand-written clients mean it:
 * `filter[][customer][email]=a&filter[][status][is_paid]=1` is two filter objects (OR, document 1),
 * `value[]=a&value[]=b` two values. qs alone merges every `filter[][...]` into one object, which
 * turned the OR of two filter objects into an AND. So each `[]` becomes the next free index of
 * its list here (one more than the largest index the query gave that list so far, 0 for a new
 * one), before qs reads the text.
 */
export function appendIndices(text: string): string {
  if (!emptyBrackets.test(text)) return text;
  const next = new Map<string, number>();
  return text
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const rawKey = eq === -1 ? pair : pair.slice(0, eq);
      const key = decodeKey(rawKey);
      const open = key.indexOf('[');
      if (open <= 0) return pair;
      let path = key.slice(0, open);
      let rest = key.slice(open);
      let changed = false;
      let segment: RegExpMatchArray | null;
      while ((segment = /^\[([^[\]]*)\]/.exec(rest))) {
        let index = segment[1]!;
        if (index === '') {
          index = String(next.get(path) ?? 0);
          changed = true;
        }
        if (/^\d{1,9}$/.test(index)) next.set(path, Math.max(next.get(path) ?? 0, Number(index) + 1));
        path += `[${index}]`;
        rest = rest.slice(segment[0].length);
      }
      if (!changed) return pair;
      return encodeURIComponent(path + rest) + (eq === -1 ? '' : pair.slice(eq));
    })
    .join('&');
}

function decodeKey(raw: string): string {
  const text = raw.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
