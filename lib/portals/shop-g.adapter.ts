import { HttpPortalAdapter, pictures, portalInputError, str } from './portal-http';
import type { ListingItem } from './portal.type';

/** The first shop system (Stock_shop_g_type). */
export class ShopGAdapter extends HttpPortalAdapter {
  readonly portal = 'shop_g' as const;
  override readonly uploadActions = ['list'] as const;
  override readonly cia = { namedAccounts: false };
  override readonly categories = 'own' as const;

  protected mapListing(item: ListingItem): Record<string, unknown> {
    const g = item.group;
    return {
      model: item.sku ?? String(item.stockId),
      name: item.name,
      price: str(g, 'price', item.price),
      rrp: str(g, 'rrp'),
      tax_class: str(g, 'tax_class'),
      ean: str(g, 'ean', item.ean),
      quantity: item.quantityAvailable,
      min_order_quantity: g.min_order_quantity ?? null,
      available: g.is_available !== false,
      images: pictures(g),
    };
  }

  protected override checkLimits(p: Record<string, unknown>): void {
    if (!p.name) throw portalInputError(this.portal, 'a name is required');
    if ((p.images as string[]).length > 12) throw portalInputError(this.portal, 'at most 12 pictures');
  }
}
