import { HttpPortalAdapter, portalInputError, str } from './portal-http';
import type { ListingItem } from './portal.type';

/** The second shop system (Stock_shop_h_type). */
export class ShopHAdapter extends HttpPortalAdapter {
  readonly portal = 'shop_h' as const;
  // No portal_upload entry, no cia group, no categories: the defaults of HttpPortalAdapter.

  protected mapListing(item: ListingItem): Record<string, unknown> {
    const g = item.group;
    return {
      ean: str(g, 'ean', item.ean),
      price: str(g, 'price', item.price),
      tax: str(g, 'tax'),
      delivery_time: str(g, 'delivery_time'),
      quantity: item.quantityAvailable,
      active: g.is_active !== false,
    };
  }

  protected override checkLimits(p: Record<string, unknown>): void {
    if (!p.ean) throw portalInputError(this.portal, 'an EAN is required');
    if (!p.price) throw portalInputError(this.portal, 'a price is required');
  }
}
