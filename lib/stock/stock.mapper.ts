/** Stock rows to Stock_type as the API returns it (write-only fields are never stored). */
import type { StockLinks, StockRow } from './stock.repository';
import { listerGroups, objectGroups } from '../portals';
import { appSeenBy } from './stock-app';
import { wholeGroup } from './stock-groups';

/**
 * One item as Stock_type; links are the set and variant links loaded for its page. appClient: a
 * third-party client's client_id, which reads its own app[] and customs entries alone (stock-app.ts).
 */
export function stockToApi(row: StockRow, links: StockLinks, appClient?: string): Record<string, unknown> {
  const data = row.data;
  const out: Record<string, unknown> = { id: String(row.id), name: row.name };
  // A group the item has is answered whole, every field of its type in document 2, null where it
  // has no value (stock-groups.ts); a group it has not is left out (README).
  const put = (key: string, value: unknown) => {
    if (value !== null && value !== undefined) out[key] = wholeGroup(key, value);
  };
  // Document 2's scalar fields are always answered, null when the item has no value (as Order_type
  // answers; '' cleared it, in the data as in the text columns), and null is "not sent" on input
  // (stock.type.ts absentWhenNull), so a read item posts back as it is, in JSON and XML.
  const field = (key: string, value: unknown) => {
    out[key] = value === undefined || value === '' ? null : value;
  };
  field('sku', row.sku);
  field('barcode', row.barcode);
  field('infos', data.infos);
  field('price', row.price);
  field('tax', data.tax);
  field('weight', data.weight);
  field('size', data.size);
  field('condition_id', row.condition_id);
  field('manufacturer', row.manufacturer);
  field('mpn', row.mpn);
  out.folder = row.folder;
  field('rrp', data.rrp);
  out.quantity = row.quantity;
  out.quantity_auction_a = row.quantity_auction_a;
  field('quantity_ordered', data.quantity_ordered);
  field('quantity_alert', data.quantity_alert);
  field('quantity_min', data.quantity_min);
  out.quantity_reserved = row.quantity_reserved;
  out.quantity_reserved_2 = row.quantity_reserved_2;
  field('quantity_ordered_date', data.quantity_ordered_date);
  out.quantity_available = row.quantity_available;
  for (const key of ['picture', 'location', 'supplier', 'shipping', 'content', 'cross_selling', 'freetext', 'cia']) put(key, data[key]);

  const variation = (data.variation ?? {}) as Record<string, unknown>;
  out.variation = {
    type: row.variation_type,
    ...(row.variation_type === 'main'
      ? {
          sub: links.variants.filter((v) => v.variation_parent_id === row.id).map((v) => ({ id: String(v.id) })),
          ...(variation.specifics_set ? { specifics_set: variation.specifics_set } : {}),
        }
      : {}),
    ...(row.variation_type === 'sub'
      ? {
          ...(variation.specifics ? { specifics: variation.specifics } : {}),
          ...(row.variation_parent_id !== null ? { parent: row.variation_parent_id } : {}),
        }
      : {}),
  };
  out.set = {
    type: [row.set_type],
    ...(row.set_type === 'main' ? { sub: links.sets.filter((l) => l.main_id === row.id).map((l) => ({ id: String(l.sub_id), quantity: l.quantity })) } : {}),
    ...(row.set_type === 'sub' ? { main: links.sets.filter((l) => l.sub_id === row.id).map((l) => ({ id: String(l.main_id), quantity: l.quantity })) } : {}),
  };
  // Document 2, Stock_shop_g_type: quantity_alert and delivery_time default to -1 (= empty); a
  // shop_g group written without them reads -1, not a missing field.
  const shopG = data.shop_g ? { quantity_alert: -1, delivery_time: -1, ...(data.shop_g as Record<string, unknown>) } : undefined;
  for (const key of objectGroups) put(key, key === 'shop_g' ? shopG : data[key]);
  for (const group of listerGroups) {
    const listers = data[group] as Record<string, unknown>[] | undefined;
    if (listers)
      out[group] = wholeGroup(
        group,
        listers.map((l) => ({ ...l, lister_id: String(l.lister_id) })),
      );
  }
  put('app', appSeenBy(data.app, appClient));
  put('customs', appSeenBy(data.customs, appClient));
  field('class', data.class);
  return out;
}
