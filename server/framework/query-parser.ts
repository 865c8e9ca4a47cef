import qs from 'qs';

/**
 * GET data arrives as nested bracket parameters (filter[0][id][value][199]=), as deep as the
 * types nest and with lists of up to 200 values. Parsed here rather than by Express's own
 * setting so that every Express version reads them the same way.
 */
export const queryOptions: qs.IParseOptions = { depth: 12, arrayLimit: 1000, parameterLimit: 20000, allowDots: false };

export function parseQuery(text: string): Record<string, unknown> {
  return qs.parse(text, queryOptions) as Record<string, unknown>;
}
