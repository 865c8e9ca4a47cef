/** An item's field group of a portal (data -> portal): the object, or the lister's entry (the first) of a lister group. */
export function fieldGroupEntry(grp: unknown, listerId?: string): Record<string, unknown> {
  if (Array.isArray(grp)) {
    const entries = grp as Record<string, unknown>[];
    return (listerId ? entries.find((e) => String(e.lister_id ?? '') === listerId) : entries[0]) ?? {};
  }
  return grp && typeof grp === 'object' ? (grp as Record<string, unknown>) : {};
}
