/**
 * The objects of bodies parsed from XML, where an empty element is all a client can write for "no
 * value" (lib/http/validate reads them so). Marked to any depth: a list's items are validated
 * apart (order/list/), away from the body.
 */
const fromXml = new WeakSet<object>();
export const isFromXml = (record: object): boolean => fromXml.has(record);

export function markFromXml(value: unknown): void {
  if (typeof value !== 'object' || value === null) return;
  fromXml.add(value);
  for (const child of Array.isArray(value) ? value : Object.values(value)) markFromXml(child);
}

/** `copy`, a copy of `original` with fields left out (the framework's portal_account_id), from XML if it is. */
export function keepXmlOrigin<T extends object>(original: object, copy: T): T {
  if (fromXml.has(original)) fromXml.add(copy);
  return copy;
}
