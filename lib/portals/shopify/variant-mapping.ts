/** Stock_webshop_type (one shop entry) as Shopify's product and variant inputs. */
import type { ListingItem } from '../portal.type';

export interface VariantData {
  title: string;
  sku: string;
  barcode: string | null;
  price: string;
  compareAtPrice: string | null;
  weight: { value: number; unit: 'KILOGRAMS' } | null;
}

const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : typeof v === 'number' ? String(v) : null);
const money = (v: unknown): string | null => {
  const t = text(v);
  return t !== null && /^\d+(\.\d+)?$/.test(t) ? Number(t).toFixed(2) : null;
};

/** The SKU Kontor addresses a Shopify variant by: the shop entry's, else the item's, else stock-<id> (Shopify's variants need none, Kontor's lookups do). */
export function skuOf(item: { stockId: number; sku: string | null; group: Record<string, unknown> }): string {
  return text(item.group.sku) ?? item.sku ?? `stock-${item.stockId}`;
}

/**
 * title: the shop entry's name, else the item's; barcode: its EAN; price: the item's gross price
 * (a Shopify store in Germany shows prices with tax; document 2's webshop price list is net per
 * customer group and stays Kontor's own shop's); a running special (special.is_active with a
 * price) is the price and the regular one the compare-at price; weight: the entry's weight in kg.
 */
export function variantData(item: ListingItem): VariantData {
  const g = item.group;
  const regular = money(item.price) ?? '0.00';
  const special = g.special as { is_active?: unknown; price?: unknown[] } | undefined;
  const specialPrice = special?.is_active === true && Array.isArray(special.price) ? money(special.price[0]) : null;
  const weight = money(g.weight);
  return {
    title: text(g.name) ?? item.name,
    sku: skuOf(item),
    barcode: text(g.ean) ?? item.ean,
    price: specialPrice ?? regular,
    compareAtPrice: specialPrice ? regular : null,
    weight: weight === null ? null : { value: Number(g.weight), unit: 'KILOGRAMS' },
  };
}
