/** The merge of partial updates: JSON objects of a stock item's data. */
export type Json = Record<string, unknown>;

export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Objects merge field by field (a partial update keeps what it does not name); lists and values replace. */
export function deepMerge(base: unknown, patch: unknown): unknown {
  if (!isObject(base) || !isObject(patch)) return patch;
  const out: Json = { ...base };
  for (const [key, value] of Object.entries(patch)) out[key] = deepMerge(base[key], value);
  return out;
}

/** The value at a path of nested objects. */
export function getPath(object: Json, path: string[]): unknown {
  let value: unknown = object;
  for (const key of path) value = isObject(value) ? value[key] : undefined;
  return value;
}

/** Merges a value in at a path, creating the objects on the way. */
export function setPath(object: Json, path: string[], value: unknown): void {
  let at = object;
  for (const key of path.slice(0, -1)) {
    if (!isObject(at[key])) at[key] = {};
    at = at[key] as Json;
  }
  const last = path[path.length - 1]!;
  at[last] = deepMerge(at[last], value);
}

/**
 * Document 2's modified_time (R, a date) of the groups that have one (webshop, auction_a, and
 * auction_b and market_c, built like it; the shop lister shows lister_id only): the UTC day a
 * request last wrote the entry. Stored in the entry; a client's value is dropped as read only.
 */
export function modifiedToday(group: string): { modified_time?: string } {
  return group === 'shop' ? {} : { modified_time: new Date().toISOString().slice(0, 10) };
}
