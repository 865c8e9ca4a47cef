/** A UTF-16 surrogate without its other half. */
const loneSurrogates = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * A value as a json or jsonb parameter. Text from a channel (an order import) can hold a lone
 * surrogate; API input never does (lib/http/input-bounds.ts answers 400 first). As a text
 * binding pg wrote one as U+FFFD; JSON.stringify escapes it (\ud800), which Postgres refuses,
 * failing the whole statement. So it becomes U+FFFD here as well.
 */
export function jsonParameter(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'string' ? v.replace(loneSurrogates, '\uFFFD') : v));
}
