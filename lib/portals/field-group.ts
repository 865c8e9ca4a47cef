/** An item's field group of a portal (data -> portal): the object, or the lister's entry (the first) of a lister group. */
export function fieldGroupEntry(grp: unknown, listerId?: string): Record<string, unknown> {
  if (Array.isArray(grp)) {
    const entries = grp as Record<string, unknown>[];
    return (listerId ? entries.find((e) => String(e.lister_id ?? '') === listerId) : entries[0]) ?? {};
  }
  return grp && typeof grp === 'object' ? (grp as Record<string, unknown>) : {};
}

/**
 * The fields of a field group entry (as fieldGroupEntry reads it) that a quantity push
 * (setQuantities) reads: what names the offer (sku; lister_id, whose listing record it is) and
 * what an Amazon quantity patch carries beside the quantity (is_fba, category_id as its product
 * type, delivery_time). lib/cia keeps them with each state (offered_under), so a deleted item's 0
 * goes where its quantities went; the rest of a group (descriptions of 500,000 characters) is not
 * kept. A field an adapter's setQuantities starts to read belongs here.
 */
export const quantityPushFields = ['sku', 'lister_id', 'is_fba', 'category_id', 'delivery_time'] as const;
