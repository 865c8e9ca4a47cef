/** A UTF-16 surrogate without its other half. */
const loneSurrogates = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * A value as a json or jsonb parameter. Text from a channel (an order import) can hold a lone
 * surrogate; API input never does (lib/http/input-bounds.ts answers 400 first). As a text
 * binding pg wrote one as U+FFFD; JSON.stringify escapes it (\ud800), which Postgres refuses,
 * failing the whole statement. So it becomes U+FFFD here as well.
 */
export function jsonParameter(value: unknown): string {
  const json = JSON.stringify(value);
  // JSON.stringify writes a pair of surrogates as it is and a lone one as an escape: without an
  // escape of one in its output there is nothing to replace, and no replacer to call on every
  // value (with one, 200 stock items took about twice a plain stringify's time).
  if (!surrogateEscape.test(json)) return json;
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'string' ? v.replace(loneSurrogates, '\uFFFD') : v));
}

/** The escape JSON.stringify writes for a lone surrogate (a false alarm costs only the slow path). */
const surrogateEscape = /\\u[dD][89a-fA-F]/;
